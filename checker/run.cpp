#include "checker/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "checker/machine.h"
#include "checker/window.h"
#include "spec/cfs_policy.h"
#include "spec/directory.h"
#include "spec/error.h"
#include "spec/properties.h"
#include "trace/reader.h"

namespace vlag::checker {
namespace {

bool is_cfs_trace(const Source& source) {
  auto in = source.open();
  return is_cfs_policy(trace::Reader(*in, source.name).header().params.preset.name);
}

const Source& source_named(const std::vector<Source>& sources, const std::string& name) {
  return *std::find_if(sources.begin(), sources.end(),
                       [&](const Source& s) { return s.name == name; });
}

bool across_runqueues(const std::string& id) {
  return id == ids::kInvMigrateLag || id == ids::kInvOneRunqueue || id == ids::kInvGroupQueued ||
         id == ids::kInvGroupShares;
}

// "cpu2" before "cpu10": runs of digits compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      const std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string evidence_name(const Violation& v, size_t n, const char* ext) {
  const std::string base =
      v.file == "<stdin>" ? "stdin" : std::filesystem::path(v.file).filename().string();
  return base + "." + std::to_string(n) + "." + v.id + ext;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error("cannot write the evidence file " + path.string());
}

}  // namespace

Source file_source(const std::string& path) {
  if (path == "-") {
    // Standard input is read once, on the first open, and kept: the windows of the evidence
    // read a trace again from its start.
    auto text = std::make_shared<std::optional<std::string>>();
    return {"<stdin>", [text]() -> std::unique_ptr<std::istream> {
              if (!*text) {
                std::ostringstream all;
                all << std::cin.rdbuf();
                *text = all.str();
              }
              return std::make_unique<std::istringstream>(**text);
            }};
  }
  return {path, [path]() -> std::unique_ptr<std::istream> {
            if (std::filesystem::is_directory(path))
              throw Error(path + ": is a directory, not a trace");
            auto in = std::make_unique<std::ifstream>(path);
            if (!*in) throw Error(path + ": cannot open the trace: " + std::strerror(errno));
            return in;
          }};
}

Source text_source(std::string name, std::string text) {
  return {std::move(name), [text]() -> std::unique_ptr<std::istream> {
            return std::make_unique<std::istringstream>(text);
          }};
}

std::vector<Source> trace_sources(const std::string& path) {
  if (!std::filesystem::is_directory(path)) return {file_source(path)};
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path))
    if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
      names.push_back(entry.path().string());
  if (names.empty()) throw Error("no traces (*.jsonl) in directory " + path);
  std::sort(names.begin(), names.end(), natural_less);
  std::vector<Source> sources;
  for (const std::string& n : names) sources.push_back(file_source(n));
  return sources;
}

Report check(const std::vector<Source>& sources, const CheckOptions& options) {
  Report report;
  const auto stopped = [&] { return options.stop && options.stop->load(); };
  for (const std::vector<size_t>& run : group_runs(sources)) {
    if (stopped()) break;
    std::vector<const Source*> traces;
    for (const size_t i : run) traces.push_back(&sources[i]);
    const size_t first = report.violations.size();
    check_run(traces, options, report);
    if (stopped()) break;
    // Made when the first evidence file is due: a run that writes none (no violation, or
    // --max-evidence 0) never touches it.
    if (!options.evidence_dir.empty() && first < report.violations.size() &&
        first < options.max_evidence)
      make_directory(options.evidence_dir, "--evidence-dir");
    for (size_t i = first; i < report.violations.size() && i < options.max_evidence; ++i) {
      Violation& v = report.violations[i];
      if (options.arbiter) {
        const Arbitrated verdict = arbitrate(v.witness);
        v.z3_sat = verdict.sat;
        if (!verdict.error.empty()) v.window_note = verdict.error;
      }
      if (options.evidence_dir.empty()) continue;
      const std::filesystem::path dir(options.evidence_dir);
      const auto smt_path = dir / evidence_name(v, i + 1, ".smt2");
      write_file(smt_path, smt_script(v.witness,
                                      v.id + " at " + v.file + ":" + std::to_string(v.line), true));
      v.smt_file = smt_path.string();
      const Source& s = source_named(sources, v.file);
      std::string why = "windows replay the EEVDF operations; a CFS trace has none";
      if (across_runqueues(v.id)) {
        v.window_note = "a rule across runqueues: a window of one runqueue cannot show it";
      } else if (auto w = is_cfs_trace(s) ? std::nullopt : minimal_window(s, v, why)) {
        const auto window_path = dir / evidence_name(v, i + 1, ".window.jsonl");
        write_file(window_path, w->text);
        v.window_file = window_path.string();
        v.window_note = std::to_string(w->events) + " event(s) after the state at its start";
      } else {
        v.window_note = why;
      }
    }
  }
  if (stopped())
    report.notes.push_back(fmt::format(
        "interrupted after {} event(s): the rest of the traces was not checked", report.events));
  return report;
}

}  // namespace vlag::checker
