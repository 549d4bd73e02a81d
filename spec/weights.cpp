#include "spec/weights.h"

#include <algorithm>
#include <string>

#include "spec/error.h"

namespace vlag {

const std::array<int64_t, 40> kPrioToWeight = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906,  3121,  2501,  1991,  1586,  1277,  1024,  820,   655,   526,   423,  335,  272,  215,
    172,   137,   110,   87,    70,    56,    45,    36,    29,    23,    18,   15,
};

const std::array<int64_t, 40> kPrioToWmult = {
    48388,    59856,    76040,    92818,     118348,    147320,    184698,    229616,
    287308,   360437,   449829,   563644,    704093,    875809,    1099582,   1376151,
    1717300,  2157191,  2708050,  3363326,   4194304,   5237765,   6557202,   8165337,
    10153587, 12820798, 15790321, 19976592,  24970740,  31350126,  39045157,  49367440,
    61356676, 76695844, 95443717, 119304647, 148102320, 186737708, 238609294, 286331153,
};

int64_t nice_to_weight(int nice) {
  if (nice < -20 || nice > 19) throw Error("nice " + std::to_string(nice) + " is outside -20..19");
  return kPrioToWeight[static_cast<size_t>(nice + 20)];
}

void validate_weight(int64_t w) {
  if (w < kMinWeight || w > kMaxWeight)
    throw Error("weight " + std::to_string(w) + " is outside [" + std::to_string(kMinWeight) +
                ", " + std::to_string(kMaxWeight) + "]");
}

void validate_slice(int64_t r) {
  if (r != 0 && (r < kMinCustomSliceNs || r > kMaxCustomSliceNs))
    throw Error("slice " + std::to_string(r) + " ns is neither 0 nor in [" +
                std::to_string(kMinCustomSliceNs) + ", " + std::to_string(kMaxCustomSliceNs) +
                "] ns");
}

int64_t clamp_custom_slice(int64_t r) {
  if (r == 0) return 0;
  return std::clamp(r, kMinCustomSliceNs, kMaxCustomSliceNs);
}

int64_t cgroup_weight_to_shares(int64_t cpu_weight) {
  if (cpu_weight < 1 || cpu_weight > 10000)
    throw Error("cpu.weight " + std::to_string(cpu_weight) + " is not in 1..10000");
  return (cpu_weight * kNice0Weight + 50) / 100;
}

int64_t latency_nice_slice(int latency_nice, int64_t base_slice_ns) {
  const int64_t w = nice_to_weight(latency_nice);
  return clamp_custom_slice(base_slice_ns * kNice0Weight / w);
}

}  // namespace vlag
