#include "reference/task_groups.h"

#include <algorithm>

#include "spec/error.h"
#include "spec/weights.h"

namespace vlag::reference {

TaskGroups::TaskGroups(int ncpus) : ncpus_(ncpus) {
  if (ncpus < 1) throw Error("task groups: at least one CPU");
  groups_.push_back({"/", kRootGroup, kNice0Weight, std::vector<int64_t>(ncpus, 0), true});
}

GroupId TaskGroups::add(std::string_view path, int64_t shares) {
  const std::string p(path);
  if (p.size() < 2 || p.front() != '/' || p.back() == '/' || p.find("//") != std::string::npos)
    throw Error("task group '" + p + "': a path like /a or /a/b");
  validate_weight(shares);
  for (const TaskGroup& g : groups_)
    if (g.alive && g.path == p) throw Error("task group '" + p + "' exists already");
  const size_t cut = p.rfind('/');
  const GroupId parent = cut == 0 ? kRootGroup : find(p.substr(0, cut));
  groups_.push_back({p, parent, shares, std::vector<int64_t>(ncpus_, 0), true});
  return static_cast<GroupId>(groups_.size() - 1);
}

GroupId TaskGroups::find(std::string_view path) const {
  for (size_t i = 0; i < groups_.size(); ++i)
    if (groups_[i].alive && groups_[i].path == path) return static_cast<GroupId>(i);
  throw Error("no task group '" + std::string(path) + "'");
}

void TaskGroups::remove(GroupId g) {
  if (g == kRootGroup) throw Error("the root group cannot be removed");
  const TaskGroup& x = group(g);
  for (const TaskGroup& y : groups_)
    if (y.alive && y.parent == g && &y != &x)
      throw Error("task group '" + x.path + "' has a child, '" + y.path + "'");
  if (std::any_of(x.load.begin(), x.load.end(), [](int64_t l) { return l != 0; }))
    throw Error("task group '" + x.path + "' still has queued entities");
  groups_[static_cast<size_t>(g)].alive = false;
}

void TaskGroups::set_shares(GroupId g, int64_t shares) {
  validate_weight(shares);
  group(g);
  groups_[static_cast<size_t>(g)].shares = shares;
}

const TaskGroup& TaskGroups::group(GroupId g) const {
  if (g < 0 || static_cast<size_t>(g) >= groups_.size() || !groups_[static_cast<size_t>(g)].alive)
    throw Error("no task group " + std::to_string(g));
  return groups_[static_cast<size_t>(g)];
}

std::vector<GroupId> TaskGroups::ancestors(GroupId g) const {
  std::vector<GroupId> up;
  for (; g != kRootGroup; g = group(g).parent) up.push_back(g);
  return up;
}

void TaskGroups::set_load(GroupId g, int cpu, int64_t load) {
  group(g);
  groups_[static_cast<size_t>(g)].load.at(static_cast<size_t>(cpu)) = load;
}

int64_t TaskGroups::shares_on(GroupId g, int cpu) const {
  const TaskGroup& x = group(g);
  int64_t total = 0;
  for (int64_t l : x.load) total += l;
  const int64_t here = x.load.at(static_cast<size_t>(cpu));
  // S_G·L ≤ 2^18·(2^18·n) fits easily; the kernel divides only when the total is non-zero.
  const int64_t raw = total > 0 ? x.shares * here / total : 0;
  return std::clamp(raw, kMinWeight, x.shares);
}

int64_t autogroup_shares(int nice) { return nice_to_weight(nice); }

}  // namespace vlag::reference
