#include "fuzz/op_decoder.h"

#include "spec/features.h"
#include "spec/weights.h"

namespace vlag::fuzz {
namespace {

Op op(ByteReader& in, TaskId ntasks) {
  const uint8_t kind = in.u8();
  const TaskId id = 1 + in.u8() % (ntasks + 2);  // ids beyond n are unknown or created later
  switch (kind % 16) {
    case 0:
    case 1:
    case 2:
      return {OpKind::Enqueue, id};
    case 3:
    case 4:
      return {OpKind::Dequeue, id, 0, 0, in.u8() % 4 != 0 ? kDequeueSleep : 0};
    case 5:
    case 6:
    case 7:
      return {OpKind::Pick};
    case 8:
    case 9:
      return {OpKind::Run, 0,
              in.u8() < 240 ? static_cast<int64_t>(in.u32() % 10'000'000)
                            : static_cast<int64_t>(in.u32())};
    case 10:
      return {OpKind::Tick};
    case 11:
      return {OpKind::Reweight, id,
              in.u8() < 250 ? read_weight(in) : static_cast<int64_t>(in.u32())};
    case 12:
      return {OpKind::SetSlice, id,
              in.u8() < 250 ? read_slice(in) : static_cast<int64_t>(in.u32())};
    case 13:
      return {OpKind::Yield};
    case 14:
      return {OpKind::WakeupPreempt, id};
    default: {
      const uint8_t which = in.u8() % 3;
      if (which == 0) return {OpKind::Exit, id};
      if (which == 1) return {OpKind::Detach, id};  // a migration out and back (round_trip.h)
      const int64_t w = read_weight(in);
      return {OpKind::Create, id, w, read_slice(in)};
    }
  }
}

}  // namespace

int64_t read_weight(ByteReader& in) {
  const uint8_t b = in.u8();
  if (b < 224) return nice_to_weight(b % 40 - 20);
  return kMinWeight + static_cast<int64_t>(in.u32() % (kMaxWeight - kMinWeight + 1));
}

int64_t read_slice(ByteReader& in) {
  switch (in.u8() % 3) {
    case 0:
      return 0;
    case 1:
      return kMinCustomSliceNs + static_cast<int64_t>(in.u16()) * 40;
    default:
      return kMinCustomSliceNs + in.u32() % (kMaxCustomSliceNs - kMinCustomSliceNs + 1);
  }
}

void read_preset(ByteReader& in, std::string& preset, std::string& features) {
  static const std::vector<std::string> presets = presets_of(PresetFamily::Linux);
  const uint8_t first = in.u8();
  preset = presets[first % presets.size()];
  features.clear();
  if (!(first & 0x80)) return;
  const Preset p = preset_by_name(preset);
  const uint32_t flips = in.u16();
  for (size_t i = 0; i < kFeatureCount; ++i) {
    if (!(flips >> i & 1)) continue;
    const auto f = static_cast<Feature>(i);
    features += (features.empty() ? "" : ",") + std::string(p.has(f) ? "-" : "") +
                std::string(feature_name(f));
  }
}

FuzzCase decode_case(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  FuzzCase c;
  read_preset(in, c.preset, c.features);
  const size_t ntasks = 1 + in.u8() % kMaxFuzzTasks;
  for (size_t i = 0; i < ntasks; ++i) {
    const int64_t w = read_weight(in);
    c.tasks.emplace_back(w, read_slice(in));
  }
  while (!in.done() && c.ops.size() < kMaxFuzzOps)
    c.ops.push_back(op(in, static_cast<TaskId>(ntasks)));
  return c;
}

Params case_params(const FuzzCase& c) { return preset_params(c.preset, c.features); }

Params preset_params(const std::string& preset, const std::string& features) {
  Preset p = preset_by_name(preset);
  apply_feature_overrides(p, features);
  return make_params(p);
}

}  // namespace vlag::fuzz
