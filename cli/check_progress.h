// What `vlag check` shows while it runs: on a terminal, a progress line on standard error
// (events checked, their rate, violations so far), redrawn twice a second and erased at the end;
// and Ctrl-C, which stops the check so that the summary of what was checked is printed.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "checker/run.h"

namespace vlag::cli {

/// While it lives, SIGINT sets stop() instead of ending the process (a second one ends it).
class CheckInterrupt {
 public:
  CheckInterrupt();
  ~CheckInterrupt();
  CheckInterrupt(const CheckInterrupt&) = delete;
  CheckInterrupt& operator=(const CheckInterrupt&) = delete;
  static const std::atomic<bool>& stop();
};

/// Draws the progress line while it lives, when standard error is a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(const checker::Progress& progress);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void draw(std::chrono::steady_clock::time_point start);

  const checker::Progress& progress_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace vlag::cli
