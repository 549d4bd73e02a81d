// `vlag kernel replay CAPTURE`: a real capture's tasks run on the model, printed beside the
// kernel (replay/replay.h). Registered by cli/kernel_command.cpp under `vlag kernel`.
#pragma once

#include <CLI/CLI.hpp>

namespace vlag::cli {

void add_kernel_replay_command(CLI::App& kernel, int& exit_code);

}  // namespace vlag::cli
