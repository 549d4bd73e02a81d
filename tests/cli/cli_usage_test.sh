#!/usr/bin/env bash
# The command line's conventions from the outside: values out of range, options that reach
# nothing and repeated keys exit 2 naming the problem; a usage error points to the subcommand's
# own help; `vlag help SUBCOMMAND` is `vlag SUBCOMMAND --help`; trace export needs no --perfetto;
# check's evidence directory is --evidence-dir (or --evidence); "1 CPU", "2 CPUs".
# Usage: cli_usage_test.sh VLAG EXAMPLES_DIR FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/cli_expect.sh"
vlag=$1 examples=$2 fixtures=$3
in_scratch_dir
short=(--seconds 0.01)

# Seeds: the whole range of a uint64, nothing outside it (CLI11 alone reads both as 2^64 - 1).
expect 0 "$vlag" sim "${short[@]}" --seed 18446744073709551615
grep -q "seed 18446744073709551615:" out.txt
for bad in -1 18446744073709551616 1.5 0x10; do
  expect 2 "$vlag" sim "${short[@]}" --seed "$bad"
  grep -qF -- "--seed: '$bad' is not an integer in 0..18446744073709551615" err.txt
  expect 2 "$vlag" compare --seconds 0.01 --repeat 1 --seed "$bad"
  grep -qF -- "--seed: '$bad' is not an integer in 0..18446744073709551615" err.txt
done
expect 2 "$vlag" sim "${short[@]}" --seed 1 --seed 2
expect 2 "$vlag" check --max-evidence -1 "$fixtures/inv-pick-edf.jsonl"
grep -qF -- "--max-evidence: '-1' is not an integer" err.txt

# Lists: an empty item is an error, not a skipped value; pieces given twice join.
expect 2 "$vlag" sim "${short[@]}" --nice 1,,2
grep -qF -- "--nice: '1,,2' is not an integer in -20..19" err.txt
expect 2 "$vlag" sim "${short[@]}" --nice 1,
expect 2 "$vlag" sim "${short[@]}" --slice-us ,100
expect 2 "$vlag" compare --seconds 0.01 --repeat 1 --set nice=1,,2
grep -q "nice=1,,2" err.txt
expect 0 "$vlag" sim "${short[@]}" --tasks 2 --nice 0 --nice 5
grep -qE "^hog1 +0 +5 " out.txt

# A group must name a workload of the run; background only when there are background hogs.
expect 2 "$vlag" sim "${short[@]}" --group foo:nice=1
grep -qF -- "--group foo: no workload 'foo' in this run (its workloads: hogs)" err.txt
expect 2 "$vlag" sim "${short[@]}" --group background:nice=1
expect 0 "$vlag" sim "${short[@]}" --group hogs:nice=3
grep -qE "^hog0 +0 +3 " out.txt
expect 0 "$vlag" sim "${short[@]}" --hogs 1 --group background:nice=3
expect 2 "$vlag" compare --seconds 0.01 --repeat 1 --workload cyclictest --set group=hogs:nice=1
grep -q "no workload 'hogs'" err.txt

# --rtapp belongs to the rtapp workload.
expect 2 "$vlag" sim "${short[@]}" --rtapp "$examples/rtapp-periodic.json"
grep -qF -- "is for the rtapp workload, and --workload is 'hogs'" err.txt
expect 0 "$vlag" sim "${short[@]}" --workload rtapp --rtapp "$examples/rtapp-periodic.json"

# A key given twice, in --set or within one variant, is an error; not the first one silently.
expect 2 "$vlag" compare --seconds 0.01 --repeat 1 --set cpus=1 --set cpus=2
grep -qF -- "--set cpus given twice (cpus=1 and cpus=2)" err.txt
expect 2 "$vlag" compare --seconds 0.01 --repeat 1 --variants 'cpus=1 cpus=2;cpus=2'
grep -q "gives cpus twice" err.txt

# A usage error names the help of the subcommand being parsed.
expect 2 "$vlag" sim --bogus
grep -qF "(see vlag sim --help)" err.txt
expect 2 "$vlag" trace export --bogus "$fixtures/inv-pick-edf.jsonl"
grep -qF "(see vlag trace export --help)" err.txt
expect 2 "$vlag" kernel check
grep -qF "(see vlag kernel check --help)" err.txt
expect 2 "$vlag" nonsense
grep -qF "(see vlag --help)" err.txt

# vlag help [SUBCOMMAND...] prints exactly what --help prints.
for cmd in "" check sim compare "trace export" "kernel import"; do
  # shellcheck disable=SC2086  # $cmd is zero, one or two words
  expect 0 "$vlag" $cmd --help
  mv out.txt want.txt
  # shellcheck disable=SC2086
  expect 0 "$vlag" help $cmd
  cmp out.txt want.txt
done
head -2 want.txt | grep -q "^Usage: vlag kernel import "
expect 2 "$vlag" help nope
grep -qF "'nope' is not a subcommand of vlag (demo, sim," err.txt
expect 2 "$vlag" help trace nope
grep -qF "'nope' is not a subcommand of vlag trace (export)" err.txt

# trace export: the only format needs no flag; --perfetto is still accepted.
expect 0 "$vlag" trace export "$fixtures/inv-pick-edf.jsonl" -o plain.json
expect 0 "$vlag" trace export --perfetto "$fixtures/inv-pick-edf.jsonl" --output flagged.json
cmp plain.json flagged.json
grep -q '"traceEvents"' plain.json

# check's evidence directory: --evidence-dir, and the older --evidence.
expect 1 "$vlag" check --evidence-dir ev1 "$fixtures/inv-pick-edf.jsonl"
test -f ev1/inv-pick-edf.jsonl.1.INV-PICK-EDF.smt2
expect 1 "$vlag" check --evidence ev2 "$fixtures/inv-pick-edf.jsonl"
test -f ev2/inv-pick-edf.jsonl.1.INV-PICK-EDF.smt2

# One CPU is "1 CPU".
expect 0 "$vlag" sim "${short[@]}"
grep -q "^vlag sim: 1 CPU, policy" out.txt
expect 0 "$vlag" sim "${short[@]}" --cpus 2
grep -q "^vlag sim: 2 CPUs, policy" out.txt
echo "cli_usage: all checks passed"
