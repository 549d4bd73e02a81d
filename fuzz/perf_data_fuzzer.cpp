// Fuzzes the native perf.data reader (its header, attrs, tracing data through libtraceevent,
// records and samples) and the kernel service layer behind it: any input either reads or is
// rejected with vlag::Error; nothing crashes (libtraceevent's own crashes end the child the
// reader runs it in first, and are errors too). And the reader's word on what it is done with
// (kernel/perf_data_reader.h's progress, by which a mapped file drops pages) holds: a reading in
// which every byte it gave up is overwritten as it says so reads what the plain reading reads.
// A reading with a merge window, which holds its records undecoded while they come in time order
// (kernel/deferred_merge.h), gives what the plain reading through a TimeMerger gives (the same
// error, passing on no fewer events before it), and gives it with its given-up bytes overwritten.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "kernel/perf_data_reader.h"
#include "kernel/service.h"
#include "kernel/time_merge.h"
#include "spec/error.h"

// libtraceevent 1.7 leaks a few bytes when a format fails to parse (its error paths): the
// library's, not the reader's, so LeakSanitizer is told to pass over what it allocated.
extern "C" const char* __lsan_default_suppressions() { return "leak:libtraceevent.so\n"; }

namespace {

// What a reading gave, as far as two readings could differ: each event's fields, the error.
void add(std::string& out, const vlag::kernel::KernelEvent& e) {
  out += std::to_string(e.line) + ' ' + std::to_string(e.time_ns) + ' ' + std::to_string(e.cpu) +
         ' ' + std::to_string(static_cast<int>(e.kind)) + ' ' + std::to_string(e.pid) + ' ' +
         std::to_string(e.prev_pid) + ' ' + e.comm + ' ' + e.prev_comm + ' ' + e.prev_state + ' ' +
         std::to_string(e.current_pid.value_or(-1)) + ' ' + std::to_string(e.child_pid) + '\n';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string plain;
  for (const bool keep_going : {false, true}) {
    vlag::kernel::KernelServiceLayer layer("fuzz", {});
    try {
      vlag::kernel::read_perf_data_bytes(bytes, "fuzz",
                                         [&](vlag::kernel::KernelEvent& e) {
                                           if (keep_going) add(plain, e);
                                           layer.on_event(e);
                                         },
                                         {keep_going});
    } catch (const vlag::Error& e) {
      if (keep_going) plain += e.what();
    }
    layer.finish();
  }
  std::string scribbled(bytes), read;
  uint64_t given_up = 0;
  try {
    vlag::kernel::read_perf_data_bytes(
        scribbled, "fuzz", [&](vlag::kernel::KernelEvent& e) { add(read, e); }, {true},
        [&](uint64_t needed_from, uint64_t) {
          if (needed_from > given_up && needed_from <= scribbled.size()) {
            std::memset(scribbled.data() + given_up, 0xa5, needed_from - given_up);
            given_up = needed_from;
          }
        });
  } catch (const vlag::Error& e) {
    read += e.what();
  }
  if (read != plain) std::abort();  // the reader read a byte again that it had given up

  constexpr size_t kWindow = 3;
  std::string merged;
  {
    vlag::kernel::TimeMerger merge(kWindow,
                                   [&](const vlag::kernel::KernelEvent& e) { add(merged, e); });
    try {
      vlag::kernel::read_perf_data_bytes(
          bytes, "fuzz", [&](vlag::kernel::KernelEvent& e) { merge.push(std::move(e)); }, {false});
      merge.flush();
    } catch (const vlag::Error& e) {
      merged += e.what();
    }
  }
  for (const bool scribble : {false, true}) {
    std::string input(bytes), windowed, error;
    given_up = 0;
    try {
      vlag::kernel::read_perf_data_bytes(
          input, "fuzz", [&](vlag::kernel::KernelEvent& e) { add(windowed, e); }, {false},
          [&](uint64_t needed_from, uint64_t) {
            if (scribble && needed_from > given_up && needed_from <= input.size()) {
              std::memset(input.data() + given_up, 0xa5, needed_from - given_up);
              given_up = needed_from;
            }
          },
          kWindow);
    } catch (const vlag::Error& e) {
      error = e.what();
    }
    // The same error after the events the merger passed on before it; the deferred merge may
    // have passed on the merger's last window too.
    const bool same =
        error.empty() ? windowed == merged
                      : merged.ends_with(error) &&
                            windowed.starts_with(merged.substr(0, merged.size() - error.size()));
    if (!same) std::abort();
  }
  return 0;
}
