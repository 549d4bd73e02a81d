// Field-by-field equality of two event streams (a binary capture read natively against the
// events of its text), each mismatch reported at the text's line.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/events.h"

namespace vlag::kernel::testing {

inline void expect_same_events(const std::vector<KernelEvent>& got,
                               const std::vector<KernelEvent>& text, const std::string& text_name) {
  ASSERT_EQ(got.size(), text.size()) << text_name;
  for (size_t i = 0; i < got.size(); ++i) {
    const KernelEvent &x = got[i], &y = text[i];
    SCOPED_TRACE(text_name + ":" + std::to_string(y.line));
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.time_ns, y.time_ns);
    EXPECT_EQ(x.cpu, y.cpu);
    EXPECT_EQ(x.current_pid, y.current_pid);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.comm, y.comm);
    EXPECT_EQ(x.pid, y.pid);
    EXPECT_EQ(x.prio, y.prio);
    EXPECT_EQ(x.prev_comm, y.prev_comm);
    EXPECT_EQ(x.prev_pid, y.prev_pid);
    EXPECT_EQ(x.prev_prio, y.prev_prio);
    EXPECT_EQ(x.prev_state, y.prev_state);
    EXPECT_EQ(x.prev_leave, y.prev_leave);
    EXPECT_EQ(x.target_cpu, y.target_cpu);
    EXPECT_EQ(x.orig_cpu, y.orig_cpu);
    EXPECT_EQ(x.dest_cpu, y.dest_cpu);
    EXPECT_EQ(x.child_pid, y.child_pid);
    EXPECT_EQ(x.child_comm, y.child_comm);
    EXPECT_EQ(x.runtime_ns, y.runtime_ns);
  }
}

}  // namespace vlag::kernel::testing
