#include "kernel/kernel_release.h"

#include <sys/utsname.h>

#include <charconv>

#include "spec/features.h"

namespace vlag::kernel {
namespace {

// A decimal number at the front of s, which it consumes.
std::optional<int> take_number(std::string_view& s) {
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return value;
}

}  // namespace

std::optional<KernelVersion> parse_kernel_release(std::string_view release) {
  KernelVersion v;
  const auto major = take_number(release);
  if (!major || !release.starts_with('.')) return std::nullopt;
  release.remove_prefix(1);
  const auto minor = take_number(release);
  if (!minor) return std::nullopt;
  v.major = *major;
  v.minor = *minor;
  if (release.starts_with('.')) {
    release.remove_prefix(1);
    if (const auto patch = take_number(release)) v.patch = *patch;
  }
  return v;
}

std::optional<std::string> release_of_sched_debug_version(std::string_view version) {
  const size_t comma = version.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view rest = version.substr(comma + 1);
  while (rest.starts_with(' ')) rest.remove_prefix(1);
  rest = rest.substr(0, rest.find(' '));
  if (!parse_kernel_release(rest)) return std::nullopt;
  return std::string(rest);
}

std::optional<std::string> preset_for_release(std::string_view release) {
  const auto v = parse_kernel_release(release);
  if (!v) return std::nullopt;
  const auto at_least = [&](int major, int minor) {
    return v->major > major || (v->major == major && v->minor >= minor);
  };
  if (!at_least(6, 6)) return std::nullopt;
  if (!at_least(6, 12)) return "linux-6.6";
  if (!at_least(6, 17)) return "linux-6.12";
  if (!at_least(6, 18) || (v->major == 6 && v->minor == 18 && v->patch == 0)) return "linux-6.18";
  if (!at_least(6, 19)) return "linux-6.18.y";
  return "linux-mainline";
}

KernelPreset kernel_preset(const std::optional<std::string>& release,
                           const std::string& release_source) {
  if (release) {
    if (auto name = preset_for_release(*release))
      return {*name, "kernel " + *release + " of " + release_source};
  }
  const std::string running = running_kernel_release();
  if (auto name = preset_for_release(running))
    return {*name, "the running kernel " + running +
                       (release ? " (" + release_source + "'s release " + *release +
                                      " is not an EEVDF kernel's)"
                                : " (the capture names none)")};
  return {std::string(kNewestLinuxPreset), "the newest Linux preset (no kernel release known)"};
}

std::string running_kernel_release() {
  struct utsname u {};
  if (uname(&u) != 0) return {};
  return u.release;
}

}  // namespace vlag::kernel
