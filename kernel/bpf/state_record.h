/* The records kernel/bpf/state.bpf.c writes to its ring buffer, shared by the BPF program and
 * its decoder (state_decode.cpp): plain C, fixed-width UAPI types, no kernel types. Only the
 * decoder reads this layout; everything else sees the C++ structs of state_capture.h.
 *
 * A record is a header followed by its payload. A task record (switch, wakeup, wakeup_new,
 * migrate, runtime, exit, setattr) carries `ntasks` task blocks (two for a switch: prev, next)
 * and then the entity levels of all of them, packed: task i owns `nlevels` levels starting at
 * `first_level`. Level 0 of a task is its own sched_entity, the last level the one queued on
 * the CPU's root cfs_rq. In a switch, next's chain stops where it meets prev's: from there on
 * (`shared_from`, an index into prev's levels) the entities are prev's, kept as curr, and are
 * not sent twice. A queue record carries the entities in one cfs_rq's tree.
 *
 * A wakeup or wakeup_new record may carry two more blocks after its levels, each announced by a
 * flag of its task block: the curr entity of each level's cfs_rq as the tracepoint saw it
 * (VLAG_BPF_TASK_CURRS: `nlevels` entities, se 0 where the cfs_rq had no curr), then the task's
 * own entity when sched_waking fired, before the wakeup changed anything (VLAG_BPF_TASK_WAKING: a
 * vlag_bpf_waking). Records without these flags (older captures) end at the levels. */
#ifndef VLAG_KERNEL_BPF_STATE_RECORD_H
#define VLAG_KERNEL_BPF_STATE_RECORD_H

#include <linux/types.h>

#define VLAG_BPF_MAX_LEVELS 8 /* entity levels kept per task: deeper chains are cut */
#define VLAG_BPF_MAX_QUEUE 32 /* tree entities kept per queue record */
#define VLAG_BPF_CPU_WORDS 8  /* the CPU filter: 64 * 8 = 512 CPUs */
#define VLAG_BPF_COMM_LEN 16
#define VLAG_BPF_NOT_SHARED 0xff

enum vlag_bpf_kind {
  VLAG_BPF_SWITCH = 1,
  VLAG_BPF_WAKEUP = 2,
  VLAG_BPF_WAKEUP_NEW = 3,
  VLAG_BPF_MIGRATE = 4,
  VLAG_BPF_RUNTIME = 5,
  VLAG_BPF_EXIT = 6,
  VLAG_BPF_SETATTR = 7,
  VLAG_BPF_QUEUE = 8,
};

/* vlag_bpf_level.flags */
#define VLAG_BPF_ON_RQ (1u << 0)
#define VLAG_BPF_DELAYED (1u << 1)
#define VLAG_BPF_REL_DEADLINE (1u << 2)
#define VLAG_BPF_CUSTOM_SLICE (1u << 3)
#define VLAG_BPF_GROUP (1u << 4) /* the entity owns a cfs_rq (my_q): a task group */

/* vlag_bpf_task.flags */
#define VLAG_BPF_TASK_FAIR (1u << 0)      /* a fair-class policy and priority: levels follow */
#define VLAG_BPF_TASK_TRUNCATED (1u << 1) /* the chain was deeper than VLAG_BPF_MAX_LEVELS */
#define VLAG_BPF_TASK_CURRS (1u << 2)     /* wakeups: each level's cfs_rq curr follows the levels */
#define VLAG_BPF_TASK_WAKING (1u << 3)    /* wakeups: the entity at sched_waking follows */

struct vlag_bpf_header {
  __u64 time_ns;       /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
  __u64 rq_clock;      /* rq->clock of the runqueue `cpu` */
  __u64 rq_clock_task; /* rq->clock_task: the clock update_curr() charges */
  __u64 arg;           /* switch: prev_state; migrate: dest CPU; runtime: delta ns;
                          setattr: syscall number; queue: the cfs_rq's address */
  __s64 arg2;          /* switch: preempt; setattr: return value; queue: level in next's chain */
  __u32 kind;          /* enum vlag_bpf_kind */
  __u32 cpu;           /* the CPU whose runqueue the record is about */
  __u32 probe_cpu;     /* the CPU the probe ran on (differs for remote wakeups) */
  __u32 rq_nr_running; /* rq->nr_running */
  __u16 ntasks;        /* task records: task blocks that follow */
  __u16 nlevels;       /* task records: levels after the task blocks; queue: entities */
  __u16 nqueues;       /* switch: queue records emitted just before it on probe_cpu */
  __u16 truncated;     /* queue: the tree held more than VLAG_BPF_MAX_QUEUE entities */
  __u32 queue_nr;      /* queue: cfs_rq nr_queued at the dump */
  __s32 target_pid;    /* setattr: the pid the call named (0: the caller; -1: a group) */
};

struct vlag_bpf_task {
  __s32 pid;
  __s32 tgid;
  char comm[VLAG_BPF_COMM_LEN];
  __s32 prio;
  __u32 policy;
  __u32 task_cpu; /* task_cpu(p) */
  __u32 state;    /* p->__state */
  __u32 on_rq;    /* p->on_rq: 0, 1 queued, 2 migrating */
  __u16 flags;    /* VLAG_BPF_TASK_* */
  __u8 first_level;
  __u8 nlevels;     /* levels of its own */
  __u8 shared_from; /* next: its chain goes on as prev's from this level; VLAG_BPF_NOT_SHARED */
  __u8 pad[7];      /* levels follow task blocks unpadded: keep every block 8-byte sized */
};

/* An entity as a cfs_rq's tree holds it: the part of a level a queue record repeats. */
struct vlag_bpf_entity {
  __u64 se;
  __u64 vruntime;
  __u64 deadline;
  __u64 weight; /* se->load.weight, as the kernel stores it (scaled by 1024 on 64-bit) */
  __u64 slice;
  __u64 vlag;  /* se->vlag, raw bits */
  __u32 flags; /* VLAG_BPF_ON_RQ ... */
  __s32 pid;   /* the entity's task, 0 for a group entity */
};

/* The task's own entity at sched_waking: read at the start of try_to_wake_up() under the task's
 * pi_lock, not under a runqueue lock (README.md, "What each tracepoint sees"). */
struct vlag_bpf_waking {
  __u64 time_ns; /* bpf_ktime_get_ns() at sched_waking */
  struct vlag_bpf_entity e;
};

struct vlag_bpf_level {
  struct vlag_bpf_entity e;
  __u64 vprot; /* se->vprot, raw bits: the same word as vlag where they share a union */
  __u64 sum_exec_runtime;
  __u64 min_slice; /* the augmented subtree minimum slice (0 where the field is absent) */
  /* the cfs_rq it is queued on (se->cfs_rq) */
  __u64 cfs_rq;
  __u64 zero_vruntime;  /* zero_vruntime, or min_vruntime in older kernels */
  __s64 sum_w_vruntime; /* sum_w_vruntime, or avg_vruntime in older kernels */
  __u64 sum_weight;     /* sum_weight, or avg_load in older kernels */
  __u64 cfs_load;       /* cfs_rq->load.weight */
  __u64 curr;
  __u64 next;
  __u32 nr_queued;   /* nr_queued, or nr_running in older kernels */
  __u32 h_nr_queued; /* h_nr_queued, or h_nr_running in older kernels */
};

/* Blocks follow each other unpadded, in the program's staging structs as on the wire. */
#ifdef __cplusplus
#define VLAG_BPF_STATIC_ASSERT static_assert
#else
#define VLAG_BPF_STATIC_ASSERT _Static_assert
#endif
VLAG_BPF_STATIC_ASSERT(sizeof(struct vlag_bpf_header) % 8 == 0, "header size");
VLAG_BPF_STATIC_ASSERT(sizeof(struct vlag_bpf_task) % 8 == 0, "task block size");
VLAG_BPF_STATIC_ASSERT(sizeof(struct vlag_bpf_level) % 8 == 0, "level size");
VLAG_BPF_STATIC_ASSERT(sizeof(struct vlag_bpf_entity) % 8 == 0, "entity size");
VLAG_BPF_STATIC_ASSERT(sizeof(struct vlag_bpf_waking) % 8 == 0, "waking block size");

/* Which field names the running kernel has; filled by the loader from BTF, reported once. */
#define VLAG_BPF_LAYOUT_ZERO_VRUNTIME (1u << 0) /* cfs_rq zero_vruntime (else min_vruntime) */
#define VLAG_BPF_LAYOUT_SUM_NAMES (1u << 1)     /* sum_w_vruntime/sum_weight (else avg_*) */
#define VLAG_BPF_LAYOUT_NR_QUEUED (1u << 2)     /* nr_queued (else nr_running) */
#define VLAG_BPF_LAYOUT_VPROT (1u << 3)         /* se->vprot exists */
#define VLAG_BPF_LAYOUT_VPROT_UNION (1u << 4)   /* ... sharing its word with vlag */
#define VLAG_BPF_LAYOUT_DELAYED (1u << 5)       /* se->sched_delayed */
#define VLAG_BPF_LAYOUT_REL_DEADLINE (1u << 6)  /* se->rel_deadline */
#define VLAG_BPF_LAYOUT_CUSTOM_SLICE (1u << 7)  /* se->custom_slice */
#define VLAG_BPF_LAYOUT_MIN_SLICE (1u << 8)     /* se->min_slice */
#define VLAG_BPF_LAYOUT_MAX_SLICE (1u << 9)     /* se->max_slice */

#endif
