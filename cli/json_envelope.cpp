#include "cli/json_envelope.h"

#include <array>
#include <charconv>
#include <string_view>

#include "cli/verdict_json.h"
#include "trace/input_error.h"

namespace vlag::cli {
namespace {

// Where a bad-input message of the kernel readers says it is: "FILE:LINE: field 'F': what" or
// "FILE:LINE: what" (kernel/text_fields.h), "FILE: what" (a file as a whole).
struct Place {
  std::string file, field;
  std::optional<int64_t> line;
};

Place place_in(std::string_view message) {
  Place p;
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) return p;
  std::string_view head = message.substr(0, colon);
  std::string_view rest = message.substr(colon + 2);
  const size_t last = head.rfind(':');
  if (last != std::string_view::npos) {
    int64_t line = 0;
    const std::string_view digits = head.substr(last + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), line);
    if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty()) {
      p.line = line;
      head = head.substr(0, last);
    }
  }
  // A path names no spaces in vlag's messages' first words ("vlag kernel check: …" is a
  // command, not a file).
  if (head.empty() || head.find(' ') != std::string_view::npos) return {};
  p.file = std::string(head);
  constexpr std::string_view kField = "field '";
  if (rest.substr(0, kField.size()) == kField) {
    const size_t close = rest.find('\'', kField.size());
    if (close != std::string_view::npos)
      p.field = std::string(rest.substr(kField.size(), close - kField.size()));
  }
  return p;
}

json::Object& str_or_null(json::Object& o, std::string_view key, const std::string& value) {
  return value.empty() ? o.null(key) : o.str(key, value);
}

json::Object& num_or_null(json::Object& o, std::string_view key, std::optional<int64_t> value) {
  return value ? o.num(key, *value) : o.null(key);
}

// The counts by verdict, in the lattice's order (spec/verdict.h).
json::Object counts_object(const std::array<int64_t, 4>& by_verdict) {
  const auto n = [&](Verdict v) { return by_verdict[static_cast<size_t>(v)]; };
  return json::Object()
      .num("held", n(Verdict::Held))
      .num("violated", n(Verdict::Violated))
      .num("inconclusive", n(Verdict::Inconclusive))
      .num("not_applicable", n(Verdict::NotApplicable));
}

json::Object head(const std::string& command, int exit_code, std::string_view result) {
  return json::Object()
      .str("command", command)
      .str("version", VLAG_VERSION)
      .num("exit_code", exit_code)
      .str("result", result);
}

}  // namespace

EnvelopeFinding envelope_finding(std::string id, Verdict verdict, Reasons why, std::string file,
                                 int64_t line, std::string message) {
  EnvelopeFinding f;
  f.id = std::move(id);
  f.verdict = verdict;
  f.reasons = why;
  f.file = std::move(file);
  f.line = line;
  f.message = std::move(message);
  return f;
}

void Envelope::count(Verdict v, int64_t n) {
  if (n <= 0) return;
  counts_[static_cast<size_t>(v)] += n;
  worst_ = join(worst_, v);
}

json::Object Envelope::object(int exit_code) const {
  json::Array findings;
  for (const EnvelopeFinding& f : findings_) {
    json::Object o;
    o.str("id", f.id).str("verdict", verdict_name(f.verdict));
    str_or_null(o, "reason", reasons_text(f.reasons));
    str_or_null(o, "file", f.file);
    num_or_null(o, "line", f.line > 0 ? std::optional(f.line) : std::nullopt);
    num_or_null(o, "rq", f.rq >= 0 ? std::optional(f.rq) : std::nullopt);
    num_or_null(o, "cpu", f.cpu >= 0 ? std::optional(f.cpu) : std::nullopt);
    str_or_null(o, "subject", f.subject);
    findings.add(o.str("message", f.message).append(f.extra));
  }
  return head(command_, exit_code, verdict_name(worst_))
      .object("counts", counts_object(counts_))
      .array("findings", findings)
      .num("findings_left_out", left_out_);
}

void add_tally(const VerdictTally& t, Envelope& envelope) {
  envelope.count(Verdict::Held, t.held);
  envelope.count(Verdict::Violated, t.violated);
  envelope.count(Verdict::Inconclusive, t.inconclusive);
  envelope.count(Verdict::NotApplicable, t.not_applicable);
}

std::string error_json(const std::string& command, const std::exception& error) {
  Place p;
  if (const auto* located = dynamic_cast<const trace::InputError*>(&error)) {
    p.file = located->file();
    p.line = located->line();
    p.field = located->field();
  } else {
    p = place_in(error.what());
  }
  json::Object e;
  e.str("message", error.what());
  str_or_null(e, "file", p.file);
  num_or_null(e, "line", p.line);
  str_or_null(e, "field", p.field);
  return head(command, 2, "error")
      .object("counts", counts_object({}))
      .array("findings", json::Array())
      .num("findings_left_out", 0)
      .object("error", e)
      .text();
}

}  // namespace vlag::cli
