// The whole comparison as one JSON document for scripts: the grid's config, every run's metrics,
// and per (metric, row, variant) the mean, stddev, change and noise verdict, plus the sorted
// summary. Numbers that have no finite value (a change against a zero baseline) are null.
#pragma once

#include <string>
#include <vector>

#include "compare/aggregate.h"

namespace vlag::compare {

/// `plots` names the image (or, without gnuplot, script) files written, if any.
std::string comparison_json(const RunResults& results, const std::vector<MetricTable>& tables,
                            const std::vector<Change>& changes,
                            const std::vector<std::string>& plots);

}  // namespace vlag::compare
