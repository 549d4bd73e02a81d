// The symbolic model held against the reference (reference/runqueue.h): the same operations,
// with every choice of the symbolic step fixed, must lead to the same states: the exact
// encoding against reference::Runqueue, linux64 against reference::LinuxRunqueue.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "smt/engine.h"

namespace vlag::smt {

/// ops: Create for tasks 1..o.tasks first, then any operations the model has (no Exit or late
/// Create); those the reference rejects are skipped. Returns the first
/// field on which the symbolic state after an operation differs from the reference's.
std::optional<std::string> disagreement(const Options& o, const std::vector<Op>& ops);

/// The same for a hierarchy (o.groups, exact arithmetic) against reference::GroupDriver: ops
/// as `vlag prove --groups` writes them (reference/group_driver.h), every level compared.
std::optional<std::string> group_disagreement(const Options& o, const std::vector<Op>& ops);

}  // namespace vlag::smt
