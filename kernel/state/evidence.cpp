#include "kernel/state/evidence.h"

#include <filesystem>
#include <fstream>
#include <optional>

#include "kernel/bpf/state_format.h"
#include "spec/directory.h"
#include "spec/error.h"

namespace vlag::kernel::state {
namespace {

namespace fs = std::filesystem;

// The capture's records [first, last] as a capture of their own.
StateCapture slice(const StateCapture& capture, size_t first, size_t last) {
  StateCapture s;
  s.source = "window";
  s.kernel = capture.kernel;
  s.facts = capture.facts;
  s.records.assign(capture.records.begin() + static_cast<std::ptrdiff_t>(first),
                   capture.records.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  s.facts.records = s.records.size();
  return s;
}

bool violated_at(const StateReport& report, const char* id, size_t record) {
  const Tally* t = report.find(id);
  if (!t) return false;
  for (const Witness& w : t->witnesses)
    if (w.record == record) return true;
  return false;
}

std::string window_text(const StateCapture& window) {
  std::string text = capture_json(*window.kernel, window.facts);
  for (const auto& r : window.records) text += bpf::format_record_json(r);
  return text;
}

// The shortest window ending at `record` that shows `id` violated there again.
std::optional<StateCapture> minimal_window(const StateCapture& capture, const char* id,
                                           size_t record, std::string& why) {
  if (!capture.kernel) {
    why = "the capture carries no kernel parameters for a window to hold";
    return std::nullopt;
  }
  if (record >= capture.records.size()) {
    why = "the violation's record is not known";
    return std::nullopt;
  }
  for (size_t length = 1;; length *= 2) {
    length = std::min(length, record + 1);
    StateCapture window = slice(capture, record + 1 - length, record);
    if (violated_at(check_state_capture(window), id, length - 1)) return window;
    if (length == record + 1 || length >= kMaxWindowRecords) break;
  }
  why = "no window of up to " + std::to_string(std::min(kMaxWindowRecords, record + 1)) +
        " records shows it again";
  return std::nullopt;
}

std::string base_name(const std::string& source) {
  const std::string name = fs::path(source).lexically_normal().filename().string();
  return name.empty() || name == "." ? "capture" : name;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error("cannot write the evidence file " + path.string());
}

}  // namespace

void add_evidence(const StateCapture& capture, StateReport& report,
                  const EvidenceOptions& options) {
  size_t n = 0;
  for (auto& [id, tally] : report.tallies)
    for (Witness& w : tally.witnesses) {
      if (n >= options.max) return;
      ++n;
      if (w.smt && options.z3) {
        const checker::Arbitrated a = checker::arbitrate(*w.smt);
        w.z3_sat = a.sat;
        w.z3_error = a.error;
      }
      if (options.dir.empty()) continue;
      make_directory(options.dir, "--evidence-dir");
      const fs::path base =
          fs::path(options.dir) / (base_name(capture.source) + "." + std::to_string(n) + "." + id);
      if (w.smt) {
        const std::string origin = std::string(id) + " at record " + std::to_string(w.record) +
                                   " (time order) of " + capture.source;
        w.smt_file = base.string() + ".smt2";
        write_file(w.smt_file, checker::smt_script(*w.smt, origin, true));
      }
      std::string why;
      if (const auto window = minimal_window(capture, id, w.record, why)) {
        w.window_file = base.string() + ".window.jsonl";
        write_file(w.window_file, window_text(*window));
        w.window_note = std::to_string(window->records.size()) + " record(s) up to the violation";
      } else {
        w.window_note = why;
      }
    }
}

}  // namespace vlag::kernel::state
