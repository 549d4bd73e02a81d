// Capturing the running Linux kernel's own EEVDF state with BPF (issue 14, phase 1; the
// records feed SPEC.md §6's checks on the kernel's numbers once spec/TRACE.md v2 carries them):
// preconditions, the kernel's parameters at start, the decoded records streamed to a callback,
// the lost records per CPU. kernel/bpf/README.md says what each tracepoint sees and how the
// fields map to the kernel's. No BPF or libbpf type appears here; without clang, bpftool or
// libbpf at build time the same functions exist and fail with CaptureErrorKind::NotBuilt.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "spec/error.h"

namespace vlag::kernel::bpf {

enum class RecordKind { Switch, Wakeup, WakeupNew, Migrate, Runtime, Exit, SetAttr };
const char* kind_name(RecordKind kind);

// A cfs_rq as the kernel held it when the record was taken. Field names are the 6.18 ones; on
// older kernels zero_vruntime is min_vruntime, sum_w_vruntime avg_vruntime, sum_weight
// avg_load, nr_queued nr_running (KernelLayout says which).
struct CfsRqState {
  uint64_t id = 0;  // its address
  uint64_t zero_vruntime = 0;
  int64_t sum_w_vruntime = 0;  // Σ (v_i − zero_vruntime)·w_i over the tree (curr excluded)
  uint64_t sum_weight = 0;     // Σ w_i over the tree (curr excluded)
  uint64_t load_weight = 0;    // cfs_rq->load.weight: every queued entity, curr included
  uint64_t curr = 0;           // entity ids, 0 for none
  uint64_t next = 0;
  uint32_t nr_queued = 0;  // queued entities, curr and delayed ones included
  uint32_t h_nr_queued = 0;
};

// A sched_entity as a cfs_rq's tree holds it (what queue snapshots carry of each entity).
struct QueuedEntity {
  uint64_t id = 0;  // its address
  int32_t pid = 0;  // the task, 0 for a group entity
  uint64_t vruntime = 0;
  uint64_t deadline = 0;
  uint64_t weight = 0;  // se->load.weight as stored: nice 0 is 1048576 on 64-bit
  uint64_t slice = 0;
  int64_t vlag = 0;
  bool on_rq = false;
  bool sched_delayed = false;
  bool rel_deadline = false;
  bool custom_slice = false;
  bool is_group = false;  // owns a cfs_rq (my_q): a task group's entity
};

// One sched_entity of a task's chain and the cfs_rq it is queued on.
struct EntityState : QueuedEntity {
  uint64_t vprot = 0;  // the same bits as vlag where the kernel keeps them in a union
  uint64_t sum_exec_runtime = 0;
  uint64_t min_slice = 0;
  CfsRqState cfs_rq;
};

// A task's own entity when sched_waking fired: before its wakeup requeued, migrated or placed it.
struct WakingState {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  QueuedEntity entity;
};

struct TaskState {
  int32_t pid = 0;
  int32_t tgid = 0;
  std::string comm;
  int32_t prio = 0;  // 100 + 20 + nice for fair tasks
  uint32_t policy = 0;
  int32_t task_cpu = 0;
  uint32_t state = 0;  // p->__state
  int32_t on_rq = 0;   // p->on_rq: 0, 1 queued, 2 migrating
  bool fair = false;   // a fair-class task: chain follows
  bool chain_truncated = false;
  std::vector<EntityState> chain;  // [0] the task's entity … back() queued on the root cfs_rq
  // Switch: next's chain from this index on is prev's (the entities both share, kept as curr
  // by the pick; 0xff: none shared). The decoder has copied them into next's chain.
  uint8_t shared_from = 0xff;
  // Wakeup and wakeup_new records that carry them (state_record.h): the curr of each chain
  // level's cfs_rq as the tracepoint saw it ([i] for chain[i]'s cfs_rq; id 0: none), and the
  // task's entity at sched_waking. Empty and nullopt in older captures and other kinds.
  std::vector<QueuedEntity> level_curr;
  std::optional<WakingState> waking;
};

// Every entity in one cfs_rq's tree at a switch: the competitors of the entity picked there.
struct QueueSnapshot {
  uint64_t cfs_rq = 0;
  int level = 0;           // index into next's chain
  uint32_t nr_queued = 0;  // the cfs_rq's count, curr included
  bool truncated = false;  // more than the program keeps (32)
  std::vector<QueuedEntity> entities;
};

struct StateRecord {
  RecordKind kind = RecordKind::Switch;
  uint64_t time_ns = 0;   // CLOCK_MONOTONIC
  int32_t cpu = 0;        // the CPU whose runqueue this is about
  int32_t probe_cpu = 0;  // the CPU the probe ran on
  uint64_t rq_clock = 0;
  uint64_t rq_clock_task = 0;
  uint32_t rq_nr_running = 0;
  std::vector<TaskState> tasks;  // Switch: {prev, next}; every other kind: {the task}
  bool preempt = false;          // Switch
  uint32_t prev_state = 0;       // Switch
  int32_t dest_cpu = -1;         // Migrate
  uint64_t runtime_ns = 0;       // Runtime: the delta update_curr() charged
  int64_t syscall = -1;          // SetAttr: the syscall number, its return value, its target
  int64_t syscall_ret = 0;
  int32_t target_pid = 0;             // 0: the caller itself, -1: a process group or user
  std::vector<QueueSnapshot> queues;  // Switch with queues: [i] is next's chain level i's cfs_rq
  bool queues_complete = true;        // false when a queue record was lost
};

// Which of the renamed or version-dependent fields the running kernel has (from its BTF).
struct KernelLayout {
  bool zero_vruntime = false;  // cfs_rq zero_vruntime (else min_vruntime)
  bool sum_names = false;      // sum_w_vruntime / sum_weight (else avg_vruntime / avg_load)
  bool nr_queued = false;      // nr_queued (else nr_running)
  bool vprot = false;          // se->vprot exists
  bool vprot_union = false;    // ... in a union with se->vlag
  bool sched_delayed = false;
  bool rel_deadline = false;
  bool custom_slice = false;
  bool min_slice = false;
  bool max_slice = false;
  std::string describe() const;  // one line, e.g. "zero_vruntime sum_w_vruntime/sum_weight ..."
};

struct SchedFeature {
  std::string name;
  bool enabled = false;
};

struct KernelParameters {
  std::string release;  // uname -r
  int possible_cpus = 0;
  uint64_t base_slice_ns = 0;
  std::string base_slice_source;  // the file it came from
  int hz = 0;                     // 0: not known
  std::string hz_source;
  std::vector<SchedFeature> features;  // in the kernel's bit order
  std::string features_source;
  KernelLayout layout;
};

struct CaptureOptions {
  std::vector<int> cpus;             // empty: every CPU
  double duration_s = 0;             // 0: until the command exits or a signal
  std::vector<std::string> command;  // run after the probes are attached
  bool queues = false;   // at each switch, every entity in next's cfs_rqs (costly: README)
  bool setattr = false;  // the sys_exit probe for renice / sched_setattr (every syscall pays)
  size_t ring_bytes = size_t{32} << 20;  // a power of two, at least one page
  std::string raw_path;  // write the records here undecoded (raw_capture.h), not to on_record
};

struct CaptureResult {
  KernelParameters kernel;
  uint64_t records = 0;  // delivered to on_record, or ring records written to raw_path
  std::vector<uint64_t> lost_per_cpu;  // by CPU number, records the ring buffer had no room for
  uint64_t lost_total() const;
  double seconds = 0;
  std::string stopped_by;  // "duration", "command", "signal"
  int command_status = 0;  // the command's wait status (0 without a command)
};

enum class CaptureErrorKind {
  NotBuilt,           // the BPF part was not built (clang, bpftool or libbpf missing)
  NotRoot,            // loading BPF programs needs root (CAP_BPF and CAP_PERFMON)
  NoBtf,              // no /sys/kernel/btf/vmlinux: CO-RE has nothing to relocate against
  MissingTracepoint,  // the running kernel has no such tracepoint
  Load,               // the kernel refused the program (the verifier's reason follows)
  Attach,             // a tracepoint would not attach
  Command,            // the command could not be started
  System,             // anything else the system refused
};
const char* error_kind_name(CaptureErrorKind kind);

// A vlag::Error (the CLI's exit 2) that says which precondition failed.
class CaptureError : public Error {
 public:
  CaptureError(CaptureErrorKind kind, const std::string& message);
  CaptureErrorKind kind() const { return kind_; }

 private:
  CaptureErrorKind kind_;
};

// Whether the BPF part was built into this binary.
bool capture_built();

// The first precondition that fails here (not built, not root, no BTF), or nothing.
std::optional<CaptureError> capture_unavailable();

// The base slice, HZ, sched features and field layout of the running kernel. Throws CaptureError.
KernelParameters read_kernel_parameters();

// Captures until the duration passes, the command exits or SIGINT/SIGTERM arrives, calling
// on_start once the probes are attached and on_record for each record in the order the ring
// buffer holds them (per CPU in time order; across CPUs merge by time_ns). The record passed is
// reused: copy what must outlive the call. Throws CaptureError.
CaptureResult capture(const CaptureOptions& options,
                      const std::function<void(const StateRecord&)>& on_record,
                      const std::function<void(const KernelParameters&)>& on_start = {});

}  // namespace vlag::kernel::bpf
