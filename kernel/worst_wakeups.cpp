#include "kernel/worst_wakeups.h"

#include <algorithm>

namespace vlag::kernel {

bool worse_wakeup(const WorstWakeup& a, const WorstWakeup& b) {
  if (a.delay_ns != b.delay_ns) return a.delay_ns > b.delay_ns;
  if (a.woken_ns != b.woken_ns) return a.woken_ns < b.woken_ns;
  return a.pid < b.pid;
}

WorstWakeups::WorstWakeups(size_t keep, std::optional<int> only_cpu)
    : keep_(keep), only_cpu_(only_cpu) {}

// Charges w with what ran on c (its current task) from when w was queued there until `until`.
void WorstWakeups::charge(Cpu& c, int cpu, Waiting& w, int64_t until) {
  if (!c.known) return;  // unknown: it stays in the delay as unrecorded
  const int64_t ns = until - std::max(c.since, w.queued_since);
  if (ns <= 0) return;
  RanMeanwhile& r = w.ran[{cpu, c.curr}];
  r.pid = c.curr, r.cpu = cpu;
  if (r.comm != c.comm) r.comm = c.comm;  // its latest name; copied only when it changes
  r.ns += ns;
}

void WorstWakeups::dequeue(Waiting& w) {
  auto& q = cpus_[w.queue_cpu].queued;
  q.erase(std::remove(q.begin(), q.end(), &w), q.end());
}

void WorstWakeups::keep(WorstWakeup w) {
  if (keep_ == 0) return;
  if (heap_.size() < keep_) {
    heap_.push(std::move(w));
  } else if (worse_wakeup(w, heap_.top())) {
    heap_.pop();
    heap_.push(std::move(w));
  }
}

void WorstWakeups::on_switch(const KernelEvent& e) {
  Cpu& c = cpus_[e.cpu];
  for (Waiting* w : c.queued) charge(c, e.cpu, *w, e.time_ns);
  if (const auto gone = waiting_.find(e.prev_pid); gone != waiting_.end()) {
    dequeue(gone->second);  // it ran where the trace does not show: not measured
    waiting_.erase(gone);
  }
  if (c.running && c.running->pid == e.prev_pid) {
    c.running->run_ns = e.time_ns - c.running->switched_in_ns;
    keep(std::move(*c.running));
  } else if (c.running) {
    keep(std::move(*c.running));  // its switch-out is not in the trace: no run time
  }
  c.running.reset();
  if (c.known) running_on_.erase(c.curr);
  running_on_.erase(e.prev_pid);
  c.known = true;
  c.curr = e.pid;
  c.comm = e.comm;
  c.since = e.time_ns;
  if (e.pid != 0) running_on_[e.pid] = e.cpu;

  const auto it = waiting_.find(e.pid);
  if (it == waiting_.end()) return;
  Waiting& w = it->second;
  if (w.queue_cpu != e.cpu)  // picked from another CPU's queue: what ran there until now
    charge(cpus_[w.queue_cpu], w.queue_cpu, w, e.time_ns);
  dequeue(w);
  WorstWakeup out = std::move(w.w);
  out.comm = e.comm;
  out.cpu = e.cpu;
  out.switched_in_ns = e.time_ns;
  out.delay_ns = e.time_ns - out.woken_ns;
  int64_t seen = 0;
  for (auto& [key, r] : w.ran) {
    seen += r.ns;
    out.meanwhile.push_back(std::move(r));
  }
  std::sort(out.meanwhile.begin(), out.meanwhile.end(), [](const auto& a, const auto& b) {
    if (a.ns != b.ns) return a.ns > b.ns;
    return std::pair(a.cpu, a.pid) < std::pair(b.cpu, b.pid);
  });
  out.unrecorded_ns = std::max<int64_t>(0, out.delay_ns - seen);
  waiting_.erase(it);
  if (only_cpu_ && *only_cpu_ != e.cpu) return;
  ++measured_;
  c.running = std::move(out);
}

void WorstWakeups::forget(int64_t pid) {
  const auto it = waiting_.find(pid);
  if (it == waiting_.end()) return;
  dequeue(it->second);
  waiting_.erase(it);
}

void WorstWakeups::on_event(const KernelEvent& e) {
  switch (e.kind) {
    case KernelEventKind::Switch:
      on_switch(e);
      return;
    case KernelEventKind::Wakeup:
    case KernelEventKind::WakeupNew: {
      if (e.pid == 0 || running_on_.count(e.pid) || waiting_.count(e.pid)) return;
      Waiting w;
      w.w.pid = e.pid;
      w.w.comm = e.comm;
      w.w.line = e.line;
      w.w.woken_ns = e.time_ns;
      w.queue_cpu = e.target_cpu.value_or(e.cpu);
      w.queued_since = e.time_ns;
      Waiting& placed = waiting_.emplace(e.pid, std::move(w)).first->second;
      cpus_[placed.queue_cpu].queued.push_back(&placed);
      return;
    }
    case KernelEventKind::Migrate: {
      const auto it = waiting_.find(e.pid);
      if (it == waiting_.end() || !e.dest_cpu) return;
      Waiting& w = it->second;
      charge(cpus_[w.queue_cpu], w.queue_cpu, w, e.time_ns);
      dequeue(w);
      w.queue_cpu = *e.dest_cpu;
      w.queued_since = e.time_ns;
      cpus_[w.queue_cpu].queued.push_back(&w);
      return;
    }
    default:
      return;
  }
}

std::vector<WorstWakeup> WorstWakeups::finish() {
  for (auto& [cpu, c] : cpus_)
    if (c.running) keep(std::move(*c.running));
  cpus_.clear();
  std::vector<WorstWakeup> out;
  while (!heap_.empty()) {
    out.push_back(heap_.top());
    heap_.pop();
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace vlag::kernel
