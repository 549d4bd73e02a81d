// Fuzzes the perf script / trace-cmd text parser and the kernel service layer behind it: any
// input either parses or is rejected with vlag::Error; nothing crashes.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "kernel/perf_script.h"
#include "kernel/service.h"
#include "spec/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool keep_going : {false, true}) {
    std::istringstream in(text);
    vlag::kernel::KernelServiceLayer layer("fuzz", {});
    try {
      vlag::kernel::parse_perf_script(
          in, "fuzz", [&](const vlag::kernel::KernelEvent& e) { layer.on_event(e); }, {keep_going});
    } catch (const vlag::Error&) {
    }
    layer.finish();
  }
  return 0;
}
