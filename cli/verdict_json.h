// The verdicts of SPEC.md §6.3 as every report prints them (`vlag check`, `vlag kernel check`,
// `vlag kernel snapshot`): reasons as text and JSON, and one ID's tally as a JSON object.
#pragma once

#include <string>

#include "spec/verdict.h"

namespace vlag::cli {

/// "untraced CPU, lost events".
std::string reasons_text(Reasons why);
/// ["untraced CPU","lost events"].
std::string reasons_json(Reasons why);
/// {"id":…,"checked":…,"held":…,"inconclusive":…,"violated":…,"not_applicable":…,
///  "inconclusive_reasons":{…},"not_applicable_reasons":{…}}.
std::string tally_json(const std::string& id, const VerdictTally& c);

}  // namespace vlag::cli
