#include "kernel/record.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "spec/error.h"

namespace vlag::kernel {
namespace {

namespace fs = std::filesystem;
constexpr const char* kSchedDebug = "/sys/kernel/debug/sched/debug";

bool on_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p = path;
  for (size_t start = 0; start <= p.size();) {
    const size_t colon = p.find(':', start);
    const std::string dir =
        p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty() && access((fs::path(dir) / exe).c_str(), X_OK) == 0) return true;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return false;
}

bool sched_debug_readable() {
  if (access(kSchedDebug, R_OK) == 0) return true;
  // debugfs is often not mounted; root may mount it.
  if (geteuid() == 0) mount("none", "/sys/kernel/debug", "debugfs", 0, nullptr);
  return access(kSchedDebug, R_OK) == 0;
}

// Runs argv with stdout/stderr sent to `log` (stdout to `out` when given); returns the pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log,
            const std::string& out = {}) {
  const pid_t pid = fork();
  if (pid < 0) throw Error("record: fork failed");
  if (pid == 0) {
    const int lfd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int ofd = out.empty() ? lfd : open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (lfd >= 0) dup2(lfd, STDERR_FILENO);
    if (ofd >= 0) dup2(ofd, STDOUT_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void copy_file(const std::string& from, const std::string& to) {
  std::ifstream in(from);
  std::ofstream out(to);
  out << in.rdbuf();
}

}  // namespace

std::vector<std::string> record_prerequisites() {
  std::vector<std::string> missing;
  if (geteuid() != 0)
    missing.push_back("root (perf record on sched tracepoints and debugfs need it)");
  if (!on_path("perf")) missing.push_back("perf (Debian package linux-perf)");
  if (!sched_debug_readable())
    missing.push_back(std::string(kSchedDebug) +
                      " (mount debugfs: mount -t debugfs none /sys/kernel/debug)");
  return missing;
}

RecordedFiles record(const RecordOptions& o) {
  RecordedFiles files;
  if (o.out_dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "vlag-record-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw Error("record: cannot create a directory under /tmp");
    files.dir = tmpl;
  } else {
    fs::create_directories(o.out_dir);
    files.dir = o.out_dir;
  }
  const std::string data = files.dir + "/perf.data", log = files.dir + "/perf.log";
  // As scripts/capture-kernel records: no build ids, large buffers (nothing lost on a busy
  // machine), forks (so no task is seen mid-life) and sched_stat_runtime (the kernel's own
  // accounting of each run).
  std::vector<std::string> argv = {"perf", "record", "-q", "-B", "-m", "16M", "-o", data};
  for (const char* ev : {"sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new",
                         "sched:sched_migrate_task", "sched:sched_process_exit",
                         "sched:sched_process_fork", "sched:sched_stat_runtime"}) {
    argv.push_back("-e");
    argv.push_back(ev);
  }
  if (o.cpu >= 0) {
    argv.push_back("-C");
    argv.push_back(std::to_string(o.cpu));
  } else {
    argv.push_back("-a");
  }
  argv.push_back("--");
  if (o.command.empty()) {
    argv.push_back("sleep");
    argv.push_back(std::to_string(o.duration_s > 0 ? o.duration_s : 1.0));
  } else {
    argv.insert(argv.end(), o.command.begin(), o.command.end());
  }

  const auto start = std::chrono::steady_clock::now();
  const pid_t perf = spawn(argv, log);
  // Three snapshots spread over the run (every 0.5 s when its length is unknown).
  const double span = o.duration_s > 0 ? o.duration_s : 2.0;
  int status = -1;
  for (int n = 1; n <= 3;) {
    const auto due = start + std::chrono::duration<double>(span * n / 4);
    while (std::chrono::steady_clock::now() < due) {
      int st = 0;
      if (waitpid(perf, &st, WNOHANG) == perf) {
        status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (status >= 0) break;
    const std::string snap = files.dir + "/sched-debug." + std::to_string(n) + ".txt";
    copy_file(kSchedDebug, snap);
    files.snapshots.push_back(snap);
    ++n;
  }
  if (o.duration_s > 0 && !o.command.empty() && status < 0) {
    const auto end = start + std::chrono::duration<double>(o.duration_s);
    while (status < 0 && std::chrono::steady_clock::now() < end) {
      int st = 0;
      if (waitpid(perf, &st, WNOHANG) == perf) status = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (status < 0) kill(perf, SIGINT);  // perf stops the command and writes its data
  }
  if (status < 0) status = wait_for(perf);
  if (status != 0 && status != 128 + SIGINT && !fs::exists(data))
    throw Error("record: perf record failed (exit " + std::to_string(status) + "); see " + log);

  files.perf_text = files.dir + "/perf.txt";
  const int s = wait_for(
      spawn({"perf", "script", "-i", data, "--ns", "-F", "comm,pid,tid,cpu,time,event,trace"}, log,
            files.perf_text));
  if (s != 0)
    throw Error("record: perf script failed (exit " + std::to_string(s) + "); see " + log);
  return files;
}

}  // namespace vlag::kernel
