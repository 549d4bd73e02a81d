// libFuzzer target for the trace reader and the checker behind it: any bytes, read as a trace,
// either check or fail with trace::InputError / vlag::Error — never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checker/run.h"
#include "spec/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vlag::checker::CheckOptions options;
  options.keep_going = true;
  options.arbiter = false;
  try {
    vlag::checker::check({vlag::checker::text_source(
                             "fuzz", std::string(reinterpret_cast<const char*>(data), size))},
                         options);
  } catch (const vlag::Error&) {
  }
  return 0;
}
