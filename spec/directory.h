// The directories vlag writes its side outputs into (evidence, traces, plots): made on first
// use, and a failure — an unwritable parent, a file in the way — is a vlag::Error naming the
// directory and the option that chose it (exit 2), never an uncaught std::filesystem_error.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include "spec/error.h"

namespace vlag {

/// Makes `dir` and its parents unless it is a directory already; `option` names where it came
/// from ("--evidence-dir").
inline void make_directory(const std::string& dir, const char* option) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw Error("cannot create the directory " + dir + " (" + option +
                "): " + (ec ? ec.message() : "a file of that name is in the way"));
}

}  // namespace vlag
