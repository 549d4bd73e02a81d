// The optimized, kernel-faithful runqueue: the operations of SPEC.md §4 (the same code as the
// reference, reference/basic_runqueue.h) in 64-bit Linux integer arithmetic (SPEC.md §7), over
// the augmented red-black tree of optimized/tree_queue.h. O(log n) per operation; bit-identical
// to reference::LinuxRunqueue (tests/optimized/differential_property_test.cpp, fuzz/).
#pragma once

#include "optimized/tree_queue.h"
#include "reference/basic_runqueue.h"

namespace vlag::optimized {

using Runqueue = reference::BasicRunqueue<TreeQueue>;

}  // namespace vlag::optimized

namespace vlag::reference {
extern template class BasicRunqueue<optimized::TreeQueue>;
}  // namespace vlag::reference
