#!/usr/bin/env bash
# `vlag sim` and `vlag compare` from the outside: every workload under every policy runs, prints
# its tool's output and writes per-CPU traces that `vlag check` passes (exit 0); compare's
# options fail with exit 2 naming what is wrong. Usage: cli_sim_test.sh VLAG EXAMPLES_DIR
set -euo pipefail
source "$(dirname "$0")/cli_expect.sh"
vlag=$1 examples=$2
in_scratch_dir


declare -A banner=(
  [hogs]="share"
  [cyclictest]="T: 0"
  [hackbench]="Total time"
  [schbench]="Wakeup Latencies percentiles"
  [rtapp]="vlag sim"
  [hackbench+cyclictest]="Max:"
)
for policy in eevdf eevdf-latency-nice no-same-prio-preempt cfs cfs-latency-nice; do
  for workload in hogs cyclictest hackbench schbench rtapp hackbench+cyclictest; do
    dir="traces-$policy-$workload"
    rtapp=()  # --rtapp is the rtapp workload's alone (a usage error elsewhere)
    [ "$workload" = rtapp ] && rtapp=(--rtapp "$examples/rtapp-periodic.json")
    expect 0 "$vlag" sim --policy "$policy" --workload "$workload" --cpus 2 --groups 1 --loops 20 \
      --seconds 0.2 --request-us 500 "${rtapp[@]}" \
      --latency-nice -5,5 --jitter 0.05 --trace-dir "$dir"
    grep -q "${banner[$workload]}" out.txt || { echo "FAIL: $policy $workload output"; cat out.txt; exit 1; }
    for trace in "$dir"/cpu*.jsonl; do
      expect 0 "$vlag" check --no-z3 "$trace"
    done
  done
done

expect 2 "$vlag" compare --workload hogs --seconds 0.01 --metrics no-such-metric
grep -q "no-such-metric" err.txt
expect 2 "$vlag" compare --workload hogs --seconds 0.01 --vary no_such_key=1,2
grep -q "no_such_key" err.txt
expect 2 "$vlag" compare --workload hogs+nothing --seconds 0.01
expect 0 "$vlag" compare --workload hackbench+cyclictest --cpus 2 --seconds 0.05 --rows groups=1 \
  --vary policy=eevdf,cfs --repeat 2 --metrics cyclictest.max,switches --json
python3 -c 'import json,sys; d=json.load(open("out.txt")); assert d' 
# Task groups under the CFS policies (SPEC.md §8.6): the hogs split by group, the traces (a
# runqueue per group) pass, and compare varies the policy with the groups in place.
expect 0 "$vlag" sim --policy cfs --workload hogs --cpus 1 --tasks 4 --seconds 1 \
  --cgroup a:weight=100,tasks=1 --cgroup b:weight=100,tasks=3 --trace-dir traces-cfs-cgroups
grep -qE '^hog0 .* 50\.[0-9]+%  /a$' out.txt || { echo "FAIL: cfs cgroup shares"; cat out.txt; exit 1; }
grep -q '"group":"/b"' traces-cfs-cgroups/cpu0.jsonl
expect 0 "$vlag" check --no-z3 traces-cfs-cgroups/cpu0.jsonl
expect 0 "$vlag" compare --workload hogs --cpus 2 --seconds 0.2 --set tasks=4 \
  --set cgroup.a.tasks=1 --set cgroup.b.tasks=3 --vary policy=eevdf,cfs,cfs-latency-nice \
  --metrics cgroup:/a.share
grep -q "policy=cfs-latency-nice" out.txt
echo "cli_sim: all passed"
