#include "optimized/runqueue.h"

#include "reference/basic_runqueue_impl.h"

namespace vlag::reference {

template class BasicRunqueue<optimized::TreeQueue>;

}  // namespace vlag::reference
