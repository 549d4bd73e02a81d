// `vlag kernel record --state [--cpus LIST] [--duration S] [-o DIR] [-- COMMAND]` captures the
// kernel's own state (kernel/state/record.h) and checks it; `vlag kernel check --state FILE...`
// checks saved captures (kernel/state/capture_file.h), no root needed. Each prints the report of
// kernel/state/report.h: exit 0 when nothing was violated, 1 when something was (or, under
// --strict, was inconclusive: SPEC.md §6.3), 2 when the capture cannot be made here (not root, no
// BTF, the BPF part not built, a tracepoint missing) or a file cannot be read.
#include "cli/kernel_state_command.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/json_envelope.h"
#include "json/writer.h"
#include "kernel/state/capture_file.h"
#include "kernel/state/checks.h"
#include "kernel/state/evidence.h"
#include "kernel/state/export.h"
#include "kernel/state/record.h"
#include "kernel/state/report.h"
#include "spec/directory.h"

namespace vlag::cli {
namespace {

struct StateOptions {
  bool state = false;
  std::string cpus;
  std::string out;
  bool no_queues = false;
};

// Where the evidence of violations goes, and how much of it (kernel/state/evidence.h).
struct EvidenceFlags {
  std::string dir = "vlag-evidence";
  size_t max = 5;
  bool no_z3 = false;
  kernel::state::EvidenceOptions options() const { return {dir, max, !no_z3}; }
};

void add_evidence_options(CLI::App& cmd, EvidenceFlags& e, const char* group) {
  cmd.add_option("--evidence-dir,--evidence", e.dir,
                 "With --state: directory for the SMT-LIB2 file and the minimal window of each "
                 "violation")
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--max-evidence", e.max,
                 "With --state: violations that get Z3 re-checking, an SMT-LIB2 file and a window")
      ->check(CLI::Range(0, 1'000'000))
      ->capture_default_str()
      ->group(group);
  cmd.add_flag("--no-z3", e.no_z3, "With --state: do not re-check violations with Z3")
      ->group(group);
}

// "1", "0-1,3" -> {0, 1, 3}.
std::vector<int> cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::string_view item = rest.substr(0, rest.find(','));
    rest.remove_prefix(std::min(rest.size(), item.size() + 1));
    int lo = -1, hi = -1;
    const char* end = item.data() + item.size();
    std::from_chars_result got = std::from_chars(item.data(), end, lo);
    if (got.ec == std::errc() && got.ptr != end && *got.ptr == '-')
      got = std::from_chars(got.ptr + 1, end, hi);
    else
      hi = lo;
    if (got.ec != std::errc() || got.ptr != end || lo < 0 || hi < lo || hi >= 4096)
      throw CLI::ValidationError("--cpus",
                                 "'" + std::string(item) + "' is not a CPU or a range A-B");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

// Under --json the captures' reports go into one report (docs/json-schema.md): their cases'
// verdicts and violations in its envelope, each capture's object in `files`.
struct StateJson {
  Envelope envelope;
  json::Array files;
};

void add_to_envelope(const kernel::state::StateReport& r, Envelope& envelope) {
  for (const auto& [id, t] : r.tallies) {
    envelope.count(Verdict::Held, static_cast<int64_t>(t.held));
    envelope.count(Verdict::Violated, static_cast<int64_t>(t.violated));
    envelope.count(Verdict::Inconclusive, static_cast<int64_t>(t.inconclusive));
    envelope.count(Verdict::NotApplicable, static_cast<int64_t>(t.not_applicable));
    for (const auto& w : t.witnesses) {
      EnvelopeFinding f = envelope_finding(id, Verdict::Violated, {}, r.source, 0, w.what);
      f.cpu = w.cpu;
      envelope.add(std::move(f));
    }
    envelope.left_out(static_cast<int64_t>(t.violated - t.witnesses.size()));
  }
}

int report(const kernel::state::StateCapture& capture, StateJson* json, bool strict,
           const EvidenceFlags& evidence) {
  kernel::state::StateReport r = kernel::state::check_state_capture(capture);
  kernel::state::add_evidence(capture, r, evidence.options());
  if (json) {
    add_to_envelope(r, json->envelope);
    std::string text = kernel::state::report_json(capture, r);
    if (!text.empty() && text.back() == '\n') text.pop_back();  // one object of the array
    json->files.add_raw(text);
  } else {
    std::cout << kernel::state::report_text(capture, r);
  }
  return r.exit_code(strict);
}

int print_json(const StateJson& json, int code) {
  std::cout << json.envelope.object(code).array("files", json.files).text() << "\n";
  return code;
}

bool given(const CLI::App& app, const std::string& name) {
  return app.get_option(name)->count() > 0;
}

int run_record_state(const StateOptions& s, const EvidenceFlags& evidence, const CLI::App& rec) {
  kernel::state::StateRecordOptions o;
  if (!s.cpus.empty())
    o.cpus = cpu_list(s.cpus);
  else if (const CLI::Option* one = rec.get_option("--cpu"); one->count() > 0)
    o.cpus = {one->as<int>()};
  if (const CLI::Option* d = rec.get_option("--duration"); d->count() > 0)
    o.duration_s = d->as<double>();
  o.command = rec.get_option("command")->results();
  o.out_dir = s.out;
  if (o.out_dir.empty() && rec.get_option("--out")->count() > 0)
    o.out_dir = rec.get_option("--out")->as<std::string>();
  o.queues = !s.no_queues;
  if (o.duration_s <= 0 && o.command.empty())
    throw CLI::ValidationError("--state", "give a --duration, a command after --, or both");
  const bool json = given(rec, "--json");
  kernel::state::RecordedState recorded;
  try {
    recorded = kernel::state::record_state(o, [&](const kernel::bpf::KernelParameters& k) {
      if (!json)
        std::cerr << fmt::format(
            "vlag kernel record --state: capturing kernel {} (HZ {}, base "
            "slice {} ns)\n",
            k.release, k.hz, k.base_slice_ns);
    });
  } catch (const kernel::bpf::CaptureError& e) {
    throw Error("kernel record --state: cannot capture here: " + std::string(e.what()) + " [" +
                kernel::bpf::error_kind_name(e.kind()) + "]");
  }
  if (!json)
    std::cout << fmt::format("recorded into {}: {} records in {:.3f} s (stopped by {})\n\n",
                             recorded.dir, recorded.result.records, recorded.result.seconds,
                             recorded.result.stopped_by);
  StateJson out{Envelope("kernel record"), {}};
  const int code = report(kernel::state::read_state_capture(recorded.dir), json ? &out : nullptr,
                          given(rec, "--strict"), evidence);
  return json ? print_json(out, code) : code;
}

int run_check_state(const CLI::App& check, const EvidenceFlags& evidence) {
  const bool json = given(check, "--json"), strict = given(check, "--strict");
  int status = 0;
  StateJson out{Envelope("kernel check"), {}};
  for (const auto& file : check.get_option("files")->results()) {
    status = std::max(status, report(kernel::state::read_state_capture(file), json ? &out : nullptr,
                                     strict, evidence));
    if (!json) std::cout << "\n";
  }
  return json ? print_json(out, status) : status;
}

// `vlag kernel export --state CAPTURE -o DIR`: one spec/TRACE.md trace per cfs_rq.
struct ExportOptions {
  bool state = false;
  std::string capture;
  std::string out;
};

int run_export_state(const ExportOptions& o) {
  if (!o.state)
    throw CLI::ValidationError("--state", "kernel export takes a state capture: give --state");
  const auto traces =
      kernel::state::export_state_traces(kernel::state::read_state_capture(o.capture));
  make_directory(o.out, "-o");
  for (const auto& t : traces) {
    const auto path = std::filesystem::path(o.out) / t.name;
    std::ofstream out(path);
    out << t.text;
    if (!out) throw Error("kernel export: cannot write " + path.string());
    std::cout << fmt::format("{}: {} ({} events)\n", path.string(), t.runqueue, t.events);
  }
  std::cout << fmt::format("{} trace{} of {}\n", traces.size(), traces.size() == 1 ? "" : "s",
                           o.capture);
  return 0;
}

}  // namespace

void add_kernel_state_options(CLI::App& app, int& exit_code) {
  CLI::App* kernel = app.get_subcommand("kernel");
  CLI::App* rec = kernel->get_subcommand("record");
  CLI::App* check = kernel->get_subcommand("check");
  const char* group = "Kernel state (BPF, SPEC.md 6.4)";

  auto ro = std::make_shared<StateOptions>();
  rec->add_flag("--state", ro->state,
                "Capture the kernel's own EEVDF state with BPF (root, BTF) instead of perf, and "
                "check every pick, placement, saved lag, deadline and sum it shows")
      ->group(group);
  rec->add_option("--cpus", ro->cpus, "With --state: capture these CPUs only, e.g. 1 or 0-1,3")
      ->group(group);
  rec->add_option("-o", ro->out, "With --state: the capture's directory (as --out)")->group(group);
  rec->add_flag("--no-queues", ro->no_queues,
                "With --state: no queue snapshots (cheaper; the picks' deadline order and the "
                "sums are then not judged)")
      ->group(group);
  auto re = std::make_shared<EvidenceFlags>();
  add_evidence_options(*rec, *re, group);
  rec->parse_complete_callback([ro, re, rec, &exit_code] {
    if (!ro->state) return;
    exit_code = run_record_state(*ro, *re, *rec);
    rec->final_callback({});  // the perf path of `kernel record` does not run
  });

  auto eo = std::make_shared<ExportOptions>();
  CLI::App* exp = kernel->add_subcommand(
      "export",
      "Write a capture of the kernel's own state as spec/TRACE.md traces, one per cfs_rq, for "
      "vlag check and vlag trace export");
  exp->add_flag("--state", eo->state,
                "The capture is of the kernel's own state (a directory `kernel record --state` "
                "wrote, its state.raw, or state_dump --json output)")
      ->required();
  exp->add_option("capture", eo->capture, "The capture")->required();
  exp->add_option("-o,--out", eo->out, "Directory for the traces (made if missing)")->required();
  exp->callback([eo, &exit_code] { exit_code = run_export_state(*eo); });

  auto co = std::make_shared<bool>(false);
  check
      ->add_flag("--state", *co,
                 "The files are captures of the kernel's own state (a directory `kernel record "
                 "--state` wrote, its state.raw, or state_dump --json output)")
      ->group(group);
  auto ce = std::make_shared<EvidenceFlags>();
  add_evidence_options(*check, *ce, group);
  check->parse_complete_callback([co, ce, check, &exit_code] {
    if (!*co) return;
    exit_code = run_check_state(*check, *ce);
    check->final_callback({});
  });
}

}  // namespace vlag::cli
