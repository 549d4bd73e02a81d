#include "optimized/differential.h"

#include <algorithm>
#include <vector>

#include "reference/round_trip.h"
#include "spec/error.h"

namespace vlag::optimized {
namespace {

using LinuxEntity = reference::BasicEntity<LinuxTime>;

// '[' as a char: a literal prepended to a temporary string trips gcc 12's -Wrestrict false
// positive at -O3 (GCC bug 105651).
std::string describe(const LinuxEntity& e) {
  return '[' + std::to_string(e.id) + " w=" + std::to_string(e.weight) +
         " r=" + std::to_string(e.slice) + " c=" + std::to_string(e.custom_slice) +
         " v=" + e.vruntime.get_str() + " d=" + e.deadline.get_str() +
         " rho=" + e.request.get_str() + " vl=" + e.vlag.get_str() +
         " rel=" + std::to_string(e.rel_deadline) + " cut=" + std::to_string(e.request_cut) +
         " st=" + std::to_string(static_cast<int>(e.status)) + " new=" + std::to_string(e.is_new) +
         " tree=" + std::to_string(e.on_tree) + " seq=" + std::to_string(e.seq) + "]";
}

template <class Rq>
std::vector<std::string> entity_lines(const Rq& rq) {
  std::vector<std::string> lines;
  rq.queue().for_each([&](const LinuxEntity& e) { lines.push_back(describe(e)); });
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string opt_str(const std::optional<EntityId>& id) { return id ? std::to_string(*id) : "-"; }

template <class Rq>
std::string scalars(const Rq& rq) {
  return "now=" + std::to_string(rq.now()) + " V=" + rq.avg_vruntime().get_str() +
         " W=" + std::to_string(rq.total_weight()) + " nr=" + std::to_string(rq.nr_queued()) +
         " v0=" + rq.reference_point().get_str() + " minslice=" + std::to_string(rq.min_slice()) +
         " maxslice=" + std::to_string(rq.max_slice()) + " curr=" + opt_str(rq.curr()) +
         " next=" + opt_str(rq.next_buddy()) +
         " prot=" + (rq.protection() ? rq.protection()->get_str() : "-") +
         " protected=" + std::to_string(rq.protect_slice()) +
         " seq=" + std::to_string(rq.last_seq()) + " resched=" + std::to_string(rq.need_resched()) +
         " eed=" + opt_str(rq.earliest_eligible_deadline());
}

}  // namespace

std::optional<std::string> state_difference(const reference::LinuxRunqueue& ref,
                                            const Runqueue& opt) {
  if (const auto a = scalars(ref), b = scalars(opt); a != b)
    return "runqueue differs:\n  reference " + a + "\n  optimized " + b;
  const auto a = entity_lines(ref), b = entity_lines(opt);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "(none)", y = i < b.size() ? b[i] : "(none)";
    if (x != y) return "entity differs:\n  reference " + x + "\n  optimized " + y;
  }
  if (const auto problem = opt.queue().check_tree()) return "tree self-check: " + *problem;
  return std::nullopt;
}

std::optional<std::string> differential_step(reference::LinuxRunqueue& ref, Runqueue& opt,
                                             const Op& op) {
  std::optional<std::string> ref_error, opt_error;
  reference::Outcome ref_out, opt_out;
  try {
    ref_out = reference::apply_with_round_trip(ref, op);
  } catch (const Error& e) {
    ref_error = e.what();
  }
  try {
    opt_out = reference::apply_with_round_trip(opt, op);
  } catch (const Error& e) {
    opt_error = e.what();
  }
  if (ref_error != opt_error)
    return "after " + to_string(op) + ": reference " +
           (ref_error ? "rejected: " + *ref_error : "accepted") + ", optimized " +
           (opt_error ? "rejected: " + *opt_error : "accepted");
  if (ref_out.picked != opt_out.picked || ref_out.preempt != opt_out.preempt ||
      ref_out.by_protection != opt_out.by_protection || ref_out.by_buddy != opt_out.by_buddy)
    return "after " + to_string(op) + ": outcomes differ: picked " + opt_str(ref_out.picked) +
           " vs " + opt_str(opt_out.picked) + ", preempt " + std::to_string(ref_out.preempt) +
           " vs " + std::to_string(opt_out.preempt);
  if (auto diff = state_difference(ref, opt)) return "after " + to_string(op) + ": " + *diff;
  return std::nullopt;
}

}  // namespace vlag::optimized
