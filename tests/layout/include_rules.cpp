#include "tests/layout/include_rules.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace vlag::testing {
namespace {

namespace fs = std::filesystem;

bool is_cpp(const fs::path& p) {
  static const std::set<std::string> ext = {".h", ".hpp", ".cpp", ".cc", ".cxx", ".ipp", ".inc"};
  return ext.contains(p.extension().string());
}

bool is_header(const fs::path& p) {
  const std::string e = p.extension().string();
  return e == ".h" || e == ".hpp" || e == ".ipp" || e == ".inc";
}

// The path's components: "smt/detail/step.h" → smt, detail, step.h.
std::vector<std::string> parts(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& c : fs::path(path)) out.push_back(c.string());
  return out;
}

// The C++ files below root, relative and sorted, build trees and hidden folders left out.
std::vector<std::string> sources(const fs::path& root) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path& p = it->path();
    if (it->is_directory()) {
      if (p.filename().string().starts_with(".") || fs::exists(p / "CMakeCache.txt"))
        it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && is_cpp(p)) files.push_back(fs::relative(p, root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Checker {
 public:
  explicit Checker(const IncludeRules& r) : r_(r) {
    for (const auto& f : r.folders) rows_[f.folder] = &f;
  }

  void file(const fs::path& root, const std::string& rel) {
    const std::vector<std::string> from = parts(rel);
    const std::string top = from.size() > 1 ? from[0] : "";
    const auto row = rows_.find(top);
    if (row == rows_.end()) {
      if (unplaced_.insert(top).second)
        out_.push_back(rel + ": " + (top.empty() ? "the root" : top + "/") +
                       " has no row in the include rules (place it on a floor)");
      return;
    }
    static const std::regex include(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
    std::ifstream in(root / rel);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string target = m[2];
      const std::string at = rel + ":" + std::to_string(n) + ": includes " + m[1].str() + target +
                             (m[1] == "<" ? ">" : "\"") + ": ";
      if (target == r_.homed_header) {
        homed(from, at);
        continue;
      }
      if (m[1] == "<") continue;  // a system or third-party header
      quoted(*row->second, rel, target, at);
    }
  }

  std::vector<std::string> finish() {
    for (const auto& k : r_.known)
      if (!used_.contains({k.file, k.include}))
        out_.push_back(k.file + ": the known breach of including \"" + k.include +
                       "\" no longer occurs: remove it from the list");
    return out_;
  }

 private:
  // In the sources of its home and the headers of its detail/, never in its public headers.
  void homed(const std::vector<std::string>& from, const std::string& at) {
    const std::string& home = r_.header_home;
    const bool public_header = from.size() == 2 && is_header(from[1]);
    if (from[0] != home || public_header)
      out_.push_back(at + r_.homed_header + " belongs to " + home + "/ sources and " + home +
                     "/detail/ only (its public headers are free of it)");
  }

  void quoted(const FolderRule& row, const std::string& rel, const std::string& target,
              const std::string& at) {
    const std::vector<std::string> to = parts(target);
    if (to.size() < 2) {
      out_.push_back(at + "name a header by its path from the repository root");
      return;
    }
    if (!rows_.contains(to[0])) {
      out_.push_back(at + to[0] + "/ has no row in the include rules");
      return;
    }
    const auto& may = row.may_include;
    const bool any = std::find(may.begin(), may.end(), "*") != may.end();
    const auto& see = r_.see_other_details;
    if (to[1] == "detail" && to[0] != row.folder &&
        std::find(see.begin(), see.end(), row.folder) == see.end()) {
      breach(rel, target, at + to[0] + "/detail/ is private to " + to[0] + "/");
      return;
    }
    if (to[0] == row.folder || any || std::find(may.begin(), may.end(), to[0]) != may.end()) return;
    std::string allowed = row.folder + "/";
    for (const auto& f : may) allowed += ", " + f + "/";
    breach(rel, target, at + row.folder + "/ may include " + allowed + " only");
  }

  void breach(const std::string& rel, const std::string& target, const std::string& what) {
    for (const auto& k : r_.known)
      if (k.file == rel && k.include == target) {
        used_.insert({rel, target});
        return;
      }
    out_.push_back(what);
  }

  const IncludeRules& r_;
  std::map<std::string, const FolderRule*> rows_;
  std::set<std::string> unplaced_;
  std::set<std::pair<std::string, std::string>> used_;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> check_includes(const fs::path& root, const IncludeRules& rules) {
  Checker c(rules);
  for (const std::string& rel : sources(root)) c.file(root, rel);
  return c.finish();
}

}  // namespace vlag::testing
