#include "kernel/capture_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <streambuf>
#include <utility>

#include "kernel/perf_data.h"
#include "kernel/time_merge.h"
#include "kernel/trace_dat.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

constexpr size_t kHeadBytes = 16;  // enough for every magic

// A stream's first bytes, taken to tell its form, then the rest of it: the text parsers read the
// whole from the start, so a pipe (standard input, `<(perf script …)`) need not seek back.
class Rewound : public std::streambuf {
 public:
  explicit Rewound(std::streambuf* rest) : rest_(rest) {
    head_.resize(kHeadBytes);
    head_.resize(static_cast<size_t>(rest_->sgetn(head_.data(), kHeadBytes)));
    setg(head_.data(), head_.data(), head_.data() + head_.size());
  }
  const std::string& head() const { return head_; }

 protected:
  int_type underflow() override {
    const std::streamsize n = rest_->sgetn(buf_.data(), buf_.size());
    if (n <= 0) return traits_type::eof();
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  std::streambuf* rest_;
  std::string head_;
  std::array<char, 65536> buf_;
};

// FILE, or standard input for "-", opened with its first bytes read.
class Input {
 public:
  Input(const std::string& file, const char* what) : file_(file) {
    if (file == "-") {
      struct stat st {};
      seekable_ = fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
                  lseek(STDIN_FILENO, 0, SEEK_CUR) == 0;
      buf_.emplace(std::cin.rdbuf());
    } else {
      std::error_code ec;
      if (std::filesystem::is_directory(file, ec))
        throw Error(file + ": is a directory, not " + std::string(what));
      in_.open(file, std::ios::binary);
      if (!in_) throw Error(file + ": cannot open");
      seekable_ = std::filesystem::is_regular_file(file, ec);
      buf_.emplace(in_.rdbuf());
    }
    stream_.rdbuf(&*buf_);
  }

  const std::string& head() const { return buf_->head(); }
  std::istream& stream() { return stream_; }
  std::string name() const { return capture_name(file_); }

  /// The path a program reading the file itself opens; throws when the bytes come through a
  /// pipe, which it could not seek (and whose head is read already).
  std::string path_for(const char* form) const {
    if (!seekable_)
      throw Error(name() + ": a " + form +
                  " through a pipe; give its file name (its reader needs to seek in it)");
    return file_ == "-" ? "/dev/stdin" : file_;
  }

 private:
  std::string file_;
  std::ifstream in_;
  std::optional<Rewound> buf_;
  std::istream stream_{nullptr};
  bool seekable_ = false;
};

}  // namespace

std::string capture_name(const std::string& file) { return file == "-" ? "<stdin>" : file; }

PerfParseStats read_perf_capture(const std::string& file,
                                 const std::function<void(const KernelEvent&)>& sink,
                                 const PerfParseOptions& options) {
  Input input(file, "a capture (perf script / trace-cmd text, perf.data, trace.dat)");
  if (is_perf_data(input.head()))  // its reader merges what it reads itself, at less cost
    return read_perf_data(input.path_for("perf.data"), input.name(), sink, options, kMergeWindow);
  TimeMerger merge(kMergeWindow, sink);
  const std::function<void(KernelEvent&)> push = [&](KernelEvent& e) { merge.push(std::move(e)); };
  PerfParseStats stats;
  if (is_trace_dat(input.head()))
    stats = read_trace_dat(input.path_for("trace.dat"), input.name(), push, options);
  else
    stats = parse_perf_script(input.stream(), input.name(), push, options);
  merge.flush();
  return stats;
}

SchedDebugSnapshot load_snapshot(const std::string& file, const SchedDebugOptions& options) {
  Input input(file, "a sched debug snapshot");
  for (const auto& [form, is] :
       {std::pair{"perf.data", &is_perf_data}, {"trace.dat", &is_trace_dat}})
    if (is(input.head()))
      throw Error(input.name() + ": a " + form +
                  ", not a sched debug snapshot (it is a trace: give it to vlag kernel check)");
  return parse_sched_debug(input.stream(), input.name(), options);
}

}  // namespace vlag::kernel
