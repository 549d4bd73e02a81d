#include "sim/task_options.h"

#include <charconv>

#include "sim/settings_list.h"
#include "spec/error.h"

namespace vlag::sim {
namespace {

template <typename T>
T number(const std::string& text, const std::string& where) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size())
    throw Error("--group " + where + ": '" + text + "' is not a whole number");
  return v;
}

int nice_value(const std::string& text, const std::string& where) {
  const int v = number<int>(text, where);
  if (v < -20 || v > 19) throw Error("--group " + where + ": " + text + " is outside -20..19");
  return v;
}

}  // namespace

TaskAttrs TaskOptions::attrs(const std::string& name, size_t i) const {
  TaskAttrs a;
  a.name = name;
  a.workload = workload;
  if (!nice.empty()) a.nice = nice[i % nice.size()];
  if (!slice_ns.empty()) a.slice_ns = slice_ns[i % slice_ns.size()];
  if (!latency_nice.empty()) a.latency_nice = latency_nice[i % latency_nice.size()];
  if (!timer_slack_ns.empty()) a.timer_slack_ns = timer_slack_ns[i % timer_slack_ns.size()];
  return a;
}

TaskOptions TaskOptions::for_workload(const std::string& name,
                                      const std::vector<WorkloadSettings>& all) const {
  TaskOptions o = *this;
  o.workload = name;
  for (const WorkloadSettings& g : all) {
    if (g.workload != name) continue;
    if (g.nice) o.nice = {*g.nice};
    if (g.slice_ns) o.slice_ns = {*g.slice_ns};
    if (g.latency_nice) o.latency_nice = {*g.latency_nice};
    if (g.timer_slack_ns) o.timer_slack_ns = {*g.timer_slack_ns};
  }
  return o;
}

WorkloadSettings parse_workload_settings(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    throw Error("--group '" + text +
                "': expected GROUP:key=value,... (keys: nice, slice_us, "
                "latency_nice, timer_slack_us)");
  WorkloadSettings g;
  g.workload = text.substr(0, colon);
  for (const auto& [key, value] : split_settings(text, colon + 1, "--group " + g.workload)) {
    const std::string where = g.workload + " " + key;
    if (key == "nice") {
      g.nice = nice_value(value, where);
    } else if (key == "latency_nice") {
      g.latency_nice = nice_value(value, where);
    } else if (key == "slice_us") {
      const int64_t us = number<int64_t>(value, where);
      if (us < 0 || us > 1'000'000)
        throw Error("--group " + where + ": the slice must be 0..1000000 us");
      g.slice_ns = us * 1000;
    } else if (key == "timer_slack_us") {
      const int64_t us = number<int64_t>(value, where);
      if (us < 0 || us > 1'000'000)
        throw Error("--group " + where + ": the timer slack must be 0..1000000 us");
      g.timer_slack_ns = us * 1000;
    } else {
      throw Error("--group " + g.workload + ": unknown key '" + key +
                  "' (nice, slice_us, latency_nice, timer_slack_us)");
    }
  }
  return g;
}

}  // namespace vlag::sim
