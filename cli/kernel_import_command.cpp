// `vlag kernel import FILE|-`: one CPU's fair-class events of a perf script text as a
// spec/TRACE.md trace, for `vlag check`.
#include <fstream>
#include <iostream>

#include "cli/kernel_commands.h"
#include "kernel/capture_reader.h"
#include "kernel/import.h"
#include "spec/error.h"
#include "trace/writer.h"

namespace vlag::cli {

// perf script text of one CPU → spec/TRACE.md, for `vlag check`.
int run_kernel_import(const ImportOptions& o) {
  kernel::KernelImportOptions io;
  io.cpu = o.cpu;
  io.hz = o.hz;
  for (const auto& s : o.snapshots) kernel::learn_from_snapshot(kernel::load_snapshot(s), io);
  std::ofstream file;
  if (!o.out.empty() && o.out != "-") {
    file.open(o.out);
    if (!file) throw Error(o.out + ": cannot write");
  }
  std::ostream& out = file.is_open() ? file : std::cout;
  trace::Writer writer(out);
  kernel::KernelImporter importer(writer, io, o.file);
  const auto stats = kernel::read_perf_capture(
      o.file, [&](const kernel::KernelEvent& e) { importer.on_event(e); }, {o.keep_going});
  std::cerr << "vlag kernel import: " << stats.events << " kernel events, " << importer.written()
            << " trace events for cpu " << o.cpu;
  if (stats.skipped) std::cerr << ", " << stats.skipped << " malformed lines skipped";
  std::cerr << "\n";
  return 0;
}

}  // namespace vlag::cli
