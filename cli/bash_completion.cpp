#include "cli/bash_completion.h"

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/man_page.h"

namespace vlag::cli {
namespace {

// What follows an option that takes a value: its choices, a directory, nothing (a number), or a
// file name.
std::string value_completion(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  const size_t open = type.find('{');
  const size_t close = type.find('}', open);
  if (open != std::string::npos && close != std::string::npos) {
    std::string words = type.substr(open + 1, close - open - 1);
    for (char& c : words)
      if (c == ',') c = ' ';
    return "COMPREPLY=($(compgen -W '" + words + "' -- \"$cur\"))";
  }
  const std::string name = o.get_name(false, true);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "-dir") == 0)
    return "COMPREPLY=($(compgen -d -- \"$cur\"))";
  if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0)
    return "COMPREPLY=()";
  return "COMPREPLY=($(compgen -f -- \"$cur\"))";
}

// Every spelling of an option, space-separated: "-o --output".
std::string spellings(const CLI::Option& o) {
  std::string out;
  for (const std::string& s : o.get_snames()) out += (out.empty() ? "-" : " -") + s;
  for (const std::string& l : o.get_lnames()) out += (out.empty() ? "--" : " --") + l;
  return out;
}

}  // namespace

std::string bash_completion(const CLI::App& root) {
  std::string commands;  // case arms: the command path -> its subcommands and options
  std::string values;    // case arms: "path option" -> what completes its value
  std::string known;     // the paths, to recognise a subcommand among the words typed
  for (const CLI::App* cmd : all_commands(root)) {
    const std::string path = command_name(*cmd);
    known += (known.empty() ? "" : "|") + ("\"" + path + "\"");
    std::string subs;
    // `vlag help SUBCOMMAND` takes the root's subcommands as its words.
    const CLI::App& listed = cmd->get_name() == "help" && cmd->get_parent() ? root : *cmd;
    for (const CLI::App* s :
         listed.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
      if (s != cmd) subs += (subs.empty() ? "" : " ") + s->get_name();
    std::string opts;
    bool positional = false;
    for (const CLI::Option* o : cmd->get_options()) {
      if (o->get_positional()) {
        positional = true;
        continue;
      }
      opts += (opts.empty() ? "" : " ") + spellings(*o);
      if (o->get_expected_max() == 0) continue;  // a flag: no value
      std::string arm;
      for (const std::string& s : o->get_snames()) arm += fmt::format("\"{} -{}\"|", path, s);
      for (const std::string& l : o->get_lnames()) arm += fmt::format("\"{} --{}\"|", path, l);
      arm.pop_back();
      values += fmt::format("    {}) {}; return ;;\n", arm, value_completion(*o));
    }
    commands += fmt::format("    \"{}\") subs='{}' opts='{}' files={} ;;\n", path, subs, opts,
                            positional ? 1 : 0);
  }
  return fmt::format(R"(# bash completion for vlag, generated from its command line by vlag_docs
# (cli/bash_completion.cpp): do not edit.
_vlag() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
  local path=vlag subs= opts= files=0 i
  # The command so far: the subcommands among the words before the cursor.
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "$path ${{COMP_WORDS[i]}}" in
      {}) path="$path ${{COMP_WORDS[i]}}" ;;
    esac
  done
  case "$path $prev" in
{}  esac
  case "$path" in
{}  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  elif ((files)); then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _vlag vlag
)",
                     known, values, commands);
}

}  // namespace vlag::cli
