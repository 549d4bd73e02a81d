#!/usr/bin/env bash
# `vlag prove` from the outside: the exit code of each verdict (0 proved or held, 1
# counterexample, 3 timeout or Ctrl-C, 2 usage), the JSON, and a counterexample trace that
# `vlag check` reads back. Usage: cli_prove_test.sh VLAG
set -euo pipefail
source "$(dirname "$0")/cli_expect.sh"
vlag=$1
in_scratch_dir

expect 0 "$vlag" prove --tasks 2 --depth 2 --invariant INV-LAG-SUM --preset linux-6.18
grep -q "^PROVED for every depth by k-induction at k = 1" out.txt
expect 0 "$vlag" prove --tasks 2 --depth 2 --invariant INV-LAG-SUM --preset linux-6.18 \
  --no-induction --json
grep -qF '"verdict":"held","method":"bmc","reached":2' out.txt

# A counterexample: the steady driver under linux-6.18 with a 0.1 ms slice, written as a trace
# that the checker replays with the same ID.
expect 1 "$vlag" prove --tasks 2 --depth 4 --invariant THM-LAG-BOUND --preset linux-6.18 \
  --slices 100000,3000000 --trace cex.trace
grep -q "^COUNTEREXAMPLE at depth 1 (shortest), expected" out.txt
grep -q "<- THM-LAG-BOUND" out.txt
"$vlag" check cex.trace >check.txt || true
grep -q "^THM-LAG-BOUND " check.txt

# A control character in a JSON string is escaped, not dropped: a trace name with a tab in it.
expect 1 "$vlag" prove --tasks 2 --depth 4 --invariant THM-LAG-BOUND --preset linux-6.18 \
  --slices 100000,3000000 --trace $'cex\tname.trace' --json
grep -qF '"trace":"cex\tname.trace"}' out.txt

# An induction that does not close: held, with its failing step in the JSON.
expect 0 "$vlag" prove --tasks 3 --depth 1 --invariant THM-LAG-BOUND --preset paper-1 \
  --slices 0,1000000 --json
grep -qF '"induction_step":{"before":{"curr":' out.txt

# Out of time, and interrupted: 3, with what was established.
expect 3 "$vlag" prove --tasks 3 --depth 12 --invariant INV-LAG-SUM --no-induction --timeout 1
grep -q "^UNKNOWN: timeout; held to depth" out.txt
"$vlag" prove --tasks 3 --depth 12 --invariant INV-LAG-SUM --no-induction >int.txt 2>&1 &
pid=$!
# Interrupt only once vlag's SIGINT handler is installed (bit 1 of SigCgt): on a loaded machine
# a fixed sleep can land before it, and the default action would end the process with 130.
for _ in $(seq 300); do
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  (( (16#${mask:-0} & 2) != 0 )) && break
  sleep 0.1
done
sleep 1
kill -INT $pid
rc=0; wait $pid || rc=$?
[ "$rc" = 3 ] || { echo "FAIL: Ctrl-C exited $rc, expected 3"; cat int.txt; exit 1; }
grep -q "^UNKNOWN: interrupted; held to depth" int.txt

# Usage errors: 2, naming what is wrong.
expect 2 "$vlag" prove --invariant INV-NOPE
grep -q "unknown invariant 'INV-NOPE'" err.txt
expect 2 "$vlag" prove --tasks 0
expect 2 "$vlag" prove --arith linux64 --invariant INV-REWEIGHT
grep -q "exact arithmetic only" err.txt
expect 2 "$vlag" prove --mutate bogus
expect 2 "$vlag" prove --preset linux-6.6 --features NEXT_BUDDY
echo "cli_prove_test: ok"
