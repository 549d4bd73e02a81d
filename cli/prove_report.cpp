#include "cli/prove_report.h"

#include <fmt/format.h>

#include <cctype>

#include "cli/json_envelope.h"
#include "json/writer.h"
#include "reference/hierarchy.h"

namespace vlag::cli {
namespace {

const char* verdict_name(prove::Verdict v) {
  switch (v) {
    case prove::Verdict::Proved:
      return "proved";
    case prove::Verdict::Held:
      return "held";
    case prove::Verdict::Counterexample:
      return "counterexample";
    case prove::Verdict::Unknown:
      return "unknown";
  }
  return "?";
}

std::string list(const std::vector<int64_t>& xs) {
  std::string s;
  for (int64_t x : xs) {
    if (!s.empty()) s += ',';
    s += std::to_string(x);
  }
  return s;
}

std::string scope(const prove::Options& o) {
  std::vector<int64_t> sizes(o.groups.begin(), o.groups.end());
  const std::string groups =
      o.groups.empty() ? ""
                       : fmt::format(" in groups of {{{}}} on one CPU, group shares {{{}}}",
                                     list(sizes), list(o.group_weights));
  return fmt::format(
      "{} tasks{}, weights {{{}}}, slices {{{}}} (0 = base {} ns), run delta <= {} ns, {}", o.tasks,
      groups, list(o.weights), list(o.slices), o.params.base_slice_ns(),
      o.max_delta_ns > 0 ? o.max_delta_ns : o.params.tick_ns(),
      o.arith == Arith::Exact ? "exact arithmetic" : "Linux 64-bit arithmetic");
}

// "p/q" with its decimal value alongside, for reading; integers as they are.
std::string readable(const std::string& exact) {
  const size_t slash = exact.find('/');
  if (slash == std::string::npos) return exact;
  const long double x = std::stold(exact.substr(0, slash)) / std::stold(exact.substr(slash + 1));
  return fmt::format("{} (~{:.2f})", exact, static_cast<double>(x));
}

// A runqueue's values; a hierarchy's root (its entities the group entities), then its groups.
std::string state_text(const prove::StateValues& st) {
  const bool root = !st.groups.empty();
  const char* who = root ? "group entity" : "task";
  std::string s = fmt::format("      {}curr {}, V = {}\n", root ? "root: " : "",
                              st.curr == 0 ? "none" : std::to_string(st.curr), st.V);
  for (const prove::EntityValues& e : st.entities)
    s += fmt::format("      {} {}: {} w={} r={} v={} d={} lag={} rest={}\n", who, e.id, e.status,
                     e.weight, e.slice, e.v, e.d, readable(e.lag), readable(e.rest));
  for (size_t g = 0; g < st.groups.size(); ++g)
    s += fmt::format("      group {}:\n", g + 1) + state_text(st.groups[g]);
  return s;
}

// An operation of a counterexample, a hierarchy's group entities by their group (its creation
// with its shares, a cpu.weight write) and a task's creation with the group it joins.
std::string op_text(const Op& op) {
  if (reference::is_group_entity(op.se)) {
    const auto g = reference::group_of_entity(op.se);
    if (op.kind == OpKind::Create) return fmt::format("create group {} shares {}", g, op.a);
    if (op.kind == OpKind::Reweight) return fmt::format("cpu.weight of group {} := {}", g, op.a);
  }
  if (op.kind == OpKind::Create && op.rq != 0)
    return fmt::format("{} in group {}", to_string(op), op.rq);
  return to_string(op);
}

json::Object state_json(const prove::StateValues& st) {
  json::Array entities;
  for (const prove::EntityValues& e : st.entities)
    entities.add(json::Object()
                     .num("task", e.id)
                     .str("status", e.status)
                     .num("w", e.weight)
                     .str("r", e.slice)
                     .str("v", e.v)
                     .str("d", e.d)
                     .str("lag", e.lag)
                     .str("rest", e.rest));
  json::Object out;
  out.num("curr", st.curr).str("V", st.V).array("entities", entities);
  if (!st.groups.empty()) {
    json::Array groups;
    for (const prove::StateValues& g : st.groups) groups.add(state_json(g));
    out.array("groups", groups);
  }
  return out;
}

// The result on the lattice of SPEC.md §6.3, with the counterexample as its finding.
Envelope prove_envelope(const prove::Options& o, const prove::Result& r, const std::string& trace) {
  Envelope env("prove");
  switch (r.verdict) {
    case prove::Verdict::Proved:
    case prove::Verdict::Held:
      env.count(Verdict::Held);
      break;
    case prove::Verdict::Counterexample: {
      const Verdict v = r.cex->promised ? Verdict::Violated : Verdict::NotApplicable;
      env.count(v);
      env.add(envelope_finding(o.invariant, v, r.cex->promised ? Reasons() : Reason::NotPromised,
                               trace, 0, r.cex->detail));
      break;
    }
    case prove::Verdict::Unknown:
      env.count(Verdict::Inconclusive);
      env.add(envelope_finding(o.invariant, Verdict::Inconclusive, Reason::SearchUnfinished, "", 0,
                               r.note));
      break;
  }
  return env;
}

}  // namespace

std::string default_trace_name(const prove::Options& o) {
  std::string s = "cex-" + o.invariant + "-" + o.params.preset.name + ".trace";
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int exit_code(const prove::Result& r) {
  switch (r.verdict) {
    case prove::Verdict::Proved:
    case prove::Verdict::Held:
      return 0;
    case prove::Verdict::Counterexample:
      return 1;
    case prove::Verdict::Unknown:
      return 3;
  }
  return 3;
}

std::string text_report(const prove::Options& o, const prove::Result& r, const std::string& trace) {
  std::string s =
      fmt::format("vlag prove: {} under {}; {}\n", o.invariant, o.params.preset.name, scope(o));
  const std::string stats =
      fmt::format("{:.2f} s, {} conflicts, {:.0f} MB", r.seconds, r.conflicts, r.memory_mb);
  switch (r.verdict) {
    case prove::Verdict::Proved:
      s += fmt::format(
          "PROVED for every depth by k-induction at k = {} (base case: BMC held to depth {}); {}\n",
          r.depth, r.depth, stats);
      break;
    case prove::Verdict::Held:
      s += fmt::format("HELD for every schedule up to {} steps (BMC); {}\n", r.depth, stats);
      if (!r.note.empty()) s += "  " + r.note + "\n";
      if (r.induction_step) {
        const prove::InductionStep& st = *r.induction_step;
        s += "  failing induction step (lag and rest in ns; what a lemma must rule out):\n";
        s += "    before (keeps " + o.invariant + ", unreachable):\n" + state_text(st.before);
        s += "    " + st.op + "\n";
        s += "    after (violates " + o.invariant + "):\n" + state_text(st.after);
      }
      break;
    case prove::Verdict::Unknown:
      s += fmt::format("UNKNOWN: {}; {}\n", r.note, stats);
      break;
    case prove::Verdict::Counterexample: {
      const prove::Counterexample& c = *r.cex;
      s += fmt::format("COUNTEREXAMPLE at depth {} (shortest){}; {}\n", r.depth,
                       c.promised ? "" : ", expected: the preset does not promise it (SPEC.md §6)",
                       stats);
      for (size_t i = 0; i < c.ops.size(); ++i)
        s += fmt::format("  {:>3}  {}{}\n", i, op_text(c.ops[i]),
                         static_cast<int>(i) == c.violated_step ? "   <- " + o.invariant : "");
      s += "  " + c.detail + "\n";
      if (!c.lag_reached.empty()) s += "  lag reached: " + c.lag_reached + "\n";
      s += fmt::format(
          "  reference replay: {}\n",
          c.reference_agrees ? "flags " + o.invariant + " at the same step" : "does not flag it");
      s += "  trace: " + trace + " (vlag check " + trace + ")\n";
      break;
    }
  }
  return s;
}

std::string json_report(const prove::Options& o, const prove::Result& r, const std::string& trace) {
  json::Object out;
  out.str("invariant", o.invariant)
      .str("preset", o.params.preset.name)
      .num("tasks", o.tasks)
      .str("groups", list(std::vector<int64_t>(o.groups.begin(), o.groups.end())))
      .num("depth", o.depth)
      .str("arith", arith_name(o.arith))
      .str("verdict", verdict_name(r.verdict))
      .str("method", r.method)
      .num("reached", r.depth)
      .raw("seconds", fmt::format("{:.3f}", r.seconds))
      .num("conflicts", r.conflicts)
      .raw("memory_mb", fmt::format("{:.1f}", r.memory_mb))
      .str("note", r.note);
  if (r.cex) {
    json::Array ops;
    for (const Op& op : r.cex->ops) ops.add_string(op_text(op));
    out.object("counterexample", json::Object()
                                     .array("ops", ops)
                                     .num("violated_step", r.cex->violated_step)
                                     .str("detail", r.cex->detail)
                                     .boolean("promised", r.cex->promised)
                                     .boolean("reference_agrees", r.cex->reference_agrees)
                                     .str("lag_reached", r.cex->lag_reached)
                                     .str("trace", trace));
  }
  if (r.induction_step)
    out.object("induction_step", json::Object()
                                     .object("before", state_json(r.induction_step->before))
                                     .str("op", r.induction_step->op)
                                     .object("after", state_json(r.induction_step->after)));
  // prove's own members first: scripts/results reads them as the first of their name.
  return out.append(prove_envelope(o, r, trace).object(exit_code(r))).text() + "\n";
}

std::string list_text() {
  std::string out = fmt::format("{:<20} {:<5} {:<7} {:<15} {:<14} {}\n", "id", "spec", "driver",
                                "induction", "arith", "promised-by");
  for (const Property& p : properties()) {
    if (!p.prove.bmc) continue;
    std::string by;
    for (const PresetRow& row : kPresets)
      if (prove::promised_by(row.make(), p.id))
        by += (by.empty() ? "" : ",") + std::string(row.name);
    const char* induction = p.prove.induction == Induction::Always          ? "always"
                            : p.prove.induction == Induction::WherePromised ? "where-promised"
                                                                            : "never";
    out +=
        fmt::format("{:<20} §{:<4} {:<7} {:<15} {:<14} {}\n", p.id, p.section,
                    p.prove.steady   ? "steady"
                    : p.prove.groups ? "groups"
                                     : "any",
                    induction, p.prove.linux64 ? "exact,linux64" : "exact", by.empty() ? "-" : by);
  }
  return out;
}

std::string presets_text() {
  std::string out;
  for (const PresetRow& row : kPresets)
    out += fmt::format("{:<15} {:<6} {}\n", row.name, row.make().paper() ? "paper" : "linux",
                       row.description);
  return out;
}

}  // namespace vlag::cli
