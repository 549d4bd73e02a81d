/* The kernel's own EEVDF state at every scheduler event: a CO-RE BPF program on the sched
 * tracepoints (tp_btf, BTF-typed arguments) that copies, for each task involved, its
 * sched_entity and every ancestor group entity up to the root together with the cfs_rq each is
 * queued on, and streams the records (state_record.h) through a ring buffer. What each
 * tracepoint sees, before or after which kernel step, is in README.md ("What each tracepoint
 * sees"); the fields are read through sched_types.bpf.h, never through a vmlinux.h. */
/* linux/bpf.h first: libbpf's headers use its types. */
/* clang-format off */
#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
/* clang-format on */

#include "kernel/bpf/sched_types.bpf.h"
#include "kernel/bpf/state_record.h"

/* Tracing helpers (bpf_probe_read_kernel and others) are GPL-only in the kernel. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load. */
const volatile __u64 cpu_mask[VLAG_BPF_CPU_WORDS] = {};
const volatile __u64 wakeup_bytes = 1 << 20;
const volatile __s64 setattr_nr[4] = {-1, -1, -1, -1}; /* setpriority, sched_setattr, ... */
const volatile __s64 setpriority_nr = -1;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 24); /* the loader sets the size */
} records SEC(".maps");

/* Records the ring buffer had no room for, per CPU. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} lost SEC(".maps");

#define LEVEL_SLOTS (2 * VLAG_BPF_MAX_LEVELS) /* a power of two: indexes are masked */

struct task_record {
  struct vlag_bpf_header h;
  struct vlag_bpf_task task;
  struct vlag_bpf_level levels[VLAG_BPF_MAX_LEVELS];
  /* Wakeups: room for the blocks sent right after the levels in use (state_record.h), so they
   * start inside levels[] when the chain is short. */
  struct vlag_bpf_entity currs[VLAG_BPF_MAX_LEVELS];
  struct vlag_bpf_waking waking;
};

struct switch_record {
  struct vlag_bpf_header h;
  struct vlag_bpf_task tasks[2];
  struct vlag_bpf_level levels[LEVEL_SLOTS];
};

#define STACK_SLOTS 64
struct queue_record {
  struct vlag_bpf_header h;
  struct vlag_bpf_entity queued[VLAG_BPF_MAX_QUEUE];
  /* Not sent: the tree walk's work list and counters. They live in the map value rather than
   * on the stack so the verifier treats them as unknown numbers instead of following each
   * value they can take (which runs past its instruction limit). */
  __u64 stack[STACK_SLOTS];
  __u32 top;
  __u32 n;
};

/* Per-CPU staging areas. Probes that run with interrupts disabled under the runqueue lock use
 * slot 0; sched_process_exit and sys_exit run with interrupts enabled, and a wakeup from an
 * interrupt could land in the middle of them, so they use slot 1. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, struct task_record);
} task_scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct switch_record);
} switch_scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct queue_record);
} queue_scratch SEC(".maps");

/* Each fair task's own entity at its last sched_waking, by pid, until its wakeup record takes
 * it: the state before try_to_wake_up() changed anything. */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 1 << 14);
  __type(key, __s32);
  __type(value, struct vlag_bpf_waking);
} waking SEC(".maps");

#define SCHED_NORMAL 0
#define SCHED_BATCH 3
#define SCHED_IDLE 5
#define MAX_RT_PRIO 100

static __always_inline int cpu_wanted(__u32 cpu) {
  const __u64 c = cpu;
  if (c >= 64 * VLAG_BPF_CPU_WORDS) return 0;
  /* The mask repeats the bound for the verifier, which may see the test above on 32 bits. */
  return (cpu_mask[(c / 64) & (VLAG_BPF_CPU_WORDS - 1)] >> (c & 63)) & 1;
}

static __always_inline __u32 task_cpu(struct task_struct* p) {
  if (bpf_core_field_exists(p->thread_info.cpu)) return p->thread_info.cpu;
  return p->cpu;
}

/* The fair class holds the normal, batch and idle policies unless priority inheritance lends
 * an RT or deadline priority (prio < 100); pid 0 is the idle task, whose policy reads normal. */
static __always_inline int task_is_fair(struct task_struct* p) {
  const unsigned int policy = p->policy;
  if (p->pid == 0) return 0;
  if (policy != SCHED_NORMAL && policy != SCHED_BATCH && policy != SCHED_IDLE) return 0;
  return p->prio >= MAX_RT_PRIO;
}

/* The clocks of the runqueue `p` is queued on, or would be: every task's se.cfs_rq is set by
 * set_task_rq() whatever its class. A per-CPU `runqueues` ksym would be simpler, but kernels
 * built without CONFIG_KALLSYMS_ALL cannot resolve data symbols for BPF. */
static __always_inline void fill_rq(struct vlag_bpf_header* h, struct task_struct* p) {
  struct cfs_rq* c = p->se.cfs_rq;
  if (!c) return;
  if (bpf_core_field_exists(c->rq)) {
    struct rq* rq = c->rq; /* a BTF pointer: plain loads */
    if (!rq) return;
    h->rq_clock = rq->clock;
    h->rq_clock_task = rq->clock_task;
    h->rq_nr_running = rq->nr_running;
  } else {
    /* Without group scheduling every task is on its rq's own cfs_rq; the computed pointer is
     * no BTF pointer, so it is read through probes. */
    struct rq* rq = (struct rq*)((__u64)c - bpf_core_field_offset(struct rq, cfs));
    h->rq_clock = BPF_CORE_READ(rq, clock);
    h->rq_clock_task = BPF_CORE_READ(rq, clock_task);
    h->rq_nr_running = BPF_CORE_READ(rq, nr_running);
  }
}

static __always_inline void fill_header(struct vlag_bpf_header* h, __u32 kind, __u32 cpu,
                                        struct task_struct* p) {
  h->time_ns = bpf_ktime_get_ns();
  h->kind = kind;
  h->cpu = cpu;
  h->probe_cpu = bpf_get_smp_processor_id();
  h->arg = 0;
  h->arg2 = 0;
  h->ntasks = 0;
  h->nlevels = 0;
  h->nqueues = 0;
  h->truncated = 0;
  h->queue_nr = 0;
  h->target_pid = 0;
  h->rq_clock = 0;
  h->rq_clock_task = 0;
  h->rq_nr_running = 0;
  fill_rq(h, p);
}

static __always_inline __u32 entity_flags(struct sched_entity* se) {
  __u32 f = 0;
  if (se->on_rq) f |= VLAG_BPF_ON_RQ;
  if (bpf_core_field_exists(se->sched_delayed) && se->sched_delayed) f |= VLAG_BPF_DELAYED;
  if (bpf_core_field_exists(se->rel_deadline) && se->rel_deadline) f |= VLAG_BPF_REL_DEADLINE;
  if (bpf_core_field_exists(se->custom_slice) && se->custom_slice) f |= VLAG_BPF_CUSTOM_SLICE;
  if (se->my_q) f |= VLAG_BPF_GROUP;
  return f;
}

static __always_inline void fill_cfs_rq(struct vlag_bpf_level* l, struct cfs_rq* c) {
  l->cfs_rq = (__u64)c;
  if (!c) return;
  if (bpf_core_field_exists(c->zero_vruntime))
    l->zero_vruntime = c->zero_vruntime;
  else
    l->zero_vruntime = c->min_vruntime;
  if (bpf_core_field_exists(c->sum_w_vruntime)) {
    l->sum_w_vruntime = c->sum_w_vruntime;
    l->sum_weight = c->sum_weight;
  } else {
    l->sum_w_vruntime = c->avg_vruntime;
    l->sum_weight = c->avg_load;
  }
  if (bpf_core_field_exists(c->nr_queued))
    l->nr_queued = c->nr_queued;
  else
    l->nr_queued = c->nr_running;
  if (bpf_core_field_exists(c->h_nr_queued))
    l->h_nr_queued = c->h_nr_queued;
  else
    l->h_nr_queued = c->h_nr_running;
  l->cfs_load = c->load.weight;
  l->curr = (__u64)c->curr;
  l->next = (__u64)c->next;
}

static __always_inline void fill_entity(struct vlag_bpf_entity* e, struct sched_entity* se,
                                        __s32 pid) {
  e->flags = entity_flags(se);
  e->se = (__u64)se;
  e->vruntime = se->vruntime;
  e->deadline = se->deadline;
  e->weight = se->load.weight;
  e->slice = se->slice;
  e->vlag = (__u64)se->vlag;
  e->pid = pid;
}

static __always_inline void fill_level(struct vlag_bpf_level* l, struct sched_entity* se,
                                       __s32 pid) {
  fill_entity(&l->e, se, pid);
  l->vprot = bpf_core_field_exists(se->vprot) ? se->vprot : 0;
  l->sum_exec_runtime = se->sum_exec_runtime;
  l->min_slice = bpf_core_field_exists(se->min_slice) ? se->min_slice : 0;
  l->zero_vruntime = 0;
  l->sum_w_vruntime = 0;
  l->sum_weight = 0;
  l->cfs_load = 0;
  l->curr = 0;
  l->next = 0;
  l->nr_queued = 0;
  l->h_nr_queued = 0;
  fill_cfs_rq(l, se->cfs_rq);
}

/* Fills task block `t` and, for a fair task, its chain into levels[first..]; returns the
 * number of levels written. `slots` is the size of levels[] (a power of two). The chain stops
 * at the first entity already among levels[0..nshared) (prev's, for next in a switch). */
static __always_inline __u32 fill_task(struct vlag_bpf_task* t, struct vlag_bpf_level* levels,
                                       __u32 slots, __u32 first, struct task_struct* p,
                                       __u32 nshared) {
  t->pid = p->pid;
  t->tgid = p->tgid;
  __builtin_memcpy(t->comm, p->comm, sizeof(t->comm));
  t->prio = p->prio;
  t->policy = p->policy;
  t->task_cpu = task_cpu(p);
  t->state = p->__state;
  t->on_rq = p->on_rq;
  t->flags = 0;
  t->first_level = first;
  t->nlevels = 0;
  t->shared_from = VLAG_BPF_NOT_SHARED;
  if (!task_is_fair(p)) return 0;
  t->flags |= VLAG_BPF_TASK_FAIR;
  struct sched_entity* se = &p->se;
  __u32 n = 0;
  for (int i = 0; i < VLAG_BPF_MAX_LEVELS; i++) {
    if (!se) break;
    for (__u32 j = 0; j < VLAG_BPF_MAX_LEVELS; j++) {
      if (j >= nshared) break;
      if (levels[j & (slots - 1)].e.se == (__u64)se) {
        t->shared_from = j;
        break;
      }
    }
    if (t->shared_from != VLAG_BPF_NOT_SHARED) break;
    fill_level(&levels[(first + n) & (slots - 1)], se, n == 0 ? p->pid : 0);
    n++;
    se = se->parent;
  }
  if (se && t->shared_from == VLAG_BPF_NOT_SHARED) t->flags |= VLAG_BPF_TASK_TRUNCATED;
  t->nlevels = n;
  return n;
}

static __always_inline long ring_flags(void) {
  return bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
                                                                        : BPF_RB_NO_WAKEUP;
}

static __always_inline void count_lost(void) {
  __u32 zero = 0;
  __u64* n = bpf_map_lookup_elem(&lost, &zero);
  if (n) *n += 1;
}

static __always_inline void send(void* data, __u64 size) {
  if (bpf_ringbuf_output(&records, data, size, ring_flags()) != 0) count_lost();
}

/* The pid of entity `se`'s task, 0 for a group entity: read through probes, since the task is
 * found by pointer arithmetic (no BTF pointer). */
static __always_inline __s32 entity_pid(struct sched_entity* se) {
  if (se->my_q) return 0;
  const __u64 se_off = bpf_core_field_offset(struct task_struct, se);
  return BPF_CORE_READ((struct task_struct*)((__u64)se - se_off), pid);
}

/* After a wakeup record's `n` levels: the curr of each level's cfs_rq, then the wakee's entity
 * at sched_waking if that probe saw it. Both are what place_entity() needs and the levels lack:
 * curr's vruntime and weight (a group entity's move with no record) and the state before the
 * wakeup. Returns the bytes added. */
static __always_inline __u64 add_placement_blocks(struct task_record* r, __u32 n,
                                                  struct task_struct* p) {
  if (n > VLAG_BPF_MAX_LEVELS) return 0;
  unsigned char* tail = (unsigned char*)&r->levels[0] + n * sizeof(struct vlag_bpf_level);
  struct sched_entity* se = &p->se;
  for (__u32 i = 0; i < VLAG_BPF_MAX_LEVELS; i++) {
    if (i >= n || !se) break;
    struct vlag_bpf_entity* c = (struct vlag_bpf_entity*)(tail + i * sizeof(*c));
    struct cfs_rq* q = se->cfs_rq;
    struct sched_entity* curr = q ? q->curr : 0;
    if (curr)
      fill_entity(c, curr, entity_pid(curr));
    else
      __builtin_memset(c, 0, sizeof(*c));
    se = se->parent;
  }
  __u64 added = n * sizeof(struct vlag_bpf_entity);
  r->task.flags |= VLAG_BPF_TASK_CURRS;
  const __s32 pid = p->pid;
  struct vlag_bpf_waking* w = bpf_map_lookup_elem(&waking, &pid);
  if (w) {
    __builtin_memcpy(tail + added, w, sizeof(*w));
    added += sizeof(*w);
    r->task.flags |= VLAG_BPF_TASK_WAKING;
    bpf_map_delete_elem(&waking, &pid);
  }
  return added;
}

/* One task's record: kinds other than switch and queue. */
static __always_inline void emit_task(__u32 slot, __u32 kind, __u32 cpu, struct task_struct* p,
                                      __u64 arg, __s64 arg2, __s32 target) {
  struct task_record* r = bpf_map_lookup_elem(&task_scratch, &slot);
  if (!r) return;
  fill_header(&r->h, kind, cpu, p);
  r->h.arg = arg;
  r->h.arg2 = arg2;
  r->h.target_pid = target;
  r->h.ntasks = 1;
  __u32 n = fill_task(&r->task, r->levels, VLAG_BPF_MAX_LEVELS, 0, p, 0);
  if (n > VLAG_BPF_MAX_LEVELS) n = VLAG_BPF_MAX_LEVELS;
  r->h.nlevels = n;
  __u64 extra = 0;
  if ((kind == VLAG_BPF_WAKEUP || kind == VLAG_BPF_WAKEUP_NEW) && n > 0)
    extra = add_placement_blocks(r, n, p);
  send(r, sizeof(r->h) + sizeof(r->task) + n * sizeof(r->levels[0]) + extra);
}

/* The entities in cfs_rq `cfs_addr`'s tree (the queued ones but curr), in no particular order:
 * a walk with an explicit work list, since BPF has no recursion. A global function, so the
 * verifier checks it once rather than at each of its call sites. Returns 1 when sent. */
__noinline int emit_queue(__u64 cfs_addr, __u32 level, struct vlag_bpf_header* sw) {
  __u32 zero = 0;
  struct queue_record* r = bpf_map_lookup_elem(&queue_scratch, &zero);
  if (!r || !sw) return 0;
  struct cfs_rq* c = (struct cfs_rq*)cfs_addr;
  r->h = *sw;
  r->h.kind = VLAG_BPF_QUEUE;
  r->h.ntasks = 0;
  r->h.nqueues = 0;
  r->h.arg = cfs_addr;
  r->h.arg2 = level;
  if (bpf_core_field_exists(c->nr_queued))
    r->h.queue_nr = BPF_CORE_READ(c, nr_queued);
  else
    r->h.queue_nr = BPF_CORE_READ(c, nr_running);
  const __u64 root = (__u64)BPF_CORE_READ(c, tasks_timeline.rb_root.rb_node);
  r->stack[0] = root;
  r->top = root ? 1 : 0;
  r->n = 0;
  const __u64 node_off = bpf_core_field_offset(struct sched_entity, run_node);
  const __u64 se_off = bpf_core_field_offset(struct task_struct, se);
  for (int i = 0; i < VLAG_BPF_MAX_QUEUE; i++) {
    __u32 top = *(volatile __u32*)&r->top; /* reloaded: see struct queue_record */
    if (top == 0 || top > STACK_SLOTS) break;
    top--;
    struct rb_node* node = (struct rb_node*)r->stack[top & (STACK_SLOTS - 1)];
    struct sched_entity* se = (struct sched_entity*)((__u64)node - node_off);
    struct vlag_bpf_entity* q = &r->queued[r->n & (VLAG_BPF_MAX_QUEUE - 1)];
    q->se = (__u64)se;
    q->vruntime = BPF_CORE_READ(se, vruntime);
    q->deadline = BPF_CORE_READ(se, deadline);
    q->weight = BPF_CORE_READ(se, load.weight);
    q->slice = BPF_CORE_READ(se, slice);
    q->vlag = (__u64)BPF_CORE_READ(se, vlag);
    __u32 f = 0;
    if (BPF_CORE_READ_BITFIELD_PROBED(se, on_rq)) f |= VLAG_BPF_ON_RQ;
    if (bpf_core_field_exists(se->sched_delayed) &&
        BPF_CORE_READ_BITFIELD_PROBED(se, sched_delayed))
      f |= VLAG_BPF_DELAYED;
    if (bpf_core_field_exists(se->rel_deadline) && BPF_CORE_READ_BITFIELD_PROBED(se, rel_deadline))
      f |= VLAG_BPF_REL_DEADLINE;
    if (bpf_core_field_exists(se->custom_slice) && BPF_CORE_READ_BITFIELD_PROBED(se, custom_slice))
      f |= VLAG_BPF_CUSTOM_SLICE;
    if (BPF_CORE_READ(se, my_q)) {
      f |= VLAG_BPF_GROUP;
      q->pid = 0;
    } else {
      q->pid = BPF_CORE_READ((struct task_struct*)((__u64)se - se_off), pid);
    }
    q->flags = f;
    r->n++;
    const __u64 left = (__u64)BPF_CORE_READ(node, rb_left);
    const __u64 right = (__u64)BPF_CORE_READ(node, rb_right);
    if (left && top < STACK_SLOTS) r->stack[top++ & (STACK_SLOTS - 1)] = left;
    if (right && top < STACK_SLOTS) r->stack[top++ & (STACK_SLOTS - 1)] = right;
    *(volatile __u32*)&r->top = top;
  }
  __u32 n = r->n;
  r->h.truncated = r->top != 0;
  if (n > VLAG_BPF_MAX_QUEUE) n = VLAG_BPF_MAX_QUEUE;
  r->h.nlevels = n;
  send(r, sizeof(r->h) + n * sizeof(r->queued[0]));
  return 1;
}

static __always_inline void on_switch_common(bool preempt, struct task_struct* prev,
                                             struct task_struct* next, unsigned int prev_state,
                                             bool with_queues) {
  const __u32 cpu = bpf_get_smp_processor_id();
  if (!cpu_wanted(cpu)) return;
  __u32 zero = 0;
  struct switch_record* r = bpf_map_lookup_elem(&switch_scratch, &zero);
  if (!r) return;
  fill_header(&r->h, VLAG_BPF_SWITCH, cpu, prev);
  r->h.arg = prev_state;
  r->h.arg2 = preempt;
  r->h.ntasks = 2;
  __u32 n0 = fill_task(&r->tasks[0], r->levels, LEVEL_SLOTS, 0, prev, 0);
  __u32 n1 = fill_task(&r->tasks[1], r->levels, LEVEL_SLOTS, n0, next, n0);
  __u32 n = n0 + n1;
  if (n > LEVEL_SLOTS) n = LEVEL_SLOTS;
  r->h.nlevels = n;
  if (with_queues) {
    /* The cfs_rqs of next's own levels, bottom up: each is where a pick chose one of next's
     * entities (the levels shared with prev were kept, not picked). Sent before the switch
     * record so the decoder can attach them to it. */
    __u32 sent = 0;
    for (__u32 i = 0; i < VLAG_BPF_MAX_LEVELS; i++) {
      if (i >= n1) break;
      sent += emit_queue(r->levels[(n0 + i) & (LEVEL_SLOTS - 1)].cfs_rq, i, &r->h);
    }
    r->h.nqueues = sent;
  }
  send(r, sizeof(r->h) + sizeof(r->tasks) + n * sizeof(r->levels[0]));
}

/* Two programs, one loaded: the tree walk costs the verifier (and every switch) enough that a
 * capture without queue snapshots should not carry it. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct* prev, struct task_struct* next,
             unsigned int prev_state) {
  on_switch_common(preempt, prev, next, prev_state, false);
  return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_queues, bool preempt, struct task_struct* prev, struct task_struct* next,
             unsigned int prev_state) {
  on_switch_common(preempt, prev, next, prev_state, true);
  return 0;
}

/* try_to_wake_up() fires sched_waking under p->pi_lock once the wakeup is certain, before it
 * reads p->on_rq and before the task is requeued, migrated or enqueued: a sleeping task's entity
 * then holds its saved lag, and only pi_lock holders (a renice, a group move) could change it
 * before the enqueue. Kept for every CPU: where the task will run is chosen later. */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct* p) {
  if (!task_is_fair(p)) return 0;
  struct vlag_bpf_waking w;
  w.time_ns = bpf_ktime_get_ns();
  /* No runqueue lock is held: the task's dequeue may be running on another CPU. It clears
   * p->on_rq last (a release store), so p->on_rq is read first, no later load may move before
   * it (the compiler barrier; x86-64 keeps loads in order), and while it is set the entity counts
   * as queued: an entity recorded off the queue has its saved lag. */
  const int task_queued = p->on_rq;
  __asm__ __volatile__("" ::: "memory");
  fill_entity(&w.e, &p->se, p->pid);
  if (task_queued) w.e.flags |= VLAG_BPF_ON_RQ;
  const __s32 pid = p->pid;
  bpf_map_update_elem(&waking, &pid, &w, BPF_ANY);
  return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct* p) {
  const __u32 cpu = task_cpu(p);
  if (cpu_wanted(cpu)) {
    emit_task(0, VLAG_BPF_WAKEUP, cpu, p, 0, 0, 0);
  } else {
    const __s32 pid = p->pid;
    bpf_map_delete_elem(&waking, &pid); /* its waking state is of no record */
  }
  return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct* p) {
  const __u32 cpu = task_cpu(p);
  if (cpu_wanted(cpu)) emit_task(0, VLAG_BPF_WAKEUP_NEW, cpu, p, 0, 0, 0);
  return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(on_migrate, struct task_struct* p, int dest_cpu) {
  const __u32 cpu = task_cpu(p);
  if (cpu_wanted(cpu) || cpu_wanted((__u32)dest_cpu))
    emit_task(0, VLAG_BPF_MIGRATE, cpu, p, (__u64)dest_cpu, 0, 0);
  return 0;
}

SEC("tp_btf/sched_stat_runtime")
int BPF_PROG(on_runtime, struct task_struct* p, __u64 runtime) {
  const __u32 cpu = bpf_get_smp_processor_id();
  if (cpu_wanted(cpu)) emit_task(0, VLAG_BPF_RUNTIME, cpu, p, runtime, 0, 0);
  return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct* p) {
  const __u32 cpu = bpf_get_smp_processor_id();
  if (cpu_wanted(cpu)) emit_task(1, VLAG_BPF_EXIT, cpu, p, 0, 0, 0);
  return 0;
}

/* No scheduler tracepoint follows set_user_nice() or __setparam_fair(): the syscalls that change
 * a fair task's weight or slice are caught on their way out (loaded on request only: every
 * syscall then pays for the filter). The arguments are read from x86-64 registers. */
#if defined(__TARGET_ARCH_x86)
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs* regs, long ret) {
  const __s64 nr = (__s64)regs->orig_ax;
  if (nr != setattr_nr[0] && nr != setattr_nr[1] && nr != setattr_nr[2] && nr != setattr_nr[3])
    return 0;
  /* setpriority(which, who, prio) names its target second, the sched_* calls first. */
  __s32 target = (__s32)regs->di;
  if (nr == setpriority_nr) target = regs->di == 0 /* PRIO_PROCESS */ ? (__s32)regs->si : -1;
  struct task_struct* self = bpf_get_current_task_btf();
  const __u32 cpu = bpf_get_smp_processor_id();
  if (cpu_wanted(cpu)) emit_task(1, VLAG_BPF_SETATTR, cpu, self, (__u64)nr, ret, target);
  return 0;
}
#endif
