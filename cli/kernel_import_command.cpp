// `vlag kernel import FILE|-`: one CPU's fair-class events of a perf script text as a
// spec/TRACE.md trace, for `vlag check`, with the machine's CPU count and base slice in its
// header and the mark of a kernel reconstruction.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/kernel_commands.h"
#include "kernel/capture_reader.h"
#include "kernel/import.h"
#include "spec/error.h"

namespace vlag::cli {

int run_kernel_import(const ImportOptions& o) {
  return with_filesystem_errors("vlag kernel import", [&] {
    kernel::KernelImportOptions io;
    io.cpu = o.cpu;
    io.hz = o.hz;
    bool skipped = false;
    for (const auto& s : o.snapshots) {
      const auto snap = kernel::load_snapshot(s, {o.keep_going});
      skipped = skipped || snap.skipped > 0;
      kernel::learn_from_snapshot(snap, io);
    }
    const bool to_file = !o.out.empty() && o.out != "-";
    if (o.json && !to_file)
      throw Error("--json prints the summary on standard output: give -o FILE for the trace");
    if (to_file && std::filesystem::is_directory(o.out))
      throw Error(o.out + ": is a directory; -o names the trace file to write");
    kernel::KernelImporter importer(io, kernel::capture_name(o.file));
    const auto stats = kernel::read_perf_capture(
        o.file, [&](const kernel::KernelEvent& e) { importer.on_event(e); }, {o.keep_going});
    if (stats.cpus) importer.note_machine_cpus(*stats.cpus, "trace-cmd's cpus= line");
    skipped = skipped || stats.skipped > 0;
    std::ofstream file;
    if (to_file) {
      file.open(o.out);
      if (!file) throw Error(o.out + ": cannot write");
    }
    std::ostream& out = to_file ? file : std::cout;
    const std::string how = importer.finish(out);
    out.flush();
    if (!out) throw Error((to_file ? o.out : std::string("standard output")) + ": write failed");
    const int code = skipped ? 2 : 0;
    if (o.json) {
      // An import judges nothing: no verdict, no finding; what it wrote and how it found the
      // header.
      std::cout << Envelope("kernel import")
                       .object(code)
                       .str("capture", kernel::capture_name(o.file))
                       .str("trace", o.out)
                       .num("cpu", o.cpu)
                       .num("kernel_events", stats.events)
                       .num("trace_events", importer.written())
                       .str("header", how)
                       .num("skipped_lines", stats.skipped)
                       .text()
                << "\n";
      return code;
    }
    std::cerr << "vlag kernel import: " << stats.events << " kernel events, " << importer.written()
              << " trace events for cpu " << o.cpu << "; header: " << how;
    if (stats.skipped) std::cerr << "; " << stats.skipped << " malformed lines skipped";
    std::cerr << "\n";
    return code;
  });
}

}  // namespace vlag::cli
