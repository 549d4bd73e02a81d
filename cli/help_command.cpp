// `vlag help [SUBCOMMAND...]`: the help of vlag or of one of its subcommands, the very text
// `--help` prints (`vlag help trace export` = `vlag trace export --help`).
#include <iostream>

#include "cli/app.h"
#include "cli/commands.h"
#include "spec/error.h"

namespace vlag::cli {

void add_help_command(CLI::App& app) {
  auto topics = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "help", "Print the help of vlag or of a subcommand (vlag help sim, vlag help trace export)");
  cmd->add_option("subcommand", *topics, "A subcommand, then one of its own");
  cmd->callback([&app, topics] {
    const CLI::App* target = &app;
    for (const std::string& name : *topics) {
      const auto found = target->get_subcommands(
          [&](const CLI::App* s) { return s->get_name() == name && s->get_name() != "help"; });
      if (found.empty()) {
        std::string known;
        for (const CLI::App* s : target->get_subcommands({}))
          if (s->get_name() != "help") known += (known.empty() ? "" : ", ") + s->get_name();
        throw Error("help: '" + name + "' is not a subcommand of " + command_name(*target) + " (" +
                    known + ")");
      }
      target = found.front();
    }
    std::cout << help_text(*target);
  });
}

}  // namespace vlag::cli
