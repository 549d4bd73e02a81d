// libFuzzer target for the rt-app JSON reader and the workload it drives: any bytes either parse
// into a description that runs on a small simulated machine for a short time, or fail with
// vlag::Error — never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/machine.h"
#include "sim/rtapp.h"
#include "spec/error.h"
#include "spec/weights.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vlag::sim;
  try {
    RtAppConfig config =
        parse_rtapp(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    int threads = 0;
    for (const RtAppTask& t : config.tasks) threads += t.instances;
    if (threads > 64) return 0;  // a bounded run: the parser was the target for big files
    MachineConfig mc;
    mc.params = vlag::make_params(vlag::preset_by_name(vlag::kDefaultPreset), 250, 2);
    RtApp w(std::move(config), "rtapp", {});
    Machine m(mc);
    m.run(w, 20'000'000);
  } catch (const vlag::Error&) {
  }
  return 0;
}
