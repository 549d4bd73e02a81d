// `vlag prove`: parses options, runs prove::run, prints the verdict (text or --json), writes a
// counterexample's trace. Exit: 0 proved/held, 1 counterexample, 3 unknown/timeout, 2 usage.
#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

#include "cli/commands.h"
#include "cli/prove_report.h"
#include "prove/replay.h"
#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_sigint(int) { g_stop = true; }

struct ProveArgs {
  std::string preset{kDefaultPreset};
  std::string features;
  std::string arith = "exact";
  std::string weights = "1024,3121";
  std::string slices = "0";
  std::string groups;
  std::string group_weights = "1024";
  std::string mutation = "none";
  std::string trace;
  int hz = 250;
  bool json = false;
  bool no_induction = false;
  bool list = false;
  bool list_presets = false;
  prove::Options o;
};

std::vector<int64_t> parse_list(const std::string& text, const char* what) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    try {
      size_t used = 0;
      out.push_back(std::stoll(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw Error(fmt::format("prove: {} '{}' is not a list of integers", what, text));
    }
    pos = end + 1;
  }
  return out;
}

prove::Options build(ProveArgs& a) {
  prove::Options o = a.o;
  Preset p = preset_by_name(a.preset);
  apply_feature_overrides(p, a.features);
  o.params = make_params(p, a.hz);
  const auto arith = arith_by_name(a.arith);
  if (!arith) throw Error("prove: --arith must be exact or linux64");
  o.arith = *arith;
  o.weights = parse_list(a.weights, "--weights");
  for (int64_t w : o.weights) validate_weight(w);
  o.slices = parse_list(a.slices, "--slices");
  for (int64_t r : o.slices) validate_slice(r);
  if (!a.groups.empty()) {
    o.groups.clear();
    o.tasks = 0;
    for (int64_t n : parse_list(a.groups, "--groups")) {
      if (n < 1 || n > 3) throw Error("prove: each group of --groups holds 1..3 tasks");
      o.groups.push_back(static_cast<int>(n));
      o.tasks += static_cast<int>(n);
    }
    o.group_weights = parse_list(a.group_weights, "--group-weights");
    for (int64_t w : o.group_weights) validate_weight(w);  // MIN_SHARES..MAX_SHARES
  }
  if (a.mutation == "none")
    o.mutation = prove::Mutation::None;
  else if (a.mutation == "no-inflation")
    o.mutation = prove::Mutation::NoInflation;
  else if (a.mutation == "no-leave-rule")
    o.mutation = prove::Mutation::NoLeaveRule;
  else if (a.mutation == "no-eligibility")
    o.mutation = prove::Mutation::NoEligibility;
  else if (a.mutation == "no-group-dequeue")
    o.mutation = prove::Mutation::NoGroupDequeue;
  else
    throw Error(
        "prove: --mutate must be none, no-inflation, no-leave-rule, no-eligibility or "
        "no-group-dequeue");
  o.induction = !a.no_induction;
  prove::validate(o);
  return o;
}

int run_prove(ProveArgs& a) {
  if (a.list || a.list_presets) {
    fmt::print("{}", a.list ? list_text() : presets_text());
    return 0;
  }
  const prove::Options o = build(a);
  const bool tty = isatty(STDERR_FILENO) && !a.json;
  g_stop = false;
  std::signal(SIGINT, on_sigint);
  const auto progress = [tty](const prove::Progress& p) {
    if (tty)
      fmt::print(stderr, "\r{} depth {}  {:.1f} s  conflicts {}  {:.0f} MB   ", p.phase, p.depth,
                 p.seconds, p.conflicts, p.memory_mb);
  };
  const prove::Result r = prove::run(o, progress, &g_stop);
  std::signal(SIGINT, SIG_DFL);
  if (tty) fmt::print(stderr, "\r{:70}\r", "");
  std::string trace_file;
  if (r.cex) {
    trace_file = a.trace.empty() ? default_trace_name(o) : a.trace;
    std::ofstream out(trace_file);
    if (!out) throw Error("prove: cannot write " + trace_file);
    prove::write_trace(o, r.cex->ops, out);
  }
  fmt::print("{}", a.json ? json_report(o, r, trace_file) : text_report(o, r, trace_file));
  return exit_code(r);
}

}  // namespace

void add_prove_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ProveArgs>();
  CLI::App* cmd = app.add_subcommand(
      "prove", "Bounded model checking and k-induction of a SPEC.md invariant with Z3");
  cmd->add_option("--tasks", a->o.tasks, "Number of entities N")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->capture_default_str();
  cmd->add_option("--depth", a->o.depth, "Steps K (BMC depth, largest k of induction)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->capture_default_str();
  cmd->add_option("--invariant", a->o.invariant, "SPEC.md section 6 ID (--list shows them)")
      ->capture_default_str();
  cmd->add_option("--preset", a->preset, preset_help())->capture_default_str();
  cmd->add_option("--features", a->features, "Feature overrides: NAME,-NAME,...");
  cmd->add_option("--hz", a->hz, "Timer tick frequency")->capture_default_str();
  cmd->add_option("--arith", a->arith, "exact or linux64")->capture_default_str();
  cmd->add_option("--weights", a->weights, "Weights an entity may have or be given")
      ->capture_default_str();
  cmd->add_option("--slices", a->slices, "Slices an entity may have (0: base slice)")
      ->capture_default_str();
  cmd->add_option("--groups", a->groups,
                  "A hierarchy on one CPU: tasks per group, e.g. 1,2 (--tasks is their sum)");
  cmd->add_option("--group-weights", a->group_weights,
                  "Shares a group may have or be given by a cpu.weight write (--groups)")
      ->capture_default_str();
  cmd->add_option("--max-delta", a->o.max_delta_ns, "Largest run delta in ns (0: one tick)");
  cmd->add_option("--timeout", a->o.timeout_s, "Seconds (0: none)");
  cmd->add_option("--trace", a->trace, "Where to write a counterexample trace");
  cmd->add_option("--mutate", a->mutation,
                  "Break the model on purpose: none, no-inflation, no-leave-rule, no-eligibility, "
                  "no-group-dequeue")
      ->capture_default_str();
  cmd->add_flag("--no-induction", a->no_induction, "BMC only");
  cmd->add_flag("--json", a->json, "Machine-readable result");
  cmd->add_flag("--list", a->list,
                "List the IDs it supports: driver, induction, arithmetics, presets promising them");
  cmd->add_flag("--list-presets", a->list_presets, "List the presets: name, family, description");
  cmd->callback([a, &exit_code] { exit_code = run_prove(*a); });
}

}  // namespace vlag::cli
