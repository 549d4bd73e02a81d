#include "checker/service.h"

#include <fmt/format.h>

#include <cmath>

#include "rules/invariants.h"
#include "spec/properties.h"
#include "spec/weights.h"

namespace vlag::checker {
namespace {

Exact ex(int64_t x) { return Exact(static_cast<long>(x)); }

}  // namespace

ServiceLayer::ServiceLayer(const Params& params, Report& report, std::string file)
    : params_(params),
      report_(report),
      file_(std::move(file)),
      // Steadiness and lags are verdicts where either theorem is promised: an exact clock.
      clock_(promised(ids::kThmLagBound, params.preset) ||
             promised(ids::kThmWakeupLatency, params.preset)),
      paper_(promised(ids::kThmLagBound, params.preset)),
      latency_promised_(promised(ids::kThmWakeupLatency, params.preset)) {
  report_.stats[ids::kThmWakeupLatency].verdict = latency_promised_;
  report_.stats[ids::kFigStarvation].verdict = false;
}

std::string ServiceLayer::who(EntityId id, const Task& t) {
  return (t.task_entity ? "task " : "entity ") + std::to_string(id);
}

void ServiceLayer::on_new(EntityId id, int64_t weight, int64_t slice, bool task_entity) {
  Task& t = tasks_[id];
  t = Task{};
  t.task_entity = task_entity;
  t.weight = weight;
  t.slice = slice != 0 ? slice : params_.base_slice_ns();
}

void ServiceLayer::on_exit(EntityId id) {
  const auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  if (&it->second == running_task_) running_task_ = nullptr;
  tasks_.erase(it);
}

FluidClock::Lag ServiceLayer::lag(const Task& t) {
  return clock_.lag(t.joined_at, t.weight, t.received);
}

template <class Text>
void ServiceLayer::figure(const char* id, double ratio, Text&& text, bool verdict) {
  InvariantStats& s = report_.stats[id];
  ++s.checked;
  s.verdict = verdict;
  if (ratio > s.worst_ratio || s.worst.empty()) {
    s.worst_ratio = ratio;
    s.worst = text();
  }
}

// Steadiness matters only where a theorem is promised, and the clock is exact there.
void ServiceLayer::leave(Task& t) {
  if (steady_) {
    const FluidClock::Lag l = lag(t);
    if (l.exact ? *l.exact != 0 : l.value != 0) steady_ = false;
  }
  cpu_bound_ = false;
  t.runnable = false;
  runnable_weight_ -= t.weight;
  if (runnable_weight_ == 0) clock_.idle();
}

void ServiceLayer::on_wakeup(EntityId id, int64_t now, bool steady, int64_t) {
  auto it = tasks_.find(id);
  if (it == tasks_.end() || it->second.runnable) return;
  Task& t = it->second;
  if (!steady) steady_ = false;
  t.runnable = true;
  t.joined_at = clock_.now();
  t.received = 0;
  t.waiting_since = now;
  t.woke_at = now;
  runnable_weight_ += t.weight;
  t.woke_W = runnable_weight_;
  t.woke_steady = steady_;
}

void ServiceLayer::stop_running(int64_t now) {
  if (!running_) return;
  auto it = tasks_.find(*running_);
  running_.reset();
  running_task_ = nullptr;
  if (it == tasks_.end() || !it->second.runnable) return;
  it->second.waiting_since = now;
}

void ServiceLayer::on_sleep(EntityId id, int64_t now) {
  if (running_ == id) stop_running(now);
  auto it = tasks_.find(id);
  if (it == tasks_.end() || !it->second.runnable) return;
  leave(it->second);
}

void ServiceLayer::on_pick(std::optional<EntityId> id, int64_t now, int64_t line) {
  if (running_ == id) return;
  stop_running(now);
  if (!id) return;
  auto it = tasks_.find(*id);
  if (it == tasks_.end() || !it->second.runnable) return;
  Task& t = it->second;
  running_ = id;
  running_task_ = &t;
  if (t.waiting_since >= 0) {
    const int64_t waited = now - t.waiting_since;
    figure(
        ids::kFigStarvation, static_cast<double>(waited) / 1e6,
        [&] {
          return fmt::format("{} waited {:.3f} ms runnable without running", who(*id, t),
                             static_cast<double>(waited) / 1e6);
        },
        false);
  }
  if (t.woke_at >= 0) {
    // THM-WAKEUP-LATENCY: first run by t0 + r_k·(W − w_k)/w_k + q (q = TICK for Linux presets,
    // where the protected remainder of curr is not visible in a service-only trace).
    const int64_t latency = now - t.woke_at;
    const double bound = static_cast<double>(t.slice) * static_cast<double>(t.woke_W - t.weight) /
                             static_cast<double>(t.weight) +
                         static_cast<double>(params_.tick_ns());
    const bool verdict =
        latency_promised_ && t.woke_steady && steady_ && t.woke_W == runnable_weight_;
    figure(
        ids::kThmWakeupLatency, static_cast<double>(latency) / bound,
        [&] {
          return fmt::format("{} first ran {:.3f} ms after waking, formula {:.3f} ms", who(*id, t),
                             static_cast<double>(latency) / 1e6, bound / 1e6);
        },
        latency_promised_);
    if (verdict && static_cast<double>(latency) > bound) {
      Violation v;
      v.id = ids::kThmWakeupLatency;
      v.file = file_;
      v.line = line;
      v.detail =
          fmt::format("{} waited {} ns > r(W-w)/w + q = {:.0f} ns", who(*id, t), latency, bound);
      Witness& w = v.witness;
      w.statement = std::string(ids::kThmWakeupLatency) + ": latency <= r_k*(W - w_k)/w_k + q";
      w.add("latency", Sort::Int, ex(latency));
      w.add("r_k", Sort::Int, ex(t.slice));
      w.add("w_k", Sort::Int, ex(t.weight));
      w.add("W", Sort::Int, ex(t.woke_W));
      w.add("q", Sort::Int, ex(params_.tick_ns()));
      w.claim = "(> (to_real latency) (+ (/ (* r_k (- W w_k)) (to_real w_k)) q))";
      record(report_, std::move(v));
    }
    t.woke_at = -1;
  }
  t.waiting_since = -1;
}

void ServiceLayer::on_run(int64_t delta) {
  if (!running_task_ || delta == 0 || runnable_weight_ == 0) return;
  running_task_->received += delta;
  clock_.advance(delta, runnable_weight_);
}

void ServiceLayer::on_reweight(EntityId id, int64_t weight) {
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  Task& t = it->second;
  if (t.runnable) {
    // The fluid share changes from here on; the lag carries over (SPEC.md §4.8, rescale):
    // move the interval's start so that w'·(V − V_join')/N − s equals the lag before.
    t.joined_at = clock_.rejoin(t.joined_at, t.weight, weight);
    runnable_weight_ += weight - t.weight;
  }
  t.weight = weight;
}

void ServiceLayer::on_slice(EntityId id, int64_t slice) {
  auto it = tasks_.find(id);
  if (it != tasks_.end()) it->second.slice = slice != 0 ? slice : params_.base_slice_ns();
}

void ServiceLayer::finish() {
  if (!steady_ && paper_)
    report_.notes.push_back(fmt::format(
        "{} and {}: the system was not steady (a join or leave at non-zero lag), so they are "
        "reported as figures after that point",
        ids::kThmLagBound, ids::kThmWakeupLatency));
  report_.notes.push_back(
      fmt::format("{} is not checked separately: it follows from {} for each client",
                  ids::kThmPairFair, ids::kThmLagBound));
}

}  // namespace vlag::checker
