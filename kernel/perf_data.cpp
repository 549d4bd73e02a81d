#include "kernel/perf_data.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "kernel/command_output.h"
#include "kernel/perf_data_layout.h"
#include "kernel/perf_data_reader.h"
#include "kernel/time_merge.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

using perf_layout::kMagic;
using perf_layout::kMagicSwapped;

// The head of perf.data's file header (tools/perf/util/header.h): sections are {offset, size}.
struct Section {
  uint64_t offset, size;
};
struct FileHeader {
  char magic[8];
  uint64_t size;  // of this header: 104; 16 for the header of perf's pipe format
  uint64_t attr_size;
  Section attrs, data, event_types;
  uint64_t features[4];  // one bit per feature section stored after the data
};
static_assert(sizeof(FileHeader) == 104);

std::string bytes(uint64_t n) { return std::to_string(n) + " bytes"; }

// Refuses a file that ends before what its header says it holds, with what it lacks (perf itself
// would crash or say only "incompatible file format" on it).
void check_not_truncated(const std::string& path, const std::string& name) {
  std::error_code ec;
  const uint64_t end = std::filesystem::file_size(path, ec);
  if (ec) throw Error(name + ": cannot read its size: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  FileHeader h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  in.clear();
  if (std::string_view(h.magic, 8) != kMagic)
    return;  // the other byte order: the reader refuses it
  if (end < 16)
    throw Error(name + ": truncated perf.data: " + bytes(end) + ", less than its header");
  if (h.size != sizeof h) return;  // the pipe format: no sections to check
  if (end < sizeof h)
    throw Error(name + ": truncated perf.data: " + bytes(end) + ", less than its " +
                bytes(sizeof h) + " header");
  const uint64_t data_end = h.data.offset + h.data.size;
  if (data_end < h.data.offset || data_end > end)
    throw Error(name + ": truncated perf.data: its header puts " + bytes(h.data.size) +
                " of events at offset " + std::to_string(h.data.offset) + ", the file ends at " +
                std::to_string(end));
  uint64_t features = 0;
  for (const uint64_t word : h.features) features += std::popcount(word);
  if (data_end + features * sizeof(Section) > end)
    throw Error(name + ": truncated perf.data: it ends at " + std::to_string(end) +
                " inside the table of its " + std::to_string(features) +
                " header sections after the events");
  in.seekg(static_cast<std::streamoff>(data_end));
  for (uint64_t i = 0; i < features; ++i) {
    Section s{};
    in.read(reinterpret_cast<char*>(&s), sizeof s);
    if (s.offset + s.size < s.offset || s.offset + s.size > end)
      throw Error(name + ": truncated perf.data: header section " + std::to_string(i + 1) + " of " +
                  std::to_string(features) + " reaches offset " +
                  std::to_string(s.offset + s.size) + ", the file ends at " + std::to_string(end));
  }
}

// The file's bytes, mapped rather than read: the reader walks them once, in place. Only a window
// of them is in memory at a time — the pages from the earliest record still held for sorting to
// a little ahead of the reader — so a check's memory is flat in the file's length.
class MappedFile {
 public:
  MappedFile(const std::string& path, const std::string& name) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(name + ": cannot open: " + std::strerror(errno));
    const off_t end = lseek(fd, 0, SEEK_END);
    size_ = end > 0 ? static_cast<size_t>(end) : 0;
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        const int err = errno;
        close(fd);
        throw Error(name + ": cannot map it: " + std::strerror(err));
      }
      data_ = static_cast<char*>(p);
      madvise(data_, size_, MADV_SEQUENTIAL);
    }
    close(fd);
  }
  ~MappedFile() {
    if (data_) munmap(data_, size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {data_, size_}; }

  /// No byte before needed_from is read again; the reader is at reading_at. The pages behind are
  /// dropped (a read-only private mapping: touched again, a page comes back from the file), the
  /// ones ahead mapped in a block at a time, since faulting them in one by one costs more than
  /// the walk over them. Both are hints: where the kernel refuses one, the pages fault as usual.
  void advance(uint64_t needed_from, uint64_t reading_at) {
    const uint64_t behind = needed_from / kPage * kPage;
    if (behind >= dropped_ + kBlock) {
      madvise(data_ + dropped_, behind - dropped_, MADV_DONTNEED);
      dropped_ = behind;
    }
    if (reading_at + kBlock / 2 > populated_ && populated_ < size_) {
      const uint64_t from = std::max(populated_, reading_at / kPage * kPage);
      const uint64_t to = std::min<uint64_t>(size_, from + kBlock);
      if (madvise(data_ + from, to - from, MADV_POPULATE_READ) != 0)
        madvise(data_ + from, to - from, MADV_WILLNEED);
      populated_ = to;
    }
  }

 private:
  static constexpr uint64_t kPage = 4096;
  // What is mapped in, or dropped, at once: 8 MB cost more memory and was no faster.
  static constexpr uint64_t kBlock = 2 << 20;
  char* data_ = nullptr;
  size_t size_ = 0;
  uint64_t dropped_ = 0, populated_ = 0;
};

// What vlag does not decode itself (perf_data_needs_perf_script) is left to perf script, read as
// its text: the one use of perf at check time.
PerfParseStats read_through_perf_script(const std::string& path, const std::string& name,
                                        const std::string& why,
                                        const std::function<void(KernelEvent&)>& sink,
                                        const PerfParseOptions& options) {
  std::unique_ptr<CommandOutput> perf;
  try {
    perf = std::make_unique<CommandOutput>(perf_script_command(path));
  } catch (const Error& e) {
    throw Error(name + ": a perf.data with " + why +
                ", which vlag reads through perf script, but " + e.what() +
                " (Debian package linux-perf)");
  }
  return parse_child_output(*perf, name, sink, options, [&](const CommandOutput& p) {
    const std::string last = p.last_error_line();
    return name + ": perf script failed (" + p.how_it_ended() + ")" +
           (last.empty() ? std::string() : ": " + last);
  });
}

}  // namespace

bool is_perf_data(std::string_view head) {
  return head.substr(0, kMagic.size()) == kMagic || head.substr(0, kMagic.size()) == kMagicSwapped;
}

std::vector<std::string> perf_script_command(const std::string& path) {
  // The fields of scripts/capture-kernel; "trace:" applies them to tracepoints only, so perf does
  // not warn once per other event type that 'trace' does not apply to it.
  return {"perf", "script", "-i", path, "--ns", "-F", "trace:comm,pid,tid,cpu,time,event,trace"};
}

PerfParseStats read_perf_data(const std::string& path, const std::string& name,
                              const std::function<void(KernelEvent&)>& sink,
                              const PerfParseOptions& options, size_t merge_window) {
  check_not_truncated(path, name);
  MappedFile file(path, name);
  if (const auto why = perf_data_needs_perf_script(file.bytes())) {
    if (merge_window == 0) return read_through_perf_script(path, name, *why, sink, options);
    TimeMerger merge(merge_window, sink);
    const PerfParseStats stats = read_through_perf_script(
        path, name, *why, [&](KernelEvent& e) { merge.push(std::move(e)); }, options);
    merge.flush();
    return stats;
  }
  return read_perf_data_bytes(
      file.bytes(), name, sink, options,
      [&](uint64_t needed_from, uint64_t reading_at) { file.advance(needed_from, reading_at); },
      merge_window);
}

}  // namespace vlag::kernel
