// vlag_docs OUT_DIR DOC_DIR: writes the man pages (OUT_DIR/man1/vlag*.1) and the bash completion
// (OUT_DIR/bash-completion/vlag) of the vlag command line, from the same CLI11 tree the binary
// parses with (cli/app.h); DOC_DIR is where the pages say the README is installed. Run by the
// build (cli/CMakeLists.txt); `cmake --install` installs what it wrote.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/app.h"
#include "cli/bash_completion.h"
#include "cli/man_page.h"

namespace {

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: vlag_docs OUT_DIR DOC_DIR\n";
    return 2;
  }
  const std::filesystem::path out = argv[1];
  CLI::App app{"", "vlag"};
  int exit_code = 0;
  vlag::cli::build_app(app, exit_code);
  const vlag::cli::ManPageInfo info{std::string("vlag ") + VLAG_VERSION, argv[2]};
  try {
    for (const CLI::App* cmd : vlag::cli::all_commands(app))
      write(out / "man1" / (vlag::cli::page_name(*cmd) + ".1"), vlag::cli::man_page(*cmd, info));
    write(out / "bash-completion" / "vlag", vlag::cli::bash_completion(app));
  } catch (const std::exception& e) {
    std::cerr << "vlag_docs: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
