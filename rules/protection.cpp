#include "rules/protection.h"

namespace vlag::rules {

bool arms_protection(const Preset& p) {
  switch (p.protection) {
    case Protection::None:
      return false;
    case Protection::Stash:
      return p.has(Feature::RUN_TO_PARITY);
    case Protection::Vprot:
      return true;
  }
  return false;
}

bool protects(const Preset& p, const ProtectionBound& bound, const Exact& v_c, const Exact& d_c) {
  if (!bound) return false;
  switch (p.protection) {
    case Protection::None:
      return false;
    case Protection::Stash:
      return *bound == d_c;
    case Protection::Vprot:
      return v_c < *bound;
  }
  return false;
}

WakeupEffect wakeup_effect(const Preset& p, bool preempt, const WakeeState& wakee,
                           const CurrState& curr, bool curr_eligible, bool curr_protected) {
  if (!p.has(Feature::WAKEUP_PREEMPTION)) return WakeupEffect::None;
  const bool is_short = p.has(Feature::PREEMPT_SHORT) && wakee.slice < curr.slice;
  switch (p.wakeup) {
    case WakeupRule::None:
    case WakeupRule::Pick:
      return WakeupEffect::None;
    case WakeupRule::ShortV1:
      return is_short && wakee.eligible && (wakee.deadline < curr.deadline || !curr_eligible) &&
                     curr_protected
                 ? WakeupEffect::Cancel
                 : WakeupEffect::None;
    case WakeupRule::ShortV2:
      if (!is_short) return WakeupEffect::None;
      if (preempt) return WakeupEffect::Cancel;
      return p.has(Feature::RUN_TO_PARITY) ? WakeupEffect::Shrink : WakeupEffect::None;
  }
  return WakeupEffect::None;
}

}  // namespace vlag::rules
