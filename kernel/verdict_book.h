// Collects, per ID and subject, what the kernel checks found while streaming a trace — the
// strongest sure violation, the strongest possible one with the reasons that keep it from being
// sure, whether anything was judged at all — and turns that into one verdict per subject at the
// end (SPEC.md §6.3), when it is known whether every CPU was recorded: a violation that rests on
// an unrecorded CPU staying quiet is inconclusive (untraced CPU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel/flat_table.h"
#include "kernel/service.h"
#include "spec/verdict.h"

namespace vlag::kernel {

class VerdictBook {
 public:
  /// Something was measured against a bound for (id, subject): at least held.
  void judged(std::string_view id, int64_t subject) { entry(id, subject).judged = true; }
  /// The measurement exceeds the bound whatever the unknowns are: margin ranks candidates.
  /// `text()` gives the finding's message; it is made only for the strongest candidate so far
  /// (a busy trace judges millions of windows, few of which are ever shown).
  template <class Text>
  void sure(std::string_view id, int64_t subject, double margin, int cpu, int line,
            const Text& text) {
    Entry& e = entry(id, subject);
    e.judged = true;
    if (e.sure.beaten_by(margin)) e.sure.take(margin, cpu, line, text());
  }
  /// The measurement may exceed the bound; `why` says what the trace does not pin down.
  template <class Text>
  void possible(std::string_view id, int64_t subject, Reasons why, double margin, int cpu, int line,
                const Text& text) {
    Entry& e = entry(id, subject);
    e.judged = true;
    e.possible_why |= why;
    if (e.possible.beaten_by(margin)) e.possible.take(margin, cpu, line, text());
  }
  /// Nothing could be measured for (id, subject), and why.
  void not_applicable(std::string_view id, int64_t subject, Reasons why) {
    entry(id, subject).na_why |= why;
  }
  /// There was something to measure, but an unknown (a weight) kept it from being measured:
  /// inconclusive unless something else was judged.
  void blocked(std::string_view id, int64_t subject, Reasons why) {
    entry(id, subject).blocked_why |= why;
  }

  /// One verdict per (id, subject) into report.checks / findings / worst, in the order of ID
  /// and subject; `name` turns a subject into the text a finding shows.
  template <class Name>
  void close(KernelReport& report, bool all_cpus_recorded, const Name& name) const {
    std::vector<std::pair<std::string_view, size_t>> order;  // ID, index of the entry
    order.reserve(entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) order.emplace_back(ids_[entries_.key(i).first], i);
    std::sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
      return x.first != y.first ? x.first < y.first
                                : entries_.key(x.second).second < entries_.key(y.second).second;
    });
    for (const auto& [id_view, at] : order) {
      const std::string id(id_view);
      const int64_t subject = entries_.key(at).second;
      const Entry& c = entries_.value(at);
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
    bool beaten_by(double m) const { return !present || m > margin; }
    void take(double m, int c, int l, std::string text) {
      present = true;
      margin = m;
      cpu = c;
      line = l;
      message = std::move(text);
    }
  };
  struct Entry {
    bool judged = false;
    Candidate sure, possible;
    Reasons possible_why, na_why, blocked_why;
  };
  // (the ID's index in ids_, subject): a check names a handful of IDs, millions of times.
  using Key = std::pair<uint32_t, int64_t>;

  Entry& entry(std::string_view id, int64_t subject) {
    uint32_t i = 0;
    while (i < ids_.size() && id_text_[i] != id.data()) ++i;  // the same text: no compare
    if (i == ids_.size())
      for (i = 0; i < ids_.size() && ids_[i] != id;) ++i;
    if (i == ids_.size()) {
      ids_.emplace_back(id);
      id_text_.push_back(id.data());
    }
    return entries_[{i, subject}];
  }

  std::vector<std::string> ids_;
  std::vector<const char*> id_text_;  // where the first caller's text of each ID lies
  struct KeyHash {
    uint64_t operator()(const Key& k) const {
      return FlatHash<int64_t>()(k.second) + static_cast<uint64_t>(k.first) * 0xC2B2AE3D27D4EB4Full;
    }
  };
  FlatTable<Key, Entry, KeyHash> entries_;
};

}  // namespace vlag::kernel
