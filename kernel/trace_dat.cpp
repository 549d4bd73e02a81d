// The trace.dat reader on libtracecmd (kernel/trace_dat.h).
//
// trace-cmd.h includes tracefs.h, which libtracefs 1.6 (Debian 12) writes in C that is not C++
// (an int passed as an enum); reading a file needs none of it, so its include guard is set first,
// and <sched.h>, which it would have brought, included for cpu_set_t.
#include <sched.h>
#define _TRACE_FS_H
#include <trace-cmd.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "kernel/command_output.h"
#include "kernel/trace_dat.h"

namespace vlag::kernel {
namespace {

struct Printer {
  tep_handle* tep;
  FILE* out;
  trace_seq seq;
};

// One record as `trace-cmd report -t -N` prints it. The task in the header is the one running
// (common_pid, with the name trace-cmd saved for it); the info is the event's own print format.
int print_record(tracecmd_input*, tep_record* r, int, void* data) {
  auto* p = static_cast<Printer*>(data);
  if (r->missed_events > 0)
    std::fprintf(p->out, "CPU:%d [%lld EVENTS DROPPED]\n", r->cpu, r->missed_events);
  else if (r->missed_events < 0)
    std::fprintf(p->out, "CPU:%d [EVENTS DROPPED]\n", r->cpu);
  const int pid = tep_data_pid(p->tep, r);
  const char* comm = tep_data_comm_from_pid(p->tep, pid);
  const tep_event* ev = tep_find_event_by_record(p->tep, r);
  std::fprintf(p->out, "%16s-%-7d [%03d] %llu.%09llu: ", comm ? comm : "<...>", pid, r->cpu,
               r->ts / 1'000'000'000ULL, r->ts % 1'000'000'000ULL);
  if (!ev) {
    std::fprintf(p->out, "unknown-event-%d:\n", tep_data_type(p->tep, r));
    return 0;
  }
  trace_seq_reset(&p->seq);
  tep_print_event(p->tep, &p->seq, r, "%s", TEP_PRINT_INFO);
  trace_seq_terminate(&p->seq);
  for (unsigned i = 0; i < p->seq.len; ++i)  // one line per record, whatever a format prints
    if (p->seq.buffer[i] == '\n') p->seq.buffer[i] = ' ';
  std::fprintf(p->out, "%s: %.*s\n", ev->name, static_cast<int>(p->seq.len), p->seq.buffer);
  return 0;
}

// The child's work: the whole file as text on `out_fd`; a failure to open it said on `err_fd`.
int print_trace_dat(const std::string& path, int out_fd, int err_fd) {
  tracecmd_set_loglevel(TEP_LOG_NONE);
  tep_set_loglevel(TEP_LOG_NONE);
  tracecmd_input* handle = tracecmd_open(path.c_str(), TRACECMD_FL_LOAD_NO_PLUGINS);
  if (!handle) {
    dprintf(err_fd,
            "libtracecmd cannot open it: truncated, corrupt, or of a trace.dat version it does "
            "not know\n");
    return 1;
  }
  FILE* out = fdopen(out_fd, "w");
  if (!out) return 1;
  Printer p{tracecmd_get_tep(handle), out, {}};
  trace_seq_init(&p.seq);
  std::fprintf(out, "cpus=%d\n", tep_get_cpus(p.tep));
  const int rc = tracecmd_iterate_events(handle, nullptr, 0, print_record, &p);
  trace_seq_destroy(&p.seq);
  tracecmd_close(handle);
  if (std::fclose(out) != 0) return 1;
  if (rc < 0) {
    dprintf(err_fd, "libtracecmd failed reading its records\n");
    return 1;
  }
  return 0;
}

}  // namespace

bool trace_dat_supported() { return true; }

PerfParseStats read_trace_dat(const std::string& path, const std::string& name,
                              const std::function<void(KernelEvent&)>& sink,
                              const PerfParseOptions& options) {
  CommandOutput child([&](int out, int err) { return print_trace_dat(path, out, err); });
  return parse_child_output(child, name, sink, options, [&](const CommandOutput& c) {
    if (c.killed())
      return name + ": libtracecmd died reading it (" + c.how_it_ended() + "): a corrupt trace.dat";
    const std::string last = c.last_error_line();
    return name + ": " + (last.empty() ? "reading it failed (" + c.how_it_ended() + ")" : last);
  });
}

}  // namespace vlag::kernel
