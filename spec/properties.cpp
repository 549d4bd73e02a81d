#include "spec/properties.h"

#include "spec/error.h"

namespace vlag {

std::string_view kind_name(PropertyKind kind) {
  using enum PropertyKind;
  switch (kind) {
    case StateInvariant:
      return "state invariant";
    case StepInvariant:
      return "step invariant";
    case KernelStateInvariant:
      return "kernel-state invariant";
    case Theorem:
      return "theorem";
    case Figure:
      return "figure";
    case SnapshotCheck:
      return "snapshot check";
    case KernelTraceCheck:
      return "kernel-trace check";
    case CfsCheck:
      return "CFS check";
  }
  return "?";
}

std::span<const Property> properties() { return kProperties; }

const Property* find_property(std::string_view id) {
  for (const Property& p : kProperties)
    if (id == p.id) return &p;
  return nullptr;
}

const Property& property(std::string_view id) {
  if (const Property* p = find_property(id)) return *p;
  throw Error("no property " + std::string(id) + " in spec/properties.h");
}

bool promised(std::string_view id, const Preset& preset, const Situation& situation) {
  return property(id).promised(preset, situation);
}

}  // namespace vlag
