#!/usr/bin/env bash
# Filesystem errors in every subcommand that writes: a directory vlag cannot make (a file in its
# way, a path below a file) and an output file it cannot open give a message naming the path and
# exit 2 — never an uncaught std::filesystem_error (exit 134) — and under --json also a JSON
# error on stdout. A run that writes nothing touches nothing. Usage: cli_files_test.sh VLAG
# FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/cli_expect.sh"
vlag=$1 fixtures=$2
in_scratch_dir
touch afile
edf="$fixtures/inv-pick-edf.jsonl"

# vlag check: the evidence directory, with and without Z3; --max-evidence 0 writes none.
expect 2 "$vlag" check --evidence-dir afile "$edf"
grep -qF "vlag: cannot create the directory afile (--evidence-dir)" err.txt
expect 2 "$vlag" check --no-z3 --evidence-dir afile/sub "$edf"
grep -qF "cannot create the directory afile/sub (--evidence-dir)" err.txt
expect 1 "$vlag" check --no-z3 --max-evidence 0 --evidence-dir afile "$edf"
expect 0 "$vlag" check --evidence-dir afile "$fixtures/../../spec/results/28-inv-reweight-linux-6.6.trace"
expect 2 "$vlag" check --json --no-z3 --evidence-dir afile "$edf"
python3 - <<'PY'
import json
d = json.load(open("out.txt"))
assert d["command"] == "check" and d["exit_code"] == 2 and d["result"] == "error", d
assert "afile (--evidence-dir)" in d["error"]["message"], d
PY
expect 2 "$vlag" check --infer --evidence-dir afile "$fixtures/infer-consistent.jsonl"
grep -qF "afile (--evidence-dir)" err.txt

# vlag sim --trace-dir, vlag compare --plot-dir.
expect 2 "$vlag" sim --workload hogs --seconds 0.01 --trace-dir afile
grep -qF "cannot create the directory afile (--trace-dir)" err.txt
expect 2 "$vlag" sim --workload hogs --seconds 0.01 --trace-dir afile/sub
expect 2 "$vlag" compare --workload hogs --seconds 0.01 --vary nice=0,1 --plot-dir afile
grep -qF "afile (--plot-dir)" err.txt

# Output files: -o, --trace.
expect 0 "$vlag" demo --seconds 0.01 --trace demo.jsonl
expect 2 "$vlag" demo --seconds 0.01 --trace afile/demo.jsonl
grep -qF "afile/demo.jsonl" err.txt
expect 2 "$vlag" trace export demo.jsonl -o afile/demo.json
grep -qF "afile/demo.json" err.txt
expect 2 "$vlag" prove --tasks 2 --depth 4 --invariant THM-LAG-BOUND --preset linux-6.18 \
  --slices 100000,3000000 --trace afile/cex.trace
grep -qF "afile/cex.trace" err.txt
expect 2 "$vlag" prove --tasks 2 --depth 4 --invariant THM-LAG-BOUND --preset linux-6.18 \
  --slices 100000,3000000 --trace afile/cex.trace --json
grep -qF '"command":"prove"' out.txt
grep -qF '"exit_code":2' out.txt
expect 2 "$vlag" kernel import "$fixtures/../data/linux/hogs-nice.perf.txt" --cpu 1 -o afile/x.jsonl
grep -qF "afile/x.jsonl" err.txt
echo "cli_files_test: ok"
