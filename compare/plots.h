// Plots for what people would rather look at than read, through gnuplot: per row, the latency
// CDF of each variant (the first repetition's tasks merged, log x) and the CPU share of each task
// per variant (clustered bars); per variant, the lag of each task over time with the
// THM-LAG-BOUND-LINUX bound drawn (first row only: the lag the grid sampled). Every plot is
// three files, NAME.dat, NAME.gp and NAME.svg, so that users can restyle a plot by editing its
// script; without gnuplot the data and scripts are still written.
#pragma once

#include <string>
#include <vector>

#include "compare/grid.h"

namespace vlag::compare {

struct PlotOptions {
  std::string dir;
  std::string gnuplot = "gnuplot";  // the program run on each script
  int lag_tasks = 16;               // tasks drawn per lag plot (the data file holds them all)
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
