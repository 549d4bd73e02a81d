#include "spec/cfs_policy.h"

#include "spec/error.h"

namespace vlag {

bool is_cfs_policy(std::string_view name) {
  return name == kCfsPolicy || name == kCfsLatencyNicePolicy;
}

Preset cfs_preset(std::string_view name) {
  if (!is_cfs_policy(name))
    throw Error("unknown CFS policy '" + std::string(name) + "' (known: cfs, cfs-latency-nice)");
  Preset p;
  p.name = std::string(name);
  p.base_slice_norm_ns = 750'000;
  return p;
}

}  // namespace vlag
