#include "checker/machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <compare>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "checker/checker.h"
#include "checker/migrations.h"
#include "spec/cfs_policy.h"
#include "trace/reader.h"

namespace vlag::checker {
namespace {

// Where something happens in the merged order of a run: an event's time, trace and line; a
// phase of 1 is the reading of the line after it, where a parse fault is met.
struct Key {
  int64_t t = 0;
  int64_t file = 0;
  int64_t line = 0;
  int phase = 0;
  auto operator<=>(const Key&) const = default;
};
constexpr Key kAfterAll{INT64_MAX, INT64_MAX, INT64_MAX, 1};

// A fault that stopped a trace, where a single thread checking the run would have met it.
struct Fault {
  Key at;
  std::exception_ptr error;
};

// One trace's checker of its runqueues: EEVDF's or the CFS policies' (checker/checker.h).
class Runqueues {
 public:
  virtual ~Runqueues() = default;
  virtual void consume(const trace::Event& e, int64_t line) = 0;
  virtual void finish() = 0;
  virtual int64_t events() const = 0;
};

template <class C>
class RunqueuesOf final : public Runqueues {
 public:
  RunqueuesOf(const trace::Header& h, const std::string& file, Report& r) : c_(h, file, r) {}
  void consume(const trace::Event& e, int64_t line) override { c_.consume(e, line); }
  void finish() override { c_.finish(); }
  int64_t events() const override { return c_.events(); }

 private:
  C c_;
};

// One trace of the run: its reader one event ahead, its checker, its own report.
class TraceCheck {
 public:
  TraceCheck(const Source& source, size_t index, bool keep_going)
      : index_(static_cast<int64_t>(index)), keep_going_(keep_going), in_(source.open()) {
    reader_.emplace(*in_, source.name);
    const trace::Header& h = reader_->header();
    cfs_ = is_cfs_policy(h.params.preset.name);
    if (cfs_)
      checker_ = std::make_unique<RunqueuesOf<CfsTraceChecker>>(h, source.name, report_);
    else
      checker_ = std::make_unique<RunqueuesOf<Checker>>(h, source.name, report_);
    read({INT64_MIN, index_, 0, 1});
  }
  // event_ points into reader_: not copied or moved.
  TraceCheck(const TraceCheck&) = delete;
  TraceCheck& operator=(const TraceCheck&) = delete;

  bool done() const { return done_ || fault_; }
  bool cfs() const { return cfs_; }
  const std::optional<Fault>& fault() const { return fault_; }
  Report& report() { return report_; }
  Key key() const { return {event_->t, index_, line_, 0}; }

  /// Checks the event read ahead, hands it to `sink` when the rules across runqueues read it,
  /// and reads the next.
  template <class Sink>
  void step(Sink&& sink) {
    const Key at = key();
    const int64_t index = checker_->events();
    try {
      checker_->consume(*event_, line_);
      if (PlaceEvent::wanted(*event_))
        sink(PlaceEvent::of(*event_, static_cast<size_t>(index_), line_, index));
    } catch (const trace::InputError& err) {
      if (!keep_going_) return stop(at);
      problem(err);
    } catch (...) {
      return stop(at);
    }
    read({at.t, at.file, at.line, 1});
  }

  void finish() {
    checker_->finish();
    report_.events += checker_->events();
  }

 private:
  void read(const Key& after) {
    for (;;) {
      try {
        event_ = reader_->next_event();
        done_ = event_ == nullptr;
        line_ = reader_->line();
        return;
      } catch (const trace::InputError& err) {
        if (!keep_going_) return stop(after);
        problem(err);
      } catch (...) {
        return stop(after);
      }
    }
  }
  void stop(const Key& at) { fault_ = Fault{at, std::current_exception()}; }
  void problem(const trace::InputError& err) {
    ++report_.problem_count;
    if (report_.problems.size() < Report::kMaxKept)
      report_.problems.push_back({err.fault(), err.what(), err.file(), err.line(), err.field()});
  }

  int64_t index_;
  bool keep_going_;
  std::unique_ptr<std::istream> in_;
  std::optional<trace::Reader> reader_;
  Report report_;
  std::unique_ptr<Runqueues> checker_;
  bool cfs_ = false;
  const trace::Event* event_ = nullptr;  // the reader's, read ahead
  int64_t line_ = 0;
  bool done_ = false;
  std::optional<Fault> fault_;
};

// The traces one thread checks, interleaved by time so that what it hands on is in the run's
// merged order. It stops at its first fault: no later event of its traces can come first.
class Lane {
 public:
  void add(TraceCheck* t) { traces_.push_back(t); }

  /// Steps through the traces; `tick` is called every kTick events with how many there were.
  template <class Sink, class Tick>
  void run(Sink&& sink, Tick&& tick, const std::atomic<bool>* stop) {
    // A fault in a first line stops the lane before anything is checked.
    for (TraceCheck* t : traces_)
      if (t->fault() && (!fault || t->fault()->at < fault->at)) fault = t->fault();
    if (fault) return;
    int64_t steps = 0;
    for (;;) {
      TraceCheck* next = nullptr;
      for (TraceCheck* t : traces_)
        if (!t->done() && (!next || t->key() < next->key())) next = t;
      if (!next) break;
      const Key at = next->key();
      next->step(sink);
      if (next->fault()) {
        fault = next->fault();
        break;
      }
      if (++steps % kTick == 0) {
        tick(at);
        if (stop && stop->load(std::memory_order_relaxed)) break;
      }
    }
  }

  /// Events between two calls of run()'s tick.
  static constexpr int64_t kTick = 1024;
  std::optional<Fault> fault;

 private:
  std::vector<TraceCheck*> traces_;
};

// What the threads hand the merge: each lane's events in order, and how far the lane has come
// (all it hands on later comes after `passed`). Bounded: a lane that runs ahead waits.
class Handoff {
 public:
  explicit Handoff(size_t lanes) : lanes_(lanes) {}

  void push(size_t lane, PlaceEvent e, const Key& at) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return lanes_[lane].queue.size() < kCapacity; });
    lanes_[lane].queue.push_back({at, std::move(e)});
    lanes_[lane].passed = at;
    changed_.notify_all();
  }
  void passed(size_t lane, const Key& at) {
    std::lock_guard lock(mutex_);
    if (lanes_[lane].passed < at) lanes_[lane].passed = at;
    changed_.notify_all();
  }
  void finished(size_t lane) { passed(lane, kAfterAll); }

  /// The next event in the merged order, once no lane can still hand on an earlier one; none
  /// when every lane has finished and handed everything on.
  std::optional<PlaceEvent> pop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      Lane* best = nullptr;
      for (Lane& l : lanes_)
        if (!l.queue.empty() && (!best || l.queue.front().first < best->queue.front().first))
          best = &l;
      bool ready = true, all_done = true;
      for (const Lane& l : lanes_) {
        if (l.passed != kAfterAll || !l.queue.empty()) all_done = false;
        if (l.queue.empty() && (!best || l.passed < best->queue.front().first)) ready = false;
      }
      if (all_done) return std::nullopt;
      if (best && ready) {
        PlaceEvent e = std::move(best->queue.front().second);
        best->queue.pop_front();
        changed_.notify_all();
        return e;
      }
      changed_.wait(lock);
    }
  }

 private:
  static constexpr size_t kCapacity = 4096;
  struct Lane {
    std::deque<std::pair<Key, PlaceEvent>> queue;
    Key passed{INT64_MIN, 0, 0, 0};
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Lane> lanes_;
};

// Adds a trace's report to the run's as a sequential check of the traces would have.
void append(const Report& from, Report& into) {
  merge_runqueue_reports({{0, &from}}, into);
  into.events += from.events;
  into.problem_count += from.problem_count;
  for (const Problem& p : from.problems)
    if (into.problems.size() < Report::kMaxKept) into.problems.push_back(p);
}

// The header fields that make two CPUs' traces one run's: all of it but the CPU.
std::string run_identity(trace::Header h) {
  h.cpu.reset();
  std::string features;
  for (size_t i = 0; i < kFeatureCount; ++i)
    features += h.params.preset.has(static_cast<Feature>(i)) ? '1' : '0';
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", h.version, h.producer, h.params.preset.name,
                     features, h.params.ncpus, h.params.tick_ns(), h.params.base_slice_ns(),
                     h.window, static_cast<int>(h.arith), h.params.base_slice_norm_ns());
}

}  // namespace

std::vector<std::vector<size_t>> group_runs(const std::vector<Source>& sources) {
  std::vector<std::vector<size_t>> runs;
  std::map<std::string, size_t> machine_of;            // run identity → its index in runs
  std::map<std::pair<size_t, int>, std::string> cpus;  // (run, cpu) → the trace that has it
  // A lone trace is a run of its own, read only once (it may be a pipe).
  if (sources.size() == 1) return {{0}};
  for (size_t i = 0; i < sources.size(); ++i) {
    auto in = sources[i].open();
    const trace::Reader reader(*in, sources[i].name);
    const trace::Header& h = reader.header();
    if (!h.cpu || h.params.ncpus < 2) {
      runs.push_back({i});
      continue;
    }
    const auto [it, added] = machine_of.emplace(run_identity(h), runs.size());
    if (added) runs.emplace_back();
    const auto [cpu, fresh] = cpus.emplace(std::pair(it->second, *h.cpu), sources[i].name);
    if (!fresh)
      throw trace::InputError(trace::Fault::Malformed, sources[i].name, 1, "cpu",
                              fmt::format("CPU {} of this run is {} already", *h.cpu, cpu->second));
    runs[it->second].push_back(i);
  }
  return runs;
}

void check_run(const std::vector<const Source*>& sources, const CheckOptions& options,
               Report& report) {
  std::vector<std::unique_ptr<TraceCheck>> traces;
  std::vector<std::string> names;
  for (size_t i = 0; i < sources.size(); ++i) {
    report.files.push_back(sources[i]->name);
    names.push_back(sources[i]->name);
    traces.push_back(std::make_unique<TraceCheck>(*sources[i], i, options.keep_going));
  }
  const bool lag = std::none_of(traces.begin(), traces.end(), [](auto& t) { return t->cfs(); });
  Report across;
  MigrationRules rules(names, lag, across);

  const size_t lanes_n =
      std::clamp<size_t>(static_cast<size_t>(std::max(options.jobs, 1)), 1, traces.size());
  std::vector<Lane> lanes(lanes_n);
  for (size_t i = 0; i < traces.size(); ++i) lanes[i % lanes_n].add(traces[i].get());
  // Progress: the events each lane went through since its last tick, and the violations.
  const auto ticker = [&](size_t lane) {
    return [&, lane, last = int64_t{0}](const Key&) mutable {
      if (!options.progress) return;
      options.progress->events.fetch_add(Lane::kTick, std::memory_order_relaxed);
      int64_t violations = 0;
      for (size_t i = lane; i < traces.size(); i += lanes_n)
        violations += traces[i]->report().violation_count;
      options.progress->violations.fetch_add(violations - last, std::memory_order_relaxed);
      last = violations;
    };
  };
  if (lanes_n == 1) {
    auto tick = ticker(0);
    lanes[0].run([&](PlaceEvent e) { rules.consume(e); }, tick, options.stop);
  } else {
    Handoff handoff(lanes_n);
    std::vector<std::thread> threads;
    for (size_t l = 0; l < lanes_n; ++l)
      threads.emplace_back([&, l] {
        auto progress = ticker(l);
        const auto tick = [&](const Key& at) {
          progress(at);
          handoff.passed(l, at);
        };
        const auto hand_on = [&](PlaceEvent e) {
          const Key at{e.t, static_cast<int64_t>(e.file), e.line, 0};
          handoff.push(l, std::move(e), at);
        };
        lanes[l].run(hand_on, tick, options.stop);
        handoff.finished(l);
      });
    while (const auto e = handoff.pop()) rules.consume(*e);
    for (std::thread& t : threads) t.join();
  }

  const Fault* first = nullptr;
  for (const Lane& l : lanes)
    if (l.fault && (!first || l.fault->at < first->at)) first = &*l.fault;
  if (first) std::rethrow_exception(first->error);
  for (auto& t : traces) {
    t->finish();
    append(t->report(), report);
  }
  rules.finish();
  append(across, report);
}

}  // namespace vlag::checker
