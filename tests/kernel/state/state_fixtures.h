// The captures of tests/data/linux-state/ (SPEC.md §6.4), each read once per test binary: the
// fixtures the kernel checks and the replay are tested on.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "kernel/state/capture_file.h"

namespace vlag::kernel::state {

inline const StateCapture& fixture(const std::string& name) {
  static std::map<std::string, StateCapture> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) {
    const auto dir = std::filesystem::path(VLAG_TEST_DATA) / "linux-state" / name;
    it = loaded.emplace(name, read_state_capture(dir.string())).first;
  }
  return it->second;
}

}  // namespace vlag::kernel::state
