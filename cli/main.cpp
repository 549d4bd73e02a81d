// vlag: one binary, one subcommand per job. This file only parses arguments and maps errors to
// exit codes; the command line is cli/app.h's, the work lives in the libraries.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/app.h"
#include "spec/error.h"

int main(int argc, char** argv) {
  CLI::App app{"", "vlag"};
  int exit_code = 0;
  vlag::cli::build_app(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The help of the subcommand being parsed, where the option in question is described.
    std::cerr << "vlag: " << e.what() << " (see "
              << vlag::cli::command_name(vlag::cli::parsed_command(app)) << " --help)\n";
    return 2;
  } catch (const vlag::Error& e) {
    std::cerr << "vlag: " << e.what() << "\n";
    return 2;
  }
  return exit_code;
}
