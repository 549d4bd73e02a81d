// Collects, per ID and subject, what the kernel checks found while streaming a trace — the
// strongest sure violation, the strongest possible one with the reasons that keep it from being
// sure, whether anything was judged at all — and turns that into one verdict per subject at the
// end (SPEC.md §6.3), when it is known whether every CPU was recorded: a violation that rests on
// an unrecorded CPU staying quiet is inconclusive (untraced CPU).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/service.h"
#include "spec/verdict.h"

namespace vlag::kernel {

class VerdictBook {
 public:
  /// Something was measured against a bound for (id, subject): at least held.
  void judged(const std::string& id, int64_t subject);
  /// The measurement exceeds the bound whatever the unknowns are: margin ranks candidates.
  void sure(const std::string& id, int64_t subject, double margin, int cpu, int line,
            std::string message);
  /// The measurement may exceed the bound; `why` says what the trace does not pin down.
  void possible(const std::string& id, int64_t subject, Reasons why, double margin, int cpu,
                int line, std::string message);
  /// Nothing could be measured for (id, subject), and why.
  void not_applicable(const std::string& id, int64_t subject, Reasons why);
  /// There was something to measure, but an unknown (a weight) kept it from being measured:
  /// inconclusive unless something else was judged.
  void blocked(const std::string& id, int64_t subject, Reasons why);

  /// One verdict per (id, subject) into report.checks / findings / worst; `name` turns a
  /// subject into the text a finding shows.
  template <class Name>
  void close(KernelReport& report, bool all_cpus_recorded, const Name& name) const {
    for (const auto& [key, c] : entries_) {
      const auto& [id, subject] = key;
      KernelFinding f{id, Verdict::Held, {}, name(subject), -1, 0, {}};
      if (c.sure.present) {
        f.verdict = all_cpus_recorded ? Verdict::Violated : Verdict::Inconclusive;
        if (!all_cpus_recorded) f.reasons = Reason::UntracedCpu;
        f.cpu = c.sure.cpu;
        f.line = c.sure.line;
        f.message = c.sure.message;
        if (!all_cpus_recorded)
          f.message += " — but not every CPU was recorded: it may have run on one that was not";
      } else if (c.possible.present) {
        f.verdict = Verdict::Inconclusive;
        f.reasons = c.possible_why;
        f.cpu = c.possible.cpu;
        f.line = c.possible.line;
        f.message = c.possible.message;
      } else if (c.judged) {
        f.verdict = Verdict::Held;
      } else if (!c.blocked_why.empty()) {
        f.verdict = Verdict::Inconclusive;
        f.reasons = c.blocked_why;
        f.message = "nothing could be judged: " + std::string(reason_name(c.blocked_why.first()));
      } else {
        f.verdict = Verdict::NotApplicable;
        f.reasons = c.na_why;
      }
      report.checks[id].add(f.verdict, f.reasons);
      report.verdict_of[id][f.subject] = f.verdict;
      report.worst = join(report.worst, f.verdict);
      if (f.verdict == Verdict::Violated || f.verdict == Verdict::Inconclusive)
        report.findings.push_back(std::move(f));
    }
  }

 private:
  // The strongest finding of one kind: the largest margin wins.
  struct Candidate {
    bool present = false;
    double margin = 0;
    int cpu = -1, line = 0;
    std::string message;
    void offer(double m, int c, int l, std::string text);
  };
  struct Entry {
    bool judged = false;
    Candidate sure, possible;
    Reasons possible_why, na_why, blocked_why;
  };
  std::map<std::pair<std::string, int64_t>, Entry> entries_;
};

}  // namespace vlag::kernel
