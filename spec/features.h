// SPEC.md §5: feature flags (named as in Linux's kernel/sched/features.h), the version behaviours
// that are not flags, and the presets that bundle both — one table (kPresets) from which every
// preset list, the default, "is this a paper preset" and the help texts derive.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vlag {

enum class Feature : uint8_t {
  PLACE_LAG,
  PLACE_DEADLINE_INITIAL,
  PLACE_REL_DEADLINE,
  RUN_TO_PARITY,
  PREEMPT_SHORT,
  PICK_BUDDY,
  NEXT_BUDDY,
  DELAY_DEQUEUE,
  DELAY_ZERO,
  WAKEUP_PREEMPTION,
  HRTICK,  // the machine's, not the runqueue's: a slice end is a timer (SPEC.md §9.4)
};
inline constexpr size_t kFeatureCount = 11;

std::string_view feature_name(Feature f);

/// How a joining entity's saved lag is applied (SPEC.md §4.3 step 2).
enum class JoinRule : uint8_t { Inflate, Paper };
/// Clamp applied to a saved lag (SPEC.md §4.7): none, ±vdelta(max(2r_i, TICK), w_i) (6.6–6.18),
/// or ±vdelta(the largest slice in Q + TICK, w_i) (6e3c0a4e1ad1, in 6.18.y and mainline).
enum class LagClamp : uint8_t { None, TwiceSlice, MaxSlice };
/// The reference point v_0 of the sums in Linux arithmetic (SPEC.md §7.1): a monotone
/// min_vruntime (6.6–6.18) or zero_vruntime, moved to V whenever V is computed for a placement, a
/// saved lag or a tick (79f3f9bedd14, b3d99f43c72b; 6.18.y and mainline).
enum class ReferencePoint : uint8_t { MinVruntime, ZeroVruntime };
/// Yield (SPEC.md §4.11): the deadline moves a slice on (6.6–6.18), or an eligible yielder
/// forfeits the rest of its request, v := d, then d += vslice (79104becf42b).
enum class YieldRule : uint8_t { ExtendDeadline, Forfeit };
/// The lag a delayed entity keeps (SPEC.md §4.9): V − v when it leaves (6.12–6.18.y), or never less
/// than the lag it had when it was delayed (059258b0d424, mainline).
enum class DelayedLag : uint8_t { AtLeave, NoDecrease };
/// Slice protection generation (SPEC.md §4.5).
enum class Protection : uint8_t { None, Stash, Vprot };
/// Wakeup-preemption rule (SPEC.md §4.6).
enum class WakeupRule : uint8_t { None, Pick, ShortV1, ShortV2 };
/// Reweight generation (SPEC.md §4.8).
enum class ReweightRule : uint8_t { KeepV, Rescale, Place };

/// Layout of the tree (SPEC.md §5): sorted by deadline and augmented with min vruntime (6.8+),
/// or sorted by vruntime and augmented with min deadline (6.6).
enum class TreeLayout : uint8_t { DeadlineSorted, VruntimeSorted };

/// A preset: flags plus version behaviours plus the unscaled base slice.
struct Preset {
  std::string name;
  std::array<bool, kFeatureCount> features{};
  JoinRule join = JoinRule::Inflate;
  LagClamp clamp = LagClamp::TwiceSlice;
  Protection protection = Protection::Vprot;
  WakeupRule wakeup = WakeupRule::ShortV2;
  ReweightRule reweight = ReweightRule::Place;
  TreeLayout tree = TreeLayout::DeadlineSorted;
  ReferencePoint reference_point = ReferencePoint::MinVruntime;
  YieldRule yield = YieldRule::ExtendDeadline;
  DelayedLag delayed_lag = DelayedLag::AtLeave;
  int rejoin_strategy = 0;         // paper only: 1, 2 or 3 (TR §5); 0 for Linux presets
  int64_t base_slice_norm_ns = 0;  // normalized sysctl_sched_base_slice (one CPU)

  bool has(Feature f) const { return features[static_cast<size_t>(f)]; }
  void set(Feature f, bool on) { features[static_cast<size_t>(f)] = on; }
  /// The TR's algorithm (paper-1..3) rather than a Linux version.
  bool paper() const { return rejoin_strategy != 0; }
};

Preset linux_mainline();
Preset linux_6_18_y();
Preset linux_6_18();
Preset linux_6_12();
Preset linux_6_6();
Preset paper_1();
Preset paper_2();
Preset paper_3();

/// One preset of SPEC.md §5.
struct PresetRow {
  std::string_view name;
  std::string_view alias;        // a second accepted name, or empty
  std::string_view description;  // one line, for help texts
  Preset (*make)();
};

/// Every preset, the default first, then the other kernels newest first, then the paper's three
/// rejoin strategies (TR §5).
inline constexpr PresetRow kPresets[] = {
    {"linux-6.18", "", "Linux 6.17-6.18: vprot protection, PICK_BUDDY, reweight by placement",
     &linux_6_18},
    {"linux-mainline", "",
     "Linux mainline (7.1+): 6.18.y plus reweight rescaling v, d and vprot, delayed lag kept",
     &linux_mainline},
    {"linux-6.18.y", "",
     "Linux 6.18.y stable (6.18.44): zero_vruntime, yield forfeits, max-slice lag clamp",
     &linux_6_18_y},
    {"linux-6.12", "", "Linux 6.12: delayed dequeue, PREEMPT_SHORT, reweight rescales v and d",
     &linux_6_12},
    {"linux-6.6", "", "Linux 6.6: the first EEVDF, vruntime-sorted tree, reweight keeps v",
     &linux_6_6},
    {"paper-1", "paper", "the TR's EEVDF in quanta, rejoin strategy 1: lag kept", &paper_1},
    {"paper-2", "", "the TR's EEVDF in quanta, rejoin strategy 2: lag dropped at a leave",
     &paper_2},
    {"paper-3", "", "the TR's EEVDF in quanta, rejoin strategy 3: leave only at zero lag",
     &paper_3},
};
inline constexpr std::string_view kDefaultPreset = kPresets[0].name;
/// The preset a real kernel's capture is read under when neither it nor the machine names an
/// EEVDF kernel release (kernel/kernel_release.h chooses by release first): the newest Linux of
/// the table, whatever the default is.
inline constexpr std::string_view kNewestLinuxPreset = "linux-mainline";
static_assert(
    [] {
      for (const PresetRow& row : kPresets)
        if (row.name == kNewestLinuxPreset) return true;
      return false;
    }(),
    "kNewestLinuxPreset names a row of kPresets");

enum class PresetFamily : uint8_t { Any, Linux, Paper };

/// The canonical names of a family's presets, in table order.
std::vector<std::string> presets_of(PresetFamily family = PresetFamily::Any);
/// Names accepted by preset_by_name (aliases next to their preset), default first.
std::vector<std::string> preset_names();
/// A --preset help text: "Preset (SPEC.md §5):" and one line per preset of the family.
std::string preset_help(PresetFamily family = PresetFamily::Any);

/// A preset by name or alias from kPresets. Throws vlag::Error naming the accepted names
/// otherwise.
Preset preset_by_name(std::string_view name);

/// Applies "NAME,-NAME,…" (feature names as in Linux) on top of a preset. Throws on unknown names.
void apply_feature_overrides(Preset& preset, std::string_view spec);

/// The run parameters that turn a preset into numbers (SPEC.md §1).
struct Params {
  Preset preset;
  int hz = 250;
  int ncpus = 1;
  // The CPUs the kernel counted at boot for the base slice's factor, when the run simulates fewer
  // (or more) than the machine has: a workload pinned to one CPU of a 2-CPU machine runs with
  // 2 here and ncpus 1 (SPEC.md §1). 0: ncpus.
  int kernel_cpus = 0;
  // b set by hand, as writing debugfs sched/base_slice_ns sets sysctl_sched_base_slice (and
  // leaves b_norm alone); 0: the preset's b_norm × the CPU factor.
  int64_t base_slice_override_ns = 0;

  int64_t tick_ns() const;
  /// The CPU count of the base slice's factor: kernel_cpus, or ncpus when it is 0.
  int factor_cpus() const { return kernel_cpus > 0 ? kernel_cpus : ncpus; }
  /// b: base_slice_override_ns, or b_norm × the CPU factor 1 + floor(log2(min(factor_cpus, 8))).
  int64_t base_slice_ns() const;
  /// b_norm: base slice without the CPU factor.
  int64_t base_slice_norm_ns() const { return preset.base_slice_norm_ns; }
};

/// Throws vlag::Error unless hz is in 100..1000 and ncpus in 1..4096.
Params make_params(Preset preset, int hz = 250, int ncpus = 1);

/// Sets the kernel's CPU count and the hand-set base slice (Params fields of the same names);
/// throws vlag::Error unless kernel_cpus is 0 or in 1..4096 and the slice is 0 or in the custom
/// slice range [0.1 ms, 100 ms] that sysctl values outside of would make no sense for.
void set_base_slice_params(Params& params, int kernel_cpus, int64_t base_slice_override_ns);

/// p checked again after its fields were set one by one: make_params of its preset, hz and
/// ncpus, then set_base_slice_params of its kernel_cpus and override. Throws as those do.
Params remake_params(const Params& p);

}  // namespace vlag
