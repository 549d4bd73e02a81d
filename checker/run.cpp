#include "checker/run.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "checker/checker.h"
#include "checker/window.h"
#include "smt/arbiter.h"
#include "spec/cfs_policy.h"
#include "spec/directory.h"
#include "spec/error.h"
#include "trace/reader.h"

namespace vlag::checker {
namespace {

// Feeds the trace's events to a checker; under keep_going a faulty line is counted and skipped.
template <class C>
void stream(trace::Reader& reader, C& checker, const CheckOptions& options, Report& report) {
  for (;;) {
    try {
      const auto e = reader.next();
      if (!e) break;
      checker.consume(*e, reader.line());
    } catch (const trace::InputError& err) {
      if (!options.keep_going) throw;
      ++report.problem_count;
      if (report.problems.size() < Report::kMaxKept)
        report.problems.push_back({err.fault(), err.what(), err.file(), err.line(), err.field()});
    }
  }
  checker.finish();
  report.events += checker.events();
}

/// Checks one trace; true when it is a CFS policy's (SPEC.md §8), judged by CfsTraceChecker.
bool check_one(const Source& source, const CheckOptions& options, Report& report) {
  auto in = source.open();
  trace::Reader reader(*in, source.name);
  if (is_cfs_policy(reader.header().params.preset.name)) {
    CfsTraceChecker checker(reader.header(), source.name, report);
    stream(reader, checker, options, report);
    return true;
  }
  Checker checker(reader.header(), source.name, report);
  stream(reader, checker, options, report);
  return false;
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

Report check(const std::vector<Source>& sources, const CheckOptions& options) {
  Report report;
  for (const auto& s : sources) {
    report.files.push_back(s.name);
    const size_t first = report.violations.size();
    const bool cfs = check_one(s, options, report);
    // Made when the first evidence file is due: a run that writes none (no violation, or
    // --max-evidence 0) never touches it.
    if (!options.evidence_dir.empty() && first < report.violations.size() &&
        first < options.max_evidence)
      make_directory(options.evidence_dir, "--evidence-dir");
    for (size_t i = first; i < report.violations.size() && i < options.max_evidence; ++i) {
      Violation& v = report.violations[i];
      if (options.arbiter) {
        const smt::Arbitration verdict = smt::arbitrate(smt_script(v.witness, "arbiter", false));
        v.z3_sat = verdict.sat;
        if (!verdict.error.empty()) v.window_note = verdict.error;
      }
      if (options.evidence_dir.empty()) continue;
      const std::filesystem::path dir(options.evidence_dir);
      const auto smt_path = dir / evidence_name(v, i + 1, ".smt2");
      write_file(smt_path, smt_script(v.witness,
                                      v.id + " at " + v.file + ":" + std::to_string(v.line), true));
      v.smt_file = smt_path.string();
      std::string why = "windows replay the EEVDF operations; a CFS trace has none";
      if (auto w = cfs ? std::nullopt : minimal_window(s, v, why)) {
        const auto window_path = dir / evidence_name(v, i + 1, ".window.jsonl");
        write_file(window_path, w->text);
        v.window_file = window_path.string();
        v.window_note = std::to_string(w->events) + " event(s) after the state at its start";
      } else {
        v.window_note = why;
      }
    }
  }
  return report;
}

}  // namespace vlag::checker
