// The numbers of perf.data's on-disk layout that kernel/perf_data_reader.cpp reads: the file
// header, the record types and the sample_type / read_format bits (Linux's
// include/uapi/linux/perf_event.h and tools/perf/Documentation/perf.data-file-format.txt), and
// a bounds-checked cursor over the file's bytes, which are of this machine's byte order (a file
// of the other is refused before any of it is read).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace vlag::kernel::perf_layout {

constexpr std::string_view kMagic = "PERFILE2";
constexpr std::string_view kMagicSwapped = "2ELIFREP";  // the u64 magic in the other byte order

constexpr uint64_t kFileHeaderSize = 104;  // magic, size, attr_size, 3 sections, feature bits
constexpr uint64_t kPipeHeaderSize = 16;   // magic, size: the pipe format
constexpr uint64_t kAttrsAt = 24, kDataAt = 40, kFeaturesAt = 72;
constexpr uint64_t kSectionSize = 16;  // {offset, size}

// Feature bits (tools/perf/util/header.h): the sections stored after the events, one per bit set,
// in the order of the bits.
constexpr int kFeatureTracingData = 1;
constexpr int kFeatureCompressed = 27;

// perf_event_attr: the offsets of the words read.
constexpr uint64_t kAttrType = 0, kAttrConfig = 8, kAttrSampleType = 24, kAttrReadFormat = 32,
                   kAttrFlags = 40, kAttrMinSize = 48;
constexpr uint64_t kAttrFlagSampleIdAll = 1ull << 18;
constexpr uint32_t kAttrTypeTracepoint = 2;

enum RecordType : uint16_t {
  kRecordLost = 2,
  kRecordSample = 9,
  kRecordLostSamples = 13,
  kRecordHeaderAttr = 64,
  kRecordHeaderTracingData = 66,
  kRecordFinishedRound = 68,
  kRecordAuxtrace = 71,
  kRecordCompressed = 81,
  kRecordCompressed2 = 83,
};

constexpr uint64_t kRecordHeaderSize = 8;  // u32 type, u16 misc, u16 size

enum SampleBits : uint64_t {
  kSampleIp = 1u << 0,
  kSampleTid = 1u << 1,
  kSampleTime = 1u << 2,
  kSampleAddr = 1u << 3,
  kSampleRead = 1u << 4,
  kSampleCallchain = 1u << 5,
  kSampleId = 1u << 6,
  kSampleCpu = 1u << 7,
  kSamplePeriod = 1u << 8,
  kSampleStreamId = 1u << 9,
  kSampleRaw = 1u << 10,
  kSampleIdentifier = 1u << 16,
};

enum ReadFormatBits : uint64_t {
  kReadTimeEnabled = 1u << 0,
  kReadTimeRunning = 1u << 1,
  kReadId = 1u << 2,
  kReadGroup = 1u << 3,
  kReadLost = 1u << 4,
};

/// Reads fixed-size words from [at, end), false once one would run past end.
struct Cursor {
  const uint8_t* at;
  const uint8_t* end;

  size_t left() const { return static_cast<size_t>(end - at); }
  bool skip(uint64_t n) {
    if (n > left()) return false;
    at += n;
    return true;
  }
  template <typename T>
  bool read(T& out) {
    if (sizeof(T) > left()) return false;
    std::memcpy(&out, at, sizeof(T));
    at += sizeof(T);
    return true;
  }
};

/// The word of type T at byte `offset` of `bytes` (the caller has checked it fits).
template <typename T>
T word_at(std::string_view bytes, uint64_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

}  // namespace vlag::kernel::perf_layout
