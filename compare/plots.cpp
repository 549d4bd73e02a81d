#include "compare/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "spec/error.h"

namespace vlag::compare {
namespace {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A gnuplot string literal: double quotes, with backslashes and quotes escaped.
std::string gp_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
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
// subscripts for the '_' in metric and setting names).
std::string preamble(const std::string& name, const std::string& title) {
  return fmt::format(
      "set terminal svg size 900,540 dynamic background rgb 'white'\n"
      "set output {}\nset termoption noenhanced\nset title {}\nset key outside right top\n"
      "set grid\n",
      gp_quote(name + ".svg"), gp_quote(title));
}

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

void latency_cdf(const RunResults& res, size_t row, Writer& w, PlotFiles& files) {
  const GridSpec& spec = res.spec;
  std::string data;
  std::vector<size_t> drawn;
  for (const RunRecord& run : res.runs) {
    if (run.row != row || run.rep != 0) continue;
    sim::LatencyHistogram all;
    for (const sim::TaskSummary& t : run.tasks) all.merge(t.latency);
    if (all.count() == 0) continue;
    data += fmt::format("# {}\n", spec.variants[run.variant].label);
    // The log x axis cannot show 0: a zero latency is drawn at 1 ns. The curve starts at
    // fraction 0 so that the first step is visible.
    const auto cdf = all.cdf();
    const auto x_us = [](int64_t ns) {
      return static_cast<double>(std::max<int64_t>(ns, 1)) / 1e3;
    };
    data += fmt::format("{} 0\n", x_us(cdf.front().first));
    for (const auto& [ns, frac] : cdf) data += fmt::format("{} {}\n", x_us(ns), frac);
    data += "\n\n";  // gnuplot: two blank lines end a data set (index)
    drawn.push_back(run.variant);
  }
  const std::string name = "latency-cdf-" + file_part(spec.rows[row].label);
  if (drawn.empty()) {
    files.notes.push_back(name + ": no wakeup latencies recorded (the tasks never slept)");
    return;
  }
  std::string script = preamble(name, "wakeup latency CDF, " + spec.base.workload + " " +
                                          spec.rows[row].label + ", first repetition") +
                       "set logscale x\nset xlabel 'latency (us)'\nset ylabel 'fraction <= x'\n"
                       "set yrange [0:1.02]\nplot ";
  for (size_t i = 0; i < drawn.size(); ++i)
    script += fmt::format("{}{} index {} using 1:2 with steps lw 2 title {}", i ? ", \\\n  " : "",
                          gp_quote(name + ".dat"), i, gp_quote(spec.variants[drawn[i]].label));
  w.plot(name, data, script + "\n");
}

void cpu_share(const RunResults& res, size_t row, Writer& w) {
  const GridSpec& spec = res.spec;
  std::vector<const RunRecord*> firsts;
  for (const RunRecord& run : res.runs)
    if (run.row == row && run.rep == 0) firsts.push_back(&run);
  size_t ntasks = 0;
  for (const RunRecord* r : firsts) ntasks = std::max(ntasks, r->tasks.size());
  std::string data = "task";
  for (const RunRecord* r : firsts) data += " " + gp_quote(spec.variants[r->variant].label);
  data += "\n";
  for (size_t t = 0; t < ntasks; ++t) {
    std::string name;
    std::string line;
    for (const RunRecord* r : firsts) {
      if (t >= r->tasks.size()) {
        line += " NaN";
        continue;
      }
      name = r->tasks[t].name;
      line += fmt::format(" {:.4f}", 100.0 * static_cast<double>(r->tasks[t].runtime_ns) /
                                         static_cast<double>(std::max<int64_t>(r->end_ns, 1)));
    }
    data += gp_quote(name) + line + "\n";
  }
  const std::string name = "cpu-share-" + file_part(spec.rows[row].label);
  std::string script =
      preamble(name, "CPU share per task (% of one CPU), " + spec.base.workload + " " +
                         spec.rows[row].label + ", first repetition") +
      "set style data histograms\nset style histogram clustered gap 1\n"
      "set style fill solid 0.8 border -1\nset ylabel 'CPU share (%)'\nset yrange [0:*]\n"
      "set xtics rotate by -45\nplot ";
  for (size_t i = 0; i < firsts.size(); ++i)
    script += fmt::format("{}{} using {}:xtic(1) title columnhead", i ? ", \\\n  " : "",
                          gp_quote(name + ".dat"), i + 2);
  w.plot(name, data, script + "\n");
}

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
  std::string data;
  std::vector<std::string> titles;
  for (const auto& [id, points] : lag.by_task) {
    const auto index = static_cast<size_t>(id - 1);
    titles.push_back(index < first->tasks.size() ? first->tasks[index].name
                                                 : "task " + std::to_string(id));
    data += "# " + titles.back() + ": time (s), lag (ms)\n";
    for (const LagPoint& p : points) data += fmt::format("{} {}\n", p.t_ns / 1e9, p.lag_ns / 1e6);
    data += "\n\n";
  }
  if (titles.empty()) {
    files.notes.push_back(name + ": the trace carried no lag");
    return;
  }
  const double bound_ms = lag.bound_ns / 1e6;
  std::string script =
      preamble(name,
               fmt::format("lag over time, {} {} {} (max |lag| {:.3f} ms, bound ±{:.3f} ms)",
                           spec.base.workload, spec.rows[0].label, spec.variants[variant].label,
                           lag.max_abs_lag_ns / 1e6, bound_ms)) +
      fmt::format("set xlabel 'time (s)'\nset ylabel 'lag (ms of service)'\nbound = {}\nplot ",
                  bound_ms);
  const size_t drawn = std::min(titles.size(), static_cast<size_t>(options.lag_tasks));
  for (size_t i = 0; i < drawn; ++i)
    script += fmt::format("{} index {} using 1:2 with lines title {}, \\\n  ",
                          gp_quote(name + ".dat"), i, gp_quote(titles[i]));
  script +=
      "bound with lines lc rgb 'red' dt 2 lw 2 title '+(r + TICK), THM-LAG-BOUND-LINUX', \\\n"
      "  -bound with lines lc rgb 'red' dt 2 lw 2 title '-(r + TICK)'\n";
  if (drawn < titles.size())
    files.notes.push_back(fmt::format("{}: {} of {} tasks drawn (all are in {}.dat)", name, drawn,
                                      titles.size(), name));
  w.plot(name, data, script);
}

}  // namespace

bool gnuplot_available(const std::string& program) {
  return std::system((program + " --version >/dev/null 2>&1").c_str()) == 0;
}

PlotFiles write_plots(const RunResults& results, const PlotOptions& options) {
  std::error_code ec;
  fs::create_directories(options.dir, ec);
  if (ec) throw Error("cannot create plot directory " + options.dir + ": " + ec.message());
  PlotFiles files;
  files.gnuplot_found = gnuplot_available(options.gnuplot);
  Writer w(options, files);
  for (size_t row = 0; row < results.spec.rows.size(); ++row) {
    latency_cdf(results, row, w, files);
    cpu_share(results, row, w);
  }
  for (size_t v = 0; v < results.spec.variants.size(); ++v) lag_plot(results, v, options, w, files);
  return files;
}

}  // namespace vlag::compare
