// The names of an enum's values as one table of {value, name} pairs, looked up both ways: the
// policies (sim/policy.h) and the wakeup placements (sim/placement.h) are named through one each,
// so that a name, its value and the list printed in help and errors cannot drift apart.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vlag::sim {

template <class E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <class E, size_t N>
std::optional<E> value_named(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [value, n] : table)
    if (n == name) return value;
  return std::nullopt;
}

template <class E, size_t N>
std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [v, n] : table)
    if (v == value) return n;
  return "?";
}

template <class E, size_t N>
std::vector<std::string> names_of(const NameTable<E, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.second);
  return names;
}

}  // namespace vlag::sim
