// The executable spec: one EEVDF runqueue, entities in a flat vector, every quantity recomputed
// by an O(n) scan (reference/scan_queue.h), the operations of SPEC.md §4 in
// reference/basic_runqueue.h. Obviously correct beats fast: nothing here is cached.
//   Runqueue       exact rational arithmetic (GMP): the model.
//   LinuxRunqueue  64-bit Linux integer arithmetic (SPEC.md §7), Linux presets only.
#pragma once

#include "reference/arith.h"
#include "reference/basic_runqueue.h"
#include "reference/scan_queue.h"

namespace vlag::reference {

using Num = ExactArith::Num;
using Entity = BasicEntity<Num>;
using Runqueue = BasicRunqueue<ScanQueue<ExactArith>>;

using LinuxRunqueue = BasicRunqueue<ScanQueue<LinuxArith>>;

extern template class BasicRunqueue<ScanQueue<ExactArith>>;
extern template class BasicRunqueue<ScanQueue<LinuxArith>>;

}  // namespace vlag::reference
