#include "kernel/bpf/state_format.h"

#include <fmt/format.h>

namespace vlag::kernel::bpf {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string entity_flags(const QueuedEntity& e) {
  std::string s;
  const auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ',';
    s += name;
  };
  add(e.on_rq, "on_rq");
  add(e.sched_delayed, "delayed");
  add(e.rel_deadline, "rel_deadline");
  add(e.custom_slice, "custom_slice");
  add(e.is_group, "group");
  return s.empty() ? "-" : s;
}

std::string task_label(const TaskState& t) {
  return fmt::format("{}:{} prio={} pol={}{}", t.comm, t.pid, t.prio, t.policy,
                     t.fair ? "" : " (not fair)");
}

std::string entity_json(const EntityState& e) {
  const CfsRqState& c = e.cfs_rq;
  return fmt::format(
      "{{\"se\":{},\"pid\":{},\"vruntime\":{},\"deadline\":{},\"weight\":{},\"slice\":{},"
      "\"vlag\":{},\"vprot\":{},\"sum_exec_runtime\":{},\"min_slice\":{},\"on_rq\":{},"
      "\"sched_delayed\":{},\"rel_deadline\":{},\"custom_slice\":{},\"group\":{},"
      "\"cfs_rq\":{{\"id\":{},\"zero_vruntime\":{},\"sum_w_vruntime\":{},\"sum_weight\":{},"
      "\"load\":{},\"curr\":{},\"next\":{},\"nr_queued\":{},\"h_nr_queued\":{}}}}}",
      e.id, e.pid, e.vruntime, e.deadline, e.weight, e.slice, e.vlag, e.vprot, e.sum_exec_runtime,
      e.min_slice, e.on_rq, e.sched_delayed, e.rel_deadline, e.custom_slice, e.is_group, c.id,
      c.zero_vruntime, c.sum_w_vruntime, c.sum_weight, c.load_weight, c.curr, c.next, c.nr_queued,
      c.h_nr_queued);
}

std::string queued_json(const QueuedEntity& e) {
  return fmt::format(
      "{{\"se\":{},\"pid\":{},\"vruntime\":{},\"deadline\":{},\"weight\":{},\"slice\":{},"
      "\"vlag\":{},\"on_rq\":{},\"sched_delayed\":{},\"rel_deadline\":{},\"custom_slice\":{},"
      "\"group\":{}}}",
      e.id, e.pid, e.vruntime, e.deadline, e.weight, e.slice, e.vlag, e.on_rq, e.sched_delayed,
      e.rel_deadline, e.custom_slice, e.is_group);
}

// A wakeup's blocks after its chain, where the capture has them.
std::string placement_json(const TaskState& t) {
  std::string s;
  if (!t.level_curr.empty()) {
    std::string currs;
    for (const auto& e : t.level_curr) currs += (currs.empty() ? "" : ",") + queued_json(e);
    s += fmt::format(",\"level_curr\":[{}]", currs);
  }
  if (t.waking)
    s += fmt::format(",\"waking\":{{\"time_ns\":{},\"entity\":{}}}", t.waking->time_ns,
                     queued_json(t.waking->entity));
  return s;
}

std::string task_json(const TaskState& t) {
  std::string chain;
  for (const auto& e : t.chain) chain += (chain.empty() ? "" : ",") + entity_json(e);
  return fmt::format(
      "{{\"pid\":{},\"tgid\":{},\"comm\":{},\"prio\":{},\"policy\":{},\"task_cpu\":{},"
      "\"state\":{},\"on_rq\":{},\"fair\":{},\"chain_truncated\":{},\"chain\":[{}]{}}}",
      t.pid, t.tgid, json_string(t.comm), t.prio, t.policy, t.task_cpu, t.state, t.on_rq, t.fair,
      t.chain_truncated, chain, placement_json(t));
}

std::string queue_json(const QueueSnapshot& q) {
  std::string es;
  for (const auto& e : q.entities)
    es += fmt::format(
        "{}{{\"se\":{},\"pid\":{},\"vruntime\":{},\"deadline\":{},\"weight\":{},\"slice\":{},"
        "\"vlag\":{},\"sched_delayed\":{},\"custom_slice\":{},\"group\":{}}}",
        es.empty() ? "" : ",", e.id, e.pid, e.vruntime, e.deadline, e.weight, e.slice, e.vlag,
        e.sched_delayed, e.custom_slice, e.is_group);
  return fmt::format(
      "{{\"cfs_rq\":{},\"level\":{},\"nr_queued\":{},\"truncated\":{},\"entities\":[{}]}}",
      q.cfs_rq, q.level, q.nr_queued, q.truncated, es);
}

}  // namespace

std::string format_parameters_text(const KernelParameters& k) {
  std::string features;
  for (const auto& f : k.features) features += (f.enabled ? " " : " NO_") + f.name;
  return fmt::format(
      "# kernel {} ({} possible CPUs)\n# HZ {} ({})\n# base slice {} ns ({})\n"
      "# features:{} ({})\n# layout: {}\n",
      k.release, k.possible_cpus, k.hz, k.hz_source, k.base_slice_ns, k.base_slice_source, features,
      k.features_source, k.layout.describe());
}

std::string format_parameters_json(const KernelParameters& k) {
  std::string features;
  for (const auto& f : k.features)
    features += fmt::format("{}{}:{}", features.empty() ? "" : ",", json_string(f.name), f.enabled);
  const KernelLayout& l = k.layout;
  return fmt::format(
      "{{\"kind\":\"kernel\",\"release\":{},\"possible_cpus\":{},\"hz\":{},\"hz_source\":{},"
      "\"base_slice_ns\":{},\"base_slice_source\":{},\"features\":{{{}}},"
      "\"features_source\":{},\"layout\":{{\"zero_vruntime\":{},\"sum_names\":{},"
      "\"nr_queued\":{},\"vprot\":{},\"vprot_union\":{},\"sched_delayed\":{},"
      "\"rel_deadline\":{},\"custom_slice\":{},\"min_slice\":{},\"max_slice\":{}}}}}\n",
      json_string(k.release), k.possible_cpus, k.hz, json_string(k.hz_source), k.base_slice_ns,
      json_string(k.base_slice_source), features, json_string(k.features_source), l.zero_vruntime,
      l.sum_names, l.nr_queued, l.vprot, l.vprot_union, l.sched_delayed, l.rel_deadline,
      l.custom_slice, l.min_slice, l.max_slice);
}

std::string format_record_text(const StateRecord& r) {
  std::string head = fmt::format("{}.{:09} cpu{} {}", r.time_ns / 1'000'000'000,
                                 r.time_ns % 1'000'000'000, r.cpu, kind_name(r.kind));
  switch (r.kind) {
    case RecordKind::Switch:
      head += fmt::format(" prev={} state={:#x}{} next={}", task_label(r.tasks[0]), r.prev_state,
                          r.preempt ? " preempt" : "", task_label(r.tasks[1]));
      break;
    case RecordKind::Migrate:
      head += fmt::format(" {} -> cpu{}", task_label(r.tasks[0]), r.dest_cpu);
      break;
    case RecordKind::Runtime:
      head += fmt::format(" {} +{} ns", task_label(r.tasks[0]), r.runtime_ns);
      break;
    case RecordKind::SetAttr:
      head += fmt::format(" {} syscall {} target {} = {}", task_label(r.tasks[0]), r.syscall,
                          r.target_pid, r.syscall_ret);
      break;
    default:
      head += " " + task_label(r.tasks[0]);
  }
  if (r.probe_cpu != r.cpu) head += fmt::format(" (probe on cpu{})", r.probe_cpu);
  head += fmt::format(" rq_clock_task={} nr_running={}\n", r.rq_clock_task, r.rq_nr_running);
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    const TaskState& t = r.tasks[i];
    const char* who = r.kind == RecordKind::Switch ? (i == 0 ? "prev" : "next") : "task";
    for (size_t level = 0; level < t.chain.size(); ++level) {
      const EntityState& e = t.chain[level];
      const CfsRqState& c = e.cfs_rq;
      head += fmt::format(
          "  {} L{} se={:#x} v={} d={} w={} slice={} vlag={} sum_exec={} [{}] | cfs_rq={:#x} "
          "zero_v={} sum_w_v={} sum_w={} load={} nr={} curr={:#x} next={:#x}\n",
          who, level, e.id, e.vruntime, e.deadline, e.weight, e.slice, e.vlag, e.sum_exec_runtime,
          entity_flags(e), c.id, c.zero_vruntime, c.sum_w_vruntime, c.sum_weight, c.load_weight,
          c.nr_queued, c.curr, c.next);
    }
    if (t.chain_truncated)
      head += fmt::format("  {} chain cut at {} levels\n", who, t.chain.size());
    for (size_t level = 0; level < t.level_curr.size(); ++level) {
      const QueuedEntity& e = t.level_curr[level];
      head += e.id == 0 ? fmt::format("  L{} curr none\n", level)
                        : fmt::format("  L{} curr se={:#x} v={} d={} w={} [{}]\n", level, e.id,
                                      e.vruntime, e.deadline, e.weight, entity_flags(e));
    }
    if (t.waking) {
      const QueuedEntity& e = t.waking->entity;
      head +=
          fmt::format("  waking at {}: v={} d={} w={} slice={} vlag={} [{}]\n", t.waking->time_ns,
                      e.vruntime, e.deadline, e.weight, e.slice, e.vlag, entity_flags(e));
    }
  }
  for (const auto& q : r.queues) {
    head += fmt::format("  queue L{} cfs_rq={:#x} nr_queued={}{}:", q.level, q.cfs_rq, q.nr_queued,
                        q.truncated ? " (cut)" : "");
    for (const auto& e : q.entities)
      head += fmt::format(" {}{}:v={},d={},w={}", e.is_group ? "grp" : "pid",
                          e.is_group ? 0 : e.pid, e.vruntime, e.deadline, e.weight);
    head += '\n';
  }
  if (!r.queues_complete) head += "  queue snapshots lost\n";
  return head;
}

std::string format_record_json(const StateRecord& r) {
  std::string tasks, queues;
  for (const auto& t : r.tasks) tasks += (tasks.empty() ? "" : ",") + task_json(t);
  for (const auto& q : r.queues) queues += (queues.empty() ? "" : ",") + queue_json(q);
  std::string extra;
  switch (r.kind) {
    case RecordKind::Switch:
      extra = fmt::format(",\"preempt\":{},\"prev_state\":{}", r.preempt, r.prev_state);
      if (!r.queues.empty() || !r.queues_complete)
        extra += fmt::format(",\"queues_complete\":{},\"queues\":[{}]", r.queues_complete, queues);
      break;
    case RecordKind::Migrate:
      extra = fmt::format(",\"dest_cpu\":{}", r.dest_cpu);
      break;
    case RecordKind::Runtime:
      extra = fmt::format(",\"runtime_ns\":{}", r.runtime_ns);
      break;
    case RecordKind::SetAttr:
      extra = fmt::format(",\"syscall\":{},\"ret\":{},\"target_pid\":{}", r.syscall, r.syscall_ret,
                          r.target_pid);
      break;
    default:
      break;
  }
  return fmt::format(
      "{{\"kind\":\"{}\",\"time_ns\":{},\"cpu\":{},\"probe_cpu\":{},\"rq_clock\":{},"
      "\"rq_clock_task\":{},\"rq_nr_running\":{}{},\"tasks\":[{}]}}\n",
      kind_name(r.kind), r.time_ns, r.cpu, r.probe_cpu, r.rq_clock, r.rq_clock_task,
      r.rq_nr_running, extra, tasks);
}

}  // namespace vlag::kernel::bpf
