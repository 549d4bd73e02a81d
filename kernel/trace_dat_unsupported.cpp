// The trace.dat reader of a build without libtracecmd (kernel/CMakeLists.txt says why at
// configure time): every trace.dat is refused, naming the package that was missing.
#include "kernel/trace_dat.h"
#include "spec/error.h"

namespace vlag::kernel {

bool trace_dat_supported() { return false; }

PerfParseStats read_trace_dat(const std::string&, const std::string& name,
                              const std::function<void(KernelEvent&)>&, const PerfParseOptions&) {
  throw Error(name +
              ": a trace.dat, but trace.dat support not built (libtracecmd was not found when "
              "vlag was built: install libtracecmd-dev and rebuild, or print it with "
              "`trace-cmd report -t` and give vlag the text)");
}

}  // namespace vlag::kernel
