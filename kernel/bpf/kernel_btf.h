// The running kernel's BTF (/sys/kernel/btf/vmlinux), parsed once per process and shared by
// read_kernel_parameters() and capture(): parsing it takes a tenth of a second.
#pragma once

struct btf;

namespace vlag::kernel::bpf {

// Throws CaptureError (NoBtf) when the file is missing or cannot be parsed.
const struct btf* kernel_btf();

}  // namespace vlag::kernel::bpf
