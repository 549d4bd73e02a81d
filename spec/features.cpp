#include "spec/features.h"

#include <algorithm>
#include <bit>

#include "spec/error.h"
#include "spec/weights.h"

namespace vlag {
namespace {

constexpr std::array<std::string_view, kFeatureCount> kFeatureNames = {
    "PLACE_LAG",
    "PLACE_DEADLINE_INITIAL",
    "PLACE_REL_DEADLINE",
    "RUN_TO_PARITY",
    "PREEMPT_SHORT",
    "PICK_BUDDY",
    "NEXT_BUDDY",
    "DELAY_DEQUEUE",
    "DELAY_ZERO",
    "WAKEUP_PREEMPTION",
    "HRTICK",
};

Preset linux_preset(std::string name, std::initializer_list<Feature> on) {
  Preset p;
  p.name = std::move(name);
  for (Feature f : on) p.set(f, true);
  return p;
}

// The TR's algorithm: quanta of q = TICK, requests of one quantum by default, rejoin strategy s.
Preset paper(int strategy) {
  using enum Feature;
  Preset p;
  p.name = "paper-" + std::to_string(strategy);
  p.rejoin_strategy = strategy;
  p.set(PLACE_LAG, strategy == 1);
  p.set(DELAY_DEQUEUE, strategy == 3);
  p.set(DELAY_ZERO, strategy == 3);
  p.join = JoinRule::Paper;
  p.clamp = LagClamp::None;
  p.protection = Protection::None;
  p.wakeup = WakeupRule::None;
  p.reweight = ReweightRule::Rescale;
  p.base_slice_norm_ns = 4'000'000;
  return p;
}

}  // namespace

// SPEC.md §5, one function per column of the tables.
Preset linux_6_6() {
  using enum Feature;
  Preset p = linux_preset("linux-6.6",
                          {PLACE_LAG, PLACE_DEADLINE_INITIAL, RUN_TO_PARITY, WAKEUP_PREEMPTION});
  p.protection = Protection::Stash;
  p.wakeup = WakeupRule::Pick;
  p.reweight = ReweightRule::KeepV;
  p.tree = TreeLayout::VruntimeSorted;
  p.base_slice_norm_ns = 750'000;
  return p;
}

Preset linux_6_12() {
  using enum Feature;
  Preset p = linux_preset("linux-6.12",
                          {PLACE_LAG, PLACE_DEADLINE_INITIAL, PLACE_REL_DEADLINE, RUN_TO_PARITY,
                           PREEMPT_SHORT, DELAY_DEQUEUE, DELAY_ZERO, WAKEUP_PREEMPTION});
  p.protection = Protection::Stash;
  p.wakeup = WakeupRule::ShortV1;
  p.reweight = ReweightRule::Rescale;
  p.base_slice_norm_ns = 750'000;
  return p;
}

Preset linux_6_18() {
  using enum Feature;
  Preset p = linux_preset(
      "linux-6.18", {PLACE_LAG, PLACE_DEADLINE_INITIAL, PLACE_REL_DEADLINE, RUN_TO_PARITY,
                     PREEMPT_SHORT, PICK_BUDDY, DELAY_DEQUEUE, DELAY_ZERO, WAKEUP_PREEMPTION});
  p.protection = Protection::Vprot;
  p.wakeup = WakeupRule::ShortV2;
  p.reweight = ReweightRule::Place;
  p.base_slice_norm_ns = 700'000;
  return p;
}

namespace {

// 6.18 and what the kernels after it changed (SPEC.md §5). Both newer presets take what the
// development machines' 6.18.44 shows in its BTF and sched/debug (zero_vruntime,
// sum_w_vruntime/sum_weight, se->max_slice, the vlag/vprot union) and the 6.19 yield, which stable
// took (79104becf42b is in 6.12.63). Mainline adds the 7.1 reweight (101f3498b4bd: V-invariant
// rescale of v, d and vprot) and the delayed entity's lag that may not decrease (059258b0d424).
Preset after_linux_6_18(std::string_view name, bool mainline) {
  Preset p = linux_6_18();
  p.name = name;
  p.clamp = LagClamp::MaxSlice;
  p.reference_point = ReferencePoint::ZeroVruntime;
  p.yield = YieldRule::Forfeit;
  if (mainline) {
    p.reweight = ReweightRule::Rescale;
    p.delayed_lag = DelayedLag::NoDecrease;
  }
  return p;
}

}  // namespace

Preset linux_6_18_y() { return after_linux_6_18("linux-6.18.y", false); }
Preset linux_mainline() { return after_linux_6_18("linux-mainline", true); }

Preset paper_1() { return paper(1); }
Preset paper_2() { return paper(2); }
Preset paper_3() { return paper(3); }

std::string_view feature_name(Feature f) { return kFeatureNames[static_cast<size_t>(f)]; }

std::vector<std::string> presets_of(PresetFamily family) {
  std::vector<std::string> out;
  for (const PresetRow& row : kPresets) {
    const bool paper = row.make().paper();
    if (family == PresetFamily::Any || paper == (family == PresetFamily::Paper))
      out.emplace_back(row.name);
  }
  return out;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const PresetRow& row : kPresets) {
    if (!row.alias.empty()) out.emplace_back(row.alias);
    out.emplace_back(row.name);
  }
  return out;
}

std::string preset_help(PresetFamily family) {
  std::string out = "Preset (SPEC.md §5):";
  const std::vector<std::string> names = presets_of(family);
  size_t width = 0;
  for (const PresetRow& row : kPresets) width = std::max(width, row.name.size());
  for (const PresetRow& row : kPresets)
    if (std::find(names.begin(), names.end(), row.name) != names.end())
      out += "\n  " + std::string(row.name) + std::string(width + 2 - row.name.size(), ' ') +
             std::string(row.description);
  return out;
}

Preset preset_by_name(std::string_view name) {
  for (const PresetRow& row : kPresets)
    if (name == row.name || (!row.alias.empty() && name == row.alias)) return row.make();
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown preset '" + std::string(name) + "' (known: " + known + ")");
}

void apply_feature_overrides(Preset& preset, std::string_view spec) {
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    if (item.empty()) continue;
    const bool on = item.front() != '-';
    if (!on || item.front() == '+') item.remove_prefix(1);
    bool found = false;
    for (size_t i = 0; i < kFeatureCount; ++i) {
      if (kFeatureNames[i] == item) {
        preset.features[i] = on;
        found = true;
      }
    }
    if (!found) throw Error("unknown feature '" + std::string(item) + "'");
  }
}

int64_t Params::tick_ns() const { return (1'000'000'000 + hz / 2) / hz; }

int64_t Params::base_slice_ns() const {
  if (base_slice_override_ns > 0) return base_slice_override_ns;
  const int n = factor_cpus();
  const unsigned cpus = static_cast<unsigned>(n < 8 ? n : 8);
  const int factor = 1 + static_cast<int>(std::bit_width(cpus)) - 1;
  return preset.base_slice_norm_ns * factor;
}

Params make_params(Preset preset, int hz, int ncpus) {
  if (hz < 100 || hz > 1000) throw Error("HZ " + std::to_string(hz) + " is outside 100..1000");
  if (ncpus < 1 || ncpus > 4096)
    throw Error("CPU count " + std::to_string(ncpus) + " is outside 1..4096");
  return Params{std::move(preset), hz, ncpus};
}

void set_base_slice_params(Params& params, int kernel_cpus, int64_t base_slice_override_ns) {
  if (kernel_cpus != 0 && (kernel_cpus < 1 || kernel_cpus > 4096))
    throw Error("kernel CPU count " + std::to_string(kernel_cpus) + " is outside 1..4096");
  if (base_slice_override_ns != 0 &&
      (base_slice_override_ns < kMinCustomSliceNs || base_slice_override_ns > kMaxCustomSliceNs))
    throw Error("base slice " + std::to_string(base_slice_override_ns) + " ns is outside " +
                std::to_string(kMinCustomSliceNs) + ".." + std::to_string(kMaxCustomSliceNs));
  params.kernel_cpus = kernel_cpus;
  params.base_slice_override_ns = base_slice_override_ns;
}

Params remake_params(const Params& p) {
  Params out = make_params(p.preset, p.hz, p.ncpus);
  set_base_slice_params(out, p.kernel_cpus, p.base_slice_override_ns);
  return out;
}

}  // namespace vlag
