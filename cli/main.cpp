// vlag: one binary, one subcommand per job. This file only parses arguments and maps errors to
// exit codes; the work lives in the libraries.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "spec/error.h"

int main(int argc, char** argv) {
  CLI::App app{"vlag: a model checker and reference implementation of the Linux EEVDF scheduler"};
  app.set_version_flag("--version", std::string("vlag ") + VLAG_VERSION);
  app.require_subcommand(1);
  int exit_code = 0;
  vlag::cli::add_demo_command(app, exit_code);
  vlag::cli::add_sim_command(app, exit_code);
  vlag::cli::add_compare_command(app, exit_code);
  vlag::cli::add_check_command(app, exit_code);
  vlag::cli::add_kernel_command(app, exit_code);
  vlag::cli::add_prove_command(app, exit_code);
  vlag::cli::add_trace_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "vlag: " << e.what() << " (see vlag --help)\n";
    return 2;
  } catch (const vlag::Error& e) {
    std::cerr << "vlag: " << e.what() << "\n";
    return 2;
  }
  return exit_code;
}
