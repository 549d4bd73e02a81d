// The decoder of the BPF program's records (kernel/bpf/state_decode.h) on bytes laid out by
// hand as state_record.h says: every field lands where the C++ record says, queue snapshots
// join the switch they precede, and bytes of the wrong shape are refused.
#include "kernel/bpf/state_decode.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "kernel/bpf/raw_capture.h"
#include "kernel/bpf/state_record.h"

namespace vlag::kernel::bpf {
namespace {

std::vector<unsigned char> bytes_of(const vlag_bpf_header& h,
                                    const std::vector<vlag_bpf_task>& tasks,
                                    const std::vector<vlag_bpf_level>& levels) {
  std::vector<unsigned char> out(sizeof h + tasks.size() * sizeof(vlag_bpf_task) +
                                 levels.size() * sizeof(vlag_bpf_level));
  unsigned char* p = out.data();
  std::memcpy(p, &h, sizeof h);
  p += sizeof h;
  for (const auto& t : tasks) {
    std::memcpy(p, &t, sizeof t);
    p += sizeof t;
  }
  for (const auto& l : levels) {
    std::memcpy(p, &l, sizeof l);
    p += sizeof l;
  }
  return out;
}

vlag_bpf_task task(int pid, const char* comm, uint8_t first, uint8_t n) {
  vlag_bpf_task t{};
  t.pid = pid;
  t.tgid = pid;
  std::strncpy(t.comm, comm, sizeof t.comm);
  t.prio = 120;
  t.task_cpu = 1;
  t.on_rq = 1;
  t.flags = VLAG_BPF_TASK_FAIR;
  t.first_level = first;
  t.nlevels = n;
  t.shared_from = VLAG_BPF_NOT_SHARED;
  return t;
}

vlag_bpf_level level(uint64_t se, uint64_t cfs, uint64_t v) {
  vlag_bpf_level l{};
  l.e.se = se;
  l.e.vruntime = v;
  l.e.deadline = v + 700000;
  l.e.weight = 1048576;
  l.e.slice = 700000;
  l.e.vlag = static_cast<uint64_t>(int64_t{-5});
  l.e.flags = VLAG_BPF_ON_RQ | VLAG_BPF_CUSTOM_SLICE;
  l.cfs_rq = cfs;
  l.zero_vruntime = 1000;
  l.sum_w_vruntime = -42;
  l.sum_weight = 2048;
  l.cfs_load = 3u << 20;
  l.curr = se;
  l.nr_queued = 3;
  return l;
}

vlag_bpf_header header(uint32_t kind, uint16_t ntasks, uint16_t nlevels) {
  vlag_bpf_header h{};
  h.time_ns = 123456789;
  h.kind = kind;
  h.cpu = 1;
  h.probe_cpu = 1;
  h.rq_clock_task = 99;
  h.ntasks = ntasks;
  h.nlevels = nlevels;
  return h;
}

TEST(BpfRecordDecoder, SwitchCarriesBothChainsInOrder) {
  auto h = header(VLAG_BPF_SWITCH, 2, 3);
  h.arg = 0x1;  // prev_state
  h.arg2 = 1;   // preempt
  const auto bytes = bytes_of(h, {task(10, "prev", 0, 2), task(11, "next", 2, 1)},
                              {level(0xa0, 0xc0, 5), level(0xa1, 0xc1, 6), level(0xb0, 0xc0, 7)});
  RecordDecoder d;
  StateRecord r;
  ASSERT_TRUE(d.decode(bytes.data(), bytes.size(), r));
  EXPECT_EQ(r.kind, RecordKind::Switch);
  EXPECT_EQ(r.time_ns, 123456789u);
  EXPECT_TRUE(r.preempt);
  EXPECT_EQ(r.prev_state, 1u);
  ASSERT_EQ(r.tasks.size(), 2u);
  EXPECT_EQ(r.tasks[0].comm, "prev");
  ASSERT_EQ(r.tasks[0].chain.size(), 2u);
  EXPECT_EQ(r.tasks[0].chain[1].id, 0xa1u);
  EXPECT_EQ(r.tasks[0].chain[1].cfs_rq.id, 0xc1u);
  ASSERT_EQ(r.tasks[1].chain.size(), 1u);
  const EntityState& e = r.tasks[1].chain[0];
  EXPECT_EQ(e.id, 0xb0u);
  EXPECT_EQ(e.vruntime, 7u);
  EXPECT_EQ(e.deadline, 700007u);
  EXPECT_EQ(e.vlag, -5);
  EXPECT_TRUE(e.on_rq);
  EXPECT_TRUE(e.custom_slice);
  EXPECT_FALSE(e.sched_delayed);
  EXPECT_EQ(e.cfs_rq.sum_w_vruntime, -42);
  EXPECT_EQ(e.cfs_rq.sum_weight, 2048u);
  EXPECT_EQ(e.cfs_rq.nr_queued, 3u);
  EXPECT_TRUE(r.queues.empty());
  EXPECT_TRUE(r.queues_complete);
}

TEST(BpfRecordDecoder, NextsChainGoesOnAsPrevsWhereTheyMeet) {
  auto next = task(11, "next", 2, 1);
  next.shared_from = 1;  // its parent is prev's level 1
  const auto bytes = bytes_of(header(VLAG_BPF_SWITCH, 2, 3), {task(10, "prev", 0, 2), next},
                              {level(0xa0, 0xc0, 5), level(0xa1, 0xc1, 6), level(0xb0, 0xc0, 7)});
  RecordDecoder d;
  StateRecord r;
  ASSERT_TRUE(d.decode(bytes.data(), bytes.size(), r));
  ASSERT_EQ(r.tasks[1].chain.size(), 2u);
  EXPECT_EQ(r.tasks[1].chain[0].id, 0xb0u);
  EXPECT_EQ(r.tasks[1].chain[1].id, 0xa1u);
  EXPECT_EQ(r.tasks[1].chain[1].cfs_rq.id, 0xc1u);
  EXPECT_EQ(r.tasks[1].shared_from, 1);
  // Sharing a level prev does not have is refused.
  next.shared_from = 2;
  const auto bad = bytes_of(header(VLAG_BPF_SWITCH, 2, 3), {task(10, "prev", 0, 2), next},
                            {level(0xa0, 0xc0, 5), level(0xa1, 0xc1, 6), level(0xb0, 0xc0, 7)});
  EXPECT_THROW(d.decode(bad.data(), bad.size(), r), CaptureError);
}

TEST(BpfRecordDecoder, QueueSnapshotsJoinTheSwitchTheyPrecede) {
  auto qh = header(VLAG_BPF_QUEUE, 0, 2);
  qh.arg = 0xc0;
  qh.queue_nr = 3;
  std::vector<unsigned char> q(sizeof qh + 2 * sizeof(vlag_bpf_entity));
  vlag_bpf_entity e[2]{};
  e[0].se = 0xe0;
  e[0].pid = 20;
  e[0].deadline = 77;
  e[1].se = 0xe1;
  e[1].flags = VLAG_BPF_GROUP | VLAG_BPF_DELAYED;
  std::memcpy(q.data(), &qh, sizeof qh);
  std::memcpy(q.data() + sizeof qh, e, sizeof e);
  auto sh = header(VLAG_BPF_SWITCH, 2, 1);
  sh.nqueues = 1;
  const auto sw =
      bytes_of(sh, {task(10, "prev", 0, 0), task(11, "next", 0, 1)}, {level(0xb0, 0xc0, 7)});
  RecordDecoder d;
  StateRecord r;
  EXPECT_FALSE(d.decode(q.data(), q.size(), r));
  ASSERT_TRUE(d.decode(sw.data(), sw.size(), r));
  ASSERT_EQ(r.queues.size(), 1u);
  EXPECT_TRUE(r.queues_complete);
  EXPECT_EQ(r.queues[0].cfs_rq, 0xc0u);
  EXPECT_EQ(r.queues[0].nr_queued, 3u);
  ASSERT_EQ(r.queues[0].entities.size(), 2u);
  EXPECT_EQ(r.queues[0].entities[0].pid, 20);
  EXPECT_EQ(r.queues[0].entities[0].deadline, 77u);
  EXPECT_TRUE(r.queues[0].entities[1].is_group);
  EXPECT_TRUE(r.queues[0].entities[1].sched_delayed);
  // The next switch announcing a snapshot that never came says so.
  sh.time_ns += 1;
  const auto sw2 =
      bytes_of(sh, {task(10, "prev", 0, 0), task(11, "next", 0, 1)}, {level(0xb0, 0xc0, 7)});
  ASSERT_TRUE(d.decode(sw2.data(), sw2.size(), r));
  EXPECT_TRUE(r.queues.empty());
  EXPECT_FALSE(r.queues_complete);
}

TEST(BpfRecordDecoder, AWakeupCarriesEachLevelsCurrAndItsWakingState) {
  auto t = task(10, "wakee", 0, 2);
  t.flags |= VLAG_BPF_TASK_CURRS | VLAG_BPF_TASK_WAKING;
  auto bytes =
      bytes_of(header(VLAG_BPF_WAKEUP, 1, 2), {t}, {level(0xa0, 0xc0, 5), level(0xa1, 0xc1, 6)});
  vlag_bpf_entity currs[2]{};
  currs[0].se = 0xd0;  // a group entity running at level 0
  currs[0].vruntime = 4242;
  currs[0].weight = 3u << 20;
  currs[0].flags = VLAG_BPF_ON_RQ | VLAG_BPF_GROUP;
  vlag_bpf_waking w{};  // level 1's cfs_rq has no curr: se 0
  w.time_ns = 123000000;
  w.e.se = 0xa0;
  w.e.vlag = static_cast<uint64_t>(int64_t{-300});
  w.e.flags = VLAG_BPF_REL_DEADLINE;
  w.e.deadline = 9000;
  const size_t at = bytes.size();
  bytes.resize(at + sizeof currs + sizeof w);
  std::memcpy(bytes.data() + at, currs, sizeof currs);
  std::memcpy(bytes.data() + at + sizeof currs, &w, sizeof w);
  RecordDecoder d;
  StateRecord r;
  ASSERT_TRUE(d.decode(bytes.data(), bytes.size(), r));
  const TaskState& got = r.tasks[0];
  ASSERT_EQ(got.level_curr.size(), 2u);
  EXPECT_EQ(got.level_curr[0].id, 0xd0u);
  EXPECT_EQ(got.level_curr[0].vruntime, 4242u);
  EXPECT_EQ(got.level_curr[0].weight, 3u << 20);
  EXPECT_TRUE(got.level_curr[0].on_rq);
  EXPECT_TRUE(got.level_curr[0].is_group);
  EXPECT_EQ(got.level_curr[1].id, 0u);
  ASSERT_TRUE(got.waking);
  EXPECT_EQ(got.waking->time_ns, 123000000u);
  EXPECT_EQ(got.waking->entity.vlag, -300);
  EXPECT_TRUE(got.waking->entity.rel_deadline);
  EXPECT_FALSE(got.waking->entity.on_rq);
  EXPECT_EQ(got.waking->entity.deadline, 9000u);
  // A record missing the blocks its flags announce is refused.
  EXPECT_THROW(d.decode(bytes.data(), at + sizeof currs, r), CaptureError);
  // An older capture's wakeup, without the flags, ends at its levels and has neither.
  t.flags = VLAG_BPF_TASK_FAIR;
  const auto old =
      bytes_of(header(VLAG_BPF_WAKEUP, 1, 2), {t}, {level(0xa0, 0xc0, 5), level(0xa1, 0xc1, 6)});
  ASSERT_TRUE(d.decode(old.data(), old.size(), r));
  EXPECT_TRUE(r.tasks[0].level_curr.empty());
  EXPECT_FALSE(r.tasks[0].waking);
}

TEST(BpfRecordDecoder, RefusesBytesOfTheWrongShape) {
  const auto h = header(VLAG_BPF_RUNTIME, 1, 1);
  auto bytes = bytes_of(h, {task(10, "t", 0, 1)}, {level(0xa0, 0xc0, 5)});
  RecordDecoder d;
  StateRecord r;
  EXPECT_THROW(d.decode(bytes.data(), bytes.size() - 1, r), CaptureError);
  EXPECT_THROW(d.decode(bytes.data(), 8, r), CaptureError);
  auto bad_kind = header(99, 1, 1);
  auto b = bytes_of(bad_kind, {task(10, "t", 0, 1)}, {level(0xa0, 0xc0, 5)});
  EXPECT_THROW(d.decode(b.data(), b.size(), r), CaptureError);
  // A task whose levels run past the record's.
  auto past = bytes_of(h, {task(10, "t", 0, 2)}, {level(0xa0, 0xc0, 5)});
  EXPECT_THROW(d.decode(past.data(), past.size(), r), CaptureError);
  ASSERT_TRUE(d.decode(bytes.data(), bytes.size(), r));
  EXPECT_EQ(r.kind, RecordKind::Runtime);
}

TEST(BpfRawCapture, KeepsRecordsToDecodeLaterAndRefusesACutFile) {
  char path[] = "/tmp/vlag-raw-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const auto runtime =
      bytes_of(header(VLAG_BPF_RUNTIME, 1, 1), {task(10, "t", 0, 1)}, {level(0xa0, 0xc0, 5)});
  auto sw = header(VLAG_BPF_SWITCH, 2, 1);
  const auto switched =
      bytes_of(sw, {task(10, "t", 0, 0), task(11, "u", 0, 1)}, {level(0xb0, 0xc0, 9)});
  RawWriter w(path);
  w.write(runtime.data(), runtime.size());
  w.write(switched.data(), switched.size());
  w.close();
  std::vector<StateRecord> got;
  EXPECT_EQ(read_raw_capture(path, [&](const StateRecord& r) { got.push_back(r); }), 2u);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].kind, RecordKind::Runtime);
  EXPECT_EQ(got[1].tasks[1].chain[0].vruntime, 9u);
  // Cut inside the second record: the first still decodes, then the offset is named.
  ASSERT_EQ(truncate(path, static_cast<off_t>(8 + 4 + runtime.size() + 4 + 10)), 0);
  got.clear();
  try {
    read_raw_capture(path, [&](const StateRecord& r) { got.push_back(r); });
    ADD_FAILURE() << "a cut file was read";
  } catch (const CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("offset " + std::to_string(8 + 4 + runtime.size())),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(got.size(), 1u);
  unlink(path);
}

}  // namespace
}  // namespace vlag::kernel::bpf
