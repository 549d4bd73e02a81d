// Man pages (roff, section 1) of the vlag command line, one per command as git has them: vlag(1),
// vlag-sim(1), vlag-trace-export(1), … Every line comes from the CLI11 tree and its formatter —
// the usage line, each option's name, type, range and default, its description, the footer — so
// a page says what `--help` says; cli/docs_main.cpp writes them at build time.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace vlag::cli {

/// "vlag-trace-export": a command's page name, its path with '-' between the words.
std::string page_name(const CLI::App& cmd);

/// `cmd` and every command below it, depth first, the root first.
std::vector<const CLI::App*> all_commands(const CLI::App& root);

struct ManPageInfo {
  std::string version;  // the footer's "vlag 0.1.0"
  std::string doc_dir;  // where the README and the specification are installed
};

/// The roff source of `cmd`'s page.
std::string man_page(const CLI::App& cmd, const ManPageInfo& info);

/// `text` safe in roff: backslashes escaped, '-' as \-, a leading '.' or '\'' neutralised.
std::string roff_escape(const std::string& text);

}  // namespace vlag::cli
