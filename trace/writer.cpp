#include "trace/writer.h"

#include "json/writer.h"

namespace vlag::trace {
namespace {

// An exact number is a JSON integer when it is an integer of 64 bits; anything else (a fraction,
// a wider integer) is written as the string "p/q" so no reader can round it.
void exact(json::Object& o, std::string_view key, const Exact& x) {
  if (x.get_den() == 1 && x.get_num().fits_slong_p())
    o.raw(key, x.get_num().get_str());
  else
    o.str(key, exact_text(x));
}

}  // namespace

std::string header_line(const Header& h) {
  const Params& p = h.params;
  json::Array features;
  for (size_t i = 0; i < kFeatureCount; ++i)
    if (const auto f = static_cast<Feature>(i); p.preset.has(f))
      features.add_string(feature_name(f));
  json::Object o;
  o.str("format", kFormatName)
      .num("version", kFormatVersion)
      .str("clock", "ns")
      .str("producer", h.producer)
      .str("preset", p.preset.name)
      .array("features", features)
      .num("cpus", p.ncpus);
  if (p.kernel_cpus > 0 && p.kernel_cpus != p.ncpus) o.num("kernel_cpus", p.kernel_cpus);
  if (p.base_slice_override_ns > 0) o.num("base_slice_override_ns", p.base_slice_override_ns);
  o.num("hz", p.hz).num("tick_ns", p.tick_ns()).num("base_slice_ns", p.base_slice_ns());
  if (h.window) o.boolean("window", true);
  if (h.cpu) o.num("cpu", *h.cpu);
  if (h.arith != Arith::Exact) o.str("arith", arith_name(h.arith));
  if (h.kernel_reconstruction) o.boolean("kernel_reconstruction", true);
  if (h.linux_source) o.str("source", "linux");
  if (!h.runqueue.empty()) o.str("runqueue", h.runqueue);
  return o.text();
}

namespace {

// A runqueue's declaration (v2): always with its id and CPU.
std::string runqueue_line(const Event& e) {
  json::Object o;
  o.num("t", e.t).str("ev", event_name(e.kind)).num("rq", e.rq).num("cpu", e.cpu);
  if (!e.group.empty()) o.str("group", e.group);
  if (e.parent) o.num("parent", *e.parent);
  if (e.se) o.num("se", *e.se);
  return o.text();
}

}  // namespace

// The fields of v2 appear only where they differ from their defaults, so a trace of one runqueue
// reads as it did in v1.
std::string event_line(const Event& e) {
  if (e.kind == EventKind::Runqueue) return runqueue_line(e);
  json::Object o;
  o.num("t", e.t).str("ev", event_name(e.kind));
  if (e.cpu != 0) o.num("cpu", e.cpu);
  if (e.rq != 0) o.num("rq", e.rq);
  if (e.task)
    o.num("task", *e.task);
  else if (e.kind == EventKind::Pick && !e.se)
    o.null("task");
  if (e.se && e.se != e.task) o.num("se", *e.se);
  switch (e.kind) {
    case EventKind::New:
    case EventKind::Attach:
      o.num("weight", e.weight).num("slice", e.slice);
      break;
    case EventKind::Run:
      o.num("delta", e.delta);
      break;
    case EventKind::Reweight:
      o.num("weight", e.weight);
      break;
    case EventKind::Slice:
      o.num("slice", e.slice);
      break;
    case EventKind::Preempt:
      o.boolean("preempt", e.preempt);
      break;
    case EventKind::Migrate:
      o.num("to", e.to_cpu);
      break;
    default:
      break;
  }
  if (!e.name.empty()) o.str("name", e.name);
  if (!e.group.empty()) o.str("group", e.group);
  const EntityFields& st = e.state;
  if (st.weight) o.num("w", *st.weight);
  if (st.slice) o.num("r", *st.slice);
  if (st.vruntime) exact(o, "v", *st.vruntime);
  if (st.deadline) exact(o, "d", *st.deadline);
  if (st.vlag) exact(o, "vlag", *st.vlag);
  if (st.eligible) o.boolean("elig", *st.eligible);
  if (st.status) o.str("status", status_name(*st.status));
  if (st.running) o.boolean("running", *st.running);
  if (st.request) exact(o, "req", *st.request);
  if (st.vprot) exact(o, "vprot", *st.vprot);
  if (e.V) exact(o, "V", *e.V);
  if (e.W) o.num("W", *e.W);
  if (e.nr_queued) o.num("nr", *e.nr_queued);
  if (e.kernel.v0) exact(o, "v0", *e.kernel.v0);
  if (e.kernel.sum_w) o.num("sum_w", *e.kernel.sum_w);
  if (e.kernel.sum_wv) exact(o, "sum_wv", *e.kernel.sum_wv);
  return o.text();
}

void Writer::header(const Header& h) { out_ << header_line(h) << '\n'; }

void Writer::event(const Event& e) { out_ << event_line(e) << '\n'; }

}  // namespace vlag::trace
