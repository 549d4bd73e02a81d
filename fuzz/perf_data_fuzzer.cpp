// Fuzzes the native perf.data reader (its header, attrs, tracing data through libtraceevent,
// records and samples) and the kernel service layer behind it: any input either reads or is
// rejected with vlag::Error; nothing crashes (libtraceevent's own crashes end the child the
// reader runs it in first, and are errors too).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/perf_data_reader.h"
#include "kernel/service.h"
#include "spec/error.h"

// libtraceevent 1.7 leaks a few bytes when a format fails to parse (its error paths): the
// library's, not the reader's, so LeakSanitizer is told to pass over what it allocated.
extern "C" const char* __lsan_default_suppressions() { return "leak:libtraceevent.so\n"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const bool keep_going : {false, true}) {
    vlag::kernel::KernelServiceLayer layer("fuzz", {});
    try {
      vlag::kernel::read_perf_data_bytes(
          bytes, "fuzz", [&](vlag::kernel::KernelEvent& e) { layer.on_event(e); }, {keep_going});
    } catch (const vlag::Error&) {
    }
    layer.finish();
  }
  return 0;
}
