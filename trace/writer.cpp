#include "trace/writer.h"

#include <fmt/format.h>

namespace vlag::trace {
namespace {

// An exact number fits a JSON integer when it is an integer of 64 bits; anything else (a
// fraction, a wider integer) is written as the string "p/q" so no reader can round it.
std::string json_exact(const Exact& x) {
  if (x.get_den() == 1 && x.get_num().fits_slong_p()) return x.get_num().get_str();
  return "\"" + exact_text(x) + "\"";
}

void field(std::string& s, std::string_view name, std::string_view json_value) {
  fmt::format_to(std::back_inserter(s), ",\"{}\":{}", name, json_value);
}

void field(std::string& s, std::string_view name, int64_t v) {
  fmt::format_to(std::back_inserter(s), ",\"{}\":{}", name, v);
}

std::string_view json_bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string json_string(std::string_view text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      s += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      s += c;
    }
  }
  return s + "\"";
}

std::string header_line(const Header& h) {
  const Params& p = h.params;
  std::string features;
  for (size_t i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    if (!p.preset.has(f)) continue;
    if (!features.empty()) features += ",";
    features += fmt::format("\"{}\"", feature_name(f));
  }
  std::string s = fmt::format(
      "{{\"format\":\"{}\",\"version\":{},\"clock\":\"ns\",\"producer\":{},\"preset\":\"{}\","
      "\"features\":[{}],\"cpus\":{},\"hz\":{},\"tick_ns\":{},\"base_slice_ns\":{}",
      kFormatName, kFormatVersion, json_string(h.producer), p.preset.name, features, p.ncpus, p.hz,
      p.tick_ns(), p.base_slice_ns());
  if (h.window) s += ",\"window\":true";
  if (h.cpu) s += fmt::format(",\"cpu\":{}", *h.cpu);
  if (h.arith != Arith::Exact) s += fmt::format(",\"arith\":\"{}\"", arith_name(h.arith));
  return s + "}";
}

std::string event_line(const Event& e) {
  std::string s = fmt::format("{{\"t\":{},\"ev\":\"{}\"", e.t, event_name(e.kind));
  if (e.cpu != 0) field(s, "cpu", e.cpu);
  if (e.task)
    field(s, "task", *e.task);
  else if (e.kind == EventKind::Pick)
    field(s, "task", std::string_view("null"));
  switch (e.kind) {
    case EventKind::New:
    case EventKind::Attach:
      field(s, "weight", e.weight);
      field(s, "slice", e.slice);
      break;
    case EventKind::Run:
      field(s, "delta", e.delta);
      break;
    case EventKind::Reweight:
      field(s, "weight", e.weight);
      break;
    case EventKind::Slice:
      field(s, "slice", e.slice);
      break;
    case EventKind::Preempt:
      field(s, "preempt", json_bool(e.preempt));
      break;
    case EventKind::Migrate:
      field(s, "to", e.to_cpu);
      break;
    default:
      break;
  }
  const EntityFields& st = e.state;
  if (st.weight) field(s, "w", *st.weight);
  if (st.slice) field(s, "r", *st.slice);
  if (st.vruntime) field(s, "v", json_exact(*st.vruntime));
  if (st.deadline) field(s, "d", json_exact(*st.deadline));
  if (st.vlag) field(s, "vlag", json_exact(*st.vlag));
  if (st.eligible) field(s, "elig", json_bool(*st.eligible));
  if (st.status) field(s, "status", fmt::format("\"{}\"", status_name(*st.status)));
  if (st.running) field(s, "running", json_bool(*st.running));
  if (st.request) field(s, "req", json_exact(*st.request));
  if (e.V) field(s, "V", json_exact(*e.V));
  if (e.W) field(s, "W", *e.W);
  if (e.nr_queued) field(s, "nr", *e.nr_queued);
  return s + "}";
}

void Writer::header(const Header& h) { out_ << header_line(h) << '\n'; }

void Writer::event(const Event& e) { out_ << event_line(e) << '\n'; }

}  // namespace vlag::trace
