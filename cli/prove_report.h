// How `vlag prove` shows a result: text for people, JSON for scripts (scripts/results), and the
// exit code the verdict maps to.
#pragma once

#include <string>

#include "prove/prove.h"

namespace vlag::cli {

std::string text_report(const prove::Options& o, const prove::Result& r, const std::string& trace);
std::string json_report(const prove::Options& o, const prove::Result& r, const std::string& trace);
std::string default_trace_name(const prove::Options& o);
/// 0 proved/held, 1 counterexample, 3 unknown.
int exit_code(const prove::Result& r);

}  // namespace vlag::cli
