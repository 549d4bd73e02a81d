#!/usr/bin/env bash
# `vlag check`, `vlag demo` and `vlag trace export` from the outside: exit codes 0 / 1 / 2, JSON
# that parses, and evidence files that `z3` confirms. Usage: cli_check_test.sh VLAG FIXTURES_DIR
set -euo pipefail
source "$(dirname "$0")/cli_expect.sh"
vlag=$1 fixtures=$2
in_scratch_dir


expect 0 "$vlag" demo --seconds 0.05 --trace demo.jsonl
grep -q "all checked invariants hold" out.txt
expect 0 "$vlag" check demo.jsonl
# The demo's table and the checker's summary under it give one lag figure (SPEC.md §2's
# w(V - v)/N at every decision point): the table's largest max|lag| is the summary's, and a
# bound is named only where the run is a steady system (the demo's periodic task is not).
for preset in linux-6.18 paper; do
  expect 0 "$vlag" demo --seconds 0.2 --preset "$preset"
  python3 - "$preset" <<'PY'
import re, sys
text = open("out.txt").read()
table = [float(m.group(1)) for m in re.finditer(r"^(?:hog-\w|periodic) .* ([0-9.]+) ms   ", text, re.M)]
assert len(table) == 4, text
theorem = "THM-LAG-BOUND-LINUX" if sys.argv[1] != "paper" else "THM-LAG-BOUND"
row = re.search(r"^" + theorem + r" .*$", text, re.M).group(0)
figure = re.search(r"max \|lag\| ([0-9.]+) ms", row)
assert figure, row
assert float(figure.group(1)) == max(table), (row, table)
assert "no bound from line" in row and "not a steady system" in row, row
assert "bound <=" not in row, row
PY
done
expect 1 "$vlag" check --evidence ev "$fixtures/inv-pick-edf.jsonl"
grep -q "INV-PICK-EDF" out.txt
z3 ev/inv-pick-edf.jsonl.1.INV-PICK-EDF.smt2 >z3.txt
head -1 z3.txt | grep -qx sat
expect 1 "$vlag" check ev/inv-pick-edf.jsonl.1.INV-PICK-EDF.window.jsonl
expect 1 "$vlag" check --evidence ev "$fixtures/cfs-pick-leftmost.jsonl"
grep -q "cfs-pick-leftmost.jsonl:6: CFS-PICK-LEFTMOST" out.txt
z3 ev/cfs-pick-leftmost.jsonl.1.CFS-PICK-LEFTMOST.smt2 >z3.txt
head -1 z3.txt | grep -qx sat
expect 1 "$vlag" check --json --no-z3 "$fixtures/inv-delay.jsonl"
grep -qF '"findings":[{"id":"INV-DELAY","verdict":"violated"' out.txt
printf '%s\n' '{"format":"vlag-trace","version":1,"preset":"paper-1"}' '{"t":0,"ev":"teleport"}' >bad.jsonl
expect 2 "$vlag" check bad.jsonl
grep -q "bad.jsonl:2: field 'ev'" err.txt
expect 2 "$vlag" check --keep-going bad.jsonl
# More faulty lines than a report keeps: the text and the JSON say how many were left out.
{ echo '{"format":"vlag-trace","version":2,"preset":"linux-6.18"}'
  for i in $(seq 70); do echo '{"t":0,"ev":"teleport"}'; done; } >many-bad.jsonl
expect 2 "$vlag" check --keep-going many-bad.jsonl
grep -q "trace problems skipped (--keep-going): 70 (the first 10 listed; --json lists 50; 20 more counted but not kept)" out.txt
expect 2 "$vlag" check --keep-going --json many-bad.jsonl
grep -qF '"problem_count":70,"problems_left_out":20' out.txt

# A kernel reconstruction (the header's kernel_reconstruction): a failed pick is inconclusive,
# exit 0, and 1 under --strict.
sed '1s/}$/,"kernel_reconstruction":true}/' "$fixtures/inv-pick-eligible.jsonl" >rebuilt.jsonl
expect 0 "$vlag" check rebuilt.jsonl
grep -q "^result: inconclusive: no violation; 1 check(s) the trace cannot settle (kernel reconstruction 1)" out.txt
grep -q "rebuilt.jsonl:8: INV-PICK-ELIGIBLE: .* (kernel reconstruction)" out.txt
expect 1 "$vlag" check --strict rebuilt.jsonl
expect 0 "$vlag" check --json rebuilt.jsonl
grep -qF '"result":"inconclusive","counts":{"held":' out.txt
grep -qF '"findings":[{"id":"INV-PICK-ELIGIBLE","verdict":"inconclusive","reason":"kernel reconstruction","file":"rebuilt.jsonl","line":8' out.txt
expect 2 "$vlag" check no-such-file.jsonl
grep -qx "vlag: no-such-file.jsonl: cannot open the trace: No such file or directory" err.txt
expect 2 "$vlag" check --json no-such-file.jsonl
grep -qF '"error":{"message":"no-such-file.jsonl: cannot open the trace: No such file or directory","file":"no-such-file.jsonl"' out.txt
# Standard input, empty input, a directory, invalid JSON simdjson would read.
expect 1 "$vlag" check --no-z3 --evidence-dir ev-stdin - <"$fixtures/inv-pick-edf.jsonl"
grep -q "^  <stdin>:6: INV-PICK-EDF" out.txt
[ -f ev-stdin/stdin.1.INV-PICK-EDF.smt2 ] || { echo "FAIL: no evidence for stdin"; exit 1; }
expect 2 "$vlag" check - </dev/null
grep -q "<stdin>:1: empty input" err.txt
: >empty.jsonl
expect 2 "$vlag" check empty.jsonl
grep -q "empty.jsonl:1: empty input" err.txt
expect 2 "$vlag" check --keep-going empty.jsonl
mkdir no-traces
expect 2 "$vlag" check no-traces  # a directory is one machine's traces: here there are none
grep -q "no traces (\*.jsonl) in directory no-traces" err.txt
printf '%s\n' '{"format":"vlag-trace","version":2,"preset":"paper-1"}' '{"t":01,"ev":"tick"}' >zero.jsonl
expect 2 "$vlag" check zero.jsonl
grep -qF "zero.jsonl:2: field 't': not a JSON number: 01" err.txt
expect 2 "$vlag" check --json zero.jsonl
grep -qF '"error":{"message":"zero.jsonl:2: field '"'"'t'"'"': not a JSON number: 01 [malformed]","file":"zero.jsonl","line":2,"field":"t"}' out.txt
printf '%s\n' '{"format":"vlag-trace","version":2,"preset":"paper-1"}' '{"t":0,"ev":"tick","t":1}' >dup.jsonl
expect 2 "$vlag" check dup.jsonl
grep -qF "dup.jsonl:2: field 't': duplicate key" err.txt
expect 1 "$vlag" check --infer "$fixtures/infer-inconsistent.jsonl"
grep -q "picks at lines 6 10" out.txt
expect 0 "$vlag" check --infer "$fixtures/infer-consistent.jsonl"
expect 0 "$vlag" trace export --perfetto demo.jsonl -o demo.perfetto.json
grep -q '"traceEvents":\[' demo.perfetto.json
grep -q '"ph":"X"' demo.perfetto.json
expect 2 "$vlag" trace export --perfetto bad.jsonl
grep -q "bad.jsonl:2: field 'ev'" err.txt
expect 0 "$vlag" trace export demo.jsonl -o demo.default.json  # the only format: no flag needed
cmp demo.default.json demo.perfetto.json
# The demo's tasks by their names; with --check, a violation and an inconclusive verdict as
# instants on their CPU's track with the ID and the message.
grep -qF '"name":"hog-a:1","cat":"run"' demo.perfetto.json
grep -qF '"name":"wakeup periodic:4"' demo.perfetto.json
expect 0 "$vlag" trace export --check "$fixtures/inv-pick-edf.jsonl" -o edf.perfetto.json
grep -qF '"name":"VIOLATION INV-PICK-EDF","cat":"check","pid":1,"tid":1,"ts":0.000,"args":{"id":"INV-PICK-EDF","verdict":"violated","message":"picked task 1 (d=4000000) but eligible task 2 has d=1000000","line":6}' edf.perfetto.json
grep -q "1 check marks" err.txt
expect 0 "$vlag" trace export --check rebuilt.jsonl -o rebuilt.perfetto.json
grep -qF '"name":"INCONCLUSIVE INV-PICK-ELIGIBLE","cat":"check"' rebuilt.perfetto.json
grep -qF '"reason":"kernel reconstruction"' rebuilt.perfetto.json
expect 0 "$vlag" trace export demo.jsonl -o demo.nocheck.json
if grep -q '"cat":"check"' demo.nocheck.json; then echo "FAIL: marks without --check"; exit 1; fi
# --worst N: a hackbench run's wakeups one by one, the worst first, what ran meanwhile adding up to
# each delay (text and JSON); a value out of range is bad input.
expect 0 "$vlag" sim --workload hackbench --cpus 1 --seconds 0.05 --trace-dir hb
expect 0 "$vlag" check --no-z3 --worst 3 hb/cpu0.jsonl
grep -q "Worst wakeups (3 of [1-9][0-9]* measured" out.txt
expect 0 "$vlag" check --no-z3 --worst 3 --json hb/cpu0.jsonl
python3 - out.txt <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["worst_wakeups"][0]
d = [x["delay_ns"] for x in w["wakeups"]]
assert len(d) == 3 and d == sorted(d, reverse=True) and d[0] > 0, d
for x in w["wakeups"]:
    assert sum(m["ns"] for m in x["meanwhile"]) + x["unrecorded_ns"] == x["delay_ns"], x
PY
expect 2 "$vlag" check --worst 0 hb/cpu0.jsonl
# With --keep-going a faulty line is a trace problem (exit 2), and the wakeups are still listed.
{ cat hb/cpu0.jsonl; echo '{"t":"x"}'; } >hb-bad.jsonl
expect 2 "$vlag" check --no-z3 --keep-going --worst 3 --json hb-bad.jsonl
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["problem_count"] == 1 and len(d["worst_wakeups"][0]["wakeups"]) == 3, d.get("problem_count")' out.txt
echo "cli_check_test: ok"
