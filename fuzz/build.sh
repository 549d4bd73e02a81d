#!/usr/bin/env bash
# Builds the fuzz targets the OSS-Fuzz / ClusterFuzzLite way: compiler and flags from $CXX and
# $CXXFLAGS, the engine from $LIB_FUZZING_ENGINE, binaries and <target>_seed_corpus.zip into $OUT.
# Standalone defaults (clang, libFuzzer, ASan + UBSan, out/fuzz) make `bash fuzz/build.sh` work
# on a developer machine too.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
: "${CXX:=clang++}"
: "${CXXFLAGS:=-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:=$src/out/fuzz}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # absolute: the seed corpus is zipped from inside its directory
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT

# Every library source of the folders the targets use (a new file needs no line here), and the
# one fuzz helper (smt/detail/ is smt's own; kernel/bpf/ is not needed).
library=(fuzz/op_decoder.cpp)
for dir in spec json stats rules reference optimized cfs trace smt smt/detail checker kernel sim; do
  for f in "$src/$dir"/*.cpp; do library+=("${f#"$src/"}"); done
done
objects=()
for f in "${library[@]}"; do
  o="$obj/$(echo "$f" | tr / _).o"
  # shellcheck disable=SC2086  # CXXFLAGS is a list of flags
  "$CXX" $CXXFLAGS -std=c++20 -I"$src" -c "$src/$f" -o "$o" &
  objects+=("$o")
  # at most two compilers at a time
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
done
wait

for target in differential_fuzzer tree_fuzzer perf_script_fuzzer sched_debug_fuzzer trace_parser_fuzzer rtapp_fuzzer cfs_fuzzer; do
  # shellcheck disable=SC2086
  "$CXX" $CXXFLAGS -std=c++20 -I"$src" "$src/fuzz/$target.cpp" "${objects[@]}" \
    $LIB_FUZZING_ENGINE -lgmpxx -lgmp -lz3 -lsimdjson -lfmt -o "$OUT/$target"
  (cd "$src/fuzz/corpus/$target" && zip -q -r -X "$OUT/${target}_seed_corpus.zip" .)
done
echo "fuzz: built differential_fuzzer tree_fuzzer perf_script_fuzzer sched_debug_fuzzer trace_parser_fuzzer rtapp_fuzzer cfs_fuzzer into $OUT"
