// Running a shell command from a kernel test (the vlag binary on a capture, with a PATH or a pipe
// of the test's choosing): its exit status, standard output and standard error; and a temporary
// directory for the files a test makes.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace vlag::kernel::testing {

using vlag::testing::TempDir;

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

struct ShellRun {
  int status = -1;  // the exit status; -1 when it did not exit
  std::string out, err;
};

/// Runs `command` with sh; standard error goes through a file of `tmp`.
inline ShellRun shell(const std::string& command, const TempDir& tmp) {
  ShellRun r;
  const std::string err = tmp.path() + "/stderr.txt";
  FILE* p = popen(("(" + command + ") 2>" + quoted(err)).c_str(), "r");
  if (!p) return r;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = read_bytes(err);
  return r;
}

/// Every occurrence of `from` in s replaced by `to`.
inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

}  // namespace vlag::kernel::testing
