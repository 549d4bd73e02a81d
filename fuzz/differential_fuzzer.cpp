// Fuzz target: the optimized runqueue against the reference in Linux integer arithmetic
// (optimized/differential.h) on decoded operation sequences; any difference aborts.
#include <cstdio>
#include <cstdlib>

#include "fuzz/op_decoder.h"
#include "optimized/differential.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vlag;
  const fuzz::FuzzCase c = fuzz::decode_case(data, size);
  const Params params = fuzz::case_params(c);
  reference::LinuxRunqueue ref(params);
  optimized::Runqueue opt(params);
  for (size_t i = 0; i < c.tasks.size(); ++i) {
    ref.create(static_cast<TaskId>(i + 1), c.tasks[i].first, c.tasks[i].second);
    opt.create(static_cast<TaskId>(i + 1), c.tasks[i].first, c.tasks[i].second);
  }
  for (const Op& op : c.ops) {
    if (const auto diff = optimized::differential_step(ref, opt, op)) {
      std::fprintf(stderr, "%s [%s]: %s\n", c.preset.c_str(), c.features.c_str(), diff->c_str());
      std::abort();
    }
  }
  return 0;
}
