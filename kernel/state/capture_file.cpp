#include "kernel/state/capture_file.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "json/writer.h"
#include "kernel/bpf/raw_capture.h"
#include "spec/error.h"

namespace vlag::kernel::state {
namespace {

namespace fs = std::filesystem;
namespace dom = simdjson::dom;
using bpf::StateRecord;

// Where a value is read from, for the error that names it.
struct Where {
  const std::string& path;
  size_t line;
};

[[noreturn]] void bad(const Where& at, std::string_view field, std::string_view what) {
  throw Error(at.path + ":" + std::to_string(at.line) + ": field \"" + std::string(field) +
              "\": " + std::string(what));
}

dom::element member(const dom::element& object, std::string_view key, const Where& at) {
  dom::element value;
  if (object[key].get(value) != simdjson::SUCCESS) bad(at, key, "missing");
  return value;
}

uint64_t u64(const dom::element& o, std::string_view key, const Where& at) {
  uint64_t v = 0;
  if (member(o, key, at).get_uint64().get(v) != simdjson::SUCCESS)
    bad(at, key, "not an unsigned 64-bit integer");
  return v;
}

int64_t i64(const dom::element& o, std::string_view key, const Where& at) {
  int64_t v = 0;
  if (member(o, key, at).get_int64().get(v) != simdjson::SUCCESS)
    bad(at, key, "not a signed 64-bit integer");
  return v;
}

int32_t i32(const dom::element& o, std::string_view key, const Where& at) {
  const int64_t v = i64(o, key, at);
  if (v < INT32_MIN || v > INT32_MAX) bad(at, key, "out of the 32-bit range");
  return static_cast<int32_t>(v);
}

bool flag(const dom::element& o, std::string_view key, const Where& at) {
  bool v = false;
  if (member(o, key, at).get_bool().get(v) != simdjson::SUCCESS) bad(at, key, "not a boolean");
  return v;
}

std::string text(const dom::element& o, std::string_view key, const Where& at) {
  std::string_view v;
  if (member(o, key, at).get_string().get(v) != simdjson::SUCCESS) bad(at, key, "not a string");
  return std::string(v);
}

dom::array array(const dom::element& o, std::string_view key, const Where& at) {
  dom::array v;
  if (member(o, key, at).get_array().get(v) != simdjson::SUCCESS) bad(at, key, "not an array");
  return v;
}

dom::object object(const dom::element& o, std::string_view key, const Where& at) {
  dom::object v;
  if (member(o, key, at).get_object().get(v) != simdjson::SUCCESS) bad(at, key, "not an object");
  return v;
}

bpf::KernelParameters read_parameters(const dom::element& o, const Where& at) {
  bpf::KernelParameters k;
  k.release = text(o, "release", at);
  k.possible_cpus = i32(o, "possible_cpus", at);
  k.hz = i32(o, "hz", at);
  k.hz_source = text(o, "hz_source", at);
  k.base_slice_ns = u64(o, "base_slice_ns", at);
  k.base_slice_source = text(o, "base_slice_source", at);
  for (const auto [name, on] : object(o, "features", at)) {
    bool enabled = false;
    if (on.get_bool().get(enabled) != simdjson::SUCCESS) bad(at, name, "not a boolean");
    k.features.push_back({std::string(name), enabled});
  }
  k.features_source = text(o, "features_source", at);
  const dom::element l = member(o, "layout", at);
  bpf::KernelLayout& y = k.layout;
  y.zero_vruntime = flag(l, "zero_vruntime", at);
  y.sum_names = flag(l, "sum_names", at);
  y.nr_queued = flag(l, "nr_queued", at);
  y.vprot = flag(l, "vprot", at);
  y.vprot_union = flag(l, "vprot_union", at);
  y.sched_delayed = flag(l, "sched_delayed", at);
  y.rel_deadline = flag(l, "rel_deadline", at);
  y.custom_slice = flag(l, "custom_slice", at);
  y.min_slice = flag(l, "min_slice", at);
  y.max_slice = flag(l, "max_slice", at);
  return k;
}

void read_entity_fields(const dom::element& o, bpf::QueuedEntity& e, const Where& at) {
  e.id = u64(o, "se", at);
  e.pid = i32(o, "pid", at);
  e.vruntime = u64(o, "vruntime", at);
  e.deadline = u64(o, "deadline", at);
  e.weight = u64(o, "weight", at);
  e.slice = u64(o, "slice", at);
  e.vlag = i64(o, "vlag", at);
  e.sched_delayed = flag(o, "sched_delayed", at);
  e.custom_slice = flag(o, "custom_slice", at);
  e.is_group = flag(o, "group", at);
}

bpf::QueuedEntity read_queued(const dom::element& o, const Where& at) {
  bpf::QueuedEntity e;
  read_entity_fields(o, e, at);
  e.on_rq = flag(o, "on_rq", at);
  e.rel_deadline = flag(o, "rel_deadline", at);
  return e;
}

bpf::EntityState read_level(const dom::element& o, const Where& at) {
  bpf::EntityState e;
  read_entity_fields(o, e, at);
  e.vprot = u64(o, "vprot", at);
  e.sum_exec_runtime = u64(o, "sum_exec_runtime", at);
  e.min_slice = u64(o, "min_slice", at);
  e.on_rq = flag(o, "on_rq", at);
  e.rel_deadline = flag(o, "rel_deadline", at);
  const dom::element c = member(o, "cfs_rq", at);
  e.cfs_rq.id = u64(c, "id", at);
  e.cfs_rq.zero_vruntime = u64(c, "zero_vruntime", at);
  e.cfs_rq.sum_w_vruntime = i64(c, "sum_w_vruntime", at);
  e.cfs_rq.sum_weight = u64(c, "sum_weight", at);
  e.cfs_rq.load_weight = u64(c, "load", at);
  e.cfs_rq.curr = u64(c, "curr", at);
  e.cfs_rq.next = u64(c, "next", at);
  e.cfs_rq.nr_queued = static_cast<uint32_t>(u64(c, "nr_queued", at));
  e.cfs_rq.h_nr_queued = static_cast<uint32_t>(u64(c, "h_nr_queued", at));
  return e;
}

bpf::TaskState read_task(const dom::element& o, const Where& at) {
  bpf::TaskState t;
  t.pid = i32(o, "pid", at);
  t.tgid = i32(o, "tgid", at);
  t.comm = text(o, "comm", at);
  t.prio = i32(o, "prio", at);
  t.policy = static_cast<uint32_t>(u64(o, "policy", at));
  t.task_cpu = i32(o, "task_cpu", at);
  t.state = static_cast<uint32_t>(u64(o, "state", at));
  t.on_rq = i32(o, "on_rq", at);
  t.fair = flag(o, "fair", at);
  t.chain_truncated = flag(o, "chain_truncated", at);
  for (const dom::element level : array(o, "chain", at)) t.chain.push_back(read_level(level, at));
  // A wakeup's curr entities and waking state: in captures that record them.
  dom::element currs, waking;
  if (o["level_curr"].get(currs) == simdjson::SUCCESS)
    for (const dom::element e : array(o, "level_curr", at))
      t.level_curr.push_back(read_queued(e, at));
  if (o["waking"].get(waking) == simdjson::SUCCESS) {
    const dom::element w = member(o, "waking", at);
    t.waking.emplace();
    t.waking->time_ns = u64(w, "time_ns", at);
    t.waking->entity = read_queued(member(w, "entity", at), at);
  }
  return t;
}

bpf::QueueSnapshot read_queue(const dom::element& o, const Where& at) {
  bpf::QueueSnapshot q;
  q.cfs_rq = u64(o, "cfs_rq", at);
  q.level = i32(o, "level", at);
  q.nr_queued = static_cast<uint32_t>(u64(o, "nr_queued", at));
  q.truncated = flag(o, "truncated", at);
  for (const dom::element e : array(o, "entities", at)) {
    bpf::QueuedEntity entity;
    read_entity_fields(e, entity, at);
    entity.on_rq = true;  // in the tree
    q.entities.push_back(entity);
  }
  return q;
}

bpf::RecordKind kind_named(std::string_view name, const Where& at) {
  using bpf::RecordKind;
  for (const RecordKind k :
       {RecordKind::Switch, RecordKind::Wakeup, RecordKind::WakeupNew, RecordKind::Migrate,
        RecordKind::Runtime, RecordKind::Exit, RecordKind::SetAttr})
    if (name == bpf::kind_name(k)) return k;
  bad(at, "kind", "unknown record kind \"" + std::string(name) + "\"");
}

StateRecord read_record(const dom::element& o, std::string_view kind, const Where& at) {
  StateRecord r;
  r.kind = kind_named(kind, at);
  r.time_ns = u64(o, "time_ns", at);
  r.cpu = i32(o, "cpu", at);
  r.probe_cpu = i32(o, "probe_cpu", at);
  r.rq_clock = u64(o, "rq_clock", at);
  r.rq_clock_task = u64(o, "rq_clock_task", at);
  r.rq_nr_running = static_cast<uint32_t>(u64(o, "rq_nr_running", at));
  for (const dom::element t : array(o, "tasks", at)) r.tasks.push_back(read_task(t, at));
  const size_t want = r.kind == bpf::RecordKind::Switch ? 2 : 1;
  if (r.tasks.size() != want)
    bad(at, "tasks",
        std::to_string(r.tasks.size()) + " tasks, a " + std::string(kind) + " record has " +
            std::to_string(want));
  using bpf::RecordKind;
  switch (r.kind) {
    case RecordKind::Switch: {
      r.preempt = flag(o, "preempt", at);
      r.prev_state = static_cast<uint32_t>(u64(o, "prev_state", at));
      dom::element queues;
      if (o["queues"].get(queues) == simdjson::SUCCESS) {
        r.queues_complete = flag(o, "queues_complete", at);
        for (const dom::element q : array(o, "queues", at)) r.queues.push_back(read_queue(q, at));
      }
      break;
    }
    case RecordKind::Migrate:
      r.dest_cpu = i32(o, "dest_cpu", at);
      break;
    case RecordKind::Runtime:
      r.runtime_ns = u64(o, "runtime_ns", at);
      break;
    case RecordKind::SetAttr:
      r.syscall = i64(o, "syscall", at);
      r.syscall_ret = i64(o, "ret", at);
      r.target_pid = i32(o, "target_pid", at);
      break;
    default:
      break;
  }
  return r;
}

void read_facts(const dom::element& o, CaptureFacts& f, const Where& at) {
  for (const dom::element c : array(o, "cpus", at)) {
    int64_t cpu = 0;
    if (c.get_int64().get(cpu) != simdjson::SUCCESS || cpu < 0) bad(at, "cpus", "not a CPU");
    f.cpus.push_back(static_cast<int>(cpu));
  }
  dom::element lost;
  if (o["lost_per_cpu"].get(lost) == simdjson::SUCCESS && !lost.is_null()) {
    std::vector<uint64_t> counts;
    for (const dom::element n : array(o, "lost_per_cpu", at)) {
      uint64_t v = 0;
      if (n.get_uint64().get(v) != simdjson::SUCCESS) bad(at, "lost_per_cpu", "not a count");
      counts.push_back(v);
    }
    f.lost_per_cpu = counts;
  }
  f.records = u64(o, "records", at);
  f.seconds = 0;
  if (member(o, "seconds", at).get_double().get(f.seconds) != simdjson::SUCCESS)
    bad(at, "seconds", "not a number");
  f.stopped_by = text(o, "stopped_by", at);
  for (const dom::element c : array(o, "command", at)) {
    std::string_view word;
    if (c.get_string().get(word) != simdjson::SUCCESS) bad(at, "command", "not a string");
    f.command.emplace_back(word);
  }
  f.queues = flag(o, "queues", at);
}

// {"kind":"capture", "kernel":{...}, "capture":{...}}: capture.json, or a line of JSON Lines.
void read_capture_object(const dom::element& o, StateCapture& out, const Where& at) {
  out.kernel = read_parameters(member(o, "kernel", at), at);
  read_facts(member(o, "capture", at), out.facts, at);
}

void read_facts_file(const std::string& path, StateCapture& out) {
  dom::parser parser;
  dom::element root;
  const Where at{path, 1};
  if (parser.load(path).get(root) != simdjson::SUCCESS || !root.is_object())
    bad(at, "", "not a JSON object");
  read_capture_object(root, out, at);
}

void read_json_lines(const std::string& path, StateCapture& out) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read");
  dom::parser parser;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const Where at{path, n};
    dom::element o;
    if (parser.parse(line).get(o) != simdjson::SUCCESS || !o.is_object())
      bad(at, "", "not a JSON object");
    const std::string kind = text(o, "kind", at);
    if (kind == "kernel") {
      if (out.kernel) bad(at, "kind", "a second \"kernel\" object");
      out.kernel = read_parameters(o, at);
    } else if (kind == "capture") {
      read_capture_object(o, out, at);
    } else {
      out.records.push_back(read_record(o, kind, at));
    }
  }
}

bool starts_with_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::string_view(magic, 7) == "VLAGBPF";
}

void read_raw(const std::string& path, StateCapture& out) {
  try {
    bpf::read_raw_capture(path, [&](const StateRecord& r) { out.records.push_back(r); });
  } catch (const bpf::CaptureError& e) {
    throw Error(e.what());
  }
}

}  // namespace

void sort_by_time(std::vector<StateRecord>& records) {
  std::stable_sort(records.begin(), records.end(), [](const StateRecord& a, const StateRecord& b) {
    return a.time_ns < b.time_ns;
  });
}

StateCapture read_state_capture(const std::string& path) {
  StateCapture out;
  out.source = path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const std::string raw = (fs::path(path) / kRawName).string();
    const std::string facts = (fs::path(path) / kFactsName).string();
    if (!fs::exists(raw)) throw Error(path + ": no " + kRawName + " in this directory");
    if (!fs::exists(facts)) throw Error(path + ": no " + kFactsName + " in this directory");
    read_facts_file(facts, out);
    read_raw(raw, out);
  } else if (!fs::exists(path, ec)) {
    throw Error(path + ": no such file or directory");
  } else if (starts_with_magic(path)) {
    const fs::path beside = fs::path(path).parent_path() / kFactsName;
    if (fs::exists(beside)) read_facts_file(beside.string(), out);
    read_raw(path, out);
  } else {
    read_json_lines(path, out);
  }
  sort_by_time(out.records);
  return out;
}

std::string capture_json(const bpf::KernelParameters& k, const CaptureFacts& f) {
  json::Object features;
  for (const auto& feature : k.features) features.boolean(feature.name, feature.enabled);
  const bpf::KernelLayout& y = k.layout;
  json::Object layout;
  layout.boolean("zero_vruntime", y.zero_vruntime)
      .boolean("sum_names", y.sum_names)
      .boolean("nr_queued", y.nr_queued)
      .boolean("vprot", y.vprot)
      .boolean("vprot_union", y.vprot_union)
      .boolean("sched_delayed", y.sched_delayed)
      .boolean("rel_deadline", y.rel_deadline)
      .boolean("custom_slice", y.custom_slice)
      .boolean("min_slice", y.min_slice)
      .boolean("max_slice", y.max_slice);
  json::Object kernel;
  kernel.str("kind", "kernel")
      .str("release", k.release)
      .num("possible_cpus", k.possible_cpus)
      .num("hz", k.hz)
      .str("hz_source", k.hz_source)
      .num("base_slice_ns", static_cast<int64_t>(k.base_slice_ns))
      .str("base_slice_source", k.base_slice_source)
      .object("features", features)
      .str("features_source", k.features_source)
      .object("layout", layout);
  json::Array cpus, command;
  for (const int c : f.cpus) cpus.add_raw(std::to_string(c));
  for (const auto& word : f.command) command.add_string(word);
  json::Object capture;
  capture.array("cpus", cpus);
  if (f.lost_per_cpu) {
    json::Array lost;
    for (const uint64_t n : *f.lost_per_cpu) lost.add_raw(std::to_string(n));
    capture.array("lost_per_cpu", lost);
  } else {
    capture.null("lost_per_cpu");
  }
  capture.num("records", static_cast<int64_t>(f.records))
      .real("seconds", f.seconds)
      .str("stopped_by", f.stopped_by)
      .array("command", command)
      .boolean("queues", f.queues);
  return json::Object()
             .str("kind", "capture")
             .object("kernel", kernel)
             .object("capture", capture)
             .text() +
         "\n";
}

}  // namespace vlag::kernel::state
