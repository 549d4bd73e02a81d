#include "kernel/command_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <streambuf>

#include "spec/error.h"

extern char** environ;

namespace vlag::kernel {
namespace {

constexpr size_t kErrorTail = 4096;  // the end of standard error worth keeping

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

// The stream buffer over the two pipes: reading standard output drains standard error as it
// comes, keeping its tail.
class CommandOutput::Pipes : public std::streambuf {
 public:
  int out = -1, err = -1;
  std::string err_tail;

  ~Pipes() override {
    close_fd(out);
    close_fd(err);
  }

  void close_output() {
    close_fd(out);
    setg(nullptr, nullptr, nullptr);
  }

  /// Reads standard error to its end (once standard output is done).
  void drain_errors() {
    while (err >= 0) read_error();
  }

 protected:
  int_type underflow() override {
    while (out >= 0) {
      std::array<pollfd, 2> fds = {{{out, POLLIN, 0}, {err, POLLIN, 0}}};
      if (poll(fds.data(), err >= 0 ? 2 : 1, -1) < 0) {
        if (errno == EINTR) continue;
        throw Error(std::string("reading a child's output: ") + std::strerror(errno));
      }
      if (err >= 0 && fds[1].revents) read_error();
      if (!fds[0].revents) continue;
      const ssize_t n = read(out, buf_.data(), buf_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close_fd(out);
        break;
      }
      setg(buf_.data(), buf_.data(), buf_.data() + n);
      return traits_type::to_int_type(buf_[0]);
    }
    return traits_type::eof();
  }

 private:
  void read_error() {
    std::array<char, 4096> chunk;
    const ssize_t n = read(err, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) return;
    if (n <= 0) {
      close_fd(err);
      return;
    }
    err_tail.append(chunk.data(), static_cast<size_t>(n));
    if (err_tail.size() > 2 * kErrorTail) err_tail.erase(0, err_tail.size() - kErrorTail);
  }

  std::array<char, 65536> buf_;
};

void CommandOutput::make_pipes(int (&out)[2], int (&err)[2], const std::string& what) {
  if (pipe2(out, O_CLOEXEC) != 0) throw Error("cannot run " + what + ": no pipe");
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    throw Error("cannot run " + what + ": no pipe");
  }
  pipes_->out = out[0];
  pipes_->err = err[0];
}

CommandOutput::CommandOutput(const std::vector<std::string>& argv)
    : pipes_(std::make_unique<Pipes>()), out_(pipes_.get()) {
  int out[2], err[2];
  make_pipes(out, err, argv[0]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    pid_ = -1;
    throw Error("cannot run " + argv[0] + ": " +
                (rc == ENOENT ? std::string("not found on PATH") : std::strerror(rc)));
  }
}

CommandOutput::CommandOutput(const std::function<int(int out, int err)>& body)
    : pipes_(std::make_unique<Pipes>()), out_(pipes_.get()) {
  int out[2], err[2];
  make_pipes(out, err, "a reader");
  std::fflush(nullptr);  // else the child would inherit, and might write, buffered output
  pid_ = fork();
  if (pid_ == 0) {
    close(out[0]);
    close(err[0]);
    dup2(err[1], STDERR_FILENO);  // a library's own messages join the child's
    int rc = 1;
    try {
      rc = body(out[1], err[1]);
    } catch (...) {
      // nothing may unwind into the parent's frames
    }
    _exit(rc);
  }
  close(out[1]);
  close(err[1]);
  if (pid_ < 0) {
    pid_ = -1;
    throw Error(std::string("cannot start a reader: ") + std::strerror(errno));
  }
}

CommandOutput::~CommandOutput() {
  out_.rdbuf(nullptr);
  if (pid_ < 0) return;
  kill(pid_, SIGTERM);
  pipes_.reset();  // closes the pipes: a child still writing gets EPIPE
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
}

bool CommandOutput::finish() {
  if (pid_ < 0) return ok_;
  out_.ignore(std::numeric_limits<std::streamsize>::max());
  pipes_->drain_errors();
  reap();
  return ok_;
}

bool CommandOutput::stop_failed() {
  if (pid_ < 0) return !ok_;
  kill(pid_, SIGTERM);
  pipes_->close_output();  // a child that goes on writing gets EPIPE, never blocks
  pipes_->drain_errors();
  reap();
  return !ok_ && signal_ != SIGTERM;
}

void CommandOutput::reap() {
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0)
    if (errno != EINTR) break;
  pid_ = -1;
  ok_ = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  signal_ = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  if (signal_)
    ended_ = "killed by signal " + std::to_string(signal_) + " (" + strsignal(signal_) + ")";
  else
    ended_ = "exit " + std::to_string(WEXITSTATUS(st));
}

std::string CommandOutput::last_error_line() const {
  const std::string& t = pipes_->err_tail;
  const size_t end = t.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const size_t newline = t.rfind('\n', end);
  const size_t start = newline == std::string::npos ? 0 : newline + 1;
  return t.substr(start, end + 1 - start);
}

ChildResult run_in_child(const std::function<void(int out)>& body) {
  CommandOutput child([&](int out, int) {
    body(out);
    return 0;
  });
  ChildResult r;
  r.output.assign(std::istreambuf_iterator<char>(child.out()), std::istreambuf_iterator<char>());
  r.ok = child.finish();
  r.how = child.how_it_ended();
  return r;
}

PerfParseStats parse_child_output(CommandOutput& child, const std::string& name,
                                  const std::function<void(KernelEvent&)>& sink,
                                  const PerfParseOptions& options,
                                  const std::function<std::string(const CommandOutput&)>& failed) {
  PerfParseStats stats;
  try {
    stats = parse_perf_script(child.out(), name, sink, options);
  } catch (const Error&) {
    if (child.stop_failed()) throw Error(failed(child));
    throw;
  }
  if (!child.finish()) throw Error(failed(child));
  return stats;
}

}  // namespace vlag::kernel
