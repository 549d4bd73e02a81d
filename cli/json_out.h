// The names the kernel commands (cli/kernel_*_command.cpp) give the JSON writer, json/writer.h,
// until they move to kernel/ and name json::Object and json::Array themselves. Nothing else
// includes this header; it goes when they do.
#pragma once

#include "json/writer.h"

namespace vlag::cli {

using JsonObject = json::Object;
using JsonArray = json::Array;

}  // namespace vlag::cli
