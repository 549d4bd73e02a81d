// Plots for what people would rather look at than read, through gnuplot, readable for a few
// tasks or hundreds (compare/plot_selection.h decides what each shows): per row, the latency
// CCDF of each variant (the first repetition's tasks merged; log-log, the share at 0 in the key)
// and the CPU share per task and variant (clustered bars: every task, or the tasks the variants
// change most and the mean of the others, on an axis zoomed to show the differences); per
// variant, the lag over time with the THM-LAG-BOUND-LINUX bound (first row only: the lag the
// grid sampled): every task as a line, or the band of all tasks and the lines of those with the
// largest |lag|. Each title says what is selected and where an axis does not start at 0. Every
// plot is three files, NAME.dat, NAME.gp and NAME.svg, so that users can restyle a plot by
// editing its script; without gnuplot the data and scripts are still written.
#pragma once

#include <string>
#include <vector>

#include "compare/grid.h"

namespace vlag::compare {

struct PlotOptions {
  std::string dir;
  std::string gnuplot = "gnuplot";  // the program run on each script
  size_t share_tasks = 12;          // tasks a share chart names; more become one "others" mean
  size_t lag_every_task_up_to = 6;  // a lag plot draws every task as a line up to this many;
  size_t lag_lines = 3;  // beyond, the band of all and these many of largest |lag| as lines
};

struct PlotFiles {
  bool gnuplot_found = false;
  std::vector<std::string> images;   // written by gnuplot
  std::vector<std::string> scripts;  // NAME.gp, each next to its NAME.dat
  std::vector<std::string> notes;    // plots skipped and why
};

/// Whether `program --version` runs.
bool gnuplot_available(const std::string& program);

/// Writes every plot into options.dir (created if missing). Throws vlag::Error when the
/// directory cannot be written or gnuplot fails on a script.
PlotFiles write_plots(const RunResults& results, const PlotOptions& options);

}  // namespace vlag::compare
