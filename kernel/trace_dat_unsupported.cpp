// The trace.dat reader of a build without libtracecmd (kernel/CMakeLists.txt says why at
// configure time): every trace.dat is refused, naming the package that was missing.
#include "kernel/trace_dat.h"
#include "spec/error.h"

namespace vlag::kernel {

bool trace_dat_supported() { return false; }

PerfParseStats read_trace_dat(const std::string&, const std::string& name,
                              const std::function<void(KernelEvent&)>&, const PerfParseOptions&) {
  throw Error(name +
              ": a trace.dat, but trace.dat support not built (vlag was built without "
              "libtracecmd: install libtracecmd-dev and rebuild, or give vlag the text of "
              "`trace-cmd report -t -N`)");
}

}  // namespace vlag::kernel
