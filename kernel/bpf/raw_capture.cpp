#include "kernel/bpf/raw_capture.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include "kernel/bpf/state_decode.h"

namespace vlag::kernel::bpf {
namespace {

constexpr char kMagic[8] = {'V', 'L', 'A', 'G', 'B', 'P', 'F', '1'};
constexpr uint32_t kMaxRecord = 1 << 20;  // far above any record the program writes

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw CaptureError(CaptureErrorKind::System, path + ": " + what);
}

}  // namespace

RawWriter::RawWriter(const std::string& path)
    : path_(path), file_(std::fopen(path.c_str(), "wb"), fclose) {
  if (!file_) fail(path, std::string("cannot write: ") + strerror(errno));
  std::setvbuf(file_.get(), nullptr, _IOFBF, 1 << 20);
  if (std::fwrite(kMagic, 1, sizeof kMagic, file_.get()) != sizeof kMagic)
    fail(path, "write failed");
}

void RawWriter::write(const void* data, size_t size) {
  if (size == 0) return;
  const auto n = static_cast<uint32_t>(size);
  const unsigned char len[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                                static_cast<unsigned char>(n >> 16),
                                static_cast<unsigned char>(n >> 24)};
  if (std::fwrite(len, 1, 4, file_.get()) != 4 || std::fwrite(data, 1, size, file_.get()) != size)
    fail(path_, std::string("write failed: ") + strerror(errno));
}

void RawWriter::close() {
  if (file_ && std::fflush(file_.get()) != 0)
    fail(path_, std::string("write failed: ") + strerror(errno));
  file_.reset();
}

uint64_t read_raw_capture(const std::string& path,
                          const std::function<void(const StateRecord&)>& on_record) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), fclose);
  if (!f) fail(path, std::string("cannot read: ") + strerror(errno));
  char magic[sizeof kMagic];
  if (std::fread(magic, 1, sizeof magic, f.get()) != sizeof magic ||
      std::memcmp(magic, kMagic, sizeof magic) != 0)
    fail(path, "offset 0: not a raw state capture (no VLAGBPF1 magic)");
  RecordDecoder decoder;
  StateRecord record;
  std::vector<unsigned char> bytes;
  uint64_t offset = sizeof magic, records = 0;
  for (unsigned char len[4];;) {
    const size_t got = std::fread(len, 1, 4, f.get());
    if (got == 0) break;
    if (got != 4) fail(path, "offset " + std::to_string(offset) + ": the file ends inside a size");
    const uint32_t n = len[0] | len[1] << 8 | len[2] << 16 | static_cast<uint32_t>(len[3]) << 24;
    if (n == 0 || n > kMaxRecord)
      fail(path, "offset " + std::to_string(offset) + ": record size " + std::to_string(n));
    bytes.resize(n);
    if (std::fread(bytes.data(), 1, n, f.get()) != n)
      fail(path, "offset " + std::to_string(offset) + ": the file ends inside a record");
    try {
      if (decoder.decode(bytes.data(), n, record)) {
        ++records;
        on_record(record);
      }
    } catch (const CaptureError& e) {
      fail(path, "offset " + std::to_string(offset) + ": " + e.what());
    }
    offset += 4 + n;
  }
  if (!std::feof(f.get())) fail(path, std::string("read failed: ") + strerror(errno));
  return records;
}

}  // namespace vlag::kernel::bpf
