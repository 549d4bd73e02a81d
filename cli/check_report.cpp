#include "cli/check_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "json/writer.h"

namespace vlag::cli {
namespace {

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
      fmt::print("  {}:{}: {}{}: {}\n", v.file, v.line,
                 v.rq ? fmt::format("rq {}: ", *v.rq) : std::string(), v.id, v.detail);
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
  json::Array files, violations, problems, notes;
  for (const std::string& f : r.files) files.add_string(f);
  json::Object invariants;
  for (const auto& [id, st] : r.stats)
    invariants.object(id, json::Object()
                              .num("checked", st.checked)
                              .num("violated", st.violated)
                              .num("not_promised", st.not_promised)
                              .boolean("verdict", st.verdict)
                              .str("worst", st.worst));
  for (const checker::Violation& v : r.violations) {
    json::Object o;
    o.str("id", v.id).str("file", v.file).num("line", v.line);
    if (v.rq) o.num("rq", *v.rq);
    o.str("detail", v.detail);
    if (v.z3_sat)
      o.boolean("z3_sat", *v.z3_sat);
    else
      o.null("z3_sat");
    violations.add(o.str("smt_file", v.smt_file)
                       .str("window_file", v.window_file)
                       .str("window_note", v.window_note));
  }
  for (const auto& p : r.problems)
    problems.add(json::Object().str("class", trace::fault_name(p.fault)).str("message", p.message));
  for (const std::string& n : r.notes) notes.add_string(n);
  fmt::print("{}\n", json::Object()
                         .num("events", r.events)
                         .array("files", files)
                         .object("invariants", invariants)
                         .num("violation_count", r.violation_count)
                         .array("violations", violations)
                         .num("problem_count", r.problem_count)
                         .array("problems", problems)
                         .array("notes", notes)
                         .text());
}

int exit_code(const checker::Report& r) {
  if (r.violated()) return 1;
  return r.problem_count > 0 ? 2 : 0;
}

}  // namespace vlag::cli
