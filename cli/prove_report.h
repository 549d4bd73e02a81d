// How `vlag prove` shows a result: text for people, JSON for scripts (scripts/results), and the
// exit code the verdict maps to; and what it can be asked (--list, --list-presets), from the
// property registry and the preset table.
#pragma once

#include <string>

#include "prove/prove.h"

namespace vlag::cli {

std::string text_report(const prove::Options& o, const prove::Result& r, const std::string& trace);
std::string json_report(const prove::Options& o, const prove::Result& r, const std::string& trace);
std::string default_trace_name(const prove::Options& o);
/// 0 proved/held, 1 counterexample, 3 unknown.
int exit_code(const prove::Result& r);

/// `--list`: one line per ID prove supports (spec/properties.h) — the driver it is searched
/// over (any schedule or the steady one), k-induction, the arithmetics, and the presets that
/// promise it — after a header line. One word per column, for scripts.
std::string list_text();
/// `--list-presets`: one line per preset (spec/features.h) — name, family, description.
std::string presets_text();

}  // namespace vlag::cli
