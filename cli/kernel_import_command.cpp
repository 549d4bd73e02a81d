// `vlag kernel import FILE|-`: one CPU's fair-class events of a perf script text as a
// spec/TRACE.md trace, for `vlag check`.
#include <fstream>
#include <iostream>

#include "cli/kernel_commands.h"
#include "kernel/import.h"
#include "kernel/perf_script.h"
#include "kernel/service.h"
#include "kernel/time_merge.h"
#include "spec/error.h"
#include "trace/writer.h"

namespace vlag::cli {

// perf script text of one CPU → spec/TRACE.md, for `vlag check`.
int run_kernel_import(const ImportOptions& o) {
  kernel::KernelImportOptions io;
  io.cpu = o.cpu;
  io.hz = o.hz;
  for (const auto& s : o.snapshots) {
    kernel::KernelCheckOptions ko;
    kernel::learn_from_snapshot(load_snapshot(s), ko);
    io.slice_of.insert(ko.slice_of.begin(), ko.slice_of.end());
  }
  std::ofstream file;
  if (!o.out.empty() && o.out != "-") {
    file.open(o.out);
    if (!file) throw Error(o.out + ": cannot write");
  }
  std::ostream& out = file.is_open() ? file : std::cout;
  trace::Writer writer(out);
  kernel::KernelImporter importer(writer, io, o.file);
  kernel::TimeMerger merge(kMergeWindow,
                           [&](const kernel::KernelEvent& e) { importer.on_event(e); });
  const auto sink = [&](kernel::KernelEvent& e) { merge.push(std::move(e)); };
  kernel::PerfParseStats stats;
  if (o.file == "-") {
    stats = kernel::parse_perf_script(std::cin, "<stdin>", sink, {o.keep_going});
  } else {
    std::ifstream in(o.file);
    if (!in) throw Error(o.file + ": cannot open");
    stats = kernel::parse_perf_script(in, o.file, sink, {o.keep_going});
  }
  merge.flush();
  std::cerr << "vlag kernel import: " << stats.events << " kernel events, " << importer.written()
            << " trace events for cpu " << o.cpu;
  if (stats.skipped) std::cerr << ", " << stats.skipped << " malformed lines skipped";
  std::cerr << "\n";
  return 0;
}

}  // namespace vlag::cli
