#include "cli/verdict_json.h"

#include "json/writer.h"

namespace vlag::cli {

std::string reasons_text(Reasons why) {
  std::string s;
  for (size_t i = 0; i < kReasonCount; ++i)
    if (why.has(static_cast<Reason>(i)))
      s += (s.empty() ? "" : ", ") + std::string(reason_name(static_cast<Reason>(i)));
  return s;
}

std::string reasons_json(Reasons why) {
  json::Array a;
  for (size_t i = 0; i < kReasonCount; ++i)
    if (why.has(static_cast<Reason>(i)))
      a.add_string(std::string(reason_name(static_cast<Reason>(i))));
  return a.text();
}

std::string tally_json(const std::string& id, const VerdictTally& c) {
  json::Object inc, na;
  for (size_t i = 0; i < kReasonCount; ++i) {
    const std::string name(reason_name(static_cast<Reason>(i)));
    if (c.inconclusive_by_reason[i]) inc.num(name, c.inconclusive_by_reason[i]);
    if (c.not_applicable_by_reason[i]) na.num(name, c.not_applicable_by_reason[i]);
  }
  return json::Object()
      .str("id", id)
      .num("checked", c.checked())
      .num("held", c.held)
      .num("inconclusive", c.inconclusive)
      .num("violated", c.violated)
      .num("not_applicable", c.not_applicable)
      .raw("inconclusive_reasons", inc.text())
      .raw("not_applicable_reasons", na.text())
      .text();
}

}  // namespace vlag::cli
