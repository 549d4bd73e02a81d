#include "cli/kernel_worst_report.h"

#include <fmt/format.h>

#include "json/writer.h"

namespace vlag::cli {
namespace {

constexpr size_t kMeanwhileShown = 5;  // the text's; the JSON lists every one

std::string ms(int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }

std::string meanwhile_text(const kernel::WorstWakeup& w) {
  std::string s;
  int64_t rest_ns = 0;
  for (size_t i = 0; i < w.meanwhile.size(); ++i) {
    const auto& r = w.meanwhile[i];
    if (i >= kMeanwhileShown) {
      rest_ns += r.ns;
      continue;
    }
    s += fmt::format("{}{}:{}{} {} ms", s.empty() ? "" : ", ", r.comm, r.pid,
                     r.cpu == w.cpu ? std::string() : fmt::format(" on cpu{}", r.cpu), ms(r.ns));
  }
  if (w.meanwhile.size() > kMeanwhileShown)
    s += fmt::format(", {} more {} ms", w.meanwhile.size() - kMeanwhileShown, ms(rest_ns));
  if (w.unrecorded_ns > 0)
    s += fmt::format("{}unrecorded {} ms", s.empty() ? "" : ", ", ms(w.unrecorded_ns));
  return s.empty() ? "-" : s;
}

}  // namespace

std::string worst_wakeups_text(const std::vector<kernel::WorstWakeup>& worst, int64_t measured) {
  std::string s = fmt::format(
      "\nWorst wakeups ({} of {} measured; delay: woken to switched in; meanwhile: what ran on "
      "the CPU it was queued on, longest first):\n",
      worst.size(), measured);
  s += fmt::format("  {:>17} {:>7}  {:<24} {:>4} {:>10} {:>10}  {}\n", "woken at s", "line", "task",
                   "cpu", "delay ms", "run ms", "meanwhile");
  for (const auto& w : worst)
    s += fmt::format("  {:>17.9f} {:>7}  {:<24} {:>4} {:>10} {:>10}  {}\n",
                     static_cast<double>(w.woken_ns) / 1e9, w.line,
                     w.comm + ":" + std::to_string(w.pid), w.cpu, ms(w.delay_ns),
                     w.run_ns ? ms(*w.run_ns) : std::string("running"), meanwhile_text(w));
  return s;
}

std::string worst_wakeups_json(const std::vector<kernel::WorstWakeup>& worst, int64_t measured) {
  json::Array wakeups;
  for (const auto& w : worst) {
    json::Array meanwhile;
    for (const auto& r : w.meanwhile)
      meanwhile.add(
          json::Object().num("pid", r.pid).str("comm", r.comm).num("cpu", r.cpu).num("ns", r.ns));
    json::Object o;  // who and where, then when
    o.num("pid", w.pid).str("comm", w.comm).num("cpu", w.cpu).num("line", w.line);
    o.num("woken_ns", w.woken_ns).num("switched_in_ns", w.switched_in_ns);
    o.num("delay_ns", w.delay_ns);
    if (w.run_ns)
      o.num("run_ns", *w.run_ns);
    else
      o.null("run_ns");
    o.array("meanwhile", meanwhile).num("unrecorded_ns", w.unrecorded_ns);
    wakeups.add(o);
  }
  return json::Object().num("measured", measured).array("wakeups", wakeups).text();
}

}  // namespace vlag::cli
