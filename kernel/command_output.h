// A program — or a function run in a child process — whose standard output is read as a stream
// while it is written, no temporary file between: how kernel/perf_data.h reads `perf script` (for
// the compressed records it does not decode itself), and
// kernel/trace_dat.h libtracecmd's reading of a trace.dat (in a child, so that a corrupt file
// that crashes the library ends the child, not vlag). Its standard error is read alongside (so
// neither pipe fills and stalls it) and its last line kept for the message when it fails. And
// the one way such output is parsed: as capture text (kernel/perf_script.h), the program's
// failure taking precedence over the parser's, since it explains it. And a call whose result is
// read whole from such a child.
#pragma once

#include <sys/types.h>

#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "kernel/events.h"
#include "kernel/perf_script.h"

namespace vlag::kernel {

class CommandOutput {
 public:
  /// Starts argv[0], found on PATH. Throws vlag::Error "cannot run PROGRAM: REASON" (REASON
  /// "not found on PATH" when it is not there).
  explicit CommandOutput(const std::vector<std::string>& argv);
  /// Runs body(out, err) in a child process: it writes its output to the descriptor `out` and its
  /// messages to `err` (its standard error too), and returns its exit status.
  explicit CommandOutput(const std::function<int(int out, int err)>& body);
  /// Stops a child still running (its reader gave up early) and reaps it.
  ~CommandOutput();
  CommandOutput(const CommandOutput&) = delete;
  CommandOutput& operator=(const CommandOutput&) = delete;

  /// What the child writes to its standard output.
  std::istream& out() { return out_; }
  /// Reads the rest of its output and waits for its end; true when it exited with status 0.
  bool finish();
  /// Ends it without reading the rest (its reader gave up); true when it had already failed on
  /// its own, so that its failure, not the reader's, explains what went wrong.
  bool stop_failed();
  /// After finish(): how it ended, for a message ("exit 255", "killed by signal 11
  /// (Segmentation fault)").
  std::string how_it_ended() const { return ended_; }
  /// After finish(): whether a signal ended it.
  bool killed() const { return signal_ != 0; }
  /// The last line it wrote to standard error that was not blank ("" when none).
  std::string last_error_line() const;

 private:
  class Pipes;
  void make_pipes(int (&out)[2], int (&err)[2], const std::string& what);
  void reap();

  std::unique_ptr<Pipes> pipes_;
  std::istream out_;
  pid_t pid_ = -1;
  bool ok_ = false;
  int signal_ = 0;
  std::string ended_;
};

/// What a library call run in a child process (run_in_child) gave.
struct ChildResult {
  bool ok = false;     // it exited with status 0
  std::string how;     // how it ended, for a message
  std::string output;  // all it wrote to `out`
};

/// Runs body(out) in a child process, which writes what the parent needs to the descriptor `out`,
/// so that a library crashing on bad input ends the child, not vlag (the perf.data reader's
/// libtraceevent calls).
ChildResult run_in_child(const std::function<void(int out)>& body);

/// Parses what `child` prints as capture text named `name`, passing each event to sink. When the
/// child fails, failed(child) is thrown instead of whatever the parser made of its output; when
/// the parser gives up first, the child is stopped rather than read to its end.
PerfParseStats parse_child_output(CommandOutput& child, const std::string& name,
                                  const std::function<void(KernelEvent&)>& sink,
                                  const PerfParseOptions& options,
                                  const std::function<std::string(const CommandOutput&)>& failed);

}  // namespace vlag::kernel
