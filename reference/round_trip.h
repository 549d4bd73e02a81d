// A step of the operation sequences the property tests and fuzzers generate: apply(op), except
// that Detach moves the entity out and back in (SPEC.md §4.13 detach, then attach of the migrant
// it returned). That is a migration to a runqueue in the same state: the entity comes back
// sleeping, not new, with its saved lag, so the random sequences exercise both halves.
#pragma once

#include <string>

#include "reference/entity.h"
#include "spec/error.h"
#include "spec/ops.h"

namespace vlag::reference {

template <class Rq>
Outcome apply_with_round_trip(Rq& rq, const Op& op) {
  if (op.kind != OpKind::Detach) return rq.apply(op);
  const auto m = rq.detach(op.se);
  if (!m)
    throw Error("detach: task " + std::to_string(op.se) +
                " is not a sleeping entity of this runqueue");
  rq.attach(*m);
  return {};
}

}  // namespace vlag::reference
