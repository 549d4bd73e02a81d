// A StateRecord and the kernel's parameters as text for people or as JSON Lines for scripts:
// what kernel/bpf/state_dump prints. Numbers are the kernel's own, unconverted (ns, weights as
// stored, vruntimes as u64).
#pragma once

#include <string>

#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::bpf {

std::string format_parameters_text(const KernelParameters& k);
std::string format_parameters_json(const KernelParameters& k);  // one line, "kind":"kernel"

std::string format_record_text(const StateRecord& r);  // one line per task level, '\n'-ended
std::string format_record_json(const StateRecord& r);  // one line, '\n'-ended

}  // namespace vlag::kernel::bpf
