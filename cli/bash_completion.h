// The bash completion of vlag, generated from the CLI11 tree (cli/docs_main.cpp writes it at build
// time): the subcommands at each level, each command's options, the choices of an option that
// has them (CLI11's IsMember, "{prev,idle,sis-short}"), directories after an option named
// --X-dir, nothing after a number, file names otherwise.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace vlag::cli {

/// A bash script that defines _vlag and registers it: `complete -F _vlag vlag`.
std::string bash_completion(const CLI::App& root);

}  // namespace vlag::cli
