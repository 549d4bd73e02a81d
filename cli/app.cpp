#include "cli/app.h"

#include "cli/commands.h"
#include "cli/kernel_state_command.h"

namespace vlag::cli {

const char* app_description() {
  return "vlag: a model checker and reference implementation of the Linux EEVDF scheduler";
}

void build_app(CLI::App& app, int& exit_code) {
  app.description(app_description());
  app.set_version_flag("--version", std::string("vlag ") + VLAG_VERSION);
  app.require_subcommand(1);
  add_demo_command(app, exit_code);
  add_sim_command(app, exit_code);
  add_compare_command(app, exit_code);
  add_check_command(app, exit_code);
  add_kernel_command(app, exit_code);
  add_kernel_state_options(app, exit_code);
  add_prove_command(app, exit_code);
  add_trace_command(app);
  add_help_command(app);
}

std::string command_name(const CLI::App& sub) {
  std::string name = sub.get_name();
  for (const CLI::App* p = sub.get_parent(); p != nullptr; p = p->get_parent())
    name = p->get_name() + " " + name;
  return name;
}

const CLI::App& parsed_command(const CLI::App& root) {
  const CLI::App* a = &root;
  while (!a->get_subcommands().empty()) a = a->get_subcommands().front();
  return *a;
}

std::string help_text(const CLI::App& sub) {
  // The formatter, not App::help, which would descend into the subcommands parsed so far.
  return sub.get_formatter()->make_help(&sub, command_name(sub), CLI::AppFormatMode::Normal);
}

}  // namespace vlag::cli
