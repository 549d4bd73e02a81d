#include "kernel/state/verdict.h"

namespace vlag::kernel::state {

void Tally::add(const Outcome& o, Witness witness) {
  ++cases;
  switch (o.verdict) {
    case Verdict::NotApplicable:
      ++not_applicable;
      ++not_applicable_reasons[o.reason];
      break;
    case Verdict::Held:
      ++held;
      break;
    case Verdict::Inconclusive:
      ++inconclusive;
      ++inconclusive_reasons[o.reason];
      break;
    case Verdict::Violated:
      ++violated;
      if (witnesses.size() < kMaxWitnesses) {
        witness.what = o.reason;
        witnesses.push_back(std::move(witness));
      }
      break;
  }
}

}  // namespace vlag::kernel::state
