#include "sim/task_options.h"

namespace vlag::sim {

TaskAttrs TaskOptions::attrs(const std::string& name, size_t i) const {
  TaskAttrs a;
  a.name = name;
  if (!nice.empty()) a.nice = nice[i % nice.size()];
  if (!slice_ns.empty()) a.slice_ns = slice_ns[i % slice_ns.size()];
  if (!latency_nice.empty()) a.latency_nice = latency_nice[i % latency_nice.size()];
  return a;
}

}  // namespace vlag::sim
