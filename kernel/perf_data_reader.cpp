#include "kernel/perf_data_reader.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "kernel/deferred_merge.h"
#include "kernel/inline_table.h"
#include "kernel/perf_data_layout.h"
#include "kernel/sorted_runs.h"
#include "kernel/text_fields.h"
#include "kernel/tracepoint_decoder.h"
#include "kernel/tracing_data.h"
#include "spec/error.h"

namespace vlag::kernel {
namespace {

using namespace perf_layout;

// The text parser's limits (kernel/perf_script.cpp).
constexpr int64_t kPidMax = 4'194'304;
constexpr int64_t kCpuMax = 8191;

struct Section {
  uint64_t offset = 0, size = 0;
};

// Where a sample's fields are when none before its raw data varies in length (no callchain, no
// group read): every sample is read twice (when held, when passed on), so each read takes them
// from their places instead of walking the sample type's bits. Offsets from the sample's body.
struct FixedLayout {
  int32_t tid = -1, time = -1, cpu = -1;  // -1: not recorded
  uint32_t raw_size = 0;                  // the u32 before the raw data
};

struct Attr {
  uint32_t type = 0;
  uint64_t config = 0, sample_type = 0, read_format = 0;
  bool sample_id_all = false;
  std::optional<FixedLayout> fixed;
  std::unique_ptr<TracepointDecoder> decoder;
};

// The fixed layout of samples of sample type st and read format rf, if they have one.
std::optional<FixedLayout> fixed_layout(uint64_t st, uint64_t rf) {
  if (!(st & kSampleRaw) || (st & kSampleCallchain) || ((st & kSampleRead) && (rf & kReadGroup)))
    return std::nullopt;
  FixedLayout f;
  int32_t at = 0;
  const auto field = [&](uint64_t bit, int32_t* where, int32_t size) {
    if (!(st & bit)) return;
    if (where) *where = at;
    at += size;
  };
  field(kSampleIdentifier, nullptr, 8);
  field(kSampleIp, nullptr, 8);
  field(kSampleTid, &f.tid, 8);
  field(kSampleTime, &f.time, 8);
  field(kSampleAddr, nullptr, 8);
  field(kSampleId, nullptr, 8);
  field(kSampleStreamId, nullptr, 8);
  field(kSampleCpu, &f.cpu, 8);
  field(kSamplePeriod, nullptr, 8);
  const int32_t times = 8 * (((rf & kReadTimeEnabled) != 0) + ((rf & kReadTimeRunning) != 0));
  const int32_t value = 8 * (1 + ((rf & kReadId) != 0) + ((rf & kReadLost) != 0));
  field(kSampleRead, nullptr, times + value);
  f.raw_size = static_cast<uint32_t>(at);
  return f;
}

// A sample or a loss as its record gives it.
struct Parsed {
  uint64_t time;
  uint32_t raw_at;  // PERF_SAMPLE_RAW's data, from the record's start
  uint32_t raw_size;
  uint32_t cpu;  // UINT32_MAX: not known (a loss without sample ids)
  int32_t pid, tid;
  uint32_t attr;  // kLoss for a loss
  uint64_t lost;
  const char* lost_record;
};
constexpr uint32_t kLoss = UINT32_MAX;

// A record held until perf script would print it: its time, and where it is (file order, which
// breaks ties of time as perf's queue does). Its fields are read again when it is passed on: a
// round of a busy capture holds a hundred thousand records, so a held one is kept small.
struct Held {
  uint64_t time;
  uint64_t at;
};

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

// The bytes after a record that belong to it: AUXTRACE's trace data, the pipe format's tracing
// data (padded to 8 bytes).
uint64_t bytes_after(std::string_view bytes, uint64_t at, uint32_t type, uint16_t size) {
  if (type == kRecordAuxtrace && size >= kRecordHeaderSize + 8)
    return word_at<uint64_t>(bytes, at + 8);
  if (type == kRecordHeaderTracingData && size >= kRecordHeaderSize + 4)
    return (word_at<uint32_t>(bytes, at + 8) + 7ull) & ~7ull;
  return 0;
}

using Progress = std::function<void(uint64_t needed_from, uint64_t reading_at)>;

// How often, in bytes of records read, the reader says how far it is: often enough that the
// pages brought in ahead of it stay few, seldom enough that the call costs nothing.
constexpr uint64_t kProgressStep = 1 << 20;

// Held records reserved for a round: a second of a busy machine's sched events.
constexpr size_t kHeldRoom = size_t{1} << 18;

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& name,
         const std::function<void(KernelEvent&)>& sink, const PerfParseOptions& options,
         const Progress& progress, size_t merge_window)
      : bytes_(bytes), name_(name), sink_(sink), options_(options), progress_(progress) {
    // A reader that skips bad samples makes each event as it reads it (deferred_merge.h).
    if (merge_window > 0)
      merge_.emplace(merge_window, !options_.keep_going, Make{this},
                     [this](KernelEvent& e) { sink_(e); });
  }

  PerfParseStats run() {
    read_header();
    if (!pipe_) {
      read_attrs();
      const auto tracing = feature(kFeatureTracingData);
      if (!tracing) no_tracing_data();
      set_tracing_data(bytes_.substr(tracing->offset, tracing->size));
      // As perf: samples are sorted only when the records carry their times (sample_id_all).
      ordered_ = attrs_list_.front().sample_id_all;
    }
    try {
      read_records();
      flush(UINT64_MAX);
    } catch (...) {
      if (merge_) merge_->drain();  // the samples read before the error come before it
      throw;
    }
    if (merge_) merge_->drain();  // each is counted as its event is made
    if (stats_.events == 0)
      throw Error(name_ + ": no sched events" +
                  (stats_.skipped
                       ? " (" + std::to_string(stats_.skipped) +
                             " malformed lines skipped; first: " + stats_.first_error + ")"
                       : std::string(" (its records hold no sched tracepoint sample)")));
    if (merge_) merge_->flush();
    return stats_;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(name_ + ": " + what); }
  [[noreturn]] void fail_record(uint64_t at, const std::string& what) const {
    fail("record at byte " + std::to_string(at) + ": " + what);
  }

  Section section_at(uint64_t at, const std::string& what) const {
    Section s{word_at<uint64_t>(bytes_, at), word_at<uint64_t>(bytes_, at + 8)};
    if (s.offset + s.size < s.offset || s.offset + s.size > bytes_.size())
      fail("truncated perf.data: its " + what + " (" + std::to_string(s.size) +
           " bytes at offset " + std::to_string(s.offset) + ") runs past its end at " +
           std::to_string(bytes_.size()));
    return s;
  }

  void read_header() {
    if (bytes_.size() < kPipeHeaderSize)
      fail("truncated perf.data: " + std::to_string(bytes_.size()) +
           " bytes, less than its header");
    const std::string_view magic = bytes_.substr(0, 8);
    if (magic == kMagicSwapped)
      fail(
          "a perf.data of the other byte order than this machine's; vlag reads it only on a "
          "machine of that order");
    if (magic != kMagic) fail("not a perf.data: its magic is not PERFILE2");
    const uint64_t size = word_at<uint64_t>(bytes_, 8);
    if (size == kPipeHeaderSize) {
      // The pipe format: the events from here to the end, the attrs and the tracing data among
      // them; perf sorts its samples whatever their attrs say.
      pipe_ = true;
      ordered_ = true;
      data_ = {kPipeHeaderSize, bytes_.size() - kPipeHeaderSize};
      return;
    }
    if (size != kFileHeaderSize)
      fail("its header says it is " + std::to_string(size) + " bytes, not " +
           std::to_string(kFileHeaderSize) + ": not a perf.data vlag knows");
    if (bytes_.size() < kFileHeaderSize)
      fail("truncated perf.data: " + std::to_string(bytes_.size()) + " bytes, less than its " +
           std::to_string(kFileHeaderSize) + " bytes header");
    attr_size_ = word_at<uint64_t>(bytes_, 16);
    attrs_ = section_at(kAttrsAt, "attrs section");
    data_ = section_at(kDataAt, "events section");
    for (int i = 0; i < 4; ++i) features_[i] = word_at<uint64_t>(bytes_, kFeaturesAt + 8 * i);
  }

  // The section of feature `bit`, or nullopt when its bit is not set.
  std::optional<Section> feature(int bit) const {
    if (!(features_[bit / 64] >> (bit % 64) & 1)) return std::nullopt;
    uint64_t index = 0;
    for (int b = 0; b < bit; ++b) index += features_[b / 64] >> (b % 64) & 1;
    const uint64_t at = data_.offset + data_.size + index * kSectionSize;
    if (at + kSectionSize > bytes_.size())
      fail(
          "truncated perf.data: it ends inside the table of its header sections after the "
          "events");
    return section_at(at, "header section " + std::to_string(index + 1));
  }

  void read_attrs() {
    if (attr_size_ < kAttrMinSize + kSectionSize || attr_size_ > 4096)
      fail("its attrs are " + std::to_string(attr_size_) + " bytes each, which no perf writes");
    if (attrs_.size == 0 || attrs_.size % attr_size_ != 0)
      fail("its attrs section of " + std::to_string(attrs_.size) + " bytes is no whole number of " +
           std::to_string(attr_size_) + "-byte attrs");
    for (uint64_t at = attrs_.offset; at < attrs_.offset + attrs_.size; at += attr_size_) {
      const Section ids = section_at(at + attr_size_ - kSectionSize,
                                     "ids of attr " + std::to_string(attrs_list_.size() + 1));
      add_attr(at, ids);
    }
  }

  // The attr at byte `at`, its ids the u64s of `ids`.
  void add_attr(uint64_t at, Section ids) {
    Attr a;
    a.type = word_at<uint32_t>(bytes_, at + kAttrType);
    a.config = word_at<uint64_t>(bytes_, at + kAttrConfig);
    a.sample_type = word_at<uint64_t>(bytes_, at + kAttrSampleType);
    a.read_format = word_at<uint64_t>(bytes_, at + kAttrReadFormat);
    a.sample_id_all = (word_at<uint64_t>(bytes_, at + kAttrFlags) & kAttrFlagSampleIdAll) != 0;
    a.fixed = fixed_layout(a.sample_type, a.read_format);
    const uint32_t index = static_cast<uint32_t>(attrs_list_.size());
    for (uint64_t i = 0; i + 8 <= ids.size; i += 8)
      attr_of_id_[static_cast<int64_t>(word_at<uint64_t>(bytes_, ids.offset + i))] = index;
    if (tracing_) bind(a);
    attrs_list_.push_back(std::move(a));
  }

  // The pipe format's PERF_RECORD_HEADER_ATTR: the attr, of the size it gives, then its ids.
  void header_attr(uint64_t at, uint16_t size) {
    const uint64_t body = at + kRecordHeaderSize, len = size - kRecordHeaderSize;
    const uint32_t attr_len = len >= 8 ? word_at<uint32_t>(bytes_, body + 4) : 0;
    if (attr_len < kAttrMinSize || attr_len > len)
      fail_record(at, "an attr of " + std::to_string(attr_len) + " bytes in a record of " +
                          std::to_string(size));
    add_attr(body, {body + attr_len, len - attr_len});
  }

  [[noreturn]] void no_tracing_data() const {
    fail(
        "it holds no tracing data (HEADER_TRACING_DATA): without the tracepoints' formats "
        "its samples cannot be read");
  }

  void set_tracing_data(std::string_view section) {
    if (tracing_) fail("it holds its tracing data twice");
    tracing_ = std::make_unique<TracingData>(section, name_);
    for (Attr& a : attrs_list_) bind(a);
  }

  // The decoder of a's samples.
  void bind(Attr& a) const {
    if (a.type != kAttrTypeTracepoint) {
      a.decoder = std::make_unique<TracepointDecoder>(
          tracing_->tep(), nullptr,
          "perf event type " + std::to_string(a.type) + " config " + hex(a.config));
      return;
    }
    tep_event* ev = tep_find_event(tracing_->tep(), static_cast<int>(a.config));
    if (!ev) {
      a.decoder = std::make_unique<TracepointDecoder>(
          tracing_->tep(), nullptr,
          "tracepoint " + std::to_string(a.config) + ", whose format the file lacks");
      return;
    }
    const std::string name = std::string(ev->system) + ":" + ev->name;
    for (const auto& [bit, what] : {std::pair{kSampleTime, "PERF_SAMPLE_TIME"},
                                    {kSampleCpu, "PERF_SAMPLE_CPU"},
                                    {kSampleRaw, "PERF_SAMPLE_RAW"}})
      if (!(a.sample_type & bit))
        fail("its event " + name + " is recorded without " + what + ": its samples cannot be read");
    a.decoder = std::make_unique<TracepointDecoder>(tracing_->tep(), ev, name);
  }

  uint32_t attr_of(uint64_t id, uint64_t at) const {
    const uint32_t* index = attr_of_id_.find(static_cast<int64_t>(id));
    if (!index) fail_record(at, "its event id " + std::to_string(id) + " is in none of the attrs");
    return *index;
  }

  void read_records() {
    const uint64_t end = data_.offset + data_.size;
    for (uint64_t at = data_.offset; at < end;) {
      if (at >= next_progress_) tell_progress(at);
      if (end - at < kRecordHeaderSize)
        fail_record(at,
                    "its header runs past the end of the events at byte " + std::to_string(end));
      const uint32_t type = word_at<uint32_t>(bytes_, at);
      const uint16_t size = word_at<uint16_t>(bytes_, at + 6);
      if (size < kRecordHeaderSize)
        fail_record(at, "type " + std::to_string(type) + ", size " + std::to_string(size) +
                            ", less than its 8-byte header: a corrupt record");
      if (size > end - at)
        fail_record(at, "type " + std::to_string(type) + ", its " + std::to_string(size) +
                            " bytes run past the end of the events at byte " + std::to_string(end));
      const uint64_t extra = bytes_after(bytes_, at, type, size);
      if (extra > end - at - size)
        fail_record(at, "type " + std::to_string(type) + ", the " + std::to_string(extra) +
                            " bytes it says follow it run past the end of the events");
      switch (type) {
        case kRecordSample:
          queue(sample(at), at);
          break;
        case kRecordLost:
        case kRecordLostSamples:
          queue(lost(at, type), at);
          break;
        case kRecordFinishedRound:
          round();
          tell_progress(at, true);
          break;
        case kRecordCompressed:
        case kRecordCompressed2:
          fail_record(at,
                      "compressed events (perf record -z), which vlag reads only through "
                      "perf script");
        case kRecordHeaderTracingData:
          if (pipe_ && size >= kRecordHeaderSize + 4)
            set_tracing_data(bytes_.substr(at + size, word_at<uint32_t>(bytes_, at + 8)));
          break;
        case kRecordHeaderAttr:
          if (pipe_) header_attr(at, size);
          break;
        default:  // the records perf script prints nothing for
          break;
      }
      at += size + extra;
    }
  }

  // The record at `at` of a size that fits the events.
  Cursor body_of(uint64_t at) const {
    const auto* rec = reinterpret_cast<const uint8_t*>(bytes_.data()) + at;
    return {rec + kRecordHeaderSize, rec + word_at<uint16_t>(bytes_, at + 6)};
  }

  Parsed parse(uint64_t at) const {
    const uint32_t type = word_at<uint32_t>(bytes_, at);
    return type == kRecordSample ? sample(at) : lost(at, type);
  }

  Parsed sample(uint64_t at) const {
    Cursor c = body_of(at);
    if (attrs_list_.empty()) fail_record(at, "a sample before any attr");
    if (!tracing_) no_tracing_data();
    const Attr& first = attrs_list_.front();
    uint32_t index = 0;
    if (first.sample_type & kSampleIdentifier) {
      uint64_t id = 0;
      if (!Cursor(c).read(id)) fail_record(at, "a sample too short for its id");
      index = attr_of(id, at);
    } else if (attrs_list_.size() > 1) {
      if (!(first.sample_type & kSampleId))
        fail("several events recorded with no sample id (PERF_SAMPLE_ID) to tell them apart");
      const uint64_t before =
          first.sample_type & (kSampleIp | kSampleTid | kSampleTime | kSampleAddr);
      Cursor id_at = c;
      uint64_t id = 0;
      if (!id_at.skip(8ull * std::popcount(before)) || !id_at.read(id))
        fail_record(at, "a sample too short for its id");
      index = attr_of(id, at);
    }
    const Attr& a = attrs_list_[index];
    const uint64_t st = a.sample_type;
    Parsed p{};
    p.attr = index;
    p.pid = p.tid = -1;
    p.cpu = UINT32_MAX;
    if (a.fixed && c.left() >= a.fixed->raw_size + 4ull) {
      const FixedLayout& f = *a.fixed;
      std::memcpy(&p.raw_size, c.at + f.raw_size, 4);
      if (p.raw_size <= c.left() - f.raw_size - 4) {
        if (f.tid >= 0) {
          std::memcpy(&p.pid, c.at + f.tid, 4);
          std::memcpy(&p.tid, c.at + f.tid + 4, 4);
        }
        if (f.time >= 0) std::memcpy(&p.time, c.at + f.time, 8);
        if (f.cpu >= 0) std::memcpy(&p.cpu, c.at + f.cpu, 4);
        p.raw_at = kRecordHeaderSize + f.raw_size + 4;
        return p;
      }
    }
    bool ok = true;
    const auto skip_if = [&](uint64_t bit) { ok = ok && (!(st & bit) || c.skip(8)); };
    skip_if(kSampleIdentifier);
    skip_if(kSampleIp);
    if (st & kSampleTid) ok = ok && c.read(p.pid) && c.read(p.tid);
    if (st & kSampleTime) ok = ok && c.read(p.time);
    skip_if(kSampleAddr);
    skip_if(kSampleId);
    skip_if(kSampleStreamId);
    if (st & kSampleCpu) ok = ok && c.read(p.cpu) && c.skip(4);
    skip_if(kSamplePeriod);
    if (ok && (st & kSampleRead)) ok = skip_read(c, a.read_format);
    if (ok && (st & kSampleCallchain)) {
      uint64_t nr = 0;
      ok = c.read(nr) && nr <= c.left() / 8 && c.skip(nr * 8);
    }
    if (ok && (st & kSampleRaw)) {
      ok = c.read(p.raw_size) && c.left() >= p.raw_size;
      p.raw_at = static_cast<uint32_t>(c.at - reinterpret_cast<const uint8_t*>(bytes_.data()) - at);
    }
    if (!ok) fail_record(at, "a sample whose fields run past its end: a corrupt record");
    return p;
  }

  static bool skip_read(Cursor& c, uint64_t rf) {
    const uint64_t times = 8ull * (((rf & kReadTimeEnabled) != 0) + ((rf & kReadTimeRunning) != 0));
    const uint64_t value = 8ull * (1 + ((rf & kReadId) != 0) + ((rf & kReadLost) != 0));
    if (!(rf & kReadGroup)) return c.skip(times + value);
    uint64_t nr = 0;
    return c.read(nr) && c.skip(times) && nr <= c.left() / value && c.skip(nr * value);
  }

  Parsed lost(uint64_t at, uint32_t type) const {
    Cursor c = body_of(at);
    Parsed p{};
    p.attr = kLoss;
    p.cpu = UINT32_MAX;
    p.time = UINT64_MAX;  // not known: passed on at once, as perf does
    p.lost_record = type == kRecordLost ? "PERF_RECORD_LOST" : "PERF_RECORD_LOST_SAMPLES";
    if (type == kRecordLost && !c.skip(8)) fail_record(at, "a PERF_RECORD_LOST too short");
    if (!c.read(p.lost)) fail_record(at, "a lost-records record too short");
    if (attrs_list_.empty()) fail_record(at, "a lost-records record before any attr");
    const Attr& first = attrs_list_.front();
    if (first.sample_id_all) {
      // The sample id trailer at the record's end: tid, time, id, stream id, cpu, identifier.
      uint64_t st = first.sample_type;
      if (st & kSampleIdentifier && c.left() >= 8) {
        uint64_t id = 0;
        std::memcpy(&id, c.end - 8, 8);  // the identifier is the trailer's last word
        st = attrs_list_[attr_of(id, at)].sample_type;
      }
      const uint64_t words = std::popcount(st & (kSampleTid | kSampleTime | kSampleId |
                                                 kSampleStreamId | kSampleCpu | kSampleIdentifier));
      if (c.left() < 8 * words) fail_record(at, "a lost-records record too short for its ids");
      Cursor t{c.end - 8 * words, c.end};
      if (st & kSampleTid) t.skip(8);
      if (st & kSampleTime) t.read(p.time);
      if (st & kSampleId) t.skip(8);
      if (st & kSampleStreamId) t.skip(8);
      if (st & kSampleCpu) t.read(p.cpu);
    }
    return p;
  }

  // perf's ordered events (tools/perf/util/ordered-events.c): each event is held in time order,
  // ties in file order; a round passes on what is no later than the latest time held at the
  // round before. Without times, or with none to sort by, each goes on at once.
  void queue(const Parsed& p, uint64_t at) {
    if (!ordered_ || p.time == 0 || p.time == UINT64_MAX) {
      deliver({p.time, at});
      return;
    }
    if (held_.empty() || p.time >= max_time_) max_time_ = p.time;
    held_.push({p.time, at});
  }

  // The earliest byte a held record starts at bounds what will be read again. The records are
  // held in time order, not file order, so it is found among them when a round has passed some
  // on; between rounds it stays (the records held since start later in the file).
  void tell_progress(uint64_t at, bool after_round = false) {
    next_progress_ = at + kProgressStep;
    if (!progress_) return;
    if (held_.empty()) {
      needed_from_ = at;
    } else if (after_round) {
      needed_from_ = at;
      held_.each([&](const Held& h) { needed_from_ = std::min(needed_from_, h.at); });
    }
    uint64_t needed = needed_from_;
    if (merge_) merge_->each_held([&](const Held& h) { needed = std::min(needed, h.at); });
    progress_(needed, at);
  }

  void round() {
    flush(next_flush_);
    next_flush_ = max_time_;
  }

  // The held records no later than limit, in time order, ties in file order (the order they
  // were held in).
  void flush(uint64_t limit) {
    held_.pass_until(limit, [&](const Held& h) { deliver(h); });
  }

  // A sample or loss in perf script's order: made into its event now, or when the time merge
  // passes it on.
  void deliver(const Held& h) {
    if (merge_)
      merge_->push(h, static_cast<int64_t>(h.time));
    else
      make(h, sink_);
  }

  // The event of a sample, passed to pass; a loss, or a sample the text parser would refuse on
  // its line, is an error (or, with keep_going, a skipped line).
  template <class Pass>
  void make(const Held& h, const Pass& pass) {
    const Parsed p = parse(h.at);
    try {
      if (p.attr == kLoss) {
        fail_at(name_, lines_ + 1,
                (p.cpu == UINT32_MAX ? std::string("a CPU") : "cpu " + std::to_string(p.cpu)) +
                    ": perf lost " + std::to_string(p.lost) + " events before this line (" +
                    p.lost_record + "; record with larger buffers: perf record -m)");
      }
      KernelEvent e;
      e.line = ++lines_;
      emit(p, h.at, e);
      ++stats_.events;
      pass(e);
    } catch (const Error& err) {
      if (!options_.keep_going) throw;
      if (stats_.skipped++ == 0) stats_.first_error = err.what();
    }
  }

  // The sample's header as perf script prints it ("pid/tid [cpu] seconds.ns:"), read as the text
  // parser reads it, then its event's fields.
  void emit(const Parsed& p, uint64_t at, KernelEvent& e) {
    const int line = e.line;
    if (p.cpu > kCpuMax)
      fail_at(name_, line,
              "field 'cpu': CPU " + std::to_string(static_cast<int32_t>(p.cpu)) +
                  " is outside 0.." + std::to_string(kCpuMax));
    e.cpu = static_cast<int>(p.cpu);
    if (p.tid != -1 && p.pid >= 0 && p.tid >= 0) {  // perf's -1: a thread it could not resolve
      for (const auto& [v, key] : {std::pair{p.pid, "pid"}, {p.tid, "tid"}})
        if (v > kPidMax)
          fail_at(name_, line,
                  std::string("field '") + key + "': pid " + std::to_string(v) + " is outside 0.." +
                      std::to_string(kPidMax));
      e.current_pid = p.tid;
    }
    if (p.time / 1'000'000'000 > static_cast<uint64_t>(INT64_MAX / 1'000'000'000 - 1))
      fail_at(name_, line,
              "field 'time': " + std::to_string(p.time) + " ns does not fit 64-bit nanoseconds");
    e.time_ns = static_cast<int64_t>(p.time);
    const auto* raw = reinterpret_cast<const uint8_t*>(bytes_.data()) + at + p.raw_at;
    attrs_list_[p.attr].decoder->decode(raw, p.raw_size, e, name_);
  }

  std::string_view bytes_;
  const std::string& name_;
  const std::function<void(KernelEvent&)>& sink_;
  PerfParseOptions options_;
  const Progress& progress_;
  uint64_t next_progress_ = 0, needed_from_ = 0;
  PerfParseStats stats_;

  uint64_t attr_size_ = 0;
  Section attrs_, data_;
  uint64_t features_[4] = {};
  std::vector<Attr> attrs_list_;
  InlineTable<uint32_t> attr_of_id_;  // a sample's id → its attr
  std::unique_ptr<TracingData> tracing_;

  struct Make {
    Reader* reader;
    template <class Pass>
    void operator()(const Held& h, const Pass& pass) const {
      reader->make(h, pass);
    }
    void ahead(const Held& h) const {
      const char* record = reader->bytes_.data() + h.at;
      __builtin_prefetch(record);
      __builtin_prefetch(record + 64);
    }
  };
  std::optional<DeferredMerge<Held, Make>> merge_;  // with a merge window

  bool pipe_ = false, ordered_ = false;
  // Room for a busy round at once (kHeldRoom): grown by doubling instead, it is copied into new
  // pages several times.
  SortedRuns<Held> held_{kHeldRoom};
  uint64_t max_time_ = 0, next_flush_ = 0;
  int lines_ = 0;
};

}  // namespace

std::optional<std::string> perf_data_needs_perf_script(std::string_view bytes) {
  const std::optional<std::string> compressed = "compressed records (perf record -z)";
  if (bytes.size() < kPipeHeaderSize || bytes.substr(0, 8) != kMagic) return std::nullopt;
  if (word_at<uint64_t>(bytes, 8) == kPipeHeaderSize) {
    // The pipe format has no header to say so: its records are compressed if one comes before
    // the first sample. A record that does not fit is left to the reader to refuse.
    for (uint64_t at = kPipeHeaderSize; bytes.size() - at >= kRecordHeaderSize;) {
      const uint32_t type = word_at<uint32_t>(bytes, at);
      const uint16_t size = word_at<uint16_t>(bytes, at + 6);
      if (type == kRecordCompressed || type == kRecordCompressed2) return compressed;
      if (type == kRecordSample || size < kRecordHeaderSize || size > bytes.size() - at) break;
      const uint64_t extra = bytes_after(bytes, at, type, size);
      if (extra > bytes.size() - at - size) break;
      at += size + extra;
    }
    return std::nullopt;
  }
  // A header of another size is the reader's to refuse.
  if (bytes.size() < kFileHeaderSize || word_at<uint64_t>(bytes, 8) != kFileHeaderSize)
    return std::nullopt;
  const uint64_t word = word_at<uint64_t>(bytes, kFeaturesAt + 8 * (kFeatureCompressed / 64));
  if (word >> (kFeatureCompressed % 64) & 1) return compressed;
  return std::nullopt;
}

PerfParseStats read_perf_data_bytes(std::string_view bytes, const std::string& name,
                                    const std::function<void(KernelEvent&)>& sink,
                                    const PerfParseOptions& options, const Progress& progress,
                                    size_t merge_window) {
  return Reader(bytes, name, sink, options, progress, merge_window).run();
}

}  // namespace vlag::kernel
