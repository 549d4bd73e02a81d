// The vlag command line as one CLI11 tree: every subcommand with its options and help. main.cpp
// parses with it; the documentation generator (cli/docs_main.cpp) walks the same tree to write the
// man pages and the bash completion, so they cannot say other than --help does.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace vlag::cli {

/// Adds every subcommand to `app`; a subcommand's callback sets `exit_code`.
void build_app(CLI::App& app, int& exit_code);

/// The root app's description, shared by --help and the man page.
const char* app_description();

/// "vlag trace export": the names from the root down to `sub`.
std::string command_name(const CLI::App& sub);

/// The deepest subcommand that parsing reached (the root when none), for "see vlag sim --help".
const CLI::App& parsed_command(const CLI::App& root);

/// The help text of `sub` as `vlag ... sub --help` prints it (its usage line names the whole
/// chain of commands).
std::string help_text(const CLI::App& sub);

}  // namespace vlag::cli
