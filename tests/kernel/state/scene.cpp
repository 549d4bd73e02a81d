#include "tests/kernel/state/scene.h"

namespace vlag::kernel::state::testing {

bpf::EntityState& Scene::add(int32_t pid, uint64_t v, uint64_t d, uint64_t weight, uint64_t slice) {
  bpf::EntityState e;
  e.id = 0x100 + static_cast<uint64_t>(pid);
  e.pid = pid;
  e.vruntime = v;
  e.deadline = d;
  e.weight = weight;
  e.slice = slice;
  e.on_rq = true;
  return entities_[pid] = e;
}

bpf::CfsRqState Scene::cfs_rq() const {
  bpf::CfsRqState q;
  q.id = kRootRq;
  q.zero_vruntime = v0_;
  for (const auto& [pid, e] : entities_) {
    if (!e.on_rq) continue;
    ++q.nr_queued;
    q.load_weight += e.weight;
    if (pid == curr_) continue;
    q.sum_weight += scale_down(e.weight);
    q.sum_w_vruntime += key_of(e.vruntime, v0_) * static_cast<int64_t>(scale_down(e.weight));
  }
  q.curr = curr_ >= 0 ? entities_.at(curr_).id : 0;
  return q;
}

bpf::TaskState Scene::task(int32_t pid) const {
  bpf::TaskState t;
  t.pid = pid;
  t.tgid = pid;
  t.comm = "task" + std::to_string(pid);
  t.prio = 120;
  t.fair = true;
  t.on_rq = entities_.at(pid).on_rq ? 1 : 0;
  t.task_cpu = 1;
  bpf::EntityState e = entities_.at(pid);
  e.cfs_rq = cfs_rq();
  t.chain = {e};
  return t;
}

bpf::StateRecord Scene::switch_record(int32_t prev, int32_t next, uint64_t time_ns) {
  curr_ = next;
  bpf::StateRecord r;
  r.kind = bpf::RecordKind::Switch;
  r.time_ns = time_ns;
  r.cpu = r.probe_cpu = 1;
  r.rq_clock_task = clock_task;
  r.prev_state = entities_.at(prev).on_rq ? 0 : 1;
  r.tasks = {task(prev), task(next)};
  bpf::QueueSnapshot q;
  q.cfs_rq = kRootRq;
  q.level = 0;
  q.nr_queued = cfs_rq().nr_queued;
  for (const auto& [pid, e] : entities_)
    if (e.on_rq && pid != next) q.entities.push_back(e);
  r.queues = {q};
  return r;
}

bpf::StateRecord Scene::wakeup(int32_t pid, uint64_t time_ns) {
  bpf::StateRecord r;
  r.kind = bpf::RecordKind::Wakeup;
  r.time_ns = time_ns;
  r.cpu = r.probe_cpu = 1;
  r.rq_clock_task = clock_task;
  r.tasks = {task(pid)};
  return r;
}

bpf::StateRecord Scene::runtime(int32_t pid, uint64_t delta, uint64_t time_ns) {
  bpf::StateRecord r;
  r.kind = bpf::RecordKind::Runtime;
  r.time_ns = time_ns;
  r.cpu = r.probe_cpu = 1;
  clock_task += delta;
  r.rq_clock_task = clock_task;
  r.runtime_ns = delta;
  r.tasks = {task(pid)};
  bpf::EntityState& e = entities_.at(pid);  // update_curr() after the tracepoint
  e.vruntime += calc_delta_fair(delta, e.weight, true);
  if (!before(e.vruntime, e.deadline))
    e.deadline = e.vruntime + calc_delta_fair(e.slice, e.weight, true);
  return r;
}

StateCapture capture_of(std::vector<bpf::StateRecord> records) {
  StateCapture c;
  c.source = "scene";
  bpf::KernelParameters k;
  k.release = "6.18.44";
  k.possible_cpus = 2;
  k.hz = 250;
  k.base_slice_ns = kSlice;
  for (const char* f :
       {"PLACE_LAG", "PLACE_DEADLINE_INITIAL", "PLACE_REL_DEADLINE", "RUN_TO_PARITY",
        "PREEMPT_SHORT", "PICK_BUDDY", "DELAY_DEQUEUE", "DELAY_ZERO", "WAKEUP_PREEMPTION"})
    k.features.push_back({f, true});
  k.features.push_back({"NEXT_BUDDY", false});
  k.layout.zero_vruntime = k.layout.sum_names = k.layout.nr_queued = true;
  k.layout.max_slice = true;
  c.kernel = k;
  c.facts.lost_per_cpu = std::vector<uint64_t>{0, 0};
  c.facts.queues = true;
  c.records = std::move(records);
  return c;
}

}  // namespace vlag::kernel::state::testing
