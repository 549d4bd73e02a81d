// `vlag kernel check FILE|-`: a capture of the sched tracepoints (perf script / trace-cmd report
// text, perf.data, trace.dat) through the kernel service layer (SPEC.md §6.2), printed like perf
// sched latency, with the verdicts of §6.3 (cli/kernel_check_report.h), and with --worst N the
// N worst wakeups one by one (cli/kernel_worst_report.h).
#include <fmt/format.h>

#include "cli/kernel_check_report.h"
#include "cli/kernel_commands.h"
#include "cli/kernel_worst_report.h"
#include "json/writer.h"
#include "kernel/capture_reader.h"
#include "kernel/check_options.h"
#include "kernel/service.h"
#include "kernel/worst_wakeups.h"

namespace vlag::cli {

int run_kernel_check(const CheckOptions& o, const JsonPart* part) {
  return with_filesystem_errors("vlag kernel check", [&] {
    kernel::KernelCheckOptions ko;
    ko.hz = o.hz;
    ko.starvation_ns = static_cast<int64_t>(o.starvation_ms * 1e6);
    if (o.cpu >= 0) ko.only_cpu = o.cpu;
    bool skipped = false;
    for (const auto& s : o.snapshots) {
      const auto snap = kernel::load_snapshot(s, {o.keep_going});
      skipped = skipped || snap.skipped > 0;
      kernel::learn_from_snapshot(snap, ko);
    }
    if (!o.groups.empty()) kernel::read_group_map(o.groups, ko);
    Verdict worst = Verdict::NotApplicable;
    Envelope own("kernel check");
    json::Array own_files;
    const JsonPart json = part ? *part : JsonPart{own, own_files};
    for (const auto& file : o.files) {
      kernel::KernelServiceLayer layer(kernel::capture_name(file), ko);
      kernel::WorstWakeups wakeups(o.worst, ko.only_cpu);
      const auto stats = kernel::read_perf_capture(file,
                                                   [&](const kernel::KernelEvent& e) {
                                                     layer.on_event(e);
                                                     if (o.worst) wakeups.on_event(e);
                                                   },
                                                   {o.keep_going});
      if (stats.cpus) layer.note_machine_cpus(*stats.cpus);
      const auto report = layer.finish();
      const auto worst_ones = wakeups.finish();
      worst = join(worst, report.worst);
      skipped = skipped || stats.skipped > 0;
      if (o.json) {
        add_to_envelope(report, json.envelope);
        json.files.add_raw(o.worst ? kernel_json(report, stats, "worst_wakeups",
                                                 worst_wakeups_json(worst_ones, wakeups.measured()))
                                   : kernel_json(report, stats));
      } else {
        print_kernel_text(report, stats, o.hz_given,
                          o.worst ? worst_wakeups_text(worst_ones, wakeups.measured()) : "");
      }
    }
    const int code = skipped ? 2 : verdict_exit_code(worst, o.strict);
    if (o.json && !part) fmt::print("{}\n", own.object(code).array("files", own_files).text());
    return code;
  });
}

}  // namespace vlag::cli
