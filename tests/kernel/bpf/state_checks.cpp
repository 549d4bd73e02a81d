#include "tests/kernel/bpf/state_checks.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <unordered_map>

namespace vlag::kernel::bpf::checks {
namespace {

constexpr uint64_t kNice0Weight = uint64_t{1} << 20;
constexpr size_t kMaxViolations = 20;  // enough to read; the count says the rest

std::string where(const StateRecord& r) {
  std::ostringstream s;
  s << kind_name(r.kind) << " at " << r.time_ns << " ns on cpu" << r.cpu;
  return s.str();
}

void violated(Tally& t, const std::string& what) {
  if (t.violations.size() < kMaxViolations)
    t.violations.push_back(what);
  else if (t.violations.size() == kMaxViolations)
    t.violations.push_back("... more");
}

int64_t key_of(uint64_t v, uint64_t zero) { return static_cast<int64_t>(v - zero); }

// The kernel's products: s64 arithmetic wraps (it is what the kernel stores), done unsigned.
int64_t wrapping_mul(int64_t a, uint64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * b);
}

struct Competitor {
  uint64_t id;
  int32_t pid;
  uint64_t vruntime, deadline, weight;
};

}  // namespace

uint64_t Tally::unknowable_total() const {
  uint64_t n = 0;
  for (const auto& [why, count] : unknowable) n += count;
  return n;
}

std::string Tally::summary() const {
  std::ostringstream s;
  s << "judged " << judged << ", not knowable " << unknowable_total();
  if (!unknowable.empty()) {
    s << " (";
    bool first = true;
    for (const auto& [why, count] : unknowable) {
      s << (first ? "" : "; ") << why << ": " << count;
      first = false;
    }
    s << ")";
  }
  s << ", violated " << violations.size();
  for (const auto& v : violations) s << "\n    " << v;
  return s.str();
}

Gaps::Gaps(const std::vector<StateRecord>& records) : shown_(records.size(), false) {
  struct Running {
    int32_t pid;
    size_t since;  // the record that made it current
  };
  std::unordered_map<int, Running> running;  // CPU -> the task the last switch there put in
  for (size_t i = 0; i < records.size(); ++i) {
    const StateRecord& r = records[i];
    int32_t shown = -1;  // the task this record shows running on r.cpu
    if (r.kind == RecordKind::Switch || r.kind == RecordKind::Runtime ||
        r.kind == RecordKind::Exit || r.kind == RecordKind::SetAttr)
      shown = r.tasks[0].pid;
    const auto it = running.find(r.cpu);
    if (shown >= 0 && it != running.end() && it->second.pid != shown) {
      shown_[i] = true;
      windows_.emplace_back(it->second.since, i);
    }
    if (r.kind == RecordKind::Switch)
      running[r.cpu] = {r.tasks[1].pid, i};
    else if (shown >= 0 && (it == running.end() || it->second.pid != shown))
      running[r.cpu] = {shown, i};
  }
}

bool Gaps::clean(size_t from, size_t to) const {
  for (const auto& [a, b] : windows_)
    if (a < to && b > from) return false;
  return true;
}

const char* sum_weights_name(SumWeights w) { return w == SumWeights::Scaled ? "scaled" : "full"; }

uint64_t sum_weight_of(uint64_t weight, SumWeights w) {
  if (w == SumWeights::Full || weight == 0) return weight;
  return std::max<uint64_t>(2, weight >> 10);
}

std::optional<SumWeights> sum_convention(const std::vector<StateRecord>& records) {
  bool scaled = true, full = true, any = false;
  for (const auto& r : records) {
    if (r.kind != RecordKind::Switch) continue;
    for (const auto& q : r.queues) {
      if (q.truncated || static_cast<size_t>(q.level) >= r.tasks[1].chain.size()) continue;
      const CfsRqState& c = r.tasks[1].chain[q.level].cfs_rq;
      uint64_t s = 0, f = 0;
      for (const auto& e : q.entities) {
        s += sum_weight_of(e.weight, SumWeights::Scaled);
        f += e.weight;
      }
      any = true;
      scaled = scaled && s == c.sum_weight;
      full = full && f == c.sum_weight;
    }
  }
  if (!any) return std::nullopt;
  if (scaled) return SumWeights::Scaled;
  if (full) return SumWeights::Full;
  return std::nullopt;
}

Tally vruntime_monotonic(const std::vector<StateRecord>& records,
                         const std::vector<int32_t>& pids) {
  struct Last {
    uint64_t cfs_rq, weight, vruntime, time_ns;
    const char* kind;
    size_t index;
  };
  std::unordered_map<int32_t, Last> last;
  Tally t;
  const std::set<int32_t> wanted(pids.begin(), pids.end());
  const Gaps gaps(records);
  for (size_t i = 0; i < records.size(); ++i) {
    const StateRecord& r = records[i];
    for (const auto& task : r.tasks) {
      if (!task.fair || task.chain.empty()) continue;
      if (!wanted.empty() && !wanted.count(task.pid)) continue;
      const EntityState& e = task.chain[0];
      const auto it = last.find(task.pid);
      const bool placed = r.kind == RecordKind::Wakeup || r.kind == RecordKind::WakeupNew;
      if (it != last.end() && !placed) {
        const Last& l = it->second;
        if (!gaps.clean(l.index, i)) {
          ++t.unknowable["records missing between"];
        } else if (l.cfs_rq != e.cfs_rq.id) {
          ++t.unknowable["moved to another cfs_rq"];
        } else if (l.weight != e.weight) {
          ++t.unknowable["reweighted"];
        } else {
          ++t.judged;
          if (key_of(e.vruntime, l.vruntime) < 0)
            violated(t, task.comm + ":" + std::to_string(task.pid) + " vruntime " +
                            std::to_string(l.vruntime) + " (" + l.kind + " at " +
                            std::to_string(l.time_ns) + ") -> " + std::to_string(e.vruntime) +
                            " (" + where(r) + ")");
        }
      }
      last[task.pid] = {e.cfs_rq.id, e.weight, e.vruntime, r.time_ns, kind_name(r.kind), i};
    }
  }
  return t;
}

Tally queue_sums(const std::vector<StateRecord>& records, SumWeights w) {
  Tally t;
  for (const auto& r : records) {
    if (r.kind != RecordKind::Switch) continue;
    if (!r.queues_complete) ++t.unknowable["a snapshot was lost"];
    for (const auto& q : r.queues) {
      if (q.truncated) {
        ++t.unknowable["tree larger than a snapshot holds"];
        continue;
      }
      if (static_cast<size_t>(q.level) >= r.tasks[1].chain.size() ||
          r.tasks[1].chain[q.level].cfs_rq.id != q.cfs_rq) {
        violated(t, "snapshot of cfs_rq " + std::to_string(q.cfs_rq) +
                        " matches no level of next (" + where(r) + ")");
        continue;
      }
      const CfsRqState& c = r.tasks[1].chain[q.level].cfs_rq;
      uint64_t weight = 0;
      int64_t weighted = 0;
      for (const auto& e : q.entities) {
        const uint64_t we = sum_weight_of(e.weight, w);
        weight += we;
        weighted += wrapping_mul(key_of(e.vruntime, c.zero_vruntime), we);
      }
      ++t.judged;
      if (weight != c.sum_weight || weighted != c.sum_w_vruntime)
        violated(t, "cfs_rq " + std::to_string(c.id) + " level " + std::to_string(q.level) +
                        ": tree of " + std::to_string(q.entities.size()) + " sums to " +
                        std::to_string(weight) + "/" + std::to_string(weighted) +
                        ", the kernel holds sum_weight " + std::to_string(c.sum_weight) +
                        " sum_w_vruntime " + std::to_string(c.sum_w_vruntime) + " (" + where(r) +
                        ")");
      if (q.entities.size() + 1 != c.nr_queued)
        violated(t, "cfs_rq " + std::to_string(c.id) + ": " + std::to_string(q.entities.size()) +
                        " in the tree besides curr, nr_queued " + std::to_string(c.nr_queued) +
                        " (" + where(r) + ")");
    }
  }
  return t;
}

Tally known_queue_sums(const std::vector<StateRecord>& records, SumWeights w, int cpu) {
  struct Known {
    uint64_t weight;
    bool group;
    size_t seen;  // index of the record that last showed it
  };
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, Known>> queued;  // cfs_rq -> members
  std::unordered_map<uint64_t, uint64_t> home;  // entity -> the cfs_rq it is queued on
  std::unordered_map<uint64_t, int> rq_cpu;     // cfs_rq -> its CPU
  const Gaps gaps(records);
  const auto leave = [&](uint64_t entity) {
    const auto h = home.find(entity);
    if (h == home.end()) return;
    queued[h->second].erase(entity);
    home.erase(h);
  };
  Tally t;
  for (size_t i = 0; i < records.size(); ++i) {
    const StateRecord& r = records[i];
    if (gaps.shown_at(i)) {
      ++t.unknowable["records missing on the CPU before this one"];
      for (auto& [rq, members] : queued) {
        if (rq_cpu[rq] != r.cpu) continue;
        for (const auto& [entity, k] : members) home.erase(entity);
        members.clear();
      }
    }
    for (const auto& task : r.tasks)
      for (const auto& e : task.chain) {
        leave(e.id);
        rq_cpu[e.cfs_rq.id] = r.cpu;
        if (!e.on_rq) continue;
        queued[e.cfs_rq.id][e.id] = {e.weight, e.is_group, i};
        home[e.id] = e.cfs_rq.id;
      }
    // A queue snapshot reads the weights of the tree's entities now: membership stays what the
    // events showed, the weights are refreshed.
    for (const auto& q : r.queues)
      for (const auto& e : q.entities) {
        const auto h = home.find(e.id);
        if (h == home.end() || h->second != q.cfs_rq) continue;
        queued[q.cfs_rq][e.id] = {e.weight, e.is_group, i};
      }
    if (r.kind != RecordKind::Switch || r.cpu != cpu) continue;
    std::map<uint64_t, CfsRqState> rqs;
    for (const auto& task : r.tasks)
      for (const auto& e : task.chain) rqs.emplace(e.cfs_rq.id, e.cfs_rq);
    for (const auto& [id, c] : rqs) {
      const auto& members = queued[id];
      if (members.size() != c.nr_queued) {
        ++t.unknowable[members.size() < c.nr_queued ? "not every queued entity seen yet"
                                                    : "an entity left unseen"];
        continue;
      }
      bool group_stale = false, task_stale = false;
      uint64_t expected = 0;
      for (const auto& [entity, k] : members) {
        (k.group ? group_stale : task_stale) |= k.seen != i;
        if (entity != c.curr) expected += sum_weight_of(k.weight, w);
      }
      if (group_stale) {
        ++t.unknowable["a group entity's weight not seen in this record"];
        continue;
      }
      // A task's weight changes with its nice value (setpriority, sched_setattr) and no
      // tracepoint the capture hooks says so: a weight read in an earlier record may be old.
      if (expected != c.sum_weight && task_stale) {
        ++t.unknowable["a task's weight read only before this record, and nice changes unseen"];
        continue;
      }
      ++t.judged;
      if (expected != c.sum_weight)
        violated(t, "cfs_rq " + std::to_string(id) + ": the " + std::to_string(members.size()) +
                        " entities known queued sum to " + std::to_string(expected) +
                        ", the kernel holds sum_weight " + std::to_string(c.sum_weight) + " (" +
                        where(r) + ")");
    }
  }
  return t;
}

Tally picks(const std::vector<StateRecord>& records, SumWeights w) {
  Tally t;
  // cfs_rq -> the next buddy the last record showing it held. set_next_entity() clears a buddy
  // only when it picks that very entity, so one left behind may be picked many switches later,
  // and the record of that switch shows it cleared.
  std::unordered_map<uint64_t, uint64_t> buddy;
  for (const auto& r : records) {
    if (r.kind == RecordKind::Switch && r.tasks[1].fair) {
      const TaskState& prev = r.tasks[0];
      const TaskState& next = r.tasks[1];
      std::set<uint64_t> prev_chain;
      for (const auto& e : prev.chain) prev_chain.insert(e.id);
      for (size_t level = 0; level < next.chain.size(); ++level) {
        const EntityState& picked = next.chain[level];
        if (prev_chain.count(picked.id)) break;  // from here up the entities were kept
        const CfsRqState& c = picked.cfs_rq;
        const QueueSnapshot* q = nullptr;
        for (const auto& s : r.queues)
          if (s.level == static_cast<int>(level)) q = &s;
        if (!q) {
          ++t.unknowable[r.queues_complete ? "no snapshot" : "snapshot lost"];
          continue;
        }
        if (q->truncated) {
          ++t.unknowable["tree larger than a snapshot holds"];
          continue;
        }
        if (c.curr != picked.id) {
          violated(t, "the picked entity is not its cfs_rq's curr (" + where(r) + ")");
          continue;
        }
        ++t.judged;
        // V from the kernel's sums with curr added, compared without division as the kernel
        // does.
        const auto wp = static_cast<__int128>(sum_weight_of(picked.weight, w));
        const __int128 load = static_cast<__int128>(c.sum_weight) + wp;
        const __int128 avg = static_cast<__int128>(c.sum_w_vruntime) +
                             static_cast<__int128>(key_of(picked.vruntime, c.zero_vruntime)) * wp;
        const auto eligible = [&](uint64_t v) {
          return avg >= static_cast<__int128>(key_of(v, c.zero_vruntime)) * load;
        };
        const std::string who =
            next.comm + ":" + std::to_string(next.pid) + " level " + std::to_string(level);
        if (!eligible(picked.vruntime)) {
          violated(t, who + " picked while not eligible: vruntime " +
                          std::to_string(picked.vruntime) + " (" + where(r) + ")");
          continue;
        }
        // A next buddy is picked whenever it is eligible, whatever its deadline.
        const auto b = buddy.find(c.id);
        if (c.next != 0 || (b != buddy.end() && b->second == picked.id)) {
          ++t.unknowable["deadline order not judged: may be the next buddy"];
          continue;
        }
        for (const auto& e : q->entities) {
          if (!eligible(e.vruntime) || key_of(e.deadline, picked.deadline) >= 0) continue;
          const std::string competitor = (e.is_group ? "group entity " + std::to_string(e.id)
                                                     : "pid " + std::to_string(e.pid)) +
                                         (e.sched_delayed ? " (delayed)" : "");
          violated(t, who + " picked with deadline " + std::to_string(picked.deadline) +
                          " over eligible " + competitor + " with deadline " +
                          std::to_string(e.deadline) + "; prev " + prev.comm + ":" +
                          std::to_string(prev.pid) + " (" + where(r) + ")");
          break;
        }
      }
    }
    for (const auto& task : r.tasks)
      for (const auto& e : task.chain) buddy[e.cfs_rq.id] = e.cfs_rq.next;
  }
  return t;
}

Tally placements(const std::vector<StateRecord>& records, int32_t pid) {
  Tally t;
  EntityState left;  // the entity as its last switch-out showed it
  bool seen_leaving = false;
  size_t left_at = 0;
  const Gaps gaps(records);
  for (size_t k = 0; k < records.size(); ++k) {
    const StateRecord& r = records[k];
    for (size_t i = 0; i < r.tasks.size(); ++i) {
      const TaskState& task = r.tasks[i];
      if (task.pid != pid || !task.fair || task.chain.empty()) continue;
      const EntityState& e = task.chain[0];
      if (r.kind == RecordKind::Switch && i == 0) {
        left = e;
        seen_leaving = true;
        left_at = k;
        continue;
      }
      if (r.kind != RecordKind::Wakeup) continue;
      if (!seen_leaving && e.cfs_rq.curr == e.id) {
        ++t.unknowable["woken while running: nothing to place"];
      } else if (!seen_leaving) {
        ++t.unknowable["no switch-out seen before"];
      } else if (!gaps.clean(left_at, k)) {
        ++t.unknowable["records missing between"];
      } else if (left.on_rq) {
        ++t.unknowable[left.sched_delayed ? "was delayed, not dequeued" : "had not left"];
      } else if (e.weight != kNice0Weight) {
        ++t.unknowable["not nice 0"];
      } else {
        ++t.judged;
        std::string bad;
        if (!e.on_rq) bad += " not queued;";
        if (e.cfs_rq.curr == e.id) bad += " already curr;";
        if (e.deadline - e.vruntime != e.slice)
          bad += " deadline - vruntime = " + std::to_string(e.deadline - e.vruntime) +
                 " not the slice " + std::to_string(e.slice) + ";";
        if (e.vlag != left.vlag)
          bad += " vlag " + std::to_string(e.vlag) + " where dequeue saved " +
                 std::to_string(left.vlag) + ";";
        if (!bad.empty())
          violated(t, task.comm + ":" + std::to_string(pid) + bad + " (" + where(r) + ")");
      }
      seen_leaving = false;
    }
  }
  return t;
}

}  // namespace vlag::kernel::bpf::checks
