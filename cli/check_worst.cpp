#include "cli/check_worst.h"

#include <fmt/format.h>

#include "cli/kernel_worst_report.h"
#include "json/writer.h"
#include "kernel/model_tracepoints.h"
#include "kernel/worst_wakeups.h"
#include "trace/reader.h"

namespace vlag::cli {
namespace {

struct Worst {
  std::vector<kernel::WorstWakeup> wakeups;
  int64_t measured = 0;
};

Worst worst_of(const checker::Source& source, size_t n) {
  kernel::WorstWakeups worst(n);
  kernel::ModelTracepoints tracepoints([&](const kernel::KernelEvent& k) { worst.on_event(k); },
                                       [&](int64_t pid) { worst.forget(pid); });
  const auto in = source.open();
  trace::Reader reader(*in, source.name);
  for (;;) {
    const trace::Event* e = nullptr;
    try {
      if (!(e = reader.next_event())) break;
    } catch (const trace::InputError&) {
      continue;  // a faulty line: the check has reported it (--keep-going), and it shows nothing
    }
    tracepoints.on_event(*e, static_cast<int>(reader.line()));
  }
  Worst out;
  out.wakeups = worst.finish();
  out.measured = worst.measured();
  return out;
}

}  // namespace

std::string model_worst_text(const std::vector<checker::Source>& sources, size_t n) {
  std::string s;
  for (const checker::Source& source : sources) {
    const Worst w = worst_of(source, n);
    s += fmt::format("\n{}:", source.name) + worst_wakeups_text(w.wakeups, w.measured);
  }
  return s;
}

std::string model_worst_json(const std::vector<checker::Source>& sources, size_t n) {
  json::Array all;
  for (const checker::Source& source : sources) {
    const Worst w = worst_of(source, n);
    json::Object o;
    o.str("file", source.name).append_json(worst_wakeups_json(w.wakeups, w.measured));
    all.add(o);
  }
  return all.text();
}

}  // namespace vlag::cli
