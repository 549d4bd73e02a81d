#include "cli/man_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cli/app.h"

namespace vlag::cli {
namespace {

// The formatter --help uses: every option line below is its output.
const CLI::Formatter& formatter(const CLI::App& cmd) {
  static const CLI::Formatter fallback;
  const auto* f = dynamic_cast<const CLI::Formatter*>(cmd.get_formatter().get());
  return f != nullptr ? *f : fallback;
}

std::vector<const CLI::App*> subcommands(const CLI::App& cmd) {
  return cmd.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// One .TP entry per option: the name and the opts part of its --help line in bold / roman, the
// description below.
std::string option_entries(const CLI::App& cmd, bool positional) {
  const CLI::Formatter& f = formatter(cmd);
  std::string out;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_positional() != positional || o->get_group().empty()) continue;
    out += ".TP\n\\fB" + roff_escape(f.make_option_name(o, positional)) + "\\fR" +
           roff_escape(positional ? "" : f.make_option_opts(o)) + "\n" +
           roff_escape(f.make_option_desc(o)) + "\n";
  }
  return out;
}

}  // namespace

std::string roff_escape(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string page_name(const CLI::App& cmd) {
  std::string name = command_name(cmd);
  std::replace(name.begin(), name.end(), ' ', '-');
  return name;
}

std::vector<const CLI::App*> all_commands(const CLI::App& root) {
  std::vector<const CLI::App*> out{&root};
  for (const CLI::App* s : subcommands(root)) {
    const auto below = all_commands(*s);
    out.insert(out.end(), below.begin(), below.end());
  }
  return out;
}

std::string man_page(const CLI::App& cmd, const ManPageInfo& info) {
  const CLI::Formatter& f = formatter(cmd);
  const bool root = cmd.get_parent() == nullptr;
  std::string usage = f.make_usage(&cmd, command_name(cmd));
  usage = usage.substr(usage.find(':') + 2);  // drop "Usage: "
  while (!usage.empty() && usage.back() == '\n') usage.pop_back();

  std::string page = fmt::format(".TH {} 1 \"\" \"{}\" \"vlag manual\"\n", upper(page_name(cmd)),
                                 roff_escape(info.version));
  // The root's description begins "vlag: ", which the NAME line has already said.
  std::string summary = cmd.get_description();
  if (const std::string self = cmd.get_name() + ": "; summary.rfind(self, 0) == 0)
    summary = summary.substr(self.size());
  page += ".SH NAME\n" + roff_escape(page_name(cmd)) + " \\- " + roff_escape(summary) + "\n";
  page += ".SH SYNOPSIS\n.nf\n" + roff_escape(usage) + "\n.fi\n";
  page += ".SH DESCRIPTION\n" + roff_escape(cmd.get_description()) + "\n";
  if (!cmd.get_footer().empty()) page += ".PP\n" + roff_escape(cmd.get_footer()) + "\n";
  if (const std::string args = option_entries(cmd, true); !args.empty())
    page += ".SH ARGUMENTS\n" + args;
  if (const std::string opts = option_entries(cmd, false); !opts.empty())
    page += ".SH OPTIONS\n" + opts;
  const auto subs = subcommands(cmd);
  if (!subs.empty()) {
    page += ".SH COMMANDS\n";
    for (const CLI::App* s : subs)
      page += ".TP\n\\fB" + roff_escape(s->get_name()) + "\\fR (" + roff_escape(page_name(*s)) +
              "(1))\n" + roff_escape(s->get_description()) + "\n";
  }
  if (root)
    page +=
        ".SH EXIT STATUS\n0 success, 1 a property was violated, 2 bad input or usage "
        "(vlag prove: 3 unknown, a timeout or an interrupt).\n";
  page += ".SH SEE ALSO\n";
  std::string see;
  if (!root) see = "\\fB" + roff_escape(page_name(*cmd.get_parent())) + "\\fR(1)";
  for (const CLI::App* s : subs)
    see += (see.empty() ? "" : ", ") + ("\\fB" + roff_escape(page_name(*s)) + "\\fR(1)");
  page += see + (see.empty() ? "" : "; ") +
          "the README and the specification (SPEC.md, TRACE.md) in " + roff_escape(info.doc_dir) +
          ".\n";
  return page;
}

}  // namespace vlag::cli
