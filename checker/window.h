// Minimal replayable windows: for a violation at event k of a runqueue, the shortest suffix of
// that runqueue's events ending at k that, started from the state before its first event
// (written as `entity` lines under a "window":true header, after the trace's `runqueue` lines),
// still shows a violation with the same ID at its last event. Found by
// replaying the trace up to candidate starts k, k−1, k−3, … (lengths 1, 2, 4, … 64) and
// re-checking each candidate as a trace of its own.
#pragma once

#include <optional>
#include <string>

#include "checker/report.h"
#include "checker/run.h"

namespace vlag::checker {

struct Window {
  std::string text;  // a complete trace: header, entity lines, events
  int64_t events = 0;
};

/// IDs a window can show: those judged on the trace's own numbers (not INV-STEP, which needs
/// the shadow from the start, nor the service figures, which need the whole history).
bool window_reproducible(const std::string& id);

/// The window, or nullopt with the reason in `why`.
std::optional<Window> minimal_window(const Source& source, const Violation& v, std::string& why);

}  // namespace vlag::checker
