#include "cli/check_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>

namespace vlag::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_check_sigint(int) {
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

}  // namespace

CheckInterrupt::CheckInterrupt() {
  g_stop = false;
  std::signal(SIGINT, on_check_sigint);
}

CheckInterrupt::~CheckInterrupt() { std::signal(SIGINT, SIG_DFL); }

const std::atomic<bool>& CheckInterrupt::stop() { return g_stop; }

ProgressLine::ProgressLine(const checker::Progress& progress) : progress_(progress) {
  if (!isatty(STDERR_FILENO)) return;
  thread_ = std::thread([this, start = std::chrono::steady_clock::now()] {
    std::unique_lock lock(mutex_);
    while (!done_.wait_for(lock, std::chrono::milliseconds(500), [&] { return finished_; }))
      draw(start);
  });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  done_.notify_all();
  thread_.join();
  fmt::print(stderr, "\r\033[K");  // the summary follows on standard output
}

void ProgressLine::draw(std::chrono::steady_clock::time_point start) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto events = progress_.events.load(std::memory_order_relaxed);
  fmt::print(stderr, "\r\033[Kvlag check: {} events, {:.2f} M events/s, {} violation(s) so far",
             events, static_cast<double>(events) / seconds / 1e6,
             progress_.violations.load(std::memory_order_relaxed));
  std::fflush(stderr);
}

}  // namespace vlag::cli
