// The comparison as text: a legend, one table per metric shaped like the LKML benchmark reports
// (one row per row value, per variant the mean with its stddev as % of the mean, and the % change
// against the baseline), then the summary every change sorted worst regression → best improvement.
#pragma once

#include <string>
#include <vector>

#include "compare/aggregate.h"

namespace vlag::compare {

/// What the signs, the (± x%) and the "~" mean.
std::string legend(int repeat);

/// One metric's table; its header names the unit and the direction.
std::string table_text(const MetricTable& table, const GridSpec& spec);

/// The sorted summary of every change.
std::string summary_text(const std::vector<Change>& changes, const GridSpec& spec);

/// A number as the tables print it: 4 significant digits, no exponent for counts.
std::string format_value(double x);

}  // namespace vlag::compare
