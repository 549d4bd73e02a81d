// `vlag kernel replay CAPTURE`: what the tasks of a real capture did, run on the model, and the
// two side by side (replay/replay.h): shares, wake-to-run p50/p99/max, context switches, the
// first switch where they part; --goal holds the result against docs/fidelity.md's goal.
#include "cli/kernel_replay_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/json_envelope.h"
#include "json/writer.h"
#include "replay/replay.h"

namespace vlag::cli {
namespace {

struct ReplayArgs {
  std::string capture;
  std::vector<int64_t> pids;
  std::vector<std::string> snapshots;
  std::string output;
  int hz = 250;
  int kernel_cpus = 0;
  double base_slice_us = 0;
  double wake_timer_us = static_cast<double>(replay::kDevWakeTimerCostNs) / 1e3;
  double wake_task_us = static_cast<double>(replay::kDevWakeTaskCostNs) / 1e3;
  double wake_idle_us = static_cast<double>(replay::kDevWakeIdleCostNs) / 1e3;
  double tick_us = static_cast<double>(replay::kDevTickCostNs) / 1e3;
  bool open_loop = false;
  std::string preset = "linux-6.18";
  std::string features;
  std::string goal;  // "", "one-cpu" or "two-cpu"
  bool keep_going = false;
  bool json = false;
};

std::string us(int64_t ns) { return fmt::format("{:.1f}", static_cast<double>(ns) / 1e3); }
std::string ms(int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }

std::string name_of(int64_t pid, const replay::ReplayReport& r) {
  if (pid == 0) return "idle";
  if (pid < 0) return "nothing";
  for (const auto& t : r.tasks)
    if (t.task.pid == pid) return t.task.comm + ":" + std::to_string(pid);
  return std::to_string(pid);
}

// "-" where a side has no sample.
std::string lat(const stats::LatencySummary& s, int64_t stats::LatencySummary::*field) {
  return s.count == 0 ? "-" : us(s.*field);
}

void print_text(const replay::ReplayReport& r, const std::vector<replay::Verdict>* verdicts) {
  const replay::Extraction& x = r.capture;
  const Params& p = r.machine.params;
  std::string cpus;
  for (const int c : x.cpus) cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
  size_t others = 0;
  for (const auto& t : r.tasks) others += t.task.workload ? 0 : 1;
  fmt::print("vlag kernel replay: {}\n", x.file);
  fmt::print("capture: {} ms on CPU {}; workload: {} tasks ({}); {} other fair tasks\n",
             ms(x.end_ns), cpus, r.tasks.size() - others, x.workload_source, others);
  fmt::print(
      "model: {} CPU(s), preset {}, HZ {}, base slice {} ms (the kernel counts {} CPUs{}), wake "
      "costs: timer {} us, task {} us, idle {} us, tick {} us; ticks on the capture's (model 0 = "
      "kernel {:.6f} s)\n\n",
      p.ncpus, p.preset.name, p.hz, ms(p.base_slice_ns()), p.factor_cpus(),
      p.base_slice_override_ns ? ", base slice as the snapshot set it" : "",
      us(r.machine.wake_timer_cost_ns), us(r.machine.wake_task_cost_ns),
      us(r.machine.wake_idle_cost_ns), us(r.machine.tick_cost_ns), static_cast<double>(x.t0) / 1e9);
  fmt::print(" {:<22} {:>4} {:>6} {:>4} {:>9} | {:>21} | {:>15} | {:>17} | {:>17} | {:>11}\n",
             "task", "nice", "slice", "work", "wakes t/c", "share %: kernel model", "p50 us: k / m",
             "p99 us: k / m", "max us: k / m", "switches");
  fmt::print(" {:-<148}\n", "");
  for (const auto& t : r.tasks) {
    if (!t.task.workload) continue;
    const auto& k = t.kernel;
    const auto& m = t.model;
    fmt::print(
        " {:<22} {:>4} {:>6} {:>4} {:>4}/{:<4} | {:>7.2f} {:>6.2f} {:>+6.2f} | {:>7} / {:<5} | "
        "{:>8} / "
        "{:<6} | {:>8} / {:<6} | {:>5} / {:<5}\n",
        t.task.comm + ":" + std::to_string(t.task.pid),
        t.task.nice == t.task.final_nice ? std::to_string(t.task.nice)
                                         : fmt::format("{}>{}", t.task.nice, t.task.final_nice),
        t.task.slice_ns ? ms(t.task.slice_ns) : "-", t.task.wall ? "wall" : "cpu",
        t.task.timer_sleeps, t.task.task_sleeps, 100 * k.share, 100 * m.share,
        100 * (m.share - k.share), lat(k.wake_to_run, &stats::LatencySummary::p50_ns),
        lat(m.wake_to_run, &stats::LatencySummary::p50_ns),
        lat(k.wake_to_run, &stats::LatencySummary::p99_ns),
        lat(m.wake_to_run, &stats::LatencySummary::p99_ns),
        lat(k.wake_to_run, &stats::LatencySummary::max_ns),
        lat(m.wake_to_run, &stats::LatencySummary::max_ns), k.switches, m.switches);
  }
  const double d = r.kernel_switches
                       ? 100.0 * static_cast<double>(r.model_switches - r.kernel_switches) /
                             static_cast<double>(r.kernel_switches)
                       : 0.0;
  fmt::print("\n workload context switches: kernel {}, model {} ({:+.1f} %)\n", r.kernel_switches,
             r.model_switches, d);
  fmt::print(" other fair tasks' CPU time: kernel {} ms, model {} ms\n", ms(r.kernel_other_ns),
             ms(r.model_other_ns));
  if (x.cpus.size() > 1) {
    const auto per_cpu = [](const std::vector<int64_t>& v) {
      std::string out;
      for (const int64_t ns : v) out += fmt::format("{}{:.1f}", out.empty() ? "" : " / ", ns / 1e6);
      return out;
    };
    fmt::print(" where the workload ran, ms on CPU {}: kernel | model\n", cpus);
    for (const auto& t : r.tasks)
      if (t.task.workload)
        fmt::print("   {:<22} {} | {}\n", t.task.comm + ":" + std::to_string(t.task.pid),
                   per_cpu(t.kernel.runtime_on_cpu_ns), per_cpu(t.model.runtime_on_cpu_ns));
  }
  const replay::Divergence& v = r.divergence;
  if (!v.found) {
    fmt::print(" every context switch agreed ({} of them)\n", v.agreed);
  } else {
    fmt::print(
        " first difference: CPU {} after {} agreeing switches there ({} on all CPUs): at {} ms the "
        "kernel switched {} (prev_state {}) to {}; the model switched to {}{}\n",
        v.cpu, v.index, v.agreed, ms(v.kernel_t), name_of(v.prev_pid, r), v.kernel_prev_state,
        name_of(v.kernel_next, r), name_of(v.model_next, r),
        v.model_t >= 0 ? " at " + ms(v.model_t) + " ms" : "");
    const auto around = [&](const auto& list) {
      std::string out;
      for (const auto& [t, pid] : list)
        out += fmt::format("{}{} ms {}", out.empty() ? "" : ", ", ms(t), name_of(pid, r));
      return out;
    };
    fmt::print("   kernel: {}\n   model:  {}\n", around(v.kernel_around), around(v.model_around));
  }
  for (const std::string& n : x.notes) fmt::print(" note: {}\n", n);
  if (!verdicts) return;
  fmt::print("\n goal: shares within 1 pp; wake-to-run p50{} within 20 % or 50 us{}\n",
             verdicts->empty() || verdicts->back().metric == "switches" ? " and p99" : "",
             verdicts->empty() || verdicts->back().metric == "switches"
                 ? "; context switches within 10 %"
                 : "");
  int missed = 0;
  for (const auto& verdict : *verdicts) {
    if (verdict.within) continue;
    ++missed;
    const bool time = verdict.metric == "p50" || verdict.metric == "p99";
    fmt::print("  MISS {} {}: kernel {}, model {} (allowed ±{})\n", verdict.task, verdict.metric,
               time ? us(static_cast<int64_t>(verdict.kernel)) + " us"
                    : fmt::format("{:.2f}", verdict.kernel),
               time ? us(static_cast<int64_t>(verdict.model)) + " us"
                    : fmt::format("{:.2f}", verdict.model),
               time ? us(static_cast<int64_t>(verdict.allowed)) + " us"
                    : fmt::format("{:.2f}", verdict.allowed));
  }
  fmt::print("  {} of {} figures within the goal\n", verdicts->size() - static_cast<size_t>(missed),
             verdicts->size());
}

json::Object side_json(const replay::SideFigures& s) {
  json::Array on_cpus;
  for (const int64_t ns : s.runtime_on_cpu_ns) on_cpus.add_raw(std::to_string(ns));
  return json::Object()
      .num("runtime_ns", s.runtime_ns)
      .array("runtime_on_cpu_ns", on_cpus)
      .real("share", s.share)
      .num("switches", s.switches)
      .num("wakeups", s.wake_to_run.count)
      .num("wake_to_run_p50_ns", s.wake_to_run.p50_ns)
      .num("wake_to_run_p99_ns", s.wake_to_run.p99_ns)
      .num("wake_to_run_max_ns", s.wake_to_run.max_ns);
}

// With --goal each figure is held (within the goal) or violated (a miss, a finding); without
// it the replay judges nothing.
Envelope replay_envelope(const std::vector<replay::Verdict>* verdicts) {
  Envelope env("kernel replay");
  if (!verdicts) return env;
  for (const auto& x : *verdicts) {
    env.count(x.within ? Verdict::Held : Verdict::Violated);
    if (x.within) continue;
    EnvelopeFinding f =
        envelope_finding("FIDELITY-GOAL", Verdict::Violated, {}, "", 0,
                         fmt::format("{}: kernel {}, model {} (allowed ±{}; docs/fidelity.md)",
                                     x.metric, x.kernel, x.model, x.allowed));
    f.subject = x.task;
    env.add(std::move(f));
  }
  return env;
}

std::string report_json(const replay::ReplayReport& r, const std::vector<replay::Verdict>* verdicts,
                        int exit_code) {
  json::Array tasks, verdict_list;
  for (const auto& t : r.tasks)
    tasks.add(json::Object()
                  .num("pid", t.task.pid)
                  .str("comm", t.task.comm)
                  .boolean("workload", t.task.workload)
                  .num("nice", t.task.nice)
                  .num("final_nice", t.task.final_nice)
                  .num("slice_ns", t.task.slice_ns)
                  .str("group", t.task.group)
                  .str("work", t.task.wall ? "wall" : "cpu")
                  .num("timer_sleeps", t.task.timer_sleeps)
                  .num("task_sleeps", t.task.task_sleeps)
                  .object("kernel", side_json(t.kernel))
                  .object("model", side_json(t.model)));
  const replay::Divergence& v = r.divergence;
  json::Object div;
  div.boolean("found", v.found).num("agreed", v.agreed);
  if (v.found)
    div.num("cpu", v.cpu)
        .num("index", static_cast<int64_t>(v.index))
        .num("kernel_t_ns", v.kernel_t)
        .num("model_t_ns", v.model_t)
        .num("prev_pid", v.prev_pid)
        .str("kernel_prev_state", v.kernel_prev_state)
        .num("kernel_next_pid", v.kernel_next)
        .num("model_next_pid", v.model_next);
  json::Object o;
  o.str("capture", r.capture.file)
      .num("span_ns", r.capture.end_ns)
      .num("cpus", r.machine.params.ncpus)
      .num("kernel_cpus", r.machine.params.factor_cpus())
      .num("base_slice_ns", r.machine.params.base_slice_ns())
      .raw("tasks", tasks.text())
      .num("kernel_switches", r.kernel_switches)
      .num("model_switches", r.model_switches)
      .num("kernel_other_ns", r.kernel_other_ns)
      .num("model_other_ns", r.model_other_ns)
      .object("first_difference", div);
  if (verdicts) {
    for (const auto& x : *verdicts)
      verdict_list.add(json::Object()
                           .str("task", x.task)
                           .str("metric", x.metric)
                           .real("kernel", x.kernel)
                           .real("model", x.model)
                           .real("allowed", x.allowed)
                           .boolean("within", x.within));
    o.raw("goal", verdict_list.text());
  }
  return replay_envelope(verdicts).object(exit_code).append(o).text();
}

int run_replay(const ReplayArgs& a) {
  replay::CaptureFiles files = replay::find_capture(a.capture);
  if (!a.snapshots.empty()) files.snapshots = a.snapshots;
  if (!a.output.empty()) files.workload_output = a.output;
  replay::ReplayOptions o;
  o.extract.pids = a.pids;
  o.extract.open_loop = a.open_loop;
  o.extract.hz = a.hz;
  o.extract.keep_going = a.keep_going;
  o.preset = a.preset;
  o.features = a.features;
  o.kernel_cpus = a.kernel_cpus;
  o.base_slice_ns = std::llround(a.base_slice_us * 1e3);
  o.wake_timer_cost_ns = std::llround(a.wake_timer_us * 1e3);
  o.wake_task_cost_ns = std::llround(a.wake_task_us * 1e3);
  o.wake_idle_cost_ns = std::llround(a.wake_idle_us * 1e3);
  o.tick_cost_ns = std::llround(a.tick_us * 1e3);
  const replay::ReplayReport r = replay::replay_capture(files, o);
  std::vector<replay::Verdict> verdicts;
  if (!a.goal.empty()) {
    replay::FidelityGoal g;
    g.tails = a.goal == "one-cpu";
    verdicts = replay::judge(r, g);
  }
  const auto* v = a.goal.empty() ? nullptr : &verdicts;
  const bool missed =
      std::any_of(verdicts.begin(), verdicts.end(), [](const auto& x) { return !x.within; });
  const int code = missed ? 1 : 0;
  if (a.json)
    fmt::print("{}\n", report_json(r, v, code));
  else
    print_text(r, v);
  return code;
}

}  // namespace

void add_kernel_replay_command(CLI::App& kernel, int& exit_code) {
  auto a = std::make_shared<ReplayArgs>();
  CLI::App* cmd = kernel.add_subcommand(
      "replay",
      "Run what the tasks of a capture did on the model and print model and kernel side by side");
  cmd->add_option("capture", a->capture,
                  "A capture directory (perf.txt, perf.data or trace.dat; sched-debug.N.txt, "
                  "stdout.txt) or a capture file NAME.perf.txt (NAME.perf.data, NAME.trace.dat) "
                  "beside NAME.sched-debug.N.txt and NAME.stdout.txt")
      ->required();
  cmd->add_option("--pids", a->pids, "The workload's tasks (default: from its output)")
      ->delimiter(',');
  cmd->add_option("--snapshot", a->snapshots, "sched debug snapshot(s) instead of the capture's");
  cmd->add_option("--output", a->output, "The workload's output, naming its pids");
  cmd->add_option("--hz", a->hz, "The kernel's CONFIG_HZ")
      ->check(CLI::Range(100, 1000))
      ->capture_default_str();
  cmd->add_option("--kernel-cpus", a->kernel_cpus,
                  "CPUs the kernel counts for the base slice (default: the snapshot's)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--base-slice-us", a->base_slice_us,
                  "The base slice (default: the snapshot's sysctl_sched_base_slice)")
      ->check(CLI::Range(100.0, 100000.0));
  cmd->add_option("--wake-timer-cost-us", a->wake_timer_us,
                  "A timer wakeup that preempts switches this much later")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--wake-task-cost-us", a->wake_task_us,
                  "A task's wakeup that preempts switches this much later")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--wake-idle-cost-us", a->wake_idle_us,
                  "A wakeup onto an idle CPU switches this much later")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_option("--tick-cost-us", a->tick_us, "A tick's switch comes this much after the tick")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cmd->add_flag("--open-loop", a->open_loop,
                "Every wakeup at its recorded time (none tied to the task that caused it)");
  cmd->add_option("--preset", a->preset, "The model's preset")->capture_default_str();
  cmd->add_option("--features", a->features, "Feature overrides: NAME,-NAME,...");
  cmd->add_option("--goal", a->goal,
                  "Judge against docs/fidelity.md's goal (one-cpu: shares, p50, p99, switches; "
                  "two-cpu: shares and p50); exit 1 on a miss")
      ->check(CLI::IsMember({"one-cpu", "two-cpu"}));
  cmd->add_flag("--keep-going", a->keep_going, "Skip and count malformed lines");
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->callback([a, &exit_code] { exit_code = run_replay(*a); });
}

}  // namespace vlag::cli
