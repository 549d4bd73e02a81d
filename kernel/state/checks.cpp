#include "kernel/state/checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "kernel/kernel_release.h"
#include "kernel/state/check_context.h"
#include "kernel/state/share_check.h"
#include "spec/properties.h"

namespace vlag::kernel::state {
namespace {

// The IDs a capture of the kernel's own state is judged on, in the report's order.
constexpr const char* kReportIds[] = {
    ids::kInvPickEligible,  ids::kInvPickEdf,  ids::kInvKernelSums, ids::kInvPlaceLag,
    ids::kInvDeadline,      ids::kInvLagClamp, ids::kInvDelay,      ids::kInvS64Margin,
    ids::kThmLagBoundLinux, ids::kThmShare,
};

// Witnesses added while record `index` was judged are about it.
void stamp_witnesses(StateReport& report, std::vector<size_t>& stamped, size_t index) {
  stamped.resize(report.tallies.size(), 0);
  for (size_t t = 0; t < report.tallies.size(); ++t) {
    auto& witnesses = report.tallies[t].second.witnesses;
    for (; stamped[t] < witnesses.size(); ++stamped[t]) witnesses[stamped[t]].record = index;
  }
}

}  // namespace

KernelSetup::KernelSetup(const std::optional<bpf::KernelParameters>& kernel) {
  if (!kernel) {
    unknown_why = "the capture carries no kernel parameters (HZ, base slice, features)";
    return;
  }
  if (kernel->hz < 100 || kernel->hz > 1000) {
    unknown_why = "the capture does not know the kernel's HZ";
    return;
  }
  const std::optional<std::string> release =
      kernel->release.empty() ? std::nullopt : std::optional(kernel->release);
  const KernelPreset chosen = kernel_preset(release, "the capture");
  Preset preset = preset_by_name(chosen.name);
  preset_source = chosen.source;
  for (const auto& f : kernel->features)
    for (size_t i = 0; i < kFeatureCount; ++i)
      if (feature_name(static_cast<Feature>(i)) == f.name)
        preset.set(static_cast<Feature>(i), f.enabled);
  params = make_params(preset, kernel->hz, std::clamp(kernel->possible_cpus, 1, 4096));
  hz = kernel->hz;
  base_slice_ns = kernel->base_slice_ns;
  lag_clamp_max_slice = kernel->layout.max_slice;
  known = base_slice_ns > 0;
  if (!known) unknown_why = "the capture does not know the kernel's base slice";
}

std::string hex(uint64_t id) { return fmt::format("{:#x}", id); }

std::string entity_line(const bpf::QueuedEntity& e, std::string_view role) {
  std::string flags;
  const auto add = [&](bool on, const char* name) {
    if (on) flags += (flags.empty() ? "" : ",") + std::string(name);
  };
  add(e.on_rq, "on_rq");
  add(e.sched_delayed, "delayed");
  add(e.rel_deadline, "rel_deadline");
  add(e.custom_slice, "custom_slice");
  const std::string who = e.is_group ? "group entity" : "pid " + std::to_string(e.pid);
  return fmt::format("{}: {} se={} v={} d={} w={} slice={} vlag={} [{}]", role, who, hex(e.id),
                     e.vruntime, e.deadline, e.weight, e.slice, e.vlag, flags);
}

std::string cfs_rq_line(const bpf::CfsRqState& c) {
  return fmt::format(
      "cfs_rq {}: zero_vruntime={} sum_w_vruntime={} sum_weight={} load={} nr_queued={} curr={} "
      "next={}",
      hex(c.id), c.zero_vruntime, c.sum_w_vruntime, c.sum_weight, c.load_weight, c.nr_queued,
      hex(c.curr), hex(c.next));
}

Witness witness_at(const bpf::StateRecord& r) {
  Witness w;
  w.time_ns = r.time_ns;
  w.cpu = StateModel::rq_of(r);
  std::string tasks;
  for (const auto& t : r.tasks)
    tasks += (tasks.empty() ? "" : " -> ") + t.comm + ":" + std::to_string(t.pid);
  w.lines.push_back(fmt::format("{} record at {}.{:09} s on cpu{}: {}", bpf::kind_name(r.kind),
                                r.time_ns / 1'000'000'000, r.time_ns % 1'000'000'000, w.cpu,
                                tasks));
  return w;
}

const bpf::QueueSnapshot* snapshot_at(const bpf::StateRecord& r, size_t level) {
  if (r.tasks.size() < 2 || level >= r.tasks[1].chain.size()) return nullptr;
  for (const auto& q : r.queues)
    if (static_cast<size_t>(q.level) == level && q.cfs_rq == r.tasks[1].chain[level].cfs_rq.id)
      return &q;
  return nullptr;
}

std::string snapshot_missing(const bpf::StateRecord& r, const bpf::QueueSnapshot* q) {
  if (q) return q->truncated ? "the tree held more entities than a queue snapshot keeps" : "";
  return r.queues_complete ? "no queue snapshot (captured without queue snapshots)"
                           : "the queue snapshot was lost";
}

Tally& StateReport::tally(const char* id) {
  for (auto& [name, t] : tallies)
    if (std::strcmp(name, id) == 0) return t;
  return tallies.emplace_back(id, Tally{}).second;
}

const Tally* StateReport::find(const char* id) const {
  for (const auto& [name, t] : tallies)
    if (std::strcmp(name, id) == 0) return &t;
  return nullptr;
}

uint64_t StateReport::violations() const {
  uint64_t n = 0;
  for (const auto& [id, t] : tallies) n += t.violated;
  return n;
}

uint64_t StateReport::inconclusive() const {
  uint64_t n = 0;
  for (const auto& [id, t] : tallies) n += t.inconclusive;
  return n;
}

int StateReport::exit_code(bool strict) const {
  const Verdict worst = violations()     ? Verdict::Violated
                        : inconclusive() ? Verdict::Inconclusive
                                         : Verdict::Held;
  return verdict_exit_code(worst, strict);
}

StateReport check_state_capture(const StateCapture& capture) {
  StateReport report;
  report.source = capture.source;
  for (const char* id : kReportIds) report.tally(id);
  const KernelSetup kernel(capture.kernel);
  if (!kernel.known) report.notes.push_back(kernel.unknown_why);
  if (!capture.facts.lost_per_cpu)
    report.notes.push_back(
        "the capture does not say whether records were lost: checks that relate records to "
        "earlier ones are inconclusive");
  else if (std::any_of(capture.facts.lost_per_cpu->begin(), capture.facts.lost_per_cpu->end(),
                       [](uint64_t n) { return n > 0; }))
    report.notes.push_back(
        "records were lost: on those CPUs checks that relate records to earlier ones are "
        "inconclusive");
  StateModel model(capture.facts, capture.kernel);
  SteadySystems steady;
  CheckContext c{kernel, model, report, steady};
  std::vector<size_t> stamped;
  std::optional<DecisionReplay> replay;
  if (kernel.known) {
    Params params = kernel.params;
    params.base_slice_override_ns = static_cast<int64_t>(kernel.base_slice_ns);
    replay.emplace(params, capture.kernel->layout.vprot, kernel.lag_clamp_max_slice);
  } else {
    report.replay_unavailable = kernel.unknown_why;
  }
  std::optional<ShareCheck> share;  // its bounds need HZ and the slices
  if (kernel.known) share.emplace(kernel, capture.facts);
  for (size_t i = 0; i < capture.records.size(); ++i) {
    const bpf::StateRecord& r = capture.records[i];
    model.begin(r, i);
    steady.take(r, model);
    ++report.figures.records;
    if (r.kind == bpf::RecordKind::Switch) {
      ++report.figures.switches;
      judge_picks(c, r);
      judge_lag_bound(c, r);
      judge_switch_out(c, r);
    }
    if (r.kind == bpf::RecordKind::Wakeup || r.kind == bpf::RecordKind::WakeupNew)
      judge_placement(c, r);
    if (r.kind == bpf::RecordKind::Runtime) judge_replay(c, r);
    judge_deadlines(c, r);
    if (replay) replay->feed(r, i, model);
    if (share) share->feed(r, i, model);
    model.apply(r, i);
    stamp_witnesses(report, stamped, i);
  }
  if (share) share->finish(capture, report);
  report.figures.gaps = model.gaps();
  if (replay) report.replay = std::move(replay->result());
  return report;
}

}  // namespace vlag::kernel::state
