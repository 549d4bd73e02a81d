/* The kernel structures state.bpf.c reads, reduced to the fields it uses. Each carries
 * preserve_access_index, so every access is a CO-RE relocation that libbpf resolves against the
 * running kernel's BTF at load time: the offsets here are never used, only the names. Fields
 * that exist in some versions only are read under bpf_core_field_exists(); renamed ones are
 * listed under both names (README.md: "Field layout"). Written from the kernel's BTF, not from
 * its headers: this file is the build's only knowledge of kernel types. */
#ifndef VLAG_KERNEL_BPF_SCHED_TYPES_BPF_H
#define VLAG_KERNEL_BPF_SCHED_TYPES_BPF_H

#include <linux/types.h>

#define VLAG_CORE __attribute__((preserve_access_index))

struct load_weight {
  unsigned long weight;
} VLAG_CORE;

struct rb_node {
  unsigned long __rb_parent_color;
  struct rb_node* rb_right;
  struct rb_node* rb_left;
} VLAG_CORE;

struct rb_root {
  struct rb_node* rb_node;
} VLAG_CORE;

struct rb_root_cached {
  struct rb_root rb_root;
  struct rb_node* rb_leftmost;
} VLAG_CORE;

struct cfs_rq;
struct rq;

struct sched_entity {
  struct load_weight load;
  struct rb_node run_node;
  __u64 deadline;
  __u64 min_slice;             /* 6.12+ */
  unsigned char on_rq;         /* unsigned int before 6.12: CO-RE adjusts the load size */
  unsigned char sched_delayed; /* 6.12+ */
  unsigned char rel_deadline;  /* 6.12+ */
  unsigned char custom_slice;  /* 6.12+ */
  __u64 sum_exec_runtime;
  __u64 vruntime;
  __s64 vlag;
  __u64 vprot; /* 6.17+: in a union with vlag until it got its own word */
  __u64 slice;
  struct sched_entity* parent;
  struct cfs_rq* cfs_rq;
  struct cfs_rq* my_q;
} VLAG_CORE;

struct cfs_rq {
  struct load_weight load;
  unsigned int nr_queued;    /* 6.14+ */
  unsigned int nr_running;   /* before 6.14 */
  unsigned int h_nr_queued;  /* 6.14+ */
  unsigned int h_nr_running; /* before 6.14 */
  __s64 sum_w_vruntime;      /* the renamed avg_vruntime */
  __u64 sum_weight;          /* the renamed avg_load */
  __s64 avg_vruntime;
  __u64 avg_load;
  __u64 zero_vruntime; /* replaced min_vruntime */
  __u64 min_vruntime;
  struct rb_root_cached tasks_timeline;
  struct sched_entity* curr;
  struct sched_entity* next;
  struct rq* rq; /* CONFIG_FAIR_GROUP_SCHED */
} VLAG_CORE;

struct rq {
  unsigned int nr_running;
  __u64 clock;
  __u64 clock_task;
  struct cfs_rq cfs;
} VLAG_CORE;

struct thread_info {
  __u32 cpu; /* x86 and others with THREAD_INFO_IN_TASK keep the CPU here */
} VLAG_CORE;

struct task_struct {
  struct thread_info thread_info;
  unsigned int __state;
  unsigned int cpu; /* where the architecture keeps it in task_struct itself */
  int on_rq;
  int prio;
  struct sched_entity se;
  unsigned int policy;
  int pid;
  int tgid;
  char comm[16];
} VLAG_CORE;

struct pt_regs {
  unsigned long di;
  unsigned long si;
  unsigned long orig_ax;
} VLAG_CORE;

#endif
