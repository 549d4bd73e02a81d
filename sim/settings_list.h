// The "key=value,key=value" part of a flag's value (--group WORKLOAD:..., --cgroup PATH:...),
// split once for every flag that takes one.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "spec/error.h"

namespace vlag::sim {

/// The settings of text[from..], in order; throws vlag::Error "WHO: 'item' is not key=value".
inline std::vector<std::pair<std::string, std::string>> split_settings(const std::string& text,
                                                                       size_t from,
                                                                       const std::string& who) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t pos = from; pos <= text.size();) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw Error(who + ": '" + item + "' is not key=value");
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    pos = comma + 1;
  }
  return out;
}

}  // namespace vlag::sim
