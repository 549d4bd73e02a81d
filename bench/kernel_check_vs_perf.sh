#!/usr/bin/env bash
# Side by side on one capture of sched events, in CPU time, best of three: `vlag kernel check` on
# the perf script text (parse + all checks) against `perf sched latency` on the same perf.data.
# Usage (root, perf installed): bench/kernel_check_vs_perf.sh [DIR] [VLAG]
# VLAG may be any vlag binary (a copy of an earlier build, to compare); the text ingestion bench
# is $PARSE_BENCH, or this repository's build/bench/vlag_kernel_parse_bench (it does not follow
# VLAG, which need not sit in a build tree).
# The capture is made once in DIR (hackbench-like load: perf bench sched messaging -g $MSG_GROUPS -l
# $MSG_LOOPS, 10 and 1500 unless set) and reused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/vlag-bench-kernel}
vlag=${2:-$root/build/cli/vlag}
parse_bench=${PARSE_BENCH:-$root/build/bench/vlag_kernel_parse_bench}
mkdir -p "$dir"
if [ ! -s "$dir/perf.txt" ]; then
  perf record -q -o "$dir/perf.data" -e sched:sched_switch -e sched:sched_wakeup \
    -e sched:sched_wakeup_new -e sched:sched_migrate_task -e sched:sched_process_exit -a -- \
    perf bench sched messaging -g "${MSG_GROUPS:-10}" -l "${MSG_LOOPS:-1500}" >/dev/null 2>&1
  perf script -i "$dir/perf.data" -F comm,pid,cpu,time,event,trace >"$dir/perf.txt" 2>/dev/null
fi
events=$(wc -l <"$dir/perf.txt")
best() {  # best CPU time (user + system) of 3 runs, in seconds: fair on a shared machine
  local best=999999 t
  for _ in 1 2 3; do
    /usr/bin/time -o "$dir/time.txt" -f "%U %S" "$@" >/dev/null 2>&1 || true
    t=$(tail -1 "$dir/time.txt" | awk '{print $1 + $2}')
    best=$(echo "$t $best" | awk '{print ($1 < $2) ? $1 : $2}')
  done
  echo "$best"
}
v=$(best "$vlag" kernel check "$dir/perf.txt")
p=$(best perf sched latency -i "$dir/perf.data")
echo "events: $events"
echo "vlag kernel check (text parse + checks): ${v} s CPU"
echo "perf sched latency (binary perf.data):   ${p} s CPU"
echo "ratio perf/vlag: $(echo "$p $v" | awk '{printf "%.2f", $1 / $2}')"
# The text ingestion alone (parse, no checks), from memory:
if [ -x "$parse_bench" ]; then
  "$parse_bench" "$dir/perf.txt"
else
  echo "text ingestion: $parse_bench not built (set PARSE_BENCH)"
fi
