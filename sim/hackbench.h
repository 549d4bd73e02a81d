// hackbench-like (`perf bench sched messaging`, tools/perf/bench/sched-messaging.c): `groups`
// groups, each of `fds` receivers and `fds` senders (created in that order, group by group). Each
// receiver owns one pipe that all senders of its group write to (perf's default socketpair
// accounts its buffer per packet, differently; the model has a pipe's byte capacity). Every sender
// writes `loops` rounds of one DATASIZE (100 byte) message to each receiver of its group, in
// receiver order; every receiver reads loops * fds messages. All tasks are created first and then
// started together, as perf's "GO" poll does; the time runs from that start to the last read.
//
// The model of a pipe: it holds at most capacity_bytes / 100 messages (64 KiB: 655). A write is a
// burst of send_ns that puts one message in; a sender whose next pipe is full blocks and is woken
// by the receiver's next read, which hands it the freed room (Linux's pipe writers wait
// exclusively, one woken per read that makes room). A read is a burst of recv_ns that takes one
// message out if there is one; a receiver that finds its pipe empty sleeps until a write.
//
// Thread mode (-T) changes only the wording of the output: the model has no address spaces, so
// the cheaper thread-to-thread switch of the real tool is not modelled (a context switch costs
// the machine's switch_cost_ns either way). The tool draws no random numbers; nor does the model.
#pragma once

#include <deque>
#include <vector>

#include "sim/benchmark.h"
#include "sim/task_options.h"

namespace vlag::sim {

inline constexpr int64_t kHackbenchMessageBytes = 100;  // perf's DATASIZE

struct HackbenchConfig {
  int groups = 10;  // perf bench sched messaging defaults: 10 groups, 20 fds, 100 loops
  int fds = 20;
  int loops = 100;
  bool threads = false;                // -T/--thread
  int64_t capacity_bytes = 64 * 1024;  // a pipe's buffer (Linux default: 16 pages)
  int64_t send_ns = 2'000;             // CPU time of one write
  int64_t recv_ns = 2'000;             // CPU time of one read
  TaskOptions options;                 // every task's nice and slice, senders and receivers alike
};

struct HackbenchCounters {
  int64_t messages_read = 0;
  int64_t sender_blocks = 0;  // writes that found their pipe full
  int64_t max_queued = 0;     // the most messages one pipe ever held
};

class Hackbench : public Benchmark {
 public:
  /// Throws vlag::Error on sizes < 1 or a pipe too small for one message.
  explicit Hackbench(HackbenchConfig c);
  void start(Machine& m) override;
  int64_t burst_done(Machine& m, Task& t) override;
  std::string report(const MachineStats& st) const override;
  Metrics metrics(const MachineStats& st) const override;
  bool ends_by_itself() const override { return true; }

  const HackbenchConfig& config() const { return config_; }
  const HackbenchCounters& counters() const { return counters_; }
  int64_t capacity_messages() const { return capacity_; }

 private:
  struct Pipe {
    Task* reader = nullptr;
    int64_t queued = 0;         // written, not yet read
    int64_t reserved = 0;       // room promised to senders whose write is under way
    std::deque<Task*> blocked;  // senders waiting for room, in arrival order
  };
  struct Role {
    bool sender = false;
    int group = 0;
    int index = 0;     // receiver: its pipe's index within the group
    int64_t done = 0;  // messages written, or read
  };
  Pipe& pipe_of(int group, int index);
  Role& role(const Task& t);
  bool room(const Pipe& p) const { return p.queued + p.reserved < capacity_; }
  int64_t sender_burst_done(Machine& m, Task& t, Role& r);
  int64_t receiver_burst_done(Machine& m, Role& r);

  HackbenchConfig config_;
  int64_t capacity_ = 0;     // messages a pipe holds
  int64_t per_task_ = 0;     // messages each sender writes and each receiver reads
  std::vector<Pipe> pipes_;  // group * fds + index
  std::vector<Role> roles_;  // by task id - first_id_
  int64_t first_id_ = 0;
  int receivers_left_ = 0;
  HackbenchCounters counters_;
};

/// perf's output: the banner and "Total time: X [sec]"; an unfinished run says so instead.
std::string hackbench_summary(const Hackbench& w, int64_t end_ns);

}  // namespace vlag::sim
