// `vlag kernel record --state` and `vlag kernel check --state`: the kernel's own EEVDF state
// captured with BPF and checked decision by decision (SPEC.md §6.4). The options join the
// `kernel record` and `kernel check` subcommands that cli/kernel_command.cpp defines; with
// --state given, the state path runs instead of theirs.
#pragma once

#include <CLI/CLI.hpp>

namespace vlag::cli {

/// Adds --state and its options to `vlag kernel record` and `vlag kernel check` (build_app calls
/// it after add_kernel_command).
void add_kernel_state_options(CLI::App& app, int& exit_code);

}  // namespace vlag::cli
