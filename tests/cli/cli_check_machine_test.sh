#!/usr/bin/env bash
# `vlag check` on a whole machine from the outside: a directory of a simulated 2-CPU run's
# per-CPU traces passes with its migrations judged, --jobs 2 prints what one thread prints (text
# and JSON, byte for byte), a lag changed in transit exits 1 naming INV-MIGRATE-LAG, a progress
# line shows on a terminal, and Ctrl-C prints the summary of what was checked (exit 3).
# Usage: cli_check_machine_test.sh VLAG
set -euo pipefail
source "$(dirname "$0")/cli_expect.sh"
vlag=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

expect 0 "$vlag" sim --workload schbench --cpus 2 --workers 6 --placement idle --seconds 0.5 \
  --trace-dir run
grep -q "[1-9][0-9]* migrations" out.txt
expect 0 "$vlag" check --no-z3 run
grep -q "in 2 file(s)" out.txt
grep -Eq "^INV-MIGRATE-LAG +[1-9]" out.txt
grep -Eq "^INV-ONE-RUNQUEUE +[1-9]" out.txt
cp out.txt one.txt
expect 0 "$vlag" check --no-z3 --jobs 2 run/cpu0.jsonl run/cpu1.jsonl
cmp one.txt out.txt
expect 0 "$vlag" check --json --no-z3 run
cp out.txt one.json
expect 0 "$vlag" check --json --no-z3 -j 2 run
cmp one.json out.txt

# A lag changed in transit: the first detach of CPU 0 takes one more than it left with.
mkdir bad
cp run/cpu1.jsonl bad/
awk '!done && /"ev":"detach"/ { match($0, /"vlag":-?[0-9]+/); v = substr($0, RSTART + 7, RLENGTH - 7);
     sub(/"vlag":-?[0-9]+/, "\"vlag\":" (v + 1)); done = 1 } { print }' run/cpu0.jsonl >bad/cpu0.jsonl
expect 1 "$vlag" check --no-z3 bad
grep -q "bad/cpu1.jsonl:[0-9]*: INV-MIGRATE-LAG: task [0-9]* arrives with vlag" out.txt
cp out.txt one.txt
expect 1 "$vlag" check --no-z3 --jobs 2 bad
cmp one.txt out.txt

# Two traces of one CPU of one run are bad input.
mkdir twice
cp run/cpu0.jsonl twice/a.jsonl
cp run/cpu0.jsonl twice/b.jsonl
expect 2 "$vlag" check twice
grep -q "CPU 0 of this run is .*a.jsonl already" err.txt
mkdir empty
expect 2 "$vlag" check empty
grep -q "no traces" err.txt

# A long check, made long by a pipe whose writer holds the rest of the trace back: the check
# waits on it as on a large file, however fast it checks what it has. A lone trace is read once.
expect 0 "$vlag" sim --workload hackbench --seconds 0.5 --trace-dir long
head -n 5000 long/cpu0.jsonl >first.jsonl
tail -n +5001 long/cpu0.jsonl >rest.jsonl
[ "$(wc -l <rest.jsonl)" -gt 10000 ]
mkfifo pipe.jsonl
# wait_for FILE TEXT: until FILE holds TEXT (30 s at most).
wait_for() {
  for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "FAIL: no '$2' in $1"; cat "$1"; exit 1
}

# The progress line on a terminal (script gives the command one), redrawn while it waits.
script -qec "'$vlag' check --no-z3 pipe.jsonl" /dev/null >tty.txt &
pid=$!
exec 3>pipe.jsonl
cat first.jsonl >&3
wait_for tty.txt "M events/s, 0 violation(s) so far"
cat rest.jsonl >&3
exec 3>&-
wait $pid
grep -q "all checked invariants hold" tty.txt
grep -q "in 1 file(s)" tty.txt

# Ctrl-C: the summary of what was checked, exit 3.
"$vlag" check --no-z3 pipe.jsonl >int.txt 2>&1 &
pid=$!
exec 3>pipe.jsonl
cat first.jsonl >&3
# Interrupt only once the SIGINT handler is installed (bit 1 of SigCgt): the default action
# would end the process without a summary.
for _ in $(seq 600); do
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  (( (16#${mask:-0} & 2) != 0 )) && break
  sleep 0.05
done
kill -INT $pid
# The rest: the check stops within it (it looks at Ctrl-C every 1024 events) and closes the pipe.
(cat rest.jsonl >&3) 2>/dev/null || true
exec 3>&-
rc=0; wait $pid || rc=$?
[ "$rc" = 3 ] || { echo "FAIL: Ctrl-C exited $rc, expected 3"; cat int.txt; exit 1; }
grep -q "^note: interrupted after [0-9]* event(s): the rest of the traces was not checked" int.txt
n=$(sed -n 's/^note: interrupted after \([0-9]*\) event(s).*/\1/p' int.txt)
[ "$n" -lt "$(wc -l <long/cpu0.jsonl)" ] || { echo "FAIL: $n events: not interrupted"; exit 1; }
grep -Eq "^INV-LAG-SUM +[1-9]" int.txt
grep -q "^result: " int.txt
echo "cli_check_machine_test: ok"
