// What a task carries from one runqueue to another when it migrates (SPEC.md §4.13): Linux keeps
// se->vlag (and the custom slice, the weight) across set_task_cpu(), and place_entity() on the
// new CPU applies the saved lag there. Num is the runqueue's virtual-time type.
#pragma once

#include <cstdint>

#include "spec/ops.h"

namespace vlag {

template <class Num>
struct Migrant {
  EntityId se = 0;
  int64_t weight = 0;
  int64_t slice = 0;          // the request size r_i, ns
  bool custom_slice = false;  // c_i
  Num vlag{};                 // the saved lag (V − v at the time the task left the queue)
};

}  // namespace vlag
