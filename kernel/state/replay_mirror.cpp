#include "kernel/state/replay_mirror.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kernel/state/arith.h"

namespace vlag::kernel::state {

void Mirror::unsync(std::string reason) {
  synced = false;
  why = std::move(reason);
  curr_clock.reset();
}

Member* Mirror::member(int32_t pid) {
  const auto it = members.find(pid);
  return it == members.end() ? nullptr : &it->second;
}

const Member* Mirror::member_by_se(uint64_t se) const {
  for (const auto& [pid, m] : members)
    if (m.se == se) return &m;
  return nullptr;
}

ModelRunqueue Mirror::model(const Params& params) const {
  ModelRunqueue::Seed seed;
  for (const auto& [pid, m] : members) seed.entities.push_back(m.e);
  // The tree's insertion order as the model last had it: ties in deadline go to the older.
  std::stable_sort(seed.entities.begin(), seed.entities.end(),
                   [](const ModelEntity& a, const ModelEntity& b) { return a.seq < b.seq; });
  seed.curr = curr;
  seed.next = next;
  seed.protection = prot;
  seed.v0 = as_time(v0);
  ModelRunqueue rq(params);
  rq.seed(seed);
  return rq;
}

void Mirror::absorb(const ModelRunqueue& rq) {
  // The model was seeded with the tree stamped 1..n in its order; a seq above n is an insertion
  // one of its operations made, in the order the kernel makes it.
  uint64_t seeded = 0;
  for (const auto& [pid, m] : members) seeded += m.e.status != Status::Sleeping && curr != pid;
  for (const ModelEntity& e : rq.entities())
    if (Member* m = member(static_cast<int32_t>(e.id))) {
      m->e = e;
      if (e.seq > seeded) m->order_known = true;
    }
  curr = rq.curr() ? std::optional<int32_t>(static_cast<int32_t>(*rq.curr())) : std::nullopt;
  next = rq.next_buddy() ? std::optional<int32_t>(static_cast<int32_t>(*rq.next_buddy()))
                         : std::nullopt;
  prot = rq.protection();
}

Member& Mirror::take(int32_t id, const bpf::QueuedEntity& k, const std::string& comm) {
  Member& m = members[id];
  m.se = k.id;
  if (!comm.empty()) m.comm = comm;
  if (m.comm.empty() && k.is_group) m.comm = fmt::format("group {:#x}", k.id);
  ModelEntity& e = m.e;
  // Joining the tree at this record: the newest of equal deadlines (records come in the order
  // the kernel enqueued them).
  const bool joins = (e.id != id || e.status == Status::Sleeping) && k.on_rq;
  if (joins) {
    uint64_t newest = 0;
    for (const auto& [other, x] : members) newest = std::max(newest, x.e.seq);
    e.seq = newest + 1;
    m.order_known = true;
  }
  e.id = id;
  e.weight = static_cast<int64_t>(scale_down(k.weight));
  e.slice = static_cast<int64_t>(k.slice);
  e.custom_slice = k.custom_slice;
  e.vruntime = as_time(k.vruntime);
  e.deadline = as_time(k.deadline);
  e.rel_deadline = k.rel_deadline;
  e.is_new = false;
  e.status = !k.on_rq ? Status::Sleeping : k.sched_delayed ? Status::Delayed : Status::Queued;
  if (!k.on_rq) {
    e.vlag = LinuxTime(k.vlag);
    m.lag_known = true;
  }
  return m;
}

void Mirror::take_cfs_rq(const bpf::CfsRqState& q) {
  v0 = q.zero_vruntime;
  const Member* buddy = q.next ? member_by_se(q.next) : nullptr;
  next = buddy && buddy->e.status == Status::Queued
             ? std::optional<int32_t>(static_cast<int32_t>(buddy->e.id))
             : std::nullopt;
}

std::string Mirror::membership_differs(const bpf::CfsRqState& q) const {
  uint64_t queued = 0, weight = 0;
  for (const auto& [pid, m] : members) {
    if (m.e.status == Status::Sleeping) continue;
    ++queued;
    if (curr != pid) weight += static_cast<uint64_t>(m.e.weight);
  }
  const Member* c = curr ? &members.at(*curr) : nullptr;
  if ((c ? c->se : 0) != q.curr) return "the cfs_rq's curr is not the one the records put in";
  if (queued != q.nr_queued)
    return fmt::format("the cfs_rq holds {} entities, the records account for {}", q.nr_queued,
                       queued);
  if (weight != q.sum_weight)
    return fmt::format("the tree weighs {}, the entities the records put in {}", q.sum_weight,
                       weight);
  return "";
}

std::string Mirror::keys_differ(const bpf::CfsRqState& q) const {
  uint64_t sum = 0;  // s64 in the kernel, wrapping: unsigned here
  for (const auto& [pid, m] : members)
    if (m.e.status != Status::Sleeping && curr != pid)
      sum += (m.e.vruntime.bits() - q.zero_vruntime) * static_cast<uint64_t>(m.e.weight);
  if (static_cast<int64_t>(sum) == q.sum_w_vruntime) return "";
  return fmt::format("the tree's vruntimes give sum_w_vruntime {}, the kernel's is {}",
                     static_cast<int64_t>(sum), q.sum_w_vruntime);
}

}  // namespace vlag::kernel::state
