// Which preset of SPEC.md §5 a real kernel is read under: by its release (uname -r, or the one a
// sched debug snapshot's "Sched Debug Version" line names), and by the running kernel's release
// when a capture does not say. `vlag kernel` takes the tick, the base slice and the imported
// trace's preset from it (SPEC.md §6.2).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vlag::kernel {

/// major.minor.patch of a release such as "6.18.44-fc-v669" (patch 0 when absent).
struct KernelVersion {
  int major = 0, minor = 0, patch = 0;
};
std::optional<KernelVersion> parse_kernel_release(std::string_view release);

/// The release in a snapshot's version text, "v0.11, 6.18.44-fc-v669 #1" → "6.18.44-fc-v669";
/// nullopt when it names none.
std::optional<std::string> release_of_sched_debug_version(std::string_view version);

/// The preset whose behaviour a kernel of this release has (SPEC.md §5): linux-6.6 for 6.6–6.11,
/// linux-6.12 for 6.12–6.16, linux-6.18 for 6.17 and 6.18.0, linux-6.18.y for the 6.18 stable
/// releases after it, linux-mainline from 6.19 on. nullopt for a release it cannot read or one
/// older than EEVDF (6.6).
std::optional<std::string> preset_for_release(std::string_view release);

/// The preset a capture is read under, and why: its release where known, else the release of the
/// kernel vlag runs on (uname -r: most captures are recorded where they are checked), else
/// kNewestLinuxPreset.
struct KernelPreset {
  std::string name;
  std::string source;  // "6.18.44-fc-v669 of snapshot.txt", "the running kernel 6.18.44-…", …
};
KernelPreset kernel_preset(const std::optional<std::string>& release,
                           const std::string& release_source);

/// uname -r of the machine vlag runs on; empty when uname fails.
std::string running_kernel_release();

}  // namespace vlag::kernel
