#include "sim/cgroups.h"

#include <algorithm>
#include <charconv>

#include "sim/settings_list.h"
#include "spec/error.h"

namespace vlag::sim {
namespace {

int64_t number(const std::string& text, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi)
    throw Error("'" + text + "' is not a whole number in " + std::to_string(lo) + ".." +
                std::to_string(hi));
  return v;
}

}  // namespace

const std::vector<std::string>& cgroup_fields() {
  static const std::vector<std::string> fields = {"weight", "latency_nice", "tasks", "workload"};
  return fields;
}

void set_cgroup_field(CgroupSpec& c, const std::string& field, const std::string& value) {
  try {
    if (field == "weight")
      c.weight = number(value, 1, 10000);
    else if (field == "latency_nice")
      c.latency_nice = static_cast<int>(number(value, -20, 19));
    else if (field == "tasks")
      c.tasks = number(value, 1, 100000);
    else if (field == "workload" && !value.empty())
      c.workload = value;
    else if (field == "workload")
      throw Error("an empty workload name");
    else {
      std::string known;
      for (const std::string& f : cgroup_fields()) known += (known.empty() ? "" : ", ") + f;
      throw Error("unknown key (" + known + ")");
    }
  } catch (const Error& e) {
    throw Error(field + ": " + e.what());
  }
}

CgroupSpec& cgroup_named(std::vector<CgroupSpec>& specs, const std::string& path) {
  const std::string p = !path.empty() && path.front() == '/' ? path : "/" + path;
  for (CgroupSpec& s : specs)
    if (s.path == p) return s;
  specs.push_back({});
  specs.back().path = p;
  return specs.back();
}

CgroupSpec parse_cgroup_spec(const std::string& text) {
  const size_t colon = text.find(':');
  CgroupSpec c;
  c.path = text.substr(0, colon);
  if (c.path.empty() || c.path == "/")
    throw Error("--cgroup '" + text +
                "': expected PATH:weight=N[,latency_nice=N][,tasks=N]"
                "[,workload=NAME]");
  if (c.path.front() != '/') c.path.insert(0, "/");
  if (colon == std::string::npos) return c;
  for (const auto& [key, value] : split_settings(text, colon + 1, "--cgroup " + c.path)) {
    try {
      set_cgroup_field(c, key, value);
    } catch (const Error& e) {
      throw Error("--cgroup " + c.path + " " + e.what());
    }
  }
  return c;
}

CgroupPlacement::CgroupPlacement(std::vector<CgroupSpec> specs, bool autogroup)
    : specs_(std::move(specs)),
      placed_(specs_.size(), 0),
      named_(specs_.size(), false),
      autogroup_(autogroup) {}

reference::GroupId CgroupPlacement::ensure(const std::string& path, int64_t shares,
                                           reference::TaskGroups& groups) const {
  try {
    return groups.find(path);
  } catch (const Error&) {
  }
  // Parents named by no --cgroup exist with the default weight, as a new cgroup directory has.
  const size_t cut = path.rfind('/');
  if (cut > 0) ensure(path.substr(0, cut), reference::cgroup_weight_to_shares(100), groups);
  for (const CgroupSpec& s : specs_)
    if (s.path == path) shares = reference::cgroup_weight_to_shares(s.weight);
  return groups.add(path, shares);
}

reference::GroupId CgroupPlacement::place(const std::string& workload,
                                          reference::TaskGroups& groups) {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (!specs_[i].workload.empty() && specs_[i].workload == workload) {
      named_[i] = true;
      return ensure(specs_[i].path, 0, groups);
    }
  for (size_t i = 0; i < specs_.size(); ++i)
    if (placed_[i] < specs_[i].tasks) {
      ++placed_[i];
      return ensure(specs_[i].path, 0, groups);
    }
  if (autogroup_)
    return ensure("/autogroup-" + (workload.empty() ? std::string("none") : workload),
                  reference::autogroup_shares(0), groups);
  return reference::kRootGroup;
}

std::optional<int> CgroupPlacement::latency_nice(reference::GroupId g,
                                                 const reference::TaskGroups& groups) const {
  for (const CgroupSpec& s : specs_)
    if (s.latency_nice && s.path == groups.group(g).path) return s.latency_nice;
  return std::nullopt;
}

void CgroupPlacement::check_used() const {
  for (size_t i = 0; i < specs_.size(); ++i) {
    // A cgroup that only sets a weight or a latency_nice, with no way for a task to join it and
    // no cgroup below it, is a misspelt name, not a choice.
    const std::string& path = specs_[i].path;
    const bool parent = std::any_of(specs_.begin(), specs_.end(), [&](const CgroupSpec& s) {
      return s.path.size() > path.size() && s.path.starts_with(path + "/");
    });
    if (specs_[i].tasks == 0 && specs_[i].workload.empty() && !parent)
      throw Error("--cgroup " + path +
                  ": no task joins it (give it tasks=N or workload=NAME, or a cgroup below it)");
    if (placed_[i] < specs_[i].tasks)
      throw Error("--cgroup " + specs_[i].path + ": tasks=" + std::to_string(specs_[i].tasks) +
                  " but the run created only " + std::to_string(placed_[i]) + " for it");
    if (!specs_[i].workload.empty() && !named_[i])
      throw Error("--cgroup " + specs_[i].path + ": the run has no workload '" +
                  specs_[i].workload + "'");
  }
}

}  // namespace vlag::sim
