#!/usr/bin/env bash
# The cost of `vlag kernel record --state` to the load it captures, side by side in one run: a
# hackbench-like load (perf bench sched messaging) alone and under the capture (with queue
# snapshots, and without: --no-queues), alternating, PAIRS times; the wall time of the load
# process itself (not the capture's start-up, decoding or checking, which come before and after
# it), the median of the pairwise ratios (target <= 1.10), the lost records, and then the checker's
# records per second on the last capture (bench/state_check_bench).
# Usage (root): bench/kernel_state_overhead.sh [PAIRS] [LOOPS] [DIR]
set -euo pipefail
pairs=${1:-10} loops=${2:-1000} dir=${3:-/tmp/vlag-bench-state}
here=$(cd "$(dirname "$0")" && pwd)
vlag=${VLAG_BIN:-$here/../build/cli/vlag}
bench=${VLAG_STATE_BENCH:-$here/../build/bench/vlag_state_check_bench}
load=(perf bench sched messaging -g 2 -l "$loops")
mkdir -p "$dir"

wall() {  # the wall time of the load, run as "$@" -- load
  "$@" /usr/bin/time -o "$dir/time.txt" -f %e "${load[@]}" >/dev/null 2>&1
  tail -1 "$dir/time.txt"
}
lost() { sed -n 's/.*"lost_per_cpu":\[\([0-9,]*\)\].*/\1/p' "$1/capture.json" | tr ',' '+' | bc; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

: >"$dir/queues.txt"
: >"$dir/no-queues.txt"
lost_q=0 lost_n=0
for i in $(seq "$pairs"); do
  alone=$(wall env)
  rm -rf "$dir/q" "$dir/n"
  q=$(wall "$vlag" kernel record --state -o "$dir/q" --)
  alone2=$(wall env)
  n=$(wall "$vlag" kernel record --state --no-queues -o "$dir/n" --)
  lost_q=$((lost_q + $(lost "$dir/q"))) lost_n=$((lost_n + $(lost "$dir/n")))
  echo "$q $alone" | awk '{ print $1 / $2 }' >>"$dir/queues.txt"
  echo "$n $alone2" | awk '{ print $1 / $2 }' >>"$dir/no-queues.txt"
  echo "pair $i: alone $alone s, captured $q s (queues); alone $alone2 s, captured $n s (no queues)"
done
echo "load: ${load[*]}"
echo "wall-time ratio, median of $pairs pairs: with queue snapshots $(median <"$dir/queues.txt"), without $(median <"$dir/no-queues.txt") (target <= 1.10)"
echo "lost records over all runs: with queue snapshots $lost_q, without $lost_n"
echo "last capture: $(du -h "$dir/q/state.raw" | cut -f1) raw with queue snapshots, $(du -h "$dir/n/state.raw" | cut -f1) without"
"$bench" "$dir/q"
