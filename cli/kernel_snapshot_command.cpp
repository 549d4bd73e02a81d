// `vlag kernel snapshot FILE|-`: parses /sys/kernel/debug/sched/debug and checks SNAP-*
// (SPEC.md §6.1).
#include <fmt/format.h>

#include "json/writer.h"
#include "cli/kernel_commands.h"
#include "kernel/capture_reader.h"
#include "kernel/snapshot_check.h"

namespace vlag::cli {
namespace {

void print_text(const kernel::SnapshotReport& r) {
  fmt::print("{}: sched debug {}\n", r.file, r.version);
  fmt::print("  {:<20} {:>8} {:>8} {:>8}\n", "check", "checked", "held", "violated");
  for (const auto& [id, c] : r.counts)
    fmt::print("  {:<20} {:>8} {:>8} {:>8}\n", id, c.checked, c.checked - c.violated, c.violated);
  for (const auto& f : r.findings)
    fmt::print("  {} {}:{}: {}: {}\n", f.violation ? "VIOLATION" : "note", r.file, f.line, f.id,
               f.where + ": " + f.message);
  for (const auto& n : r.notes) fmt::print("  not checked: {}\n", n);
}

std::string to_json(const kernel::SnapshotReport& r) {
  json::Array counts, findings, notes;
  for (const auto& [id, c] : r.counts)
    counts.add(json::Object().str("id", id).num("checked", c.checked).num("violated", c.violated));
  for (const auto& f : r.findings)
    findings.add(json::Object()
                     .str("id", f.id)
                     .num("line", f.line)
                     .str("where", f.where)
                     .str("message", f.message)
                     .boolean("violation", f.violation));
  for (const auto& n : r.notes) notes.add_string(n);
  return json::Object()
      .str("file", r.file)
      .str("version", r.version)
      .boolean("ok", r.ok())
      .raw("checks", counts.text())
      .raw("findings", findings.text())
      .raw("not_checked", notes.text())
      .text();
}

}  // namespace

int run_kernel_snapshot(const SnapshotOptions& o) {
  bool ok = true;
  json::Array all;
  for (const auto& file : o.files) {
    const auto report = kernel::check_snapshot(kernel::load_snapshot(file));
    ok = ok && report.ok();
    if (o.json)
      all.add_raw(to_json(report));
    else
      print_text(report);
  }
  if (o.json) fmt::print("{}\n", all.text());
  return ok ? 0 : 1;
}

}  // namespace vlag::cli
