#include "kernel/state/report.h"

#include <fmt/format.h>

#include "json/writer.h"
#include "kernel/state/check_context.h"

namespace vlag::kernel::state {
namespace {

std::string cpus_text(const CaptureFacts& f) {
  if (f.cpus.empty()) return "every CPU";
  std::string s;
  for (const int c : f.cpus) s += (s.empty() ? "cpu" : ",") + std::to_string(c);
  return s;
}

std::string lost_text(const CaptureFacts& f) {
  if (!f.lost_per_cpu) return "not known";
  std::string s;
  uint64_t total = 0;
  for (size_t c = 0; c < f.lost_per_cpu->size(); ++c) {
    s += fmt::format("{}cpu{}={}", s.empty() ? "" : " ", c, (*f.lost_per_cpu)[c]);
    total += (*f.lost_per_cpu)[c];
  }
  return total == 0 ? "none" : s;
}

std::string examples(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "\n      " + l;
  return s;
}

void reasons(std::string& out, const char* id, const char* what,
             const std::map<std::string, uint64_t>& counts) {
  for (const auto& [why, n] : counts) out += fmt::format("  {} {}: {} ({})\n", id, what, why, n);
}

json::Object reasons_json(const std::map<std::string, uint64_t>& counts) {
  json::Object o;
  for (const auto& [why, n] : counts) o.num(why, static_cast<int64_t>(n));
  return o;
}

// The replay through the model (kernel/state/replay.h): decisions per kind, the reasons some
// were not judged, the first differences in full.
std::string replay_text(const StateReport& report) {
  if (!report.replay_unavailable.empty())
    return "\nreplay through the model: none (" + report.replay_unavailable + ")\n";
  const ReplayResult& r = report.replay;
  std::string out = fmt::format(
      "\nreplay through the model ({}, Linux integer arithmetic), decision by decision: {} "
      "cfs_rq{} replayed (seeded {} time{}), {} of those seen holding group entities (picks "
      "there: {} compared, {} agreed; protection not compared there: {})\n",
      r.preset, r.cfs_rqs_replayed, r.cfs_rqs_replayed == 1 ? "" : "s", r.seeds,
      r.seeds == 1 ? "" : "s", r.cfs_rqs_with_groups, r.group_picks.compared(),
      r.group_picks.agreed, r.group_protections_not_compared);
  out += fmt::format(" {:<16} {:>9} {:>9} {:>9} {:>11}\n", "decision", "compared", "agreed",
                     "differed", "not judged");
  for (size_t k = 0; k < kDecisionKinds; ++k) {
    const DecisionTally& t = r.kinds[k];
    out += fmt::format(" {:<16} {:>9} {:>9} {:>9} {:>11}\n",
                       decision_name(static_cast<DecisionKind>(k)), t.compared(), t.agreed,
                       t.differed, t.not_judged_total());
  }
  std::string why;
  for (size_t k = 0; k < kDecisionKinds; ++k)
    for (const auto& [reason, n] : r.kinds[k].not_judged)
      why += fmt::format("  {} not judged: {} ({})\n", decision_name(static_cast<DecisionKind>(k)),
                         reason, n);
  if (!why.empty()) out += "why not judged:\n" + why;
  if (!r.differences.empty()) {
    out += fmt::format("first differences ({} of {}):\n", r.differences.size(), r.differed());
    for (const auto& d : r.differences) out += "  " + d.text() + "\n";
  }
  return out;
}

json::Object replay_json(const StateReport& report) {
  const ReplayResult& r = report.replay;
  json::Object kinds;
  for (size_t k = 0; k < kDecisionKinds; ++k) {
    const DecisionTally& t = r.kinds[k];
    kinds.object(decision_name(static_cast<DecisionKind>(k)),
                 json::Object()
                     .num("compared", static_cast<int64_t>(t.compared()))
                     .num("agreed", static_cast<int64_t>(t.agreed))
                     .num("differed", static_cast<int64_t>(t.differed))
                     .num("not_judged", static_cast<int64_t>(t.not_judged_total()))
                     .object("not_judged_reasons", reasons_json(t.not_judged)));
  }
  json::Array differences;
  for (const auto& d : r.differences)
    differences.add(json::Object()
                        .str("decision", decision_name(d.kind))
                        .num("record", static_cast<int64_t>(d.record))
                        .num("time_ns", static_cast<int64_t>(d.time_ns))
                        .num("cpu", d.cpu)
                        .str("cfs_rq", fmt::format("{:#x}", d.cfs_rq))
                        .str("task", d.task)
                        .str("field", d.field)
                        .str("kernel", d.kernel)
                        .str("model", d.model)
                        .str("model_had", d.model_had));
  json::Object o;
  o.str("unavailable", report.replay_unavailable)
      .str("preset", r.preset)
      .num("cfs_rqs_replayed", static_cast<int64_t>(r.cfs_rqs_replayed))
      .num("cfs_rqs_with_groups", static_cast<int64_t>(r.cfs_rqs_with_groups))
      .num("group_picks_compared", static_cast<int64_t>(r.group_picks.compared()))
      .num("group_picks_agreed", static_cast<int64_t>(r.group_picks.agreed))
      .num("group_protections_not_compared", static_cast<int64_t>(r.group_protections_not_compared))
      .num("seeds", static_cast<int64_t>(r.seeds))
      .num("compared", static_cast<int64_t>(r.compared()))
      .num("agreed", static_cast<int64_t>(r.agreed()))
      .num("differed", static_cast<int64_t>(r.differed()))
      .object("decisions", kinds)
      .array("first_differences", differences);
  return o;
}

// Z3's verdict on a witness, its SMT-LIB2 file and its window (kernel/state/evidence.h).
std::string evidence_text(const Witness& w) {
  std::string out;
  if (w.z3_sat)
    out += fmt::format(
        "      z3: {}{}\n",
        *w.z3_sat ? "sat (the numbers violate it)" : "not sat: the witness does not hold",
        w.z3_error.empty() ? "" : " (" + w.z3_error + ")");
  if (!w.smt_file.empty()) out += "      smt-lib: " + w.smt_file + "\n";
  if (!w.window_file.empty())
    out += "      window: " + w.window_file + " (" + w.window_note + ")\n";
  else if (!w.window_note.empty())
    out += "      window: none (" + w.window_note + ")\n";
  return out;
}

// THM-SHARE's split of the pairs that got the most service in their windows.
std::string shares_text(const Figures& f) {
  constexpr size_t kShown = 12;
  std::string out = fmt::format(
      "  THM-SHARE's split per pair over its windows judged ({} pair{}): a's part of the pair's "
      "service against its weights' part, within what the bound allows{}\n",
      f.shares.size(), f.shares.size() == 1 ? "" : "s", f.shares.empty() ? ": none" : "");
  for (size_t i = 0; i < f.shares.size() && i < kShown; ++i) {
    const ShareFigure& s = f.shares[i];
    out += fmt::format(
        "      cpu{} {} cfs_rq {}: {} (w {:.1f}) and {} (w {:.1f}), {} window{} over {:.1f} ms: "
        "{:.1f} ms and {:.1f} ms, {:.1f} % (weights {:.1f} %, bound ±{:.1f} %)\n",
        s.cpu, s.root ? "root" : "group", hex(s.cfs_rq), s.a_name, s.wa, s.b_name, s.wb, s.windows,
        s.windows == 1 ? "" : "s", s.duration_ns / 1e6, s.sa_ns / 1e6, s.sb_ns / 1e6,
        100 * s.share_a(), 100 * s.expected_share_a(), 100 * s.allowed_share());
  }
  if (f.shares.size() > kShown)
    out += fmt::format("      ... and {} more\n", f.shares.size() - kShown);
  return out;
}

json::Array shares_json(const Figures& f) {
  json::Array a;
  for (const ShareFigure& s : f.shares)
    a.add(json::Object()
              .num("cpu", s.cpu)
              .str("cfs_rq", hex(s.cfs_rq))
              .boolean("root", s.root)
              .str("a", s.a_name)
              .str("b", s.b_name)
              .num("windows", static_cast<int64_t>(s.windows))
              .real("duration_ns", s.duration_ns)
              .real("weight_a", s.wa)
              .real("weight_b", s.wb)
              .real("service_a_ns", s.sa_ns)
              .real("service_b_ns", s.sb_ns)
              .real("expected_a_ns", s.expected_a_ns)
              .real("allowed_ns", s.allowed_ns));
  return a;
}

}  // namespace

std::string report_text(const StateCapture& capture, const StateReport& report) {
  std::string out;
  const Figures& f = report.figures;
  out += fmt::format("{}: {} records, {} switches", capture.source, f.records, f.switches);
  if (capture.facts.seconds > 0) out += fmt::format(" in {:.3f} s", capture.facts.seconds);
  out += "\n";
  if (capture.kernel) {
    const auto& k = *capture.kernel;
    out += fmt::format("kernel {}: HZ {}, base slice {} ns, layout {}\n", k.release, k.hz,
                       k.base_slice_ns, k.layout.describe());
  }
  out += fmt::format(
      "captured: {}; lost records: {}; gaps (a task running that no switch put in): {}\n",
      cpus_text(capture.facts), lost_text(capture.facts), f.gaps);
  for (const auto& n : report.notes) out += "note: " + n + "\n";
  out += fmt::format("\n {:<19} {:>9} {:>9} {:>9} {:>13} {:>9}\n", "check", "cases", "held",
                     "violated", "inconclusive", "n/a");
  for (const auto& [id, t] : report.tallies)
    out += fmt::format(" {:<19} {:>9} {:>9} {:>9} {:>13} {:>9}\n", id, t.cases, t.held, t.violated,
                       t.inconclusive, t.not_applicable);
  std::string why;
  for (const auto& [id, t] : report.tallies) {
    reasons(why, id, "inconclusive", t.inconclusive_reasons);
    reasons(why, id, "n/a", t.not_applicable_reasons);
  }
  if (!why.empty()) out += "\nwhy not judged:\n" + why;
  out += "\nfigures:\n";
  out += fmt::format(
      "  64-bit headroom (s64 holds 63 bits): key*w {} bits, avg_vruntime sum {} bits, key*load "
      "{} bits, vlag*(load+w) {} bits\n",
      f.key_weight_bits, f.sum_bits, f.eligibility_bits, f.lag_product_bits);
  out += fmt::format(
      "  V from scaled-down weights against the full-weight average: at most {:.1f} ns\n",
      f.v_scaling_error_ns);
  out += fmt::format("  picks of a later deadline explained by the next buddy: {}\n",
                     f.picks_as_buddy);
  out += fmt::format("  new picks over a curr still eligible and protected (v < vprot): {}{}\n",
                     f.protection_overridden, examples(f.protection_examples));
  out += fmt::format("  saved lags equal to entity_lag(): {} of {}{}\n", f.saved_lags_exact,
                     f.saved_lags_exact + f.saved_lags_inexact, examples(f.saved_lag_examples));
  out += fmt::format("  placements equal to place_entity(): {} of {}{}\n", f.placements_exact,
                     f.placements_exact + f.placements_inexact, examples(f.placement_examples));
  out += fmt::format("  wakeups during which a delayed entity left the cfs_rq unrecorded: {}\n",
                     f.placements_beside_delayed_exit);
  out += fmt::format(
      "  run deltas replayed by the model: {} matched, {} differed, {} moved to another group{}\n",
      f.replays_matched, f.replays_differed, f.replays_moved, examples(f.replay_examples));
  out += fmt::format("  largest lag at a decision point against r + TICK: {}\n",
                     f.lag_bound_worst.empty() ? "none" : f.lag_bound_worst);
  out += fmt::format(
      "  ... in a steady system of CPU-bound entities (the theorem's; {} decision point{}): {}\n",
      f.steady_decisions, f.steady_decisions == 1 ? "" : "s",
      f.steady_lag_bound_worst.empty() ? "none" : f.steady_lag_bound_worst);
  out += shares_text(f);
  out += replay_text(report);
  bool any = false;
  for (const auto& [id, t] : report.tallies)
    for (const auto& w : t.witnesses) {
      if (!any) out += "\nviolations:\n";
      any = true;
      out += fmt::format("  {}: {}\n", id, w.what);
      for (const auto& line : w.lines) out += "      " + line + "\n";
      out += evidence_text(w);
    }
  out +=
      fmt::format("\n{} violation{}\n", report.violations(), report.violations() == 1 ? "" : "s");
  return out;
}

std::string report_json(const StateCapture& capture, const StateReport& report) {
  const Figures& f = report.figures;
  json::Object checks;
  for (const auto& [id, t] : report.tallies) {
    json::Array witnesses;
    for (const auto& w : t.witnesses) {
      json::Array lines;
      for (const auto& l : w.lines) lines.add_string(l);
      json::Object o;
      o.num("time_ns", static_cast<int64_t>(w.time_ns))
          .num("cpu", w.cpu)
          .num("record", w.record == SIZE_MAX ? -1 : static_cast<int64_t>(w.record))
          .str("what", w.what)
          .array("lines", lines)
          .str("smt_file", w.smt_file)
          .str("window_file", w.window_file)
          .str("window_note", w.window_note);
      if (w.z3_sat)
        o.boolean("z3_sat", *w.z3_sat);
      else
        o.null("z3_sat");
      witnesses.add(o);
    }
    checks.object(id, json::Object()
                          .num("cases", static_cast<int64_t>(t.cases))
                          .num("held", static_cast<int64_t>(t.held))
                          .num("violated", static_cast<int64_t>(t.violated))
                          .num("inconclusive", static_cast<int64_t>(t.inconclusive))
                          .num("not_applicable", static_cast<int64_t>(t.not_applicable))
                          .object("inconclusive_reasons", reasons_json(t.inconclusive_reasons))
                          .object("not_applicable_reasons", reasons_json(t.not_applicable_reasons))
                          .array("witnesses", witnesses));
  }
  json::Array notes;
  for (const auto& n : report.notes) notes.add_string(n);
  json::Object figures;
  figures.num("records", static_cast<int64_t>(f.records))
      .num("switches", static_cast<int64_t>(f.switches))
      .num("gaps", static_cast<int64_t>(f.gaps))
      .num("key_weight_bits", f.key_weight_bits)
      .num("sum_bits", f.sum_bits)
      .num("eligibility_bits", f.eligibility_bits)
      .num("lag_product_bits", f.lag_product_bits)
      .real("v_scaling_error_ns", f.v_scaling_error_ns)
      .num("picks_as_buddy", static_cast<int64_t>(f.picks_as_buddy))
      .num("protection_overridden", static_cast<int64_t>(f.protection_overridden))
      .num("saved_lags_exact", static_cast<int64_t>(f.saved_lags_exact))
      .num("saved_lags_inexact", static_cast<int64_t>(f.saved_lags_inexact))
      .num("placements_exact", static_cast<int64_t>(f.placements_exact))
      .num("placements_inexact", static_cast<int64_t>(f.placements_inexact))
      .num("placements_beside_delayed_exit", static_cast<int64_t>(f.placements_beside_delayed_exit))
      .num("replays_matched", static_cast<int64_t>(f.replays_matched))
      .num("replays_differed", static_cast<int64_t>(f.replays_differed))
      .num("replays_moved", static_cast<int64_t>(f.replays_moved))
      .num("steady_decisions", static_cast<int64_t>(f.steady_decisions))
      .real("lag_bound_ratio", f.lag_bound_ratio)
      .str("lag_bound_worst", f.lag_bound_worst)
      .real("steady_lag_bound_ratio", f.steady_lag_bound_ratio)
      .str("steady_lag_bound_worst", f.steady_lag_bound_worst)
      .array("shares", shares_json(f));
  json::Object o;
  o.str("source", capture.source)
      .str("kernel", capture.kernel ? capture.kernel->release : "")
      .str("lost", lost_text(capture.facts))
      .array("notes", notes)
      .object("checks", checks)
      .object("figures", figures)
      .object("replay", replay_json(report))
      .num("violations", static_cast<int64_t>(report.violations()));
  return o.text() + "\n";
}

}  // namespace vlag::kernel::state
