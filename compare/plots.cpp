#include "compare/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "compare/plot_selection.h"
#include "spec/directory.h"
#include "spec/error.h"

namespace vlag::compare {
namespace {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A gnuplot string literal: double quotes, with backslashes and quotes escaped and a line break
// as \n (a title of two lines).
std::string gp_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// "groups=4" → "groups-4": labels become parts of file names.
std::string file_part(const std::string& label) {
  std::string out;
  for (char c : label) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' ? c : '-';
  return out;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error("cannot write " + path.string());
}

// Shared preamble: SVG, white background, labels printed as written (no enhanced-text
// subscripts for the '_' in metric and setting names), the title in two lines (what is plotted;
// what is selected and how the axes are cut), the key below the plot so that the plot keeps the
// width.
std::string preamble(const std::string& name, const std::string& what, const std::string& how) {
  return fmt::format(
      "set terminal svg size 960,600 dynamic background rgb 'white'\n"
      "set output {}\nset termoption noenhanced\nset title {}\n"
      "set key outside below horizontal\nset grid\n",
      gp_quote(name + ".svg"), gp_quote(what + "\n" + how));
}

// The decade at or below (above) x > 0: a log axis from one to the other has labelled tics.
double decade_below(double x) { return std::pow(10.0, std::floor(std::log10(x))); }
double decade_above(double x) { return std::pow(10.0, std::ceil(std::log10(x))); }

class Writer {
 public:
  Writer(const PlotOptions& options, PlotFiles& files) : options_(options), files_(files) {}

  void plot(const std::string& name, const std::string& data, const std::string& script) {
    const fs::path dir(options_.dir);
    write_file(dir / (name + ".dat"), data);
    write_file(dir / (name + ".gp"), script);
    files_.scripts.push_back((dir / (name + ".gp")).string());
    if (!files_.gnuplot_found) return;
    const std::string cmd = fmt::format("cd {} && {} {} >/dev/null 2>&1", shell_quote(options_.dir),
                                        options_.gnuplot, shell_quote(name + ".gp"));
    const fs::path image = dir / (name + ".svg");
    if (std::system(cmd.c_str()) != 0 || !fs::exists(image))
      throw Error("gnuplot failed on " + (dir / (name + ".gp")).string());
    files_.images.push_back(image.string());
  }

 private:
  const PlotOptions& options_;
  PlotFiles& files_;
};

// "1.5", "0.0123": a value for a title or a key, to the precision that tells it apart.
std::string short_number(double x) { return fmt::format("{:.3g}", x); }

// Per row: each variant's complementary CDF (the share of wakeups later than x) on log-log
// axes, which keep the tail in view. A log axis has no 0, so the share of 0-us wakeups is in
// the key and is where each curve starts, at the left edge; the shares below one sample are
// drawn on the floor (half a sample), so every curve ends where its largest latency is and a
// variant with nothing later than 0 is a line along the floor. Coinciding curves stay visible:
// the first is widest and the later ones thinner and dashed on top of it.
void latency_ccdf(const RunResults& res, size_t row, Writer& w, PlotFiles& files) {
  const GridSpec& spec = res.spec;
  struct Curve {
    size_t variant;
    Ccdf ccdf;
  };
  std::vector<Curve> curves;
  for (const RunRecord& run : res.runs) {
    if (run.row != row || run.rep != 0) continue;
    stats::LatencyHistogram all;
    for (const sim::TaskSummary& t : run.tasks) all.merge(t.latency);
    if (all.count() > 0) curves.push_back({run.variant, ccdf_of(all)});
  }
  const std::string name = "latency-ccdf-" + file_part(spec.rows[row].label);
  int64_t left = INT64_MAX;
  int64_t right = 0;
  int64_t most = 0;
  for (const Curve& c : curves) {
    most = std::max(most, c.ccdf.count);
    if (!c.ccdf.later_than.empty()) {
      left = std::min(left, c.ccdf.later_than.front().first);
      right = std::max(right, c.ccdf.later_than.back().first);
    }
  }
  if (curves.empty()) {
    files.notes.push_back(name + ": no wakeup latencies recorded (the tasks never slept)");
    return;
  }
  if (right == 0) {
    files.notes.push_back(name + ": every wakeup of every variant had 0 us latency");
    return;
  }
  const double floor = 0.5 / static_cast<double>(most);
  const double x_left = decade_below(static_cast<double>(left) / 1e3 / 1.5);
  const double x_right = decade_above(static_cast<double>(right) / 1e3 * 1.5);
  std::string data;
  for (const Curve& c : curves) {
    data += fmt::format("# {}: latency (us), fraction of the {} wakeups later than it\n",
                        spec.variants[c.variant].label, c.ccdf.count);
    data += fmt::format("{} {}\n", x_left, std::max(floor, 1.0 - c.ccdf.zero_fraction));
    for (const auto& [ns, later] : c.ccdf.later_than)
      data += fmt::format("{} {}\n", static_cast<double>(ns) / 1e3, std::max(floor, later));
    if (c.ccdf.later_than.empty()) data += fmt::format("{} {}\n", x_right, floor);
    data += "\n\n";  // gnuplot: two blank lines end a data set (index)
  }
  std::string script =
      preamble(name,
               "wakeup latency CCDF, " + spec.base.workload + " " + spec.rows[row].label +
                   ", first repetition: fraction of wakeups later than x",
               "log-log; a log axis has no 0: the key gives each variant's share at 0 us, "
               "where its curve starts; below one wakeup is the floor") +
      fmt::format(
          "set logscale xy\nset xlabel 'latency (us)' offset 0,0.5\n"
          "set ylabel 'fraction later than x'\nset xrange [{}:{}]\nset yrange [{}:1.5]\n"
          "set format y '%g'\nset format x '%g'\nplot ",
          x_left, x_right, floor / 1.6);
  const size_t n = curves.size();
  for (size_t i = 0; i < n; ++i) {
    const Ccdf& c = curves[i].ccdf;
    const std::string key =
        fmt::format("{} ({}% at 0 us{})", spec.variants[curves[i].variant].label,
                    short_number(100 * c.zero_fraction), c.later_than.empty() ? ": all" : "");
    script += fmt::format("{}{} index {} using 1:2 with steps lw {} dt {} title {}",
                          i ? ", \\\n  " : "", gp_quote(name + ".dat"), i,
                          1.5 + 2.0 * static_cast<double>(n - 1 - i), i + 1, gp_quote(key));
  }
  w.plot(name, data, script + "\n");
}

double share_pct(const RunRecord& r, size_t t) {
  if (t >= r.tasks.size()) return std::nan("");
  return 100.0 * static_cast<double>(r.tasks[t].runtime_ns) /
         static_cast<double>(std::max<int64_t>(r.end_ns, 1));
}

// Per row: clustered bars of each task's CPU share per variant — every task, or the tasks the
// variants change most and one bar for the mean of the others — on a value axis that starts at
// 0 only when the differences are a good part of the shares; the title says which.
void cpu_share(const RunResults& res, size_t row, const PlotOptions& options, Writer& w) {
  const GridSpec& spec = res.spec;
  std::vector<const RunRecord*> firsts;
  for (const RunRecord& run : res.runs)
    if (run.row == row && run.rep == 0) firsts.push_back(&run);
  std::vector<std::vector<double>> shares;
  size_t ntasks = 0;
  for (const RunRecord* r : firsts) {
    shares.emplace_back();
    for (size_t t = 0; t < r->tasks.size(); ++t) shares.back().push_back(share_pct(*r, t));
    ntasks = std::max(ntasks, r->tasks.size());
  }
  const ShareSelection pick = select_share_tasks(shares, options.share_tasks);
  const auto task_name = [&](size_t t) {
    for (const RunRecord* r : firsts)
      if (t < r->tasks.size()) return r->tasks[t].name;
    return std::string("?");
  };

  std::string data = "task";
  for (const RunRecord* r : firsts) data += ' ' + gp_quote(spec.variants[r->variant].label);
  data += "\n";
  std::vector<double> drawn;
  for (const size_t t : pick.named) {
    data += gp_quote(task_name(t));
    for (const auto& v : shares) {
      const double x = t < v.size() ? v[t] : std::nan("");
      data += std::isnan(x) ? std::string(" NaN") : fmt::format(" {:.6g}", x);
      drawn.push_back(x);
    }
    data += "\n";
  }
  if (!pick.others.empty()) {
    data += gp_quote(fmt::format("others ({}, mean)", pick.others.size()));
    for (const auto& v : shares) {
      double sum = 0;
      size_t n = 0;
      for (const size_t t : pick.others)
        if (t < v.size() && !std::isnan(v[t])) sum += v[t], ++n;
      const double mean = n ? sum / static_cast<double>(n) : std::nan("");
      data += std::isnan(mean) ? std::string(" NaN") : fmt::format(" {:.6g}", mean);
      drawn.push_back(mean);
    }
    data += "\n";
  }

  const AxisRange axis = value_axis(drawn);
  std::string what = fmt::format("every task ({})", ntasks);
  if (pick.rank != ShareSelection::Rank::Every)
    what = fmt::format(
        "the {} of {} tasks {}, and the mean of the other {}", pick.named.size(), ntasks,
        pick.rank == ShareSelection::Rank::ByChange
            ? "whose share the variants change most"
            : (firsts.size() > 1 ? "farthest from the mean share (no variant changes any)"
                                 : "farthest from the mean share"),
        pick.others.size());
  const std::string axis_note =
      axis.from_zero ? "" : fmt::format("; y axis from {:.4g} %, not 0", axis.lo);
  const std::string name = "cpu-share-" + file_part(spec.rows[row].label);
  std::string script = preamble(name,
                                fmt::format("CPU share (% of one CPU), {} {}, first repetition",
                                            spec.base.workload, spec.rows[row].label),
                                what + axis_note) +
                       "set style data histograms\nset style histogram clustered gap 1\n"
                       "set style fill solid 0.8 border -1\nset ylabel 'CPU share (%)'\n" +
                       fmt::format("set yrange [{}:{}]\n", axis.lo, axis.hi) +
                       "set xtics rotate by -45\nplot ";
  for (size_t i = 0; i < firsts.size(); ++i)
    script += fmt::format("{}{} using {}:xtic(1) title columnhead", i ? ", \\\n  " : "",
                          gp_quote(name + ".dat"), i + 2);
  w.plot(name, data, script + "\n");
}

// Per variant, first row: the lag over time. Up to options.lag_every_task_up_to tasks, every one
// is a line; beyond, a grey band spans all tasks' lag per time bucket and the lag_lines tasks
// with the largest |lag| are lines over it. The bound ±(r + TICK) is drawn when it is on the scale
// of the lag (within 4×), else the title gives it.
void lag_plot(const RunResults& res, size_t variant, const PlotOptions& options, Writer& w,
              PlotFiles& files) {
  const GridSpec& spec = res.spec;
  const RunRecord* first = nullptr;
  for (const RunRecord& run : res.runs)
    if (run.row == 0 && run.variant == variant && run.rep == 0) first = &run;
  const std::string name =
      "lag-" + file_part(spec.rows[0].label) + "-" + file_part(spec.variants[variant].label);
  if (!first || !first->lag) {
    files.notes.push_back(name + ": the grid sampled no lag (lag_points = 0)");
    return;
  }
  const LagSeries& lag = *first->lag;
  if (lag.by_task.empty()) {
    files.notes.push_back(name + ": the trace carried no lag");
    return;
  }
  const auto title_of = [&](int64_t id) {
    const auto index = static_cast<size_t>(id - 1);
    return index < first->tasks.size() ? first->tasks[index].name : "task " + std::to_string(id);
  };
  const size_t ntasks = lag.by_task.size();
  const bool band = ntasks > options.lag_every_task_up_to;
  const std::vector<int64_t> lines =
      largest_lag_tasks(lag, band ? options.lag_lines : options.lag_every_task_up_to);

  // index 0: the band (time s, least and largest lag ms); then one index per task, all of them.
  std::string data = "# every task's least and largest lag per time bucket: time (s), ms, ms\n";
  for (const LagBand& b : lag_band(lag, first->end_ns, 150))
    data += fmt::format("{} {} {}\n", b.t_ns / 1e9, b.lo_ns / 1e6, b.hi_ns / 1e6);
  data += "\n\n";
  std::map<int64_t, size_t> index_of;
  for (const auto& [id, points] : lag.by_task) {
    index_of[id] = index_of.size() + 1;
    data += "# " + title_of(id) + ": time (s), lag (ms)\n";
    for (const LagPoint& p : points) data += fmt::format("{} {}\n", p.t_ns / 1e9, p.lag_ns / 1e6);
    data += "\n\n";
  }

  const double bound_ms = lag.bound_ns / 1e6;
  const double max_ms = lag.max_abs_lag_ns / 1e6;
  const bool bound_on_scale = bound_ms <= 4 * max_ms;
  const std::string what =
      band ? fmt::format(
                 "all {} tasks (grey band: least to largest lag), the {} of largest |lag| "
                 "as lines",
                 ntasks, lines.size())
           : fmt::format("every task ({})", ntasks);
  const std::string bound_note = bound_on_scale
                                     ? fmt::format("bound ±{:.3f} ms", bound_ms)
                                     : fmt::format("bound ±{:.3f} ms, off this scale", bound_ms);
  const double y = (bound_on_scale ? std::max(bound_ms, max_ms) : max_ms) * 1.15;
  std::string script =
      preamble(name,
               fmt::format("lag over time, {} {} {} (max |lag| {:.3f} ms, {})", spec.base.workload,
                           spec.rows[0].label, spec.variants[variant].label, max_ms, bound_note),
               what) +
      fmt::format(
          "set key outside right top vertical\nset xlabel 'time (s)'\n"
          "set ylabel 'lag (ms of service)'\nbound = {}\n"
          "set yrange [{}:{}]\nplot ",
          bound_ms, -y, y);
  std::vector<std::string> parts;
  if (band)
    parts.push_back(
        fmt::format("{} index 0 using 1:2:3 with filledcurves fc rgb '#c8c8c8' "
                    "title 'all {} tasks'",
                    gp_quote(name + ".dat"), ntasks));
  for (const int64_t id : lines)
    parts.push_back(fmt::format("{} index {} using 1:2 with lines lw 1.5 title {}",
                                gp_quote(name + ".dat"), index_of.at(id), gp_quote(title_of(id))));
  if (bound_on_scale) {
    parts.emplace_back(
        "bound with lines lc rgb 'red' dt 2 lw 2 title '+(r + TICK), THM-LAG-BOUND-LINUX'");
    parts.emplace_back("-bound with lines lc rgb 'red' dt 2 lw 2 title '-(r + TICK)'");
  }
  for (size_t i = 0; i < parts.size(); ++i) script += (i ? ", \\\n  " : "") + parts[i];
  w.plot(name, data, script + "\n");
}

}  // namespace

bool gnuplot_available(const std::string& program) {
  return std::system((program + " --version >/dev/null 2>&1").c_str()) == 0;
}

PlotFiles write_plots(const RunResults& results, const PlotOptions& options) {
  make_directory(options.dir, "--plot-dir");
  PlotFiles files;
  files.gnuplot_found = gnuplot_available(options.gnuplot);
  Writer w(options, files);
  for (size_t row = 0; row < results.spec.rows.size(); ++row) {
    latency_ccdf(results, row, w, files);
    cpu_share(results, row, options, w);
  }
  for (size_t v = 0; v < results.spec.variants.size(); ++v) lag_plot(results, v, options, w, files);
  return files;
}

}  // namespace vlag::compare
