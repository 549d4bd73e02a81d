// cli/man_page.h and cli/bash_completion.h on a small command line: roff escaping, page names,
// the entries a page and the completion get from the CLI11 tree.
#include "cli/man_page.h"

#include <gtest/gtest.h>

#include "cli/bash_completion.h"

namespace vlag::cli {
namespace {

struct Tiny {
  CLI::App app{"tiny: does little", "tiny"};
  std::string placement = "prev";
  int cpus = 1;
  std::string dir;
  std::vector<std::string> files;
  CLI::App* run = nullptr;
  CLI::App* leaf = nullptr;

  Tiny() {
    run = app.add_subcommand("run", "Runs it; see -h");
    run->add_option("--placement", placement, "Where")
        ->check(CLI::IsMember({"prev", "idle"}))
        ->capture_default_str();
    run->add_option("--cpus", cpus, "CPUs")->check(CLI::Range(1, 8));
    run->add_option("--out-dir", dir, "A directory");
    run->add_option("files", files, "Inputs");
    CLI::App* group = app.add_subcommand("group", "Holds one");
    leaf = group->add_subcommand("leaf", ".starts with a dot");
  }
};

TEST(ManPage, EscapesWhatRoffWouldRead) {
  EXPECT_EQ(roff_escape("a-b \\n"), "a\\-b \\en");
  EXPECT_EQ(roff_escape(".TH\n'x"), "\\&.TH\n\\&'x");
  EXPECT_EQ(roff_escape("a.b 'c'"), "a.b 'c'");
}

TEST(ManPage, NamesAPageAfterItsCommandPath) {
  Tiny t;
  EXPECT_EQ(page_name(t.app), "tiny");
  EXPECT_EQ(page_name(*t.leaf), "tiny-group-leaf");
  std::vector<std::string> names;
  for (const CLI::App* c : all_commands(t.app)) names.push_back(page_name(*c));
  EXPECT_EQ(names, (std::vector<std::string>{"tiny", "tiny-run", "tiny-group", "tiny-group-leaf"}));
}

TEST(ManPage, HoldsTheHelpLinesOfEveryOption) {
  Tiny t;
  const std::string page = man_page(*t.run, {"tiny 1.0", "/usr/share/doc/tiny"});
  EXPECT_EQ(page.rfind(".TH TINY-RUN 1 \"\" \"tiny 1.0\"", 0), 0u) << page;
  EXPECT_NE(page.find("tiny\\-run \\- Runs it; see \\-h"), std::string::npos);
  EXPECT_NE(page.find("tiny run [OPTIONS] [files...]"), std::string::npos) << page;
  EXPECT_NE(page.find("\\fB\\-\\-placement\\fR TEXT:{prev,idle}=prev\nWhere"), std::string::npos);
  EXPECT_NE(page.find("\\fB\\-\\-cpus\\fR INT:INT in [1 \\- 8]\nCPUs"), std::string::npos);
  EXPECT_NE(page.find(".SH ARGUMENTS\n.TP\n\\fBfiles\\fR\nInputs"), std::string::npos) << page;
  EXPECT_NE(page.find("\\fBtiny\\fR(1)"), std::string::npos);
  EXPECT_EQ(page.find("EXIT STATUS"), std::string::npos);  // the root's page says it
  const std::string root = man_page(t.app, {"tiny 1.0", "/doc"});
  EXPECT_NE(root.find(".SH NAME\ntiny \\- does little\n"), std::string::npos) << root;
  EXPECT_NE(root.find("\\fBgroup\\fR (tiny\\-group(1))\nHolds one"), std::string::npos);
  EXPECT_NE(root.find("EXIT STATUS"), std::string::npos);
  EXPECT_NE(man_page(*t.leaf, {"tiny 1.0", "/doc"}).find("\\- \\&.starts with a dot"),
            std::string::npos);
}

TEST(BashCompletion, CompletesSubcommandsOptionsAndValues) {
  Tiny t;
  const std::string script = bash_completion(t.app);
  EXPECT_NE(script.find("\"tiny\") subs='run group' opts='-h --help' files=0"), std::string::npos)
      << script;
  EXPECT_NE(script.find("\"tiny run\") subs='' opts='-h --help --placement --cpus --out-dir' "
                        "files=1"),
            std::string::npos);
  EXPECT_NE(script.find("\"tiny run --placement\") COMPREPLY=($(compgen -W 'prev idle'"),
            std::string::npos);
  EXPECT_NE(script.find("\"tiny run --cpus\") COMPREPLY=(); return"), std::string::npos);
  EXPECT_NE(script.find("\"tiny run --out-dir\") COMPREPLY=($(compgen -d"), std::string::npos);
  EXPECT_NE(script.find("\"tiny group leaf\""), std::string::npos);
  EXPECT_NE(script.find("complete -o filenames -F _vlag vlag"), std::string::npos);
}

}  // namespace
}  // namespace vlag::cli
