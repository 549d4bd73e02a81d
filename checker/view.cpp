#include "checker/view.h"

#include <fmt/format.h>

#include <utility>

#include "checker/checker_bug.h"

namespace vlag::checker {

Exact exact_of(__int128 x) {
  const bool negative = x < 0;
  const auto magnitude =
      negative ? -static_cast<unsigned __int128>(x) : static_cast<unsigned __int128>(x);
  mpz_class z(static_cast<unsigned long>(magnitude >> 64));
  z <<= 64;
  z += static_cast<unsigned long>(magnitude & ~uint64_t{0});
  if (negative) z = -z;
  return Exact(z);
}

std::optional<int64_t> floor_s64(const Exact& x) {
  if (x.get_den() == 1) return as_s64(x);
  mpz_class f;
  mpz_fdiv_q(f.get_mpz_t(), x.get_num_mpz_t(), x.get_den_mpz_t());
  if (!f.fits_slong_p()) return std::nullopt;
  return f.get_si();
}

std::string entity_label(const ViewEntity& e) {
  return (e.task == e.id ? "task " : "entity ") + std::to_string(e.id);
}

// The slice counts change only when the slice or the membership of Q does (an edit of curr at
// each `run` changes neither): they are settled at the end, from the state before and after.
View::Edit::Edit(View& view, ViewEntity& e)
    : view_(view), e_(e), slice_(e.slice), queued_(in_queue(e)) {
  view_.account(e_, -1, false);
}

View::Edit::~Edit() {
  read_s64(e_);
  view_.account(e_, 1, false);
  const bool queued = in_queue(e_);
  if (queued_ != queued || e_.slice != slice_) {
    if (queued_) view_.count_slice(view_.queued_slices_, slice_, -1);
    if (queued) view_.count_slice(view_.queued_slices_, e_.slice, 1);
  }
  if (e_.slice != slice_) {
    view_.count_slice(view_.slices_, slice_, -1);
    view_.count_slice(view_.slices_, e_.slice, 1);
  }
}

ViewEntity* View::find_mutable(EntityId id) {
  return const_cast<ViewEntity*>(std::as_const(*this).find(id));
}

// An event looks its entity up several times (validation, the view's update, the rules): the
// last one found is tried first.
const ViewEntity* View::find(EntityId id) const {
  if (last_found_ < entities_.size()) {
    const auto it = entities_.nth(last_found_);
    if (it->first == id) return &it->second;
  }
  const auto it = entities_.find(id);
  if (it == entities_.end()) return nullptr;
  last_found_ = entities_.index_of(it);
  return &it->second;
}

const ViewEntity& View::insert(const ViewEntity& e) {
  erase(e.id);
  ViewEntity& added = entities_[e.id] = e;
  read_s64(added);
  account(added, 1);
  count_slice(slices_, added.slice, 1);
  return added;
}

void View::erase(EntityId id) {
  auto it = entities_.find(id);
  if (it == entities_.end()) return;
  account(it->second, -1);
  count_slice(slices_, it->second.slice, -1);
  entities_.erase(it);
}

void View::read_s64(ViewEntity& e) {
  e.v64 = as_s64(e.vruntime);
  e.d64 = as_s64(e.deadline);
}

void View::account(const ViewEntity& e, int sign, bool slices) {
  if (!in_queue(e)) return;
  W_ += sign * e.weight;
  queued_ += sign;
  if (e.status == Status::Delayed) {
    if (sign > 0)
      delayed_.insert(e.id);
    else
      delayed_.erase(e.id);
  }
  if (slices) count_slice(queued_slices_, e.slice, sign);
  if (e.v64) {
    small_sum_ += sign * static_cast<__int128>(*e.v64) * e.weight;
  } else {
    const Exact wv = e.vruntime * static_cast<long>(e.weight);
    if (sign > 0)
      big_sum_ += wv;
    else
      big_sum_ -= wv;
    big_ += sign;
  }
  if (!e.v64 && e.vruntime.get_den() != 1) fractional_ += sign;
}

void View::count_slice(boost::container::flat_map<int64_t, int64_t>& slices, int64_t slice,
                       int64_t n) {
  auto it = slices.emplace(slice, 0).first;
  if ((it->second += n) == 0) slices.erase(it);
}

int64_t View::max_slice() const { return slices_.empty() ? 0 : slices_.rbegin()->first; }
int64_t View::max_queued_slice() const {
  return queued_slices_.empty() ? 0 : queued_slices_.rbegin()->first;
}

Exact View::weighted_vruntimes() const {
  Exact sum = big_sum_;
  if (small_sum_ != 0) sum += exact_of(small_sum_);
  return sum;
}

Exact View::V() const {
  if (W_ == 0) return 0;
  Exact v = weighted_vruntimes() / Exact(static_cast<long>(W_));
  v.canonicalize();
  return v;
}

const ViewEntity* View::earliest_eligible_deadline(const Exact& V) const {
  const ViewEntity* best = nullptr;
  for (const auto& [id, e] : entities_)
    if (in_queue(e) && eligible(e, V) && (!best || precedes(e, *best))) best = &e;
  return best;
}

// Straight from the entities, in exact arithmetic: nothing of account() is reused.
void View::audit() const {
  int64_t W = 0, queued = 0, fractional = 0, longest = 0, sliced = 0, longest_queued = 0;
  boost::container::flat_set<EntityId> delayed;
  Exact sum = 0;
  for (const auto& [id, e] : entities_) {
    if (e.v64 != as_s64(e.vruntime) || e.d64 != as_s64(e.deadline))
      throw CheckerBug(fmt::format("the view's s64 readings of {} are stale: v {} d {}",
                                   entity_label(e), e.vruntime.get_str(), e.deadline.get_str()));
    longest = std::max(longest, e.slice);
    if (!in_queue(e)) continue;
    W += e.weight;
    ++queued;
    if (e.status == Status::Delayed) delayed.insert(id);
    longest_queued = std::max(longest_queued, e.slice);
    sum += e.vruntime * static_cast<long>(e.weight);
    fractional += e.vruntime.get_den() != 1;
  }
  for (const auto& [slice, n] : slices_) sliced += n;
  int64_t queued_sliced = 0;
  for (const auto& [slice, n] : queued_slices_) queued_sliced += n;
  const auto differs = [&](const char* what, const std::string& kept, const std::string& full) {
    throw CheckerBug(fmt::format("the view's {} is {} where its {} entities give {}", what, kept,
                                 entities_.size(), full));
  };
  if (W_ != W) differs("W", std::to_string(W_), std::to_string(W));
  if (queued_ != queued) differs("queue length", std::to_string(queued_), std::to_string(queued));
  if (delayed_ != delayed)
    differs("set of delayed entities", std::to_string(delayed_.size()) + " entities",
            std::to_string(delayed.size()));
  if (weighted_vruntimes() != sum)
    differs("sum of w*v", weighted_vruntimes().get_str(), sum.get_str());
  if (fractional_ != fractional)
    differs("count of fractional vruntimes", std::to_string(fractional_),
            std::to_string(fractional));
  if (max_slice() != longest || sliced != static_cast<int64_t>(entities_.size()))
    differs("longest slice", std::to_string(max_slice()), std::to_string(longest));
  if (max_queued_slice() != longest_queued || queued_sliced != queued)
    differs("longest queued slice", std::to_string(max_queued_slice()),
            std::to_string(longest_queued));
}

std::vector<trace::Event> View::snapshot(int64_t now, RunqueueId rq) const {
  std::vector<trace::Event> out;
  for (const auto& [id, v] : entities_) {
    trace::Event e;
    e.kind = trace::EventKind::Entity;
    e.t = now;
    e.rq = rq;
    e.task = v.task;
    if (v.task != id) e.se = id;
    e.state.weight = v.weight;
    e.state.slice = v.slice;
    e.state.vruntime = v.vruntime;
    e.state.deadline = v.deadline;
    e.state.vlag = v.vlag;
    e.state.status = v.status;
    e.state.running = curr == id;
    e.state.request = v.request;
    out.push_back(e);
  }
  return out;
}

}  // namespace vlag::checker
