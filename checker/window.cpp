#include "checker/window.h"

#include <deque>
#include <map>

#include "checker/checker.h"
#include "spec/properties.h"
#include "trace/reader.h"
#include "trace/writer.h"

namespace vlag::checker {
namespace {

constexpr int64_t kMaxWindow = 64;

// Does the candidate window, checked as a trace of its own, violate `id` at its last event?
bool reproduces(const std::string& text, const std::string& id, int64_t last_index) {
  try {
    CheckOptions quiet;
    quiet.arbiter = false;
    const Report r = check({text_source("window", text)}, quiet);
    for (const auto& v : r.violations)
      if (v.id == id && v.event_index == last_index) return true;
  } catch (const Error&) {
  }
  return false;
}

}  // namespace

bool window_reproducible(const std::string& id) {
  const Property* p = find_property(id);
  return p && p->judged.windowed;
}

std::optional<Window> minimal_window(const Source& source, const Violation& v, std::string& why) {
  if (!window_reproducible(v.id)) {
    why = v.id == ids::kInvStep ? v.id + " needs the shadow reference from the trace's start"
                                : "a service figure needs the whole history";
    return std::nullopt;
  }
  // Only the violation's runqueue replays into the window, after the trace's runqueue lines.
  const RunqueueId rq = v.rq.value_or(0);
  const int64_t k = v.rq_event_index;
  std::map<int64_t, std::vector<trace::Event>> snapshots;  // start index → state before it
  std::deque<trace::Event> recent;
  auto in = source.open();
  trace::Reader reader(*in, source.name);
  trace::Header header = reader.header();
  Report scratch;
  Checker checker(header, source.name, scratch);
  while (checker.events() <= v.event_index) {
    std::optional<trace::Event> e;
    bool ours = false;
    try {
      e = reader.next();
      if (!e) break;
      ours = e->rq == rq && e->kind != trace::EventKind::Runqueue;
      if (ours) {
        const RunqueueChecker* c = checker.runqueue(rq);
        const int64_t index = c ? c->events() : 0;
        if (k - index + 1 <= kMaxWindow && ((k - index + 1) & (k - index)) == 0)
          snapshots[index] = c ? c->snapshot() : std::vector<trace::Event>{};
      }
      checker.consume(*e, reader.line());
    } catch (const trace::InputError&) {
      continue;  // the pass that found v skipped it too (--keep-going)
    }
    if (!ours) continue;
    recent.push_back(*e);
    if (static_cast<int64_t>(recent.size()) > kMaxWindow) recent.pop_front();
  }
  if (checker.events() <= v.event_index) {
    why = "the trace ended before the violation on replay";
    return std::nullopt;
  }
  header.window = true;
  std::string start_text = trace::header_line(header) + "\n";
  for (const auto& d : checker.declarations()) start_text += trace::event_line(d) + "\n";
  const auto declared = static_cast<int64_t>(checker.declarations().size());
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    const int64_t start = it->first, length = k - start + 1;
    std::string text = start_text;
    for (const auto& e : it->second) text += trace::event_line(e) + "\n";
    for (auto e = recent.end() - length; e != recent.end(); ++e)
      text += trace::event_line(*e) + "\n";
    const int64_t last = declared + static_cast<int64_t>(it->second.size()) + length - 1;
    if (reproduces(text, v.id, last)) return Window{text, length};
  }
  why = "no suffix of up to 64 events reproduces it from the state at its start";
  return std::nullopt;
}

}  // namespace vlag::checker
