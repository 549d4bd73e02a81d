#include "kernel/bpf/state_decode.h"

#include <cstring>
#include <string>

#include "kernel/bpf/state_record.h"

namespace vlag::kernel::bpf {
namespace {

[[noreturn]] void malformed(const std::string& what, size_t size) {
  throw CaptureError(CaptureErrorKind::System, "bpf record of " + std::to_string(size) +
                                                   " bytes: " + what +
                                                   " (program and decoder out of step?)");
}

template <typename T>
T read_at(const unsigned char* bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof value);
  return value;
}

RecordKind kind_of(uint32_t kind, size_t size) {
  switch (kind) {
    case VLAG_BPF_SWITCH:
      return RecordKind::Switch;
    case VLAG_BPF_WAKEUP:
      return RecordKind::Wakeup;
    case VLAG_BPF_WAKEUP_NEW:
      return RecordKind::WakeupNew;
    case VLAG_BPF_MIGRATE:
      return RecordKind::Migrate;
    case VLAG_BPF_RUNTIME:
      return RecordKind::Runtime;
    case VLAG_BPF_EXIT:
      return RecordKind::Exit;
    case VLAG_BPF_SETATTR:
      return RecordKind::SetAttr;
  }
  malformed("unknown kind " + std::to_string(kind), size);
}

void decode_entity(const vlag_bpf_entity& r, QueuedEntity& e) {
  e.id = r.se;
  e.pid = r.pid;
  e.vruntime = r.vruntime;
  e.deadline = r.deadline;
  e.weight = r.weight;
  e.slice = r.slice;
  e.vlag = static_cast<int64_t>(r.vlag);
  e.on_rq = r.flags & VLAG_BPF_ON_RQ;
  e.sched_delayed = r.flags & VLAG_BPF_DELAYED;
  e.rel_deadline = r.flags & VLAG_BPF_REL_DEADLINE;
  e.custom_slice = r.flags & VLAG_BPF_CUSTOM_SLICE;
  e.is_group = r.flags & VLAG_BPF_GROUP;
}

void decode_level(const vlag_bpf_level& l, EntityState& e) {
  decode_entity(l.e, e);
  e.vprot = l.vprot;
  e.sum_exec_runtime = l.sum_exec_runtime;
  e.min_slice = l.min_slice;
  e.cfs_rq.id = l.cfs_rq;
  e.cfs_rq.zero_vruntime = l.zero_vruntime;
  e.cfs_rq.sum_w_vruntime = l.sum_w_vruntime;
  e.cfs_rq.sum_weight = l.sum_weight;
  e.cfs_rq.load_weight = l.cfs_load;
  e.cfs_rq.curr = l.curr;
  e.cfs_rq.next = l.next;
  e.cfs_rq.nr_queued = l.nr_queued;
  e.cfs_rq.h_nr_queued = l.h_nr_queued;
}

QueueSnapshot decode_queue(const unsigned char* bytes, size_t size, const vlag_bpf_header& h) {
  if (h.nlevels > VLAG_BPF_MAX_QUEUE ||
      size != sizeof h + size_t{h.nlevels} * sizeof(vlag_bpf_entity))
    malformed("queue record with " + std::to_string(h.nlevels) + " entities", size);
  QueueSnapshot q;
  q.cfs_rq = h.arg;
  q.level = static_cast<int>(h.arg2);
  q.nr_queued = h.queue_nr;
  q.truncated = h.truncated;
  q.entities.resize(h.nlevels);
  for (size_t i = 0; i < h.nlevels; ++i)
    decode_entity(read_at<vlag_bpf_entity>(bytes, sizeof h + i * sizeof(vlag_bpf_entity)),
                  q.entities[i]);
  return q;
}

}  // namespace

bool RecordDecoder::decode(const void* data, size_t size, StateRecord& out) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (size < sizeof(vlag_bpf_header)) malformed("shorter than its header", size);
  const auto h = read_at<vlag_bpf_header>(bytes, 0);
  if (h.kind == VLAG_BPF_QUEUE) {
    Pending& p = pending_[static_cast<int>(h.probe_cpu)];
    if (p.time_ns != h.time_ns) p = Pending{h.time_ns, {}};
    p.queues.push_back(decode_queue(bytes, size, h));
    return false;
  }
  out.kind = kind_of(h.kind, size);
  const size_t tasks_at = sizeof h;
  const size_t levels_at = tasks_at + size_t{h.ntasks} * sizeof(vlag_bpf_task);
  if (h.ntasks == 0 || h.ntasks > 2 || size < levels_at)
    malformed(std::to_string(h.ntasks) + " tasks", size);
  // The blocks after the levels (state_record.h), task by task: its curr entities, then its
  // waking state.
  size_t tail_bytes = 0;
  for (size_t i = 0; i < h.ntasks; ++i) {
    const auto t = read_at<vlag_bpf_task>(bytes, tasks_at + i * sizeof(vlag_bpf_task));
    if (t.flags & VLAG_BPF_TASK_CURRS) tail_bytes += size_t{t.nlevels} * sizeof(vlag_bpf_entity);
    if (t.flags & VLAG_BPF_TASK_WAKING) tail_bytes += sizeof(vlag_bpf_waking);
  }
  size_t tail_at = levels_at + size_t{h.nlevels} * sizeof(vlag_bpf_level);
  if (size != tail_at + tail_bytes)
    malformed(std::to_string(h.ntasks) + " tasks and " + std::to_string(h.nlevels) + " levels",
              size);
  out.time_ns = h.time_ns;
  out.cpu = static_cast<int32_t>(h.cpu);
  out.probe_cpu = static_cast<int32_t>(h.probe_cpu);
  out.rq_clock = h.rq_clock;
  out.rq_clock_task = h.rq_clock_task;
  out.rq_nr_running = h.rq_nr_running;
  out.preempt = out.kind == RecordKind::Switch && h.arg2 != 0;
  out.prev_state = out.kind == RecordKind::Switch ? static_cast<uint32_t>(h.arg) : 0;
  out.dest_cpu = out.kind == RecordKind::Migrate ? static_cast<int32_t>(h.arg) : -1;
  out.runtime_ns = out.kind == RecordKind::Runtime ? h.arg : 0;
  out.syscall = out.kind == RecordKind::SetAttr ? static_cast<int64_t>(h.arg) : -1;
  out.syscall_ret = out.kind == RecordKind::SetAttr ? h.arg2 : 0;
  out.target_pid = out.kind == RecordKind::SetAttr ? h.target_pid : 0;
  out.tasks.resize(h.ntasks);
  for (size_t i = 0; i < h.ntasks; ++i) {
    const auto t = read_at<vlag_bpf_task>(bytes, tasks_at + i * sizeof(vlag_bpf_task));
    TaskState& task = out.tasks[i];
    task.pid = t.pid;
    task.tgid = t.tgid;
    task.comm.assign(t.comm, strnlen(t.comm, sizeof t.comm));
    task.prio = t.prio;
    task.policy = t.policy;
    task.task_cpu = static_cast<int32_t>(t.task_cpu);
    task.state = t.state;
    task.on_rq = static_cast<int32_t>(t.on_rq);
    task.fair = t.flags & VLAG_BPF_TASK_FAIR;
    task.chain_truncated = t.flags & VLAG_BPF_TASK_TRUNCATED;
    if (size_t{t.first_level} + t.nlevels > h.nlevels)
      malformed("task " + std::to_string(t.pid) + " levels past the record's", size);
    task.chain.resize(t.nlevels);
    task.shared_from = t.shared_from;
    for (size_t j = 0; j < t.nlevels; ++j)
      decode_level(
          read_at<vlag_bpf_level>(bytes, levels_at + (t.first_level + j) * sizeof(vlag_bpf_level)),
          task.chain[j]);
    task.level_curr.clear();
    if (t.flags & VLAG_BPF_TASK_CURRS) {
      task.level_curr.resize(t.nlevels);
      for (size_t j = 0; j < t.nlevels; ++j, tail_at += sizeof(vlag_bpf_entity))
        decode_entity(read_at<vlag_bpf_entity>(bytes, tail_at), task.level_curr[j]);
    }
    task.waking.reset();
    if (t.flags & VLAG_BPF_TASK_WAKING) {
      const auto w = read_at<vlag_bpf_waking>(bytes, tail_at);
      tail_at += sizeof w;
      task.waking.emplace();
      task.waking->time_ns = w.time_ns;
      decode_entity(w.e, task.waking->entity);
    }
  }
  // Next's chain goes on as prev's where they meet.
  if (h.ntasks == 2 && out.tasks[1].shared_from != VLAG_BPF_NOT_SHARED) {
    const auto& prev = out.tasks[0].chain;
    auto& next = out.tasks[1].chain;
    if (out.tasks[1].shared_from >= prev.size())
      malformed("next shares level " + std::to_string(out.tasks[1].shared_from) +
                    " of a chain of " + std::to_string(prev.size()),
                size);
    next.insert(next.end(), prev.begin() + out.tasks[1].shared_from, prev.end());
  }
  out.queues.clear();
  out.queues_complete = true;
  if (out.kind == RecordKind::Switch && h.nqueues > 0) {
    const auto it = pending_.find(out.probe_cpu);
    if (it != pending_.end() && it->second.time_ns == h.time_ns)
      out.queues = std::move(it->second.queues);
    if (it != pending_.end()) pending_.erase(it);
    out.queues_complete = out.queues.size() == h.nqueues;
  }
  return true;
}

}  // namespace vlag::kernel::bpf
