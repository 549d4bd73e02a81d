#include "checker/migrations.h"

#include <fmt/format.h>

#include <algorithm>

#include "spec/properties.h"

namespace vlag::checker {

using trace::EventKind;

bool PlaceEvent::wanted(const trace::Event& e) {
  if (!e.task) return false;  // a group entity: each runqueue's own
  switch (e.kind) {
    case EventKind::New:
    case EventKind::Entity:
    case EventKind::Attach:
    case EventKind::Detach:
    case EventKind::Exit:
      return true;
    default:
      return false;
  }
}

PlaceEvent PlaceEvent::of(const trace::Event& e, size_t file, int64_t line, int64_t index) {
  PlaceEvent p;
  p.file = file;
  p.line = line;
  p.index = index;
  p.kind = e.kind;
  p.t = e.t;
  p.rq = e.rq;
  p.task = *e.task;
  p.weight = e.kind == EventKind::Attach ? std::optional(e.weight) : e.state.weight;
  if (e.state.vlag) p.vlag = *e.state.vlag;
  return p;
}

MigrationRules::MigrationRules(std::vector<std::string> files, bool lag, Report& report)
    : files_(std::move(files)), lag_(lag), report_(report) {}

std::string MigrationRules::name(const Place& p) const {
  return files_.size() > 1 ? fmt::format("{} rq {}", files_[p.file], p.rq)
                           : fmt::format("rq {}", p.rq);
}

void MigrationRules::count_place(const Place& p) {
  if (std::find(places_.begin(), places_.end(), p) == places_.end()) places_.push_back(p);
}

void MigrationRules::consume(const PlaceEvent& e) {
  settle(e.t);
  const Place here{e.file, e.rq};
  count_place(here);
  if (e.kind == EventKind::Detach || e.kind == EventKind::Exit)
    depart(e, here);
  else
    arrive(e, here);
}

// A task arrives (created, shown at a window's start, or migrated in). Judged once the run has
// two runqueues: before that there is nowhere else to be.
void MigrationRules::arrive(const PlaceEvent& e, const Place& here) {
  if (places_.size() > 1) ++report_.stats[ids::kInvOneRunqueue].checked;
  place(e, here);
}

void MigrationRules::place(const PlaceEvent& e, const Place& here) {
  if (const auto it = where_.find(e.task); it != where_.end() && !(it->second.place == here)) {
    waiting_.push_back({e, false});  // its departure may still come at this instant
    return;
  }
  if (e.kind == EventKind::Attach) {
    // Back where it left: its stay elsewhere is in none of these traces.
    if (const auto d = in_transit_.find(e.task);
        d != in_transit_.end() && !(d->second.from == here)) {
      judge_lag(e, d->second);
      in_transit_.erase(d);
    } else {
      if (d != in_transit_.end()) in_transit_.erase(d);
      ++arrivals_unpaired_;
    }
  } else {
    in_transit_.erase(e.task);  // created anew: whatever left before is not this migration
  }
  where_[e.task] = {here, e.line};
}

void MigrationRules::depart(const PlaceEvent& e, const Place& here) {
  // An arrival of this instant here that is still waiting leaves again with it.
  for (Waiting& a : waiting_)
    if (a.arrival.task == e.task && Place{a.arrival.file, a.arrival.rq} == here) a.left = true;
  const auto it = where_.find(e.task);
  if (it == where_.end() || !(it->second.place == here)) return;
  where_.erase(it);
  if (e.kind == EventKind::Detach) in_transit_[e.task] = {here, e.line, e.weight, e.vlag};
  // An arrival of this instant that waited for this departure goes ahead.
  const auto w = std::find_if(waiting_.begin(), waiting_.end(), [&](const Waiting& a) {
    return a.arrival.task == e.task && !a.left;
  });
  if (w == waiting_.end()) return;
  const PlaceEvent arrival = w->arrival;
  waiting_.erase(w);
  place(arrival, {arrival.file, arrival.rq});
}

void MigrationRules::judge_lag(const PlaceEvent& a, const Departure& d) {
  if (!lag_) return;
  if (!d.vlag || !a.vlag) {
    ++lags_unreported_;
    return;
  }
  ++report_.stats[ids::kInvMigrateLag].checked;
  const int64_t w_in = a.weight.value_or(0), w_out = d.weight.value_or(w_in);
  if (*a.vlag == *d.vlag && w_in == w_out) return;
  Witness w;
  w.statement = std::string(ids::kInvMigrateLag) +
                ": attach(m) takes the saved lag and weight detach(i) gave (SPEC.md 4.13)";
  w.add("vl_out", Sort::Real, *d.vlag);
  w.add("vl_in", Sort::Real, *a.vlag);
  w.add("w_out", Sort::Int, trace::Exact(static_cast<long>(w_out)));
  w.add("w_in", Sort::Int, trace::Exact(static_cast<long>(w_in)));
  w.claim = "(not (and (= vl_in vl_out) (= w_in w_out)))";
  record(report_, violation_at(ids::kInvMigrateLag, files_[a.file], a.line, a.index,
                               fmt::format("task {} arrives with vlag {} and weight {} but left "
                                           "{} ({}:{}) with vlag {} and weight {}",
                                           a.task, a.vlag->get_str(), w_in, name(d.from),
                                           files_[d.from.file], d.line, d.vlag->get_str(), w_out),
                               std::move(w)));
}

// Time has moved past the waiting arrivals: their tasks never left the other runqueue then.
void MigrationRules::settle(int64_t before) {
  if (waiting_.empty() || waiting_.front().arrival.t >= before) return;
  std::vector<Waiting> late;
  late.swap(waiting_);
  for (const auto& [a, left] : late) {
    const Stay& s = where_.at(a.task);
    Witness w;
    w.statement = std::string(ids::kInvOneRunqueue) +
                  ": a task is on at most one runqueue at a time; on_X = 1 while it is on X";
    w.add("on_here", Sort::Int, 1);
    w.add("on_there", Sort::Int, 1);
    w.claim = "(> (+ on_here on_there) 1)";
    record(report_,
           violation_at(ids::kInvOneRunqueue, files_[a.file], a.line, a.index,
                        fmt::format("task {} arrives on {} ({}) while it is on {} since {}:{}",
                                    a.task, name({a.file, a.rq}), trace::event_name(a.kind),
                                    name(s.place), files_[s.place.file], s.line),
                        std::move(w)));
    if (!left) where_[a.task] = {{a.file, a.rq}, a.line};  // judged from where it is now
  }
}

// A trace of one runqueue has no other to tell of: no note.
void MigrationRules::finish() {
  settle(INT64_MAX);
  if (places_.size() < 2) return;
  if (arrivals_unpaired_ > 0)
    report_.notes.push_back(fmt::format(
        "{}: {} attach(es) of tasks whose departure is in none of the run's traces: not judged",
        ids::kInvMigrateLag, arrivals_unpaired_));
  if (lags_unreported_ > 0)
    report_.notes.push_back(
        fmt::format("{}: {} migration(s) whose detach or attach reports no vlag: not judged",
                    ids::kInvMigrateLag, lags_unreported_));
  if (!in_transit_.empty())
    report_.notes.push_back(
        fmt::format("{}: {} task(s) left a runqueue and arrived on none before the traces end",
                    ids::kInvMigrateLag, in_transit_.size()));
}

}  // namespace vlag::checker
