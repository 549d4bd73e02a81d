#include "cli/prove_report.h"

#include <fmt/format.h>

#include <cctype>

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
  for (int64_t x : xs) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string json_string(const std::string& text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) s += c;
  }
  return s + "\"";
}

std::string scope(const prove::Options& o) {
  return fmt::format(
      "{} tasks, weights {{{}}}, slices {{{}}} (0 = base {} ns), run delta <= {} ns, {}", o.tasks,
      list(o.weights), list(o.slices), o.params.base_slice_ns(),
      o.max_delta_ns > 0 ? o.max_delta_ns : o.params.tick_ns(),
      o.arith == prove::Arith::Exact ? "exact arithmetic" : "Linux 64-bit arithmetic");
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
        s += fmt::format("  {:>3}  {}{}\n", i, to_string(c.ops[i]),
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
  std::string s = fmt::format(
      "{{\"invariant\":{},\"preset\":{},\"tasks\":{},\"depth\":{},\"arith\":\"{}\","
      "\"verdict\":\"{}\",\"method\":\"{}\",\"reached\":{},\"seconds\":{:.3f},\"conflicts\":{},"
      "\"memory_mb\":{:.1f},\"note\":{}",
      json_string(o.invariant), json_string(o.params.preset.name), o.tasks, o.depth,
      o.arith == prove::Arith::Exact ? "exact" : "linux64", verdict_name(r.verdict), r.method,
      r.depth, r.seconds, r.conflicts, r.memory_mb, json_string(r.note));
  if (r.cex) {
    std::string ops;
    for (const Op& op : r.cex->ops) ops += (ops.empty() ? "" : ",") + json_string(to_string(op));
    s += fmt::format(
        ",\"counterexample\":{{\"ops\":[{}],\"violated_step\":{},\"detail\":{},\"promised\":{},"
        "\"reference_agrees\":{},\"lag_reached\":{},\"trace\":{}}}",
        ops, r.cex->violated_step, json_string(r.cex->detail), r.cex->promised,
        r.cex->reference_agrees, json_string(r.cex->lag_reached), json_string(trace));
  }
  return s + "}\n";
}

}  // namespace vlag::cli
