// Each vlag subcommand registers itself on the CLI11 app and runs from the parsed options.
// Exit codes: 0 success / all held, 1 a violation, 2 bad input or usage.
#pragma once

#include <CLI/CLI.hpp>

namespace vlag::cli {

/// `vlag demo`: the built-in default workload on the reference runqueue.
void add_demo_command(CLI::App& app, int& exit_code);

/// `vlag sim`: a workload on the multi-CPU simulator.
void add_sim_command(CLI::App& app, int& exit_code);

/// `vlag compare`: a grid of scenarios on several seeds, tables, summary, JSON, plots.
void add_compare_command(CLI::App& app, int& exit_code);

/// `vlag check TRACE...`: the trace checker (checker/).
void add_check_command(CLI::App& app, int& exit_code);

/// `vlag kernel snapshot`: checks on /sys/kernel/debug/sched/debug snapshots.
void add_kernel_command(CLI::App& app, int& exit_code);

/// `vlag prove`: BMC and k-induction of an invariant (exit 3: unknown or timeout).
void add_prove_command(CLI::App& app, int& exit_code);

/// `vlag trace export`: a trace as Chrome JSON trace events (exit 0, or 2 on bad input).
void add_trace_command(CLI::App& app);

/// `vlag help [SUBCOMMAND...]`: what `vlag [SUBCOMMAND...] --help` prints.
void add_help_command(CLI::App& app);

}  // namespace vlag::cli
