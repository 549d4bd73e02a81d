// capture(): loads kernel/bpf/state.bpf.c through its generated skeleton, attaches one probe
// per tracepoint, runs the command, drains the ring buffer into RecordDecoder until a stop
// condition, then detaches and reads the per-CPU lost-record counters.
#include "kernel/bpf/state_capture.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>

#include "kernel/bpf/kernel_btf.h"
#include "kernel/bpf/raw_capture.h"
#include "kernel/bpf/state.skel.h"
#include "kernel/bpf/state_decode.h"

namespace vlag::kernel::bpf {
namespace {

constexpr const char* kBtf = "/sys/kernel/btf/vmlinux";

// libbpf's messages during open and load, so a refusal can be shown with the verifier's reason.
std::deque<std::string>& libbpf_log() {
  static std::deque<std::string> lines;
  return lines;
}

int keep_libbpf_message(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  va_list copy;
  va_copy(copy, args);
  const int n = vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (n <= 0) return n;
  std::string text(static_cast<size_t>(n) + 1, '\0');
  vsnprintf(text.data(), text.size(), format, args);
  text.pop_back();
  // A verifier log comes as one message: keep its last lines, where the reason is.
  auto& log = libbpf_log();
  for (size_t at = 0; at < text.size();) {
    const size_t eol = text.find('\n', at);
    log.push_back(text.substr(at, eol == std::string::npos ? std::string::npos : eol - at));
    if (log.size() > 30) log.pop_front();
    if (eol == std::string::npos) break;
    at = eol + 1;
  }
  return n;
}

std::string libbpf_log_tail() {
  std::string s;
  for (const auto& line : libbpf_log()) s += "\n  " + line;
  return s;
}

struct SkeletonDeleter {
  void operator()(state_bpf* s) const { state_bpf__destroy(s); }
};
struct LinkDeleter {
  void operator()(bpf_link* l) const { bpf_link__destroy(l); }
};
struct RingDeleter {
  void operator()(ring_buffer* r) const { ring_buffer__free(r); }
};
using Link = std::unique_ptr<bpf_link, LinkDeleter>;

volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) { g_stop_signal = sig; }

// SIGINT and SIGTERM end the capture (not the process) while it runs.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

// Each tracepoint the program attaches to, by program, and when the program is wanted.
enum class When { Always, Queues, NoQueues, SetAttr };
struct Probe {
  bpf_program* (*program)(state_bpf*);
  const char* tracepoint;
  When when;
};
const Probe kProbes[] = {
    {[](state_bpf* s) { return s->progs.on_switch; }, "sched_switch", When::NoQueues},
    {[](state_bpf* s) { return s->progs.on_switch_queues; }, "sched_switch", When::Queues},
    {[](state_bpf* s) { return s->progs.on_waking; }, "sched_waking", When::Always},
    {[](state_bpf* s) { return s->progs.on_wakeup; }, "sched_wakeup", When::Always},
    {[](state_bpf* s) { return s->progs.on_wakeup_new; }, "sched_wakeup_new", When::Always},
    {[](state_bpf* s) { return s->progs.on_migrate; }, "sched_migrate_task", When::Always},
    {[](state_bpf* s) { return s->progs.on_runtime; }, "sched_stat_runtime", When::Always},
    {[](state_bpf* s) { return s->progs.on_exit; }, "sched_process_exit", When::Always},
#if defined(__x86_64__)
    {[](state_bpf* s) { return s->progs.on_sys_exit; }, "sys_exit", When::SetAttr},
#endif
};

bool wanted(const Probe& p, const CaptureOptions& o) {
  switch (p.when) {
    case When::Always:
      return true;
    case When::Queues:
      return o.queues;
    case When::NoQueues:
      return !o.queues;
    case When::SetAttr:
      return o.setattr;
  }
  return false;
}

void check_tracepoints(const CaptureOptions& o) {
  const struct btf* btf = kernel_btf();
  for (const Probe& p : kProbes) {
    if (!wanted(p, o)) continue;
    const std::string type = std::string("btf_trace_") + p.tracepoint;
    if (btf__find_by_name_kind(btf, type.c_str(), BTF_KIND_TYPEDEF) < 0)
      throw CaptureError(CaptureErrorKind::MissingTracepoint,
                         std::string("the running kernel has no tracepoint ") + p.tracepoint +
                             " (no " + type + " in " + kBtf + ")");
  }
#if !defined(__x86_64__)
  if (o.setattr)
    throw CaptureError(CaptureErrorKind::MissingTracepoint,
                       "the sys_exit probe reads x86-64 registers; this is another architecture");
#endif
}

void configure(state_bpf* skel, const CaptureOptions& o, int possible_cpus) {
  auto* ro = skel->rodata;
  std::memset(ro->cpu_mask, 0, sizeof ro->cpu_mask);
  const int max_cpus = static_cast<int>(sizeof ro->cpu_mask * 8);
  if (o.cpus.empty()) {
    for (int c = 0; c < possible_cpus && c < max_cpus; ++c)
      ro->cpu_mask[c / 64] |= 1ull << (c % 64);
  }
  for (const int c : o.cpus) {
    if (c < 0 || c >= possible_cpus || c >= max_cpus)
      throw CaptureError(CaptureErrorKind::System, "CPU " + std::to_string(c) +
                                                       " does not exist (CPUs 0-" +
                                                       std::to_string(possible_cpus - 1) + ")");
    ro->cpu_mask[c / 64] |= 1ull << (c % 64);
  }
  ro->wakeup_bytes = o.ring_bytes / 4;
  ro->setattr_nr[0] = SYS_setpriority;
  ro->setattr_nr[1] = SYS_sched_setattr;
  ro->setattr_nr[2] = SYS_sched_setscheduler;
  ro->setattr_nr[3] = SYS_sched_setparam;
  ro->setpriority_nr = SYS_setpriority;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (o.ring_bytes < page || (o.ring_bytes & (o.ring_bytes - 1)) != 0)
    throw CaptureError(CaptureErrorKind::System, "ring buffer size " +
                                                     std::to_string(o.ring_bytes) +
                                                     " is not a power of two of at least a page");
  bpf_map__set_max_entries(skel->maps.records, static_cast<__u32>(o.ring_bytes));
  for (const Probe& p : kProbes) bpf_program__set_autoload(p.program(skel), wanted(p, o));
}

// The command runs in a child started after the probes are attached; an exec failure comes back
// through a close-on-exec pipe, so it is an error here rather than a silent exit 127.
pid_t start_command(const std::vector<std::string>& command) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw CaptureError(CaptureErrorKind::System, std::string("pipe: ") + strerror(errno));
  const pid_t pid = fork();
  if (pid < 0)
    throw CaptureError(CaptureErrorKind::System, std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int err = errno;
    (void)!write(fds[1], &err, sizeof err);
    _exit(127);
  }
  close(fds[1]);
  int err = 0;
  const ssize_t n = read(fds[0], &err, sizeof err);
  close(fds[0]);
  if (n == sizeof err) {
    waitpid(pid, nullptr, 0);
    throw CaptureError(CaptureErrorKind::Command,
                       "cannot run " + command.front() + ": " + strerror(err));
  }
  return pid;
}

struct Drain {
  RecordDecoder decoder;
  StateRecord record;
  const std::function<void(const StateRecord&)>* on_record = nullptr;
  std::unique_ptr<RawWriter> raw;  // set: records go there undecoded
  uint64_t records = 0;
  std::exception_ptr failure;
};

// Called by libbpf for each record; exceptions stop here (libbpf is C) and are rethrown after.
int on_ring_record(void* ctx, void* data, size_t size) {
  auto* d = static_cast<Drain*>(ctx);
  try {
    if (d->raw) {
      d->raw->write(data, size);
      ++d->records;
    } else if (d->decoder.decode(data, size, d->record)) {
      ++d->records;
      (*d->on_record)(d->record);
    }
  } catch (...) {
    d->failure = std::current_exception();
    return -1;
  }
  return 0;
}

std::vector<uint64_t> read_lost(state_bpf* skel, int possible_cpus) {
  std::vector<uint64_t> per_cpu(static_cast<size_t>(possible_cpus), 0);
  const __u32 key = 0;
  if (bpf_map__lookup_elem(skel->maps.lost, &key, sizeof key, per_cpu.data(),
                           per_cpu.size() * sizeof(uint64_t), 0) != 0)
    throw CaptureError(CaptureErrorKind::System, "cannot read the lost-record counters");
  return per_cpu;
}

}  // namespace

bool capture_built() { return true; }

std::optional<CaptureError> capture_unavailable() {
  if (geteuid() != 0)
    return CaptureError(
        CaptureErrorKind::NotRoot,
        "loading the BPF program needs root (CAP_BPF and CAP_PERFMON); run as root");
  if (access(kBtf, R_OK) != 0)
    return CaptureError(CaptureErrorKind::NoBtf,
                        std::string(kBtf) +
                            " is missing: the running kernel was built without "
                            "CONFIG_DEBUG_INFO_BTF, so the CO-RE program has nothing to be "
                            "relocated against");
  return std::nullopt;
}

CaptureResult capture(const CaptureOptions& options,
                      const std::function<void(const StateRecord&)>& on_record,
                      const std::function<void(const KernelParameters&)>& on_start) {
  CaptureResult result;
  result.kernel = read_kernel_parameters();
  const int cpus = result.kernel.possible_cpus;
  check_tracepoints(options);

  libbpf_log().clear();
  const libbpf_print_fn_t old_print = libbpf_set_print(keep_libbpf_message);
  struct RestorePrint {
    libbpf_print_fn_t fn;
    ~RestorePrint() { libbpf_set_print(fn); }
  } restore{old_print};

  std::unique_ptr<state_bpf, SkeletonDeleter> skel(state_bpf__open());
  if (!skel)
    throw CaptureError(CaptureErrorKind::Load, "cannot open the BPF object" + libbpf_log_tail());
  configure(skel.get(), options, cpus);
  if (const int err = state_bpf__load(skel.get()))
    throw CaptureError(CaptureErrorKind::Load, std::string("the kernel refused the program (") +
                                                   strerror(-err) + "):" + libbpf_log_tail());

  std::vector<Link> links;
  for (const Probe& p : kProbes) {
    if (!wanted(p, options)) continue;
    bpf_link* link = bpf_program__attach(p.program(skel.get()));
    if (!link)
      throw CaptureError(CaptureErrorKind::Attach, std::string("cannot attach to tracepoint ") +
                                                       p.tracepoint + " (" + strerror(errno) +
                                                       "):" + libbpf_log_tail());
    links.emplace_back(link);
  }

  Drain drain;
  drain.on_record = &on_record;
  if (!options.raw_path.empty()) drain.raw = std::make_unique<RawWriter>(options.raw_path);
  std::unique_ptr<ring_buffer, RingDeleter> ring(
      ring_buffer__new(bpf_map__fd(skel->maps.records), on_ring_record, &drain, nullptr));
  if (!ring) throw CaptureError(CaptureErrorKind::System, "cannot map the ring buffer");

  const StopSignals signals;
  if (on_start) on_start(result.kernel);
  const auto start = std::chrono::steady_clock::now();
  pid_t child = options.command.empty() ? -1 : start_command(options.command);
  const auto drain_now = [&](int timeout_ms) {
    const int n = ring_buffer__poll(ring.get(), timeout_ms);
    if (n >= 0 || n == -EINTR) ring_buffer__consume(ring.get());
    if (drain.failure) {
      if (child > 0) {
        kill(child, SIGTERM);
        waitpid(child, nullptr, 0);
      }
      std::rethrow_exception(drain.failure);
    }
  };
  while (true) {
    drain_now(20);
    if (g_stop_signal) {
      result.stopped_by = "signal";
      break;
    }
    if (child > 0) {
      int status = 0;
      if (waitpid(child, &status, WNOHANG) == child) {
        child = -1;
        result.command_status = status;
        result.stopped_by = "command";
        break;
      }
    }
    const std::chrono::duration<double> ran = std::chrono::steady_clock::now() - start;
    if (options.duration_s > 0 && ran.count() >= options.duration_s) {
      result.stopped_by = "duration";
      break;
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  links.clear();  // detached: nothing more is written, the rest is drained
  drain_now(0);
  if (child > 0) {
    kill(child, SIGTERM);
    waitpid(child, &result.command_status, 0);
  }
  if (drain.raw) drain.raw->close();
  result.records = drain.records;
  result.lost_per_cpu = read_lost(skel.get(), cpus);
  return result;
}

}  // namespace vlag::kernel::bpf
