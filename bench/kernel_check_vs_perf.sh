#!/usr/bin/env bash
# Side by side on one capture of sched events, in CPU time, best of three: `vlag kernel check` on
# the perf script text (parse + all checks) and on the perf.data itself (read natively) against
# `perf sched latency` on the same perf.data; with BASE (another vlag binary, e.g. the build
# before) that one's check of the perf.data too. The check of the perf.data must print what the
# check of its perf script text (the fields vlag's reader matches) prints: the script says so.
# Usage (root, perf installed): bench/kernel_check_vs_perf.sh [DIR] [VLAG] [BASE]
# VLAG and BASE may be any vlag binaries (copies of earlier builds); the ingestion bench is
# $PARSE_BENCH, or this repository's build/bench/vlag_kernel_parse_bench (it does not follow VLAG,
# which need not sit in a build tree).
# The capture is made once in DIR (hackbench-like load: perf bench sched messaging -g $MSG_GROUPS -l
# $MSG_LOOPS, 10 and 1500 unless set) and reused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/vlag-bench-kernel}
vlag=$(realpath "${2:-$root/build/cli/vlag}")
parse_bench=${PARSE_BENCH:-$root/build/bench/vlag_kernel_parse_bench}
base=${3:+$(realpath "$3")}
mkdir -p "$dir"
if [ ! -s "$dir/perf.txt" ]; then
  # Large buffers, as vlag kernel record takes: a lost record is an error of the perf.data reader.
  perf record -q -m 16M -o "$dir/perf.data" -e sched:sched_switch -e sched:sched_wakeup \
    -e sched:sched_wakeup_new -e sched:sched_migrate_task -e sched:sched_process_exit -a -- \
    perf bench sched messaging -g "${MSG_GROUPS:-10}" -l "${MSG_LOOPS:-1500}" >/dev/null 2>&1
  perf script -i "$dir/perf.data" -F comm,pid,cpu,time,event,trace >"$dir/perf.txt" 2>/dev/null
fi
if [ ! -s "$dir/perf-fields.txt" ]; then
  perf script -i "$dir/perf.data" --ns -F trace:comm,pid,tid,cpu,time,event,trace \
    >"$dir/perf-fields.txt" 2>/dev/null
fi
events=$(wc -l <"$dir/perf.txt")
best() {  # best CPU time (user + system, children included) of 3 runs, in seconds
  local best=999999 t
  for _ in 1 2 3; do
    /usr/bin/time -o "$dir/time.txt" -f "%U %S" "$@" >/dev/null 2>&1 || true
    t=$(tail -1 "$dir/time.txt" | awk '{print $1 + $2}')
    best=$(echo "$t $best" | awk '{print ($1 < $2) ? $1 : $2}')
  done
  echo "$best"
}
v=$(best "$vlag" kernel check "$dir/perf.txt")
d=$(best "$vlag" kernel check "$dir/perf.data")
[ -n "$base" ] && b=$(best "$base" kernel check "$dir/perf.data")
p=$(best perf sched latency -i "$dir/perf.data")
echo "events: $events"
echo "vlag kernel check perf.txt (text parse + checks):     ${v} s CPU"
echo "vlag kernel check perf.data (native read + checks):   ${d} s CPU"
[ -n "$base" ] && echo "base vlag kernel check perf.data:                     ${b} s CPU"
echo "perf sched latency (binary perf.data):                ${p} s CPU"
echo "ratio perf/vlag (text): $(echo "$p $v" | awk '{printf "%.2f", $1 / $2}')"
echo "ratio perf/vlag (perf.data): $(echo "$p $d" | awk '{printf "%.2f", $1 / $2}')"
[ -n "$base" ] && echo "ratio base/vlag (perf.data): $(echo "$b $d" | awk '{printf "%.2f", $1 / $2}')"
# The same report from the perf.data as from its text, the file's name aside.
cd "$dir"
"$vlag" kernel check perf.data >report-data.txt && s1=0 || s1=$?
"$vlag" kernel check perf-fields.txt >report-text.txt && s2=0 || s2=$?
sed -i 's/perf\.data/FILE/g' report-data.txt
sed -i 's/perf-fields\.txt/FILE/g' report-text.txt
cd - >/dev/null
if [ "$s1" = "$s2" ] && [ "$s1" -le 1 ] && cmp -s "$dir/report-data.txt" "$dir/report-text.txt"; then
  echo "reports of perf.data and its text: identical (exit $s1)"
else
  echo "reports of perf.data and its text: DIFFER (exit $s1, $s2; $dir/report-data.txt, report-text.txt)"
  exit 1
fi
# The ingestion alone (no checks), from memory: the text parsed, the perf.data read natively.
if [ -x "$parse_bench" ]; then
  "$parse_bench" "$dir/perf.txt"
  "$parse_bench" "$dir/perf.data"
else
  echo "ingestion: $parse_bench not built (set PARSE_BENCH)"
fi
