// The model's replay of the kernel's run deltas, a figure: a task's runtime record shows its
// vruntime and deadline before update_curr() applies the delta, so they must be what the model
// made of its previous record — the pick that made it curr, or the last delta replayed
// (v += calc_delta_fair(δ), then update_deadline()) — unless something changed them that no
// tracepoint shows (a re-placement by sched_setaffinity or a renice of the running task, a move
// to another task group). A difference says where the model and the kernel part; it is never a
// violation by itself.
#include <fmt/format.h>

#include "kernel/state/check_context.h"

namespace vlag::kernel::state {

void judge_replay(CheckContext& c, const bpf::StateRecord& r) {
  const bpf::TaskState& t = r.tasks[0];
  if (!t.fair || t.chain.empty()) return;
  const bpf::EntityState& e = t.chain[0];
  const EntityView* v = c.model.entity(e.id);
  if (!v || !v->curr || v->clock_task == 0 || !c.model.stale(*v).empty()) return;
  Figures& f = c.report.figures;
  if (v->last.cfs_rq.id != e.cfs_rq.id) {
    ++f.replays_moved;  // a cgroup or autogroup move (setsid, exit), which no tracepoint shows
  } else if (v->last.vruntime == e.vruntime && v->last.deadline == e.deadline) {
    ++f.replays_matched;
  } else if (++f.replays_differed <= Figures::kMaxExamples) {
    f.replay_examples.push_back(fmt::format(
        "{}.{:09} s: {}:{} v {} d {}, the model has v {} d {} ({})", r.time_ns / 1'000'000'000,
        r.time_ns % 1'000'000'000, t.comm, t.pid, e.vruntime, e.deadline, v->last.vruntime,
        v->last.deadline, v->advanced ? "after replaying a delta" : "as picked"));
  }
}

}  // namespace vlag::kernel::state
