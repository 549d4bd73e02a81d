// `vlag kernel snapshot FILE|-`: parses /sys/kernel/debug/sched/debug and checks SNAP-*
// (SPEC.md §6.1), each verdict on the lattice of §6.3.
#include <fmt/format.h>

#include "cli/json_envelope.h"
#include "cli/kernel_commands.h"
#include "cli/verdict_json.h"
#include "json/writer.h"
#include "kernel/capture_reader.h"
#include "kernel/snapshot_check.h"

namespace vlag::cli {
namespace {

void print_text(const kernel::SnapshotReport& r, const kernel::SchedDebugSnapshot& snap) {
  fmt::print("{}: sched debug {}\n", r.file, r.version);
  fmt::print("  {:<20} {:>8} {:>8} {:>13} {:>9} {:>5}\n", "check", "checked", "held",
             "inconclusive", "violated", "n/a");
  for (const auto& [id, c] : r.checks)
    fmt::print("  {:<20} {:>8} {:>8} {:>13} {:>9} {:>5}\n", id, c.checked(), c.held, c.inconclusive,
               c.violated, c.not_applicable);
  for (const auto& f : r.findings)
    fmt::print("  {} {}:{}: {}: {}: {}\n",
               f.verdict == Verdict::Violated ? std::string("VIOLATION")
                                              : "INCONCLUSIVE (" + reasons_text(f.reasons) + ")",
               r.file, f.line, f.id, f.where, f.message);
  for (const auto& n : r.notes) fmt::print("  not checked: {}\n", n);
  if (snap.skipped)
    fmt::print("  skipped {} malformed lines (first: {})\n", snap.skipped, snap.first_error);
}

std::string to_json(const kernel::SnapshotReport& r, const kernel::SchedDebugSnapshot& snap) {
  json::Array counts, notes;
  for (const auto& [id, c] : r.checks) counts.add_raw(tally_json(id, c));
  for (const auto& n : r.notes) notes.add_string(n);
  return json::Object()
      .str("file", r.file)
      .str("version", r.version)
      .boolean("ok", r.ok())
      .str("verdict", std::string(verdict_name(r.worst)))
      .raw("checks", counts.text())
      .raw("not_checked", notes.text())
      .num("skipped_lines", snap.skipped)
      .text();
}

void add_to_envelope(const kernel::SnapshotReport& r, Envelope& envelope) {
  for (const auto& [id, c] : r.checks) add_tally(c, envelope);
  for (const auto& f : r.findings) {
    EnvelopeFinding e = envelope_finding(f.id, f.verdict, f.reasons, r.file, f.line, f.message);
    e.subject = f.where;
    envelope.add(std::move(e));
  }
}

}  // namespace

int run_kernel_snapshot(const SnapshotOptions& o, const JsonPart* part) {
  return with_filesystem_errors("vlag kernel snapshot", [&] {
    Verdict worst = Verdict::NotApplicable;
    bool skipped = false;
    Envelope own("kernel snapshot");
    json::Array own_files;
    const JsonPart json = part ? *part : JsonPart{own, own_files};
    for (const auto& file : o.files) {
      const auto snap = kernel::load_snapshot(file, {o.keep_going});
      const auto report = kernel::check_snapshot(snap);
      worst = join(worst, report.worst);
      skipped = skipped || snap.skipped > 0;
      if (o.json) {
        add_to_envelope(report, json.envelope);
        json.files.add_raw(to_json(report, snap));
      } else {
        print_text(report, snap);
      }
    }
    const int code = skipped ? 2 : verdict_exit_code(worst, o.strict);
    if (o.json && !part) fmt::print("{}\n", own.object(code).array("files", own_files).text());
    return code;
  });
}

}  // namespace vlag::cli
