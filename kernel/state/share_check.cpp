#include "kernel/state/share_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "kernel/cfs_rq_track.h"
#include "kernel/service.h"
#include "kernel/verdict_book.h"
#include "spec/properties.h"

namespace vlag::kernel::state {
namespace {

using bpf::RecordKind;
constexpr const char* kShare = ids::kThmShare;

// se->load.weight as stored (nice 0 is 1048576 on 64-bit) as the pair windows take it (1024).
double unscaled(uint64_t weight) { return static_cast<double>(weight) / 1024.0; }

// An exit or a syscall's return reads the task unlocked: its next locked record shows it.
bool locked(const bpf::StateRecord& r) {
  return r.kind != RecordKind::Exit && r.kind != RecordKind::SetAttr;
}

// sched_stat_runtime fires before vruntime and deadline advance: the deadline it shows is the
// one the delta it charges ran under. Every other record shows them after the last update.
bool deadline_before_delta(const bpf::StateRecord& r) { return r.kind == RecordKind::Runtime; }

// A reason of SPEC.md §6.3 in the state report's words.
std::string reason_text(Reason r) {
  switch (r) {
    case Reason::Sleeper:
      return "never runnable beside another entity of its cfs_rq long enough for the bound to "
             "say anything (sleeper)";
    case Reason::LateTick:
      return "a run went on past its request plus a tick (a late tick): the pair's bound "
             "widened by it";
    case Reason::WeightUnknown:
      return "a weight known only within more than 2 %";
    case Reason::WeightChanged:
      return "reweighted at an unrecorded moment of a run: the pair's bound widened by the run";
    case Reason::LostEvents:
      return "records were lost on its CPU, or the capture does not say";
    default:
      return std::string(reason_name(r));
  }
}

std::string reasons_text(Reasons why) {
  std::string s;
  for (size_t i = 0; i < kReasonCount; ++i)
    if (why.has(static_cast<Reason>(i)))
      s += (s.empty() ? "" : "; ") + reason_text(static_cast<Reason>(i));
  return s;
}

}  // namespace

struct ShareCheck::Impl {
  struct Rq {
    int cpu = -1;
    uint64_t owner = 0;  // the group entity whose cfs_rq it is (0: the root, or not seen yet)
    LevelContext ctx;
    std::unique_ptr<CfsRqTrack> track;
  };
  struct Entity {
    int64_t subject = 0;  // the book's: a task's pid, a negative number for a group entity
    uint64_t cfs_rq = 0;  // the one it was last seen on
    int cpu = -1;
    EntityInfo info;
    uint64_t deadline = 0;
    bool member = false;     // runnable in its cfs_rq's track
    bool running = false;    // its cfs_rq's curr, as far as the track was told
    int reweighted_at = -1;  // the record whose weight or slice differed from the one before
  };
  struct Sum {
    uint64_t ns = 0;
    int cpu = -1;
  };
  struct Last {
    int64_t t = 0;
    int line = 0;
  };
  using PairKey = std::tuple<int, uint64_t, int64_t, int64_t>;  // cpu, cfs_rq, subjects a < b

  const KernelSetup& kernel;
  const CaptureFacts& facts;
  VerdictBook book;
  const double no_unrecorded_time = 0;   // a state capture has no unrecorded windows: gaps restart
  std::unordered_map<uint64_t, Rq> rqs;  // by address; elements stay put (the contexts)
  std::unordered_map<uint64_t, Entity> entities;
  std::unordered_map<int32_t, Sum> sums;  // by pid: sum_exec_runtime at its last locked record
  std::map<int, Last> last;               // by CPU: its last record judged
  std::map<int64_t, uint64_t> se_of;      // subject → se address
  std::map<int64_t, std::string> comm;    // a task subject's command
  std::map<uint64_t, std::set<int32_t>> tasks_below;  // a group entity's tasks seen beneath it
  std::map<PairKey, ShareFigure> pairs;
  int64_t next_group = -1;

  Impl(const KernelSetup& k, const CaptureFacts& f) : kernel(k), facts(f) {}

  bool captured(int cpu) const {
    return facts.cpus.empty() ||
           std::find(facts.cpus.begin(), facts.cpus.end(), cpu) != facts.cpus.end();
  }

  std::string name(int64_t subject) const {
    const auto se = se_of.find(subject);
    if (subject > 0) {
      const auto c = comm.find(subject);
      return fmt::format("{}:{}", c != comm.end() ? c->second : "?", subject);
    }
    std::string below;
    size_t shown = 0;
    const auto tasks = tasks_below.find(se != se_of.end() ? se->second : 0);
    if (tasks != tasks_below.end())
      for (const int32_t pid : tasks->second) {
        if (shown++ == 3) {
          below += fmt::format(" +{}", tasks->second.size() - 3);
          break;
        }
        below += (below.empty() ? "" : " ") + name(pid);
      }
    const auto e = se != se_of.end() ? entities.find(se->second) : entities.end();
    return fmt::format("group entity {} on cpu{} [{}]", hex(se != se_of.end() ? se->second : 0),
                       e != entities.end() ? e->second.cpu : -1, below);
  }

  Rq& rq(uint64_t id, int cpu) {
    auto [it, fresh] = rqs.try_emplace(id);
    Rq& q = it->second;
    if (fresh) {
      q.cpu = cpu;
      q.ctx.cpu = cpu;
      q.ctx.tick_ns = 1'000'000'000 / kernel.hz;
      q.ctx.book = &book;
      q.ctx.name = [this](int64_t s) { return name(s); };
      q.ctx.cpu_unknown_ns = &no_unrecorded_time;
      q.ctx.on_window = [this, id, cpu](const PairWindow& w) { note_window(cpu, id, w); };
      q.track = std::make_unique<CfsRqTrack>(hex(id), &q.ctx);
    }
    return q;
  }

  // A judged window's split, added to its pair's figure (weights exact: a change closes them).
  void note_window(int cpu, uint64_t cfs_rq, const PairWindow& w) {
    ShareFigure& f = pairs[{cpu, cfs_rq, w.a, w.b}];
    const double wa = w.wa.mid(), wb = w.wb.mid();
    const double sa = w.da.mid() * wa, sb = w.db.mid() * wb;
    f.cpu = cpu;
    f.cfs_rq = cfs_rq;
    f.a = se_of.at(w.a);
    f.b = se_of.at(w.b);
    ++f.windows;
    f.duration_ns += static_cast<double>(w.to_ns - w.from_ns);
    f.wa += wa * (sa + sb);  // weighted by service here, divided by it in finish()
    f.wb += wb * (sa + sb);
    f.sa_ns += sa;
    f.sb_ns += sb;
    f.expected_a_ns += (sa + sb) * wa / (wa + wb);
    f.allowed_ns += (w.S.hi + w.u) * wa * wb / (wa + wb);
  }

  Entity& entity(const bpf::QueuedEntity& e) {
    auto [it, fresh] = entities.try_emplace(e.id);
    if (fresh) {
      it->second.subject = e.pid != 0 ? e.pid : next_group--;
      se_of[it->second.subject] = e.id;
    }
    return it->second;
  }

  static EntityInfo info_of(const bpf::QueuedEntity& e, int64_t subject) {
    EntityInfo i;
    i.id = subject;
    i.weight = Range::exact(unscaled(e.weight));
    i.slice = Range::exact(static_cast<double>(e.slice));
    return i;
  }

  // What a record or snapshot shows of an entity on cfs_rq `on`: a change of weight or slice
  // closes its windows at the service charged so far — every entity's as of the running one's
  // last record, one consistent moment, since only that one ran since — before the record's
  // service is charged.
  void see(const bpf::QueuedEntity& e, uint64_t on, int cpu, int64_t t, int line) {
    Entity& x = entity(e);
    if (x.member && x.cfs_rq != on) leave(x, t, line);  // moved to another group or CPU
    const EntityInfo now = info_of(e, x.subject);
    if (x.member && (now.weight.lo != x.info.weight.lo || now.slice.lo != x.info.slice.lo)) {
      rq(on, cpu).track->change(now, t, line, false);
      x.reweighted_at = line;
    }
    x.info = now;
    x.cfs_rq = on;
    x.cpu = cpu;
  }

  // The service a task's sum_exec_runtime shows since its last record, charged to its entity and
  // every group entity above it, each the cfs_rq's member; a new request first where the record's
  // deadline is the one the delta ran under.
  void charge(const bpf::TaskState& task, const bpf::StateRecord& r, int cpu, int line) {
    const bpf::EntityState& own = task.chain[0];
    auto [it, fresh] = sums.try_emplace(task.pid, Sum{own.sum_exec_runtime, cpu});
    uint64_t ran = 0;
    // Only a runnable member of this CPU runs here: what another CPU gave it is not this one's.
    if (!fresh && it->second.cpu == cpu && own.sum_exec_runtime > it->second.ns &&
        entity(own).member)
      ran = own.sum_exec_runtime - it->second.ns;
    it->second = {own.sum_exec_runtime, cpu};
    for (const auto& e : task.chain) {
      Entity& x = entity(e);
      const bool renewed = x.member && x.running && x.deadline != e.deadline;
      CfsRqTrack& track = *rq(x.cfs_rq, cpu).track;
      if (renewed && deadline_before_delta(r)) track.repicked(x.subject);
      if (x.member && ran > 0) {
        track.run(x.subject, static_cast<int64_t>(ran), true);
        // The reweight came at an unrecorded moment (update_cfs_group() at a tick) within this
        // run, which is charged at the new weight: as much of it may have run at the old one.
        if (x.reweighted_at == line)
          track.uncertain(x.subject, static_cast<double>(ran), Reason::WeightChanged);
      }
      if (renewed && !deadline_before_delta(r)) track.repicked(x.subject);
      x.deadline = e.deadline;
    }
  }

  void leave(Entity& x, int64_t t, int line) {
    if (!x.member) return;
    Rq& q = rq(x.cfs_rq, x.cpu);
    q.track->leave(x.subject, t, line);
    x.member = x.running = false;
    settle(x.cfs_rq, t, line, JoinKind::Appeared);
  }

  // A group entity is runnable while its cfs_rq holds a runnable entity.
  void settle(uint64_t cfs_rq, int64_t t, int line, JoinKind kind) {
    const auto it = rqs.find(cfs_rq);
    if (it == rqs.end() || it->second.owner == 0) return;
    Entity& g = entities.at(it->second.owner);
    const bool runnable = !it->second.track->empty();
    if (runnable == g.member || g.cfs_rq == 0) return;
    if (!runnable) {
      leave(g, t, line);
      return;
    }
    rq(g.cfs_rq, g.cpu).track->join(g.info, t, kind, kind == JoinKind::Woken, t, Reason::MidLife);
    g.member = true;
    settle(g.cfs_rq, t, line, kind);
  }

  void membership(const bpf::TaskState& task, const bpf::StateRecord& r, int cpu, int64_t t,
                  int line) {
    const bpf::EntityState& own = task.chain[0];
    Entity& x = entity(own);
    const bool runnable = own.on_rq && !own.sched_delayed;
    if (x.member && !runnable) leave(x, t, line);
    if (!runnable || x.member) return;
    const bool woken = r.kind == RecordKind::Wakeup || r.kind == RecordKind::WakeupNew;
    // Never JoinKind::New: two new tasks placed at one V would start their window from zero, but
    // a group curr's run before the second placement has no record to move the track's V.
    const JoinKind kind = woken ? JoinKind::Woken : JoinKind::Appeared;
    rq(own.cfs_rq.id, cpu).track->join(x.info, t, kind, woken, t, Reason::MidLife);
    x.member = true;
    settle(own.cfs_rq.id, t, line, kind);
  }

  void pick(const bpf::EntityState& e, int cpu, int64_t t, int line) {
    Entity& x = entity(e);
    if (!x.member || x.running) return;
    rq(x.cfs_rq, cpu).track->pick(x.subject, t, line);
    x.running = true;
  }

  // A switch: prev's levels that next does not share were put back (or left), next's were
  // picked; the shared ones stayed curr.
  void switch_over(const bpf::StateRecord& r, int cpu, int64_t t, int line) {
    const bpf::TaskState& prev = r.tasks[0];
    const bpf::TaskState& next = r.tasks[1];
    const bool both = prev.fair && next.fair && !prev.chain.empty() && !next.chain.empty();
    const size_t shared_from = both && next.shared_from != 0xff
                                   ? std::min<size_t>(next.shared_from, next.chain.size())
                                   : next.chain.size();
    const size_t shared = next.chain.size() - shared_from;
    if (prev.fair)
      for (size_t i = 0; i + shared < prev.chain.size(); ++i) {
        Entity& x = entity(prev.chain[i]);
        if (x.member && x.running) rq(x.cfs_rq, cpu).track->stop(x.subject, t);
        x.running = false;
      }
    if (next.fair)
      for (const auto& e : next.chain) pick(e, cpu, t, line);
  }

  // A gap: what ran on the CPU since its last record is not known. Its windows are judged as
  // they stood then, and the CPU starts afresh.
  void restart(int cpu) {
    const auto l = last.find(cpu);
    for (auto& [id, q] : rqs) {
      if (q.cpu != cpu) continue;
      if (l != last.end()) q.track->finish(l->second.t, l->second.line);
      q.track = std::make_unique<CfsRqTrack>(hex(id), &q.ctx);
    }
    for (auto& [id, x] : entities)
      if (x.cpu == cpu) x.member = x.running = false;
  }

  void feed(const bpf::StateRecord& r, size_t index, const StateModel& model) {
    const int cpu = StateModel::rq_of(r);
    if (!locked(r) || !captured(cpu)) return;
    const int64_t t = static_cast<int64_t>(r.time_ns);
    const int line = static_cast<int>(index);
    if (const std::string why = model.history_unknown(cpu); !why.empty()) {
      for (const auto& task : r.tasks)
        for (const auto& e : task.chain) {
          const int64_t s = entity(e).subject;
          if (e.pid != 0) comm[s] = task.comm;
          book.possible(kShare, s, Reason::LostEvents, 0, cpu, line, [&] { return why; });
        }
      return;
    }
    if (model.gap_at(index)) restart(cpu);
    for (const auto& task : r.tasks) {
      if (!task.fair) continue;
      for (size_t i = 0; i < task.chain.size(); ++i) {
        const bpf::EntityState& e = task.chain[i];
        see(e, e.cfs_rq.id, cpu, t, line);
        if (e.pid != 0) comm[e.pid] = task.comm;
        if (i + 1 < task.chain.size()) {  // the next level's entity owns this one's cfs_rq
          rq(e.cfs_rq.id, cpu).owner = task.chain[i + 1].id;
          tasks_below[task.chain[i + 1].id].insert(task.pid);
        }
      }
    }
    for (const auto& q : r.queues)
      for (const auto& e : q.entities) see(e, q.cfs_rq, cpu, t, line);
    for (const auto& task : r.tasks)
      if (task.fair && !task.chain.empty()) charge(task, r, cpu, line);
    for (const auto& task : r.tasks)
      if (task.fair && !task.chain.empty()) membership(task, r, cpu, t, line);
    if (r.kind == RecordKind::Switch && r.tasks.size() == 2)
      switch_over(r, cpu, t, line);
    else if (r.kind == RecordKind::Runtime && r.tasks[0].fair)
      for (const auto& e : r.tasks[0].chain) pick(e, cpu, t, line);  // curr: found running
    last[cpu] = {t, line};
  }

  void finish(const StateCapture& capture, StateReport& report) {
    for (auto& [id, q] : rqs)
      if (const auto l = last.find(q.cpu); l != last.end())
        q.track->finish(l->second.t, l->second.line);
    // Every pair window is of one CPU, whose migrations in and out the capture records: none
    // rests on another CPU staying quiet.
    KernelReport closed;
    book.close(closed, true, [&](int64_t s) { return name(s); });
    report.subjects[kShare] = closed.verdict_of[kShare];
    Tally& tally = report.tally(kShare);
    const VerdictTally& counts = closed.checks[kShare];
    tally.cases += static_cast<uint64_t>(counts.held + counts.not_applicable);
    tally.held += static_cast<uint64_t>(counts.held);
    tally.not_applicable += static_cast<uint64_t>(counts.not_applicable);
    for (size_t i = 0; i < kReasonCount; ++i)
      if (counts.not_applicable_by_reason[i] > 0)
        tally.not_applicable_reasons[reason_text(static_cast<Reason>(i))] +=
            static_cast<uint64_t>(counts.not_applicable_by_reason[i]);
    for (const KernelFinding& f : closed.findings) {
      if (f.id != kShare) continue;
      if (f.verdict == Verdict::Violated) {
        Witness w = witness_at(capture.records.at(static_cast<size_t>(f.line)));
        w.record = static_cast<size_t>(f.line);
        tally.add(violated(f.message), std::move(w));
      } else {
        tally.add(inconclusive(reasons_text(f.reasons)));
      }
    }
    for (auto& [key, f] : pairs) {
      const double s = f.sa_ns + f.sb_ns;
      if (s <= 0) continue;
      f.wa /= s;
      f.wb /= s;
      const auto owner = rqs.find(f.cfs_rq);
      f.root = owner == rqs.end() || owner->second.owner == 0;
      f.a_name = name(std::get<2>(key));
      f.b_name = name(std::get<3>(key));
      report.figures.shares.push_back(f);
    }
    std::stable_sort(report.figures.shares.begin(), report.figures.shares.end(),
                     [](const ShareFigure& x, const ShareFigure& y) {
                       return x.sa_ns + x.sb_ns > y.sa_ns + y.sb_ns;
                     });
  }
};

ShareCheck::ShareCheck(const KernelSetup& kernel, const CaptureFacts& facts)
    : impl_(std::make_unique<Impl>(kernel, facts)) {}
ShareCheck::~ShareCheck() = default;

void ShareCheck::feed(const bpf::StateRecord& r, size_t index, const StateModel& model) {
  impl_->feed(r, index, model);
}

void ShareCheck::finish(const StateCapture& capture, StateReport& report) {
  impl_->finish(capture, report);
}

}  // namespace vlag::kernel::state
