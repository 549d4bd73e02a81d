#include "cli/check_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/json_envelope.h"
#include "cli/verdict_json.h"
#include "json/writer.h"

namespace vlag::cli {
namespace {

constexpr size_t kListed = 10;  // violations, findings and problems listed in the human summary

std::string z3_text(const checker::Violation& v) {
  if (!v.z3_sat) return "not re-checked";
  return *v.z3_sat ? "z3: sat" : "z3: NOT confirmed";
}

std::string rq_text(const std::optional<RunqueueId>& rq) {
  return rq ? fmt::format("rq {}: ", *rq) : std::string();
}

// " (the first 10 listed; --json lists 50, 7 more left out)": what a list shows of `count`.
std::string listed_text(size_t shown, size_t kept, int64_t count) {
  if (shown >= static_cast<size_t>(count)) return "";
  std::string s = fmt::format(" (the first {} listed", shown);
  if (kept > shown) s += fmt::format("; --json lists {}", kept);
  if (static_cast<int64_t>(kept) < count)
    s += fmt::format("; {} more counted but not kept", count - static_cast<int64_t>(kept));
  return s + ")";
}

std::string inconclusive_reasons(const checker::Report& r) {
  std::array<int64_t, kReasonCount> by{};
  for (const auto& [id, s] : r.stats)
    for (size_t i = 0; i < kReasonCount; ++i) by[i] += s.inconclusive_by_reason[i];
  std::string text;
  for (size_t i = 0; i < kReasonCount; ++i)
    if (by[i] > 0)
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", reason_name(static_cast<Reason>(i)),
                          by[i]);
  return text;
}

std::string result_text(const checker::Report& r) {
  int64_t not_promised = 0;
  for (const auto& [id, s] : r.stats) not_promised += s.not_promised;
  const std::string expected =
      not_promised > 0 ? fmt::format(
                             "; {} failure(s) where the preset does not promise the invariant, its "
                             "documented behaviour (listed above)",
                             not_promised)
                       : "";
  switch (r.worst()) {
    case Verdict::Violated:
      return fmt::format("violated: {} violation(s)", r.violation_count);
    case Verdict::Inconclusive:
      return fmt::format("inconclusive: no violation; {} check(s) the trace cannot settle ({}){}",
                         r.inconclusive_count(), inconclusive_reasons(r), expected);
    case Verdict::Held:
      return not_promised > 0 ? "held: every check of what the preset promises holds" + expected
                              : "held: all checked invariants hold";
    case Verdict::NotApplicable:
      return "not applicable: nothing was judged" + expected;
  }
  return "?";
}

void print_violations(const checker::Report& r) {
  if (r.violation_count == 0) return;
  const size_t shown = std::min(r.violations.size(), kListed);
  fmt::print("\nviolations: {}{}\n", r.violation_count,
             listed_text(shown, r.violations.size(), r.violation_count));
  for (size_t i = 0; i < shown; ++i) {
    const checker::Violation& v = r.violations[i];
    fmt::print("  {}:{}: {}{}: {}\n", v.file, v.line, rq_text(v.rq), v.id, v.detail);
    if (v.z3_sat || !v.smt_file.empty())
      fmt::print("    {}{}\n", z3_text(v), v.smt_file.empty() ? "" : " (" + v.smt_file + ")");
    if (!v.window_file.empty() || !v.window_note.empty())
      fmt::print("    window: {}{}\n", v.window_file.empty() ? "none" : v.window_file,
                 v.window_note.empty() ? "" : " — " + v.window_note);
  }
}

// The inconclusive findings, then those the preset does not promise, each list on its own.
void print_findings(const checker::Report& r, Verdict which, const std::string& title) {
  std::vector<const checker::Finding*> list;
  for (const checker::Finding& f : r.findings)
    if (f.verdict == which) list.push_back(&f);
  int64_t count = 0;
  for (const auto& [id, s] : r.stats)
    count += which == Verdict::Inconclusive ? s.inconclusive : s.not_promised;
  if (count == 0) return;
  const size_t shown = std::min(list.size(), kListed);
  fmt::print("\n{}: {}{}\n", title, count, listed_text(shown, list.size(), count));
  for (size_t i = 0; i < shown; ++i) {
    const checker::Finding& f = *list[i];
    fmt::print("  {}:{}: {}{}: {} ({})\n", f.file, f.line, rq_text(f.rq), f.id, f.detail,
               reasons_text(f.reasons));
  }
}

void print_problems(const checker::Report& r) {
  if (r.problem_count == 0) return;
  const size_t shown = std::min(r.problems.size(), kListed);
  fmt::print("\ntrace problems skipped (--keep-going): {}{}\n", r.problem_count,
             listed_text(shown, r.problems.size(), r.problem_count));
  for (size_t i = 0; i < shown; ++i) fmt::print("  {}\n", r.problems[i].message);
}

json::Object problem_json(const checker::Problem& p) {
  json::Object o;
  o.str("class", trace::fault_name(p.fault)).str("file", p.file).num("line", p.line);
  if (p.field.empty())
    o.null("field");
  else
    o.str("field", p.field);
  return o.str("message", p.message);
}

// A violation or finding of the checker in the envelope's terms.
EnvelopeFinding finding_of(const std::string& id, Verdict verdict, Reasons why,
                           const std::string& file, int64_t line,
                           const std::optional<RunqueueId>& rq, const std::string& message) {
  EnvelopeFinding f = envelope_finding(id, verdict, why, file, line, message);
  f.rq = rq ? *rq : -1;
  return f;
}

}  // namespace

void print_summary(const checker::Report& r) {
  fmt::print("checked {} event(s) in {} file(s)\n\n", r.events, r.files.size());
  fmt::print("{:<20} {:>9} {:>9} {:>9} {:>12} {:>12}  {}\n", "invariant", "checked", "held",
             "violated", "inconclusive", "not promised", "worst / first");
  for (const auto& [id, s] : r.stats) {
    const std::string kind = s.verdict ? "" : " (figure)";
    if (s.verdict)
      fmt::print("{:<20} {:>9} {:>9} {:>9} {:>12} {:>12}  {}\n", id, s.checked, s.held(),
                 s.violated, s.inconclusive, s.not_promised, s.worst.empty() ? "-" : s.worst);
    else
      fmt::print("{:<20} {:>9} {:>9} {:>9} {:>12} {:>12}  {} (figure)\n", id, s.checked, "-", "-",
                 "-", "-", s.worst.empty() ? "-" : s.worst);
  }
  print_violations(r);
  print_findings(r, Verdict::Inconclusive, "inconclusive");
  print_findings(r, Verdict::NotApplicable,
                 "not promised by the preset here (its documented behaviour, SPEC.md §6)");
  print_problems(r);
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
  fmt::print("\nresult: {}\n", result_text(r));
}

std::string report_json(const checker::Report& r, const std::string& command, int exit_code,
                        const std::string& worst_wakeups) {
  Envelope env(command);
  json::Array checks, files, problems, notes;
  for (const auto& [id, st] : r.stats) {
    json::Object inc;
    for (size_t i = 0; i < kReasonCount; ++i)
      if (st.inconclusive_by_reason[i])
        inc.num(reason_name(static_cast<Reason>(i)), st.inconclusive_by_reason[i]);
    json::Object na;
    if (st.not_promised) na.num(reason_name(Reason::NotPromised), st.not_promised);
    json::Object o;
    o.str("id", id)
        .str("kind", st.verdict ? "verdict" : "figure")
        .num("checked", st.checked)
        .num("held", st.held())
        .num("violated", st.violated)
        .num("inconclusive", st.inconclusive)
        .num("not_applicable", st.not_promised)
        .object("inconclusive_reasons", inc)
        .object("not_applicable_reasons", na);
    if (st.worst.empty())
      o.null("worst");
    else
      o.str("worst", st.worst);
    checks.add(o);
    if (!st.verdict) continue;
    env.count(Verdict::Held, st.held());
    env.count(Verdict::Violated, st.violated);
    env.count(Verdict::Inconclusive, st.inconclusive);
    env.count(Verdict::NotApplicable, st.not_promised);
  }
  // The findings of each file in line order: violations with their evidence, then the rest.
  std::vector<EnvelopeFinding> all;
  for (const checker::Violation& v : r.violations) {
    EnvelopeFinding f = finding_of(v.id, Verdict::Violated, {}, v.file, v.line, v.rq, v.detail);
    if (v.z3_sat)
      f.extra.boolean("z3_sat", *v.z3_sat);
    else
      f.extra.null("z3_sat");
    f.extra.str("smt_file", v.smt_file)
        .str("window_file", v.window_file)
        .str("window_note", v.window_note);
    all.push_back(std::move(f));
  }
  for (const checker::Finding& x : r.findings)
    all.push_back(finding_of(x.id, x.verdict, x.reasons, x.file, x.line, x.rq, x.detail));
  const auto file_index = [&](const std::string& file) {
    return std::find(r.files.begin(), r.files.end(), file) - r.files.begin();
  };
  std::stable_sort(all.begin(), all.end(), [&](const EnvelopeFinding& a, const EnvelopeFinding& b) {
    const auto fa = file_index(a.file), fb = file_index(b.file);
    return fa != fb ? fa < fb : a.line < b.line;
  });
  for (EnvelopeFinding& f : all) env.add(std::move(f));
  env.left_out(r.violations_left_out() + r.findings_left_out());
  for (const std::string& f : r.files) files.add_string(f);
  for (const auto& p : r.problems) problems.add(problem_json(p));
  for (const std::string& n : r.notes) notes.add_string(n);
  json::Object out = env.object(exit_code);
  out.array("checks", checks)
      .array("problems", problems)
      .num("problem_count", r.problem_count)
      .num("problems_left_out", r.problems_left_out())
      .num("events", r.events)
      .array("files", files)
      .num("violation_count", r.violation_count)
      .num("finding_count", r.finding_count)
      .array("notes", notes);
  if (!worst_wakeups.empty()) out.raw("worst_wakeups", worst_wakeups);
  return out.text();
}

int exit_code(const checker::Report& r, bool strict) {
  if (r.problem_count > 0) return 2;
  return verdict_exit_code(r.worst(), strict);
}

}  // namespace vlag::cli
