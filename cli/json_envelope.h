// The members every `--json` report of vlag begins with (docs/json-schema.md): the command, the
// version, the exit code, the join of its verdicts on the lattice of SPEC.md §6.3 with their
// counts, and its findings (violated, inconclusive and not-applicable verdicts, each with its
// ID, reason, file, line and runqueue). A report appends its own members after these; an error
// under --json is the same envelope with an `error` member.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "json/writer.h"
#include "spec/verdict.h"

namespace vlag::cli {

struct EnvelopeFinding {
  std::string id;
  Verdict verdict = Verdict::Violated;
  Reasons reasons;
  std::string file;
  int64_t line = 0;     // 1-based; 0: not tied to a line
  int64_t rq = -1;      // the runqueue (vlag check); -1: none named
  int64_t cpu = -1;     // the CPU (vlag kernel); -1: none named
  std::string subject;  // what the verdict is on ("hog:4975"), empty: none named
  std::string message;
  json::Object extra;  // the command's own members of the finding (evidence files, …)
};

/// A finding with what every report names; the caller sets rq, cpu, subject and extra.
EnvelopeFinding envelope_finding(std::string id, Verdict verdict, Reasons why, std::string file,
                                 int64_t line, std::string message);

class Envelope {
 public:
  explicit Envelope(std::string command) : command_(std::move(command)) {}

  /// `n` subjects (or checks) with verdict `v`.
  void count(Verdict v, int64_t n = 1);
  void add(EnvelopeFinding f) { findings_.push_back(std::move(f)); }
  /// Findings counted in `count` but not listed (a report keeps the first ones).
  void left_out(int64_t n) { left_out_ += n; }
  Verdict worst() const { return worst_; }

  /// The envelope's members, to which the report appends its own.
  json::Object object(int exit_code) const;

 private:
  std::string command_;
  std::array<int64_t, 4> counts_{};  // by Verdict
  Verdict worst_ = Verdict::NotApplicable;
  std::vector<EnvelopeFinding> findings_;
  int64_t left_out_ = 0;
};

/// One ID's tally (spec/verdict.h) counted in the envelope.
void add_tally(const VerdictTally& tally, Envelope& envelope);

/// The error report of `command` under --json: the envelope with nothing counted and `error`
/// holding the message and, for bad input, the file, line and field (trace::InputError,
/// vlag::kernel's located errors); exit code 2.
std::string error_json(const std::string& command, const std::exception& error);

}  // namespace vlag::cli
