// Bytes → a preset, tasks and an operation sequence: the one decoder every fuzz target shares.
// Every byte string decodes to something (missing bytes read as 0), and the operations include
// invalid ones (unknown ids, bad weights and slices) on purpose: both runqueues must reject them
// alike. Times stay below 2^32 ns per step, inside the range Linux's u64 arithmetic is meant for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spec/features.h"
#include "spec/ops.h"

namespace vlag::fuzz {

struct FuzzCase {
  std::string preset;
  std::string features;  // flags switched on top of the preset (spec/features.h overrides)
  std::vector<std::pair<int64_t, int64_t>> tasks;  // weight, slice of tasks 1..n
  std::vector<Op> ops;
};

/// Reads bytes front to back; past the end every read is 0.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t u16() { return static_cast<uint32_t>(u8()) | static_cast<uint32_t>(u8()) << 8; }
  uint32_t u32() { return u16() | u16() << 16; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

inline constexpr size_t kMaxFuzzTasks = 16;
inline constexpr size_t kMaxFuzzOps = 4000;

/// Decodes a case over the Linux presets. The first byte picks the preset; with its high bit set
/// a 16-bit mask follows whose low bits flip the preset's feature flags, one bit per flag in
/// spec/features.h order, so that every combination a preset can take is reachable (inputs
/// whose first byte is below 128 decode as they always did).
FuzzCase decode_case(const uint8_t* data, size_t size);
/// The case's preset with its feature flags, as run parameters.
Params case_params(const FuzzCase& c);

// The reads decode_case is made of, for the other decoders (fuzz/hierarchy_decoder.h).
/// The preset byte and, with its high bit set, the feature flips (see decode_case).
void read_preset(ByteReader& in, std::string& preset, std::string& features);
/// Mostly a nice value's weight, sometimes any raw weight in [kMinWeight, kMaxWeight].
int64_t read_weight(ByteReader& in);
/// 0 (the base slice), a short custom slice, or anything in the custom range.
int64_t read_slice(ByteReader& in);
/// A preset with feature overrides, as run parameters.
Params preset_params(const std::string& preset, const std::string& features);

}  // namespace vlag::fuzz
