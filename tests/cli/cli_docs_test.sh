#!/usr/bin/env bash
# The man pages and the bash completion that vlag_docs wrote at build time against the binary's
# own --help: a page for every command --help lists, every option of every --help in its page
# and in the completion, pages that groff formats without a warning, and completions that work.
# Usage: cli_docs_test.sh VLAG GENERATED_DIR (cli/CMakeLists.txt: build/cli/generated)
set -euo pipefail
vlag=$1 generated=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The commands, walking the "Subcommands:" sections of --help from the root.
commands=("")
for ((i = 0; i < ${#commands[@]}; i++)); do
  # shellcheck disable=SC2086  # a command is zero or more words
  subs=$("$vlag" ${commands[i]} --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
  for s in $subs; do commands+=("${commands[i]:+${commands[i]} }$s"); done
done
[ ${#commands[@]} -ge 14 ] || fail "only ${#commands[@]} commands found in --help"
pages=$(find "$generated/man1" -name '*.1' | wc -l)
[ "$pages" -eq ${#commands[@]} ] || fail "$pages man pages for ${#commands[@]} commands"

completion="$generated/bash-completion/vlag"
for cmd in "${commands[@]}"; do
  page="$generated/man1/vlag${cmd:+-${cmd// /-}}.1"
  [ -f "$page" ] || fail "no man page $page for 'vlag $cmd'"
  # groff: no warnings, and the page's text (hyphens unescaped) for the checks below.
  groff -man -Tutf8 -ww -z "$page" 2>warnings.txt
  [ ! -s warnings.txt ] || { cat warnings.txt; fail "groff warns on $page"; }
  text=$(sed 's/\\-/-/g' "$page")
  # shellcheck disable=SC2086
  options=$("$vlag" $cmd --help | grep -oE '^  (-[A-Za-z],)?--[a-z][a-z0-9-]*(,--[a-z][a-z0-9-]*)*' | tr ',' '\n' | sed 's/^ *//')
  [ -n "$options" ] || fail "no options in 'vlag $cmd --help'"
  opts_line=$(grep -F "\"vlag${cmd:+ $cmd}\") subs=" "$completion")
  for o in $options; do
    grep -qF -- "$o" <<<"$text" || fail "$page lacks $o of 'vlag $cmd --help'"
    grep -qE -- "[' ]$o[' ]" <<<"$opts_line" || fail "the completion of 'vlag $cmd' lacks $o"
  done
  # Each option's type, range and default as --help writes them are in the page.
  # shellcheck disable=SC2086
  typed=$("$vlag" $cmd --help | { grep -E '^  --[a-z-]+ [A-Z]' || true; } | sed -E 's/^  //; s/ {2,}.*//')
  while read -r line; do
    [ -z "$line" ] || grep -qF -- "${line#* }" <<<"$text" || fail "$page lacks '$line'"
  done <<<"$typed"
done

# The completion at work.
# shellcheck disable=SC1090
source "$completion"
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _vlag
  echo "${COMPREPLY[*]}"
}
[ "$(complete_words vlag si)" = sim ] || fail "vlag si<TAB>"
[ "$(complete_words vlag sim --pl)" = --placement ] || fail "vlag sim --pl<TAB>"
[ "$(complete_words vlag sim --placement "")" = "prev idle sis-short" ] || fail "--placement <TAB>"
[ "$(complete_words vlag sim --no-balance --pol)" = --policy ] || fail "a flag takes no value"
[ -z "$(complete_words vlag sim --seed "")" ] || fail "a number completes to nothing"
[ "$(complete_words vlag trace "")" = export ] || fail "vlag trace <TAB>"
[ "$(complete_words vlag kernel c)" = check ] || fail "vlag kernel c<TAB>"
[ "$(complete_words vlag help tr)" = trace ] || fail "vlag help tr<TAB>"
[ "$(complete_words vlag kernel import --o)" = --output ] || [ "$(complete_words vlag kernel import --o)" = --out ] ||
  fail "vlag kernel import --o<TAB>"
mkdir dir.d
touch trace.jsonl
[ "$(complete_words vlag sim --trace-dir d)" = dir.d ] || fail "a --X-dir completes directories"
[ "$(complete_words vlag check t)" = trace.jsonl ] || fail "vlag check t<TAB> completes files"
echo "cli_docs: ${#commands[@]} commands, their man pages and completion agree with --help"
