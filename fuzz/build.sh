#!/usr/bin/env bash
# Builds the fuzz targets the OSS-Fuzz / ClusterFuzzLite way: compiler and flags from $CXX and
# $CXXFLAGS, the engine from $LIB_FUZZING_ENGINE, binaries and <target>_seed_corpus.zip into $OUT.
# It is the build script of both (.clusterfuzzlite/build.sh, fuzz/oss-fuzz/build.sh). Standalone
# defaults (clang, libFuzzer, ASan + UBSan, out/fuzz) make `bash fuzz/build.sh` work on a
# developer machine too, where warnings are errors; under an engine (LIB_FUZZING_ENGINE given)
# they are not, since its clang is newer (VLAG_WERROR=0|1 decides).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
werror=${VLAG_WERROR:-$([ -n "${LIB_FUZZING_ENGINE:-}" ] && echo 0 || echo 1)}
: "${CXX:=clang++}"
: "${CXXFLAGS:=-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:=$src/out/fuzz}"
# The engines build C++ against libc++ (-stdlib=libc++); the libraries vlag links (gmpxx,
# simdjson, fmt, z3) are the distribution's, built against libstdc++, so the targets use that.
CXXFLAGS=${CXXFLAGS//-stdlib=libc++/}
warnings="-Wall -Wextra"
[ "$werror" = 1 ] && warnings="$warnings -Werror"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # absolute: the seed corpus is zipped from inside its directory
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT

# Every library source of the folders the targets use (a new file needs no line here), and the
# fuzz decoders (smt/detail/ is smt's own; kernel/bpf/ and kernel/state/ are not needed). No
# target reads trace.dat: kernel/ gives the build without libtracecmd (trace_dat_unsupported.cpp).
library=(fuzz/op_decoder.cpp fuzz/hierarchy_decoder.cpp)
for dir in spec json stats rules reference optimized cfs trace smt smt/detail checker kernel sim; do
  for f in "$src/$dir"/*.cpp; do
    [ "$f" = "$src/kernel/trace_dat.cpp" ] && continue
    library+=("${f#"$src/"}")
  done
done
objects=()
for f in "${library[@]}"; do
  o="$obj/$(echo "$f" | tr / _).o"
  # shellcheck disable=SC2086  # CXXFLAGS is a list of flags
  "$CXX" $CXXFLAGS $warnings -std=c++20 -I"$src" -c "$src/$f" -o "$o" &
  objects+=("$o")
  # at most two compilers at a time
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
done
wait

targets=(differential_fuzzer tree_fuzzer invariant_fuzzer hierarchy_fuzzer perf_script_fuzzer
         perf_data_fuzzer sched_debug_fuzzer trace_parser_fuzzer rtapp_fuzzer cfs_fuzzer)
# traceevent: the perf.data reader parses the tracepoints' formats with it.
libraries=(gmpxx gmp z3 simdjson fmt traceevent)
for target in "${targets[@]}"; do
  # $ORIGIN/lib: the engines' runners lack these libraries; they travel with the targets.
  # shellcheck disable=SC2086,SC2016
  "$CXX" $CXXFLAGS $warnings -std=c++20 -I"$src" "$src/fuzz/$target.cpp" "${objects[@]}" \
    $LIB_FUZZING_ENGINE "${libraries[@]/#/-l}" -Wl,-rpath,'$ORIGIN/lib' -o "$OUT/$target"
  (cd "$src/fuzz/corpus/$target" && zip -q -r -X "$OUT/${target}_seed_corpus.zip" .)
done
mkdir -p "$OUT/lib"
for path in $(for t in "${targets[@]}"; do ldd "$OUT/$t"; done | awk '{print $3}' | sort -u); do
  # A rebuild finds the copies of an earlier build through the rpath: they are in place already.
  [ "$(dirname "$path")" = "$OUT/lib" ] && continue
  for lib in "${libraries[@]}"; do
    if [[ $(basename "$path") == lib$lib.so* ]]; then cp -L "$path" "$OUT/lib/"; fi
  done
done
echo "fuzz: built ${targets[*]} into $OUT (with $(ls "$OUT/lib" | tr '\n' ' ')in $OUT/lib)"
