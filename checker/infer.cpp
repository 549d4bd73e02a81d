#include "checker/infer.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "smt/arbiter.h"
#include "spec/directory.h"
#include "spec/weights.h"
#include "trace/reader.h"

namespace vlag::checker {
namespace {

using trace::EventKind;
using trace::Fault;

struct Task {
  std::optional<int64_t> weight;
  int64_t slice = 0;
  bool queued = false;
  mpz_class service = 0;       // s_i, ns (exact: a trace may run for up to 2^63 ns)
  mpz_class request_end2 = 0;  // 2·D_i: the service at which the current request ends, doubled
};

std::string w(TaskId id) { return fmt::format("w_{}{}", id < 0 ? "m" : "", id < 0 ? -id : id); }

// eligible(i) ⇔ Σ_j (w_j·s_i − w_i·s_j) ≤ 0 over the queued j.
std::string eligible(TaskId i, const std::map<TaskId, Task>& tasks) {
  std::string sum = "(+ 0";
  const std::string si = tasks.at(i).service.get_str();
  for (const auto& [j, t] : tasks)
    if (t.queued)
      sum += fmt::format(" (- (* {} {}) (* {} {}))", si, w(j), t.service.get_str(), w(i));
  return sum + ")";
}

class Builder {
 public:
  Builder(const Params& params, const std::string& file) : params_(params), file_(file) {}

  void event(const trace::Event& e, int64_t line) {
    const auto out_of_scope = [&](const std::string& why) {
      throw trace::InputError(Fault::TraceFault, file_, line, "ev",
                              "outside the inference scope (spec/TRACE.md §6): " + why);
    };
    if (e.kind == EventKind::Run) {
      if (e.t - e.delta < now_)
        throw trace::InputError(Fault::TimeBackwards, file_, line, "delta",
                                "run starts before the previous event");
      advance(e.t - e.delta);
      run(e.delta);
    } else {
      advance(e.t);
    }
    switch (e.kind) {
      case EventKind::New: {
        Task& t = tasks_[*e.task];
        if (e.weight != 0) t.weight = e.weight;
        t.slice = e.slice != 0 ? e.slice : params_.base_slice_ns();
        return;
      }
      case EventKind::Wakeup: {
        auto it = tasks_.find(*e.task);
        if (it == tasks_.end()) out_of_scope("a task without \"new\"");
        if (ran_) out_of_scope("a wakeup after service began");
        Task& t = it->second;
        t.queued = true;
        const bool half = params_.preset.has(Feature::PLACE_DEADLINE_INITIAL);
        t.request_end2 = half ? t.slice : 2 * t.slice;  // slices are at most 10^8
        return;
      }
      case EventKind::Pick:
        pick(e, line);
        return;
      case EventKind::Run:
      case EventKind::Tick:
      case EventKind::Preempt:
        return;
      default:
        out_of_scope(std::string("a \"") + std::string(trace::event_name(e.kind)) + "\" event");
    }
  }

  std::string script() const { return decls_ + body_; }
  const std::vector<std::string>& assumptions() const { return names_; }
  std::vector<std::string> weight_names() const {
    std::vector<std::string> names;
    for (const auto& [id, t] : tasks_) names.push_back(w(id));
    return names;
  }
  const std::map<TaskId, Task>& tasks() const { return tasks_; }

  void declare() {
    for (const auto& [id, t] : tasks_) {
      decls_ += fmt::format("(declare-const {} Int)\n", w(id));
      decls_ += t.weight ? fmt::format("(assert (= {} {}))\n", w(id), *t.weight)
                         : fmt::format("(assert (and (<= {} {}) (<= {} {})))\n", kMinWeight, w(id),
                                       w(id), kMaxWeight);
    }
  }

 private:
  void advance(int64_t t) {
    if (t > now_) run(t - now_);
  }

  // update_curr: service accrues to curr; v ≥ d ⇔ s ≥ D refreshes the request (§4.1).
  void run(int64_t delta) {
    now_ += delta;
    if (!curr_ || delta == 0) return;
    ran_ = true;
    Task& c = tasks_.at(*curr_);
    c.service += delta;
    if (2 * c.service >= c.request_end2) c.request_end2 = 2 * (c.service + c.slice);
  }

  void pick(const trace::Event& e, int64_t line) {
    const bool repick = e.task && e.task == curr_;
    curr_ = e.task;
    if (!e.task) return;
    const TaskId p = *e.task;
    if (!tasks_.count(p) || !tasks_.at(p).queued)
      throw trace::InputError(Fault::NotRunnable, file_, line, "task",
                              "pick of task " + std::to_string(p) + ", which is not runnable");
    std::string rule = "(and (<= " + eligible(p, tasks_) + " 0)";
    const bool exempt = repick && params_.preset.protection != Protection::None;
    for (const auto& [j, t] : tasks_) {
      if (!t.queued || j == p || exempt) continue;
      rule +=
          fmt::format(" (=> (<= {} 0) (<= (* {} {}) (* {} {})))", eligible(j, tasks_),
                      tasks_.at(p).request_end2.get_str(), w(j), t.request_end2.get_str(), w(p));
    }
    rule += ")";
    const std::string name = fmt::format("pick_at_line_{}", line);
    names_.push_back(name);
    body_ += fmt::format("(declare-const {} Bool)\n(assert (=> {} {}))\n", name, name, rule);
  }

  Params params_;
  std::string file_;
  std::map<TaskId, Task> tasks_;
  std::optional<TaskId> curr_;
  int64_t now_ = 0;
  bool ran_ = false;
  std::string decls_, body_;
  std::vector<std::string> names_;
};

}  // namespace

Inference infer_weights(const Source& source, const std::string& evidence_dir) {
  auto in = source.open();
  trace::Reader reader(*in, source.name);
  Builder b(reader.header().params, source.name);
  while (const auto e = reader.next()) b.event(*e, reader.line());
  b.declare();

  Inference result;
  result.picks = static_cast<int64_t>(b.assumptions().size());
  const std::string script = b.script();
  const smt::Answer answer = smt::solve(script, b.assumptions(), b.weight_names());
  if (!answer.error.empty()) throw Error(source.name + ": " + answer.error);
  result.consistent = answer.sat;
  for (const auto& [id, t] : b.tasks())
    if (answer.sat) result.weights[id] = std::stoll(answer.values.at(w(id)));
  for (const auto& name : answer.core)
    result.core_lines.push_back(std::stoll(name.substr(name.rfind('_') + 1)));
  std::sort(result.core_lines.begin(), result.core_lines.end());

  if (!evidence_dir.empty()) {
    make_directory(evidence_dir, "--evidence-dir");
    const auto path = std::filesystem::path(evidence_dir) /
                      (std::filesystem::path(source.name).filename().string() + ".infer.smt2");
    std::string assume;
    for (const auto& n : b.assumptions()) assume += " " + n;
    std::ofstream out(path);
    out << "; Is there a choice of the unknown weights under which every pick of " << source.name
        << "\n; is eligible and of earliest eligible deadline? sat: yes (see the model);\n"
        << "; unsat: the picks named in the unsat core cannot all be EEVDF decisions.\n"
        << "(set-option :produce-unsat-cores true)\n"
        << script << "(check-sat-assuming (" << assume << "))\n"
        << (answer.sat ? "(get-model)\n" : "(get-unsat-core)\n");
    if (!out) throw Error("cannot write the query file " + path.string());
    result.smt_file = path.string();
  }
  return result;
}

}  // namespace vlag::checker
