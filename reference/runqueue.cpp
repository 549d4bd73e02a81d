#include "reference/runqueue.h"

#include "reference/basic_runqueue_impl.h"

namespace vlag::reference {

template class BasicRunqueue<ScanQueue<ExactArith>>;
template class BasicRunqueue<ScanQueue<LinuxArith>>;
template Runqueue Runqueue::exact_copy_of(const LinuxRunqueue&);

}  // namespace vlag::reference
