// The planted fault of each ID's fixture (tests/fixtures/, the file spec/properties.h names for
// it): the line where `vlag check` must flag it. The fixture test checks each file as it is; the
// group fault test (tests/checker/checker_group_faults_test.cpp) moves each one-CPU fixture's
// tasks into a group runqueue and expects the same fault there.
#pragma once

#include <cstdint>

#include "spec/properties.h"

namespace vlag::testing {

struct Planted {
  const char* id;
  int64_t line;
};

inline constexpr Planted kPlanted[] = {
    {ids::kInvPickEligible, 8}, {ids::kInvPickEdf, 6},     {ids::kInvLagSum, 5},
    {ids::kInvDeadline, 4},     {ids::kInvPlaceLag, 9},    {ids::kInvReweight, 8},
    {ids::kInvLagClamp, 8},     {ids::kInvS64Margin, 4},   {ids::kInvDelay, 4},
    {ids::kInvStep, 6},         {ids::kThmLagBound, 8},    {ids::kThmWakeupLatency, 8},
    {ids::kInvKernelSums, 17},  {ids::kInvProtStart, 8},   {ids::kInvProtExtent, 7},
    {ids::kInvProtEnd, 9},      {ids::kInvNextBuddy, 6},   {ids::kInvMigrateLag, 12},
    {ids::kInvOneRunqueue, 8},  {ids::kInvGroupQueued, 9}, {ids::kInvGroupShares, 9},
};

}  // namespace vlag::testing
