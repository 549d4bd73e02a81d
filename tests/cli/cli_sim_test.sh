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
echo "cli_sim: all passed"
