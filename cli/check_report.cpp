#include "cli/check_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "trace/writer.h"

namespace vlag::cli {
namespace {

using trace::json_string;

constexpr size_t kListed = 10;  // violations and problems listed in the human summary

std::string z3_text(const checker::Violation& v) {
  if (!v.z3_sat) return "not re-checked";
  return *v.z3_sat ? "z3: sat" : "z3: NOT confirmed";
}

}  // namespace

void print_summary(const checker::Report& r) {
  fmt::print("checked {} event(s) in {} file(s)\n\n", r.events, r.files.size());
  fmt::print("{:<20} {:>9} {:>9} {:>9}  {}\n", "invariant", "checked", "violated", "expected",
             "worst / first");
  for (const auto& [id, s] : r.stats) {
    const std::string kind = s.verdict ? "" : " (figure)";
    fmt::print("{:<20} {:>9} {:>9} {:>9}  {}{}\n", id, s.checked, s.violated, s.not_promised,
               s.worst.empty() ? "-" : s.worst, kind);
  }
  if (r.violation_count > 0) {
    const size_t shown = std::min<size_t>(r.violations.size(), kListed);
    fmt::print(
        "\nviolations: {}{}\n", r.violation_count,
        shown < static_cast<size_t>(r.violation_count)
            ? fmt::format(" (the first {} listed; --json lists {})", shown, r.violations.size())
            : "");
    for (size_t i = 0; i < shown; ++i) {
      const checker::Violation& v = r.violations[i];
      fmt::print("  {}:{}: {}: {}\n", v.file, v.line, v.id, v.detail);
      if (v.z3_sat || !v.smt_file.empty())
        fmt::print("    {}{}\n", z3_text(v), v.smt_file.empty() ? "" : " (" + v.smt_file + ")");
      if (!v.window_file.empty() || !v.window_note.empty())
        fmt::print("    window: {}{}\n", v.window_file.empty() ? "none" : v.window_file,
                   v.window_note.empty() ? "" : " — " + v.window_note);
    }
  }
  if (r.problem_count > 0) {
    fmt::print("\ntrace problems skipped (--keep-going): {}\n", r.problem_count);
    for (size_t i = 0; i < r.problems.size() && i < kListed; ++i)
      fmt::print("  {}\n", r.problems[i].message);
  }
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
  fmt::print("\nresult: {}\n", r.violated() ? fmt::format("{} violation(s)", r.violation_count)
                               : r.problem_count > 0 ? "no violation, but trace problems"
                                                     : "all checked invariants hold");
}

void print_json(const checker::Report& r) {
  std::string s = fmt::format("{{\"events\":{},\"files\":[", r.events);
  for (size_t i = 0; i < r.files.size(); ++i) s += (i ? "," : "") + json_string(r.files[i]);
  s += "],\"invariants\":{";
  bool first = true;
  for (const auto& [id, st] : r.stats) {
    s += fmt::format(
        "{}{}:{{\"checked\":{},\"violated\":{},\"not_promised\":{},\"verdict\":{},"
        "\"worst\":{}}}",
        first ? "" : ",", json_string(id), st.checked, st.violated, st.not_promised, st.verdict,
        json_string(st.worst));
    first = false;
  }
  s += fmt::format("}},\"violation_count\":{},\"violations\":[", r.violation_count);
  for (size_t i = 0; i < r.violations.size(); ++i) {
    const auto& v = r.violations[i];
    s += fmt::format(
        "{}{{\"id\":{},\"file\":{},\"line\":{},\"detail\":{},\"z3_sat\":{},"
        "\"smt_file\":{},\"window_file\":{},\"window_note\":{}}}",
        i ? "," : "", json_string(v.id), json_string(v.file), v.line, json_string(v.detail),
        v.z3_sat ? (*v.z3_sat ? "true" : "false") : "null", json_string(v.smt_file),
        json_string(v.window_file), json_string(v.window_note));
  }
  s += fmt::format("],\"problem_count\":{},\"problems\":[", r.problem_count);
  for (size_t i = 0; i < r.problems.size(); ++i)
    s += fmt::format("{}{{\"class\":{},\"message\":{}}}", i ? "," : "",
                     json_string(trace::fault_name(r.problems[i].fault)),
                     json_string(r.problems[i].message));
  s += "],\"notes\":[";
  for (size_t i = 0; i < r.notes.size(); ++i) s += (i ? "," : "") + json_string(r.notes[i]);
  s += "]}";
  fmt::print("{}\n", s);
}

int exit_code(const checker::Report& r) {
  if (r.violated()) return 1;
  return r.problem_count > 0 ? 2 : 0;
}

}  // namespace vlag::cli
