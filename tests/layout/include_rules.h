// Checks a source tree's #include lines against a table of top-level folders (README "Layout"):
// which folders each folder's files may include, which folder alone may include a given library
// header (Z3's), that a folder's detail/ is its own, and a list of known breaches that must all
// still occur, so that the list only shrinks. Reads files as text; the test of vlag's own tree is
// include_rules_test.cpp.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace vlag::testing {

struct FolderRule {
  std::string folder;                    // a top-level folder: "checker"
  std::vector<std::string> may_include;  // top-level folders besides itself; "*": any
};

/// A breach that another change removes: allowed while it occurs, reported once it does not.
struct KnownBreach {
  std::string file;     // "checker/cfs_check.h"
  std::string include;  // "sim/cfs/tunables.h"
};

struct IncludeRules {
  std::vector<FolderRule> folders;
  std::string homed_header;  // a library header that one folder alone includes…
  std::string header_home;   // …in its sources and detail/ headers, never its public headers
  std::vector<std::string> see_other_details;  // folders that may include X/detail/ of any X
  std::vector<KnownBreach> known;
};

/// Every breach in the C++ files below `root`, one line each ("file:line: what"), in path order.
/// Directories whose name starts with '.' and build trees (a CMakeCache.txt) are not read.
/// Quoted includes name a header by its path from the root; angle includes are the system's
/// (<json/json.h> is not vlag's json/); the homed header is checked in either form.
std::vector<std::string> check_includes(const std::filesystem::path& root,
                                        const IncludeRules& rules);

}  // namespace vlag::testing
