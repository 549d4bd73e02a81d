#include "kernel/verdict_book.h"

namespace vlag::kernel {

void VerdictBook::judged(const std::string& id, int64_t subject) {
  entries_[{id, subject}].judged = true;
}

void VerdictBook::Candidate::offer(double m, int c, int l, std::string text) {
  if (present && m <= margin) return;
  present = true;
  margin = m;
  cpu = c;
  line = l;
  message = std::move(text);
}

void VerdictBook::sure(const std::string& id, int64_t subject, double margin, int cpu, int line,
                       std::string message) {
  Entry& e = entries_[{id, subject}];
  e.judged = true;
  e.sure.offer(margin, cpu, line, std::move(message));
}

void VerdictBook::possible(const std::string& id, int64_t subject, Reasons why, double margin,
                           int cpu, int line, std::string message) {
  Entry& e = entries_[{id, subject}];
  e.judged = true;
  e.possible_why |= why;
  e.possible.offer(margin, cpu, line, std::move(message));
}

void VerdictBook::blocked(const std::string& id, int64_t subject, Reasons why) {
  entries_[{id, subject}].blocked_why |= why;
}

void VerdictBook::not_applicable(const std::string& id, int64_t subject, Reasons why) {
  entries_[{id, subject}].na_why |= why;
}

}  // namespace vlag::kernel
