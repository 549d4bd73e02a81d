#!/usr/bin/env bash
# `vlag check`'s outputs on a corpus of traces, to compare two builds byte for byte (a change
# that only makes the checker faster must not change a byte of what it prints or writes):
#
#   bench/check_outputs.sh corpus DIR            write the corpus into DIR (with $VLAG's sim)
#   bench/check_outputs.sh outputs CORPUS OUT    run $VLAG check on every trace of CORPUS into OUT
#   diff -r OUT_BEFORE OUT_AFTER                 nothing: the outputs are the same
#
# The corpus: tests/fixtures, spec/results and the trace parser's fuzz corpus as they are; traces
# of `vlag sim` (every policy, presets, one and two CPUs with migrations, each CPU's file) and
# `vlag demo` (exact arithmetic, every preset); and mutants of some of them (a number changed, a
# line dropped, seeded) that give violations and trace faults. Per trace OUT holds the text report
# with Z3 (small traces) or without, the JSON report, the --keep-going report, the exit codes and
# the evidence files. VLAG defaults to build/cli/vlag.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
VLAG=${VLAG:-$root/build/cli/vlag}

make_corpus() {
  local dir=$1
  mkdir -p "$dir"
  cp "$root"/tests/fixtures/*.jsonl "$dir"/
  for f in "$root"/spec/results/*.trace; do cp "$f" "$dir/results-$(basename "$f" .trace).jsonl"; done
  for f in "$root"/fuzz/corpus/trace_parser_fuzzer/*; do cp "$f" "$dir/fuzz-$(basename "$f" .jsonl).jsonl"; done
  local n=0
  sim() {  # sim NAME ARGS...: one trace per CPU, named NAME-cpuN.jsonl
    local name=$1
    shift
    local tmp
    tmp=$(mktemp -d)
    "$VLAG" sim "$@" --trace-dir "$tmp" >/dev/null
    for t in "$tmp"/cpu*.jsonl; do mv "$t" "$dir/$name-$(basename "$t")"; done
    rmdir "$tmp"
  }
  sim hb1 --workload hackbench --groups 1 --fds 5 --loops 20 --seconds 0.5
  sim hb2 --workload hackbench --cpus 2 --groups 2 --fds 4 --loops 20 --seconds 0.5 --jitter 0.1
  sim hogs612 --workload hogs --tasks 5 --nice 0,0,5,-3,10 --preset linux-6.12 --seconds 0.3
  sim hogs66 --workload hogs --cpus 2 --tasks 7 --preset linux-6.6 --seconds 0.3
  sim cyc --workload cyclictest --cpus 2 --seconds 0.2 --slice-us 0,300
  sim sch --workload schbench --cpus 2 --seconds 0.3 --jitter 0.2
  sim lnice --workload hackbench+cyclictest --cpus 2 --policy eevdf-latency-nice \
    --group cyclictest:latency_nice=-20 --groups 1 --fds 3 --loops 10 --seconds 0.3
  sim nsp --workload hogs --tasks 4 --policy no-same-prio-preempt --seconds 0.2
  sim cfs --workload hackbench --cpus 2 --policy cfs --groups 1 --fds 3 --loops 10 --seconds 0.3
  sim cfsln --workload cyclictest --policy cfs-latency-nice --latency-nice -20 --seconds 0.2
  for preset in linux-6.18 linux-6.12 linux-6.6 paper-1 paper-2 paper-3; do
    "$VLAG" demo --preset "$preset" --seconds 0.2 --trace "$dir/demo-$preset.jsonl" >/dev/null
  done
  # Mutants: a number on a seeded line moved by one, a seeded line dropped.
  for base in hb1-cpu0 hogs612-cpu0 demo-linux-6.18 demo-paper-1 hb2-cpu1 cyc-cpu0; do
    for seed in 1 2 3; do
      python3 - "$dir/$base.jsonl" "$dir/mut-$base-$seed.jsonl" "$seed" <<'EOF'
import random, re, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src).read().split("\n")
rng = random.Random(seed)
for _ in range(3):
    i = rng.randrange(2, len(lines) - 1)
    if seed == 3 and _ == 0:
        del lines[i]
        continue
    nums = list(re.finditer(r'"(v|d|vlag|V|W|w|delta)":(-?\d+)', lines[i]))
    if nums:
        m = rng.choice(nums)
        lines[i] = lines[i][:m.start(2)] + str(int(m.group(2)) + rng.choice([-1, 1, 1000])) + lines[i][m.end(2):]
open(dst, "w").write("\n".join(lines))
EOF
    done
  done
}

run_outputs() {
  local corpus=$1 out=$2
  mkdir -p "$out"
  for t in "$corpus"/*.jsonl; do
    local name
    name=$(basename "$t" .jsonl)
    local z3=(--no-z3)
    [ "$(stat -c %s "$t")" -lt 200000 ] && z3=()
    (
      cd "$out"
      set +e
      "$VLAG" check "${z3[@]}" --evidence-dir "ev-$name" "$t" >"$name.txt" 2>"$name.err"
      echo "exit $?" >>"$name.txt"
      "$VLAG" check --json --no-z3 --evidence-dir "evj-$name" "$t" >"$name.json" 2>>"$name.err"
      echo "exit $?" >>"$name.json"
      "$VLAG" check --keep-going --no-z3 --evidence-dir "evk-$name" "$t" >"$name.kg.txt" 2>>"$name.err"
      echo "exit $?" >>"$name.kg.txt"
    )
  done
  # The reports name the trace by the path given; the corpus's own path is not part of them.
  grep -rl --null -F "$corpus/" "$out" | xargs -0 -r sed -i "s#$corpus/#CORPUS/#g"
}

case "${1:-}" in
  corpus) make_corpus "$2" ;;
  outputs) run_outputs "$2" "$3" ;;
  *)
    echo "usage: $0 corpus DIR | outputs CORPUS OUT" >&2
    exit 2
    ;;
esac
