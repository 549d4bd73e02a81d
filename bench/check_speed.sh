#!/usr/bin/env bash
# `vlag check`'s speed on large traces, the figures of the README's table (a benchmark, not a
# test; ratios are taken within one run, CPU time where the machine is shared):
#   1. a Linux-arithmetic trace of 1000 tasks (hackbench, 25 groups of 20 senders and 20
#      receivers, one CPU) of about 10 million events: vlag_check_bench, simdjson walking every
#      field against the full check, CPU time, ratio and events/s;
#   2. the peak RSS of `vlag check --no-z3` on the same workload at about 1 and 10 million events;
#   3. the same workload on 2 CPUs (per-CPU traces, migrations by load balancing), checked as one
#      machine with --jobs 1 and --jobs 2: CPU and wall time, the speed-up, the outputs compared;
#   4. exact traces (`vlag demo`, the paper presets, rational arithmetic): vlag_check_bench.
# Usage: bench/check_speed.sh [DIR] [BUILD]   (DIR keeps the traces, ~6 GB; BUILD: build/)
# LOOPS (500: ~10 M events), SMALL_LOOPS (50: ~1 M) and DEMO_SECONDS (5) scale the traces.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/vlag-bench-check}
build=${2:-$root/build}
vlag=$build/cli/vlag
bench=$build/bench/vlag_check_bench
loops=${LOOPS:-500}
small_loops=${SMALL_LOOPS:-50}
demo_seconds=${DEMO_SECONDS:-5}
mkdir -p "$dir"
cd "$dir"

hackbench() {  # hackbench NAME CPUS LOOPS: the traces of one run in NAME/, made once
  [ -d "$1" ] && return
  "$vlag" sim --workload hackbench --cpus "$2" --groups 25 --fds 20 --loops "$3" \
    --seconds 3600 --trace-dir "$1.tmp" >"$1.sim.txt"
  mv "$1.tmp" "$1"
}
# max_rss WHAT COMMAND...: the command's peak RSS, user CPU and wall time, its output in WHAT.out
max_rss() {
  local what=$1
  shift
  /usr/bin/time -o "$what.time" -f "%M KB max RSS, %U s user CPU, %e s wall" "$@" >"$what.out" ||
    true
  echo "$what: $(cat "$what.time")"
}

hackbench small 1 "$small_loops"
hackbench large 1 "$loops"
hackbench two 2 "$loops"
for p in paper-1 paper-2 paper-3; do
  [ -s "demo-$p.jsonl" ] ||
    "$vlag" demo --preset "$p" --seconds "$demo_seconds" --trace "demo-$p.jsonl" >/dev/null
done

echo "== 1. 1000 tasks, one CPU, Linux arithmetic: $(wc -l <large/cpu0.jsonl) lines, $(du -h large/cpu0.jsonl | cut -f1)"
"$bench" --repeat 1 large/cpu0.jsonl
echo "== 2. memory"
max_rss "check-small ($(wc -l <small/cpu0.jsonl) lines)" "$vlag" check --no-z3 small/cpu0.jsonl
max_rss "check-large ($(wc -l <large/cpu0.jsonl) lines)" "$vlag" check --no-z3 large/cpu0.jsonl
echo "== 3. 2 CPUs, one machine: $(cat two/cpu*.jsonl | wc -l) lines"
max_rss jobs1 "$vlag" check --no-z3 --jobs 1 two
max_rss jobs2 "$vlag" check --no-z3 --jobs 2 two
cmp jobs1.out jobs2.out && echo "--jobs 2 prints what --jobs 1 prints"
echo "== 4. exact traces (paper presets, rational arithmetic)"
for p in paper-1 paper-2 paper-3; do
  echo "-- $p: $(wc -l <"demo-$p.jsonl") lines"
  "$bench" --repeat 1 "demo-$p.jsonl"
done
