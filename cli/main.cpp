// vlag: one binary, one subcommand per job. This file only parses arguments and maps errors to
// exit codes; the command line is cli/app.h's, the work lives in the libraries. Every error
// exits 2 with a message on standard error; under --json the same error is also a JSON report
// on standard output (cli/json_envelope.h), so a caller reading stdout always gets one object.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "cli/app.h"
#include "cli/json_envelope.h"
#include "spec/error.h"

namespace {

// --json among the arguments before a "--" (after it they are a command's, kernel record's).
bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") return false;
    if (a == "--json") return true;
  }
  return false;
}

// "kernel check": the parsed command's names below the root.
std::string command_of(const CLI::App& app) {
  const std::string name = vlag::cli::command_name(vlag::cli::parsed_command(app));
  const size_t space = name.find(' ');
  return space == std::string::npos ? "" : name.substr(space + 1);
}

int fail(const CLI::App& app, bool json, const std::exception& e, const std::string& hint = "") {
  std::cerr << "vlag: " << e.what() << hint << "\n";
  if (json) std::cout << vlag::cli::error_json(command_of(app), e) << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"", "vlag"};
  int exit_code = 0;
  vlag::cli::build_app(app, exit_code);
  const bool json = wants_json(argc, argv);
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
    return fail(app, json, e,
                " (see " + vlag::cli::command_name(vlag::cli::parsed_command(app)) + " --help)");
  } catch (const vlag::Error& e) {
    return fail(app, json, e);
  } catch (const std::filesystem::filesystem_error& e) {
    return fail(app, json, e);  // a path vlag could not read or write: bad input, not a crash
  } catch (const std::ios_base::failure& e) {
    return fail(app, json, e);
  }
  return exit_code;
}
