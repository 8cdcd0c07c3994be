#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, every project source instrumented) in build-fuzz/
# and runs each for a bounded time, all at once (legalize and kernel the full time, one per core;
# model_file, a small target, a third of it beside them). Prints each fuzzer's executions; fails,
# naming the reproducer, when a fuzzer finds a crash, a leak, undefined behaviour, a broken promise (see the
# targets' headers), a single allocation over the malloc limit or an input slower than the timeout.
#
#   fuzz/run.sh                       # 60 s per fuzzer
#   FUZZ_SECONDS=600 fuzz/run.sh      # longer
#   build-fuzz/bin/legalize_fuzzer CRASH_FILE   # reproduce one finding
#   FUZZ_BUILD_DIR=build-asan fuzz/run.sh       # in a folder already configured so (test-sanitizers.sh)
#
# The corpora grow in <build>/corpus/ across local runs; seeds come from testdata/legacy and
# fuzz/make_seeds.py. Dependencies: scripts/install-deps.sh (clang, libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}

if [ -z "${FUZZ_BUILD_DIR:-}" ]; then
  sanitize="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="$sanitize" \
    -DONNX_LEGALIZE_BUILD_TESTS=OFF -DONNX_LEGALIZE_BUILD_FUZZERS=ON >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target legalize_fuzzer kernel_fuzzer model_file_fuzzer

# The seeds are written with onnx 1.23.2 (the tests' Python environment), the onnx the tool is built on.
"$(scripts/install-python-env.sh)" fuzz/make_seeds.py "$build/seeds"
mkdir -p "$build/corpus/legalize" "$build/corpus/kernel" "$build/corpus/model_file" "$build/artifacts"

# -malloc_limit_mb: no legitimate allocation comes near it (folds are capped at 64 MiB, trials at 2^16
# elements, inputs at a few KiB), so any bigger one is an unbounded allocation. -timeout: per input.
run() {
  local name=$1 time=$2
  "$build/bin/${name}_fuzzer" -max_total_time="$time" -timeout=30 -rss_limit_mb=2048 -malloc_limit_mb=256 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/${name}-" \
    "$build/corpus/$name" "$build/seeds/$name" >"$build/$name.log" 2>&1
}
status=0
small=$(( (seconds + 2) / 3 ))
run legalize "$seconds" & legalize_pid=$!
run kernel "$seconds" & kernel_pid=$!
run model_file "$small" & model_file_pid=$!
wait "$legalize_pid" || status=1
wait "$kernel_pid" || status=1
wait "$model_file_pid" || status=1

for name in legalize kernel model_file; do
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$name.log" | tail -1)
  corpus=$(find "$build/corpus/$name" -type f | wc -l)
  time=$([ "$name" = model_file ] && echo "$small" || echo "$seconds")
  echo "fuzz: ${name}_fuzzer: ${executions:-?} executions in ${time} s, corpus ${corpus} inputs"
done
if [ "$status" -ne 0 ]; then
  for name in legalize kernel model_file; do
    if grep -qE '^(==[0-9]+==ERROR|SUMMARY|.*broken promise)' "$build/$name.log"; then
      echo "fuzz: ${name}_fuzzer found a problem; its log ($build/$name.log) ends:"
      tail -40 "$build/$name.log"
    fi
  done
  echo "fuzz: reproducers: $(ls "$build"/artifacts/ 2>/dev/null | tr '\n' ' ')"
  echo "fuzz: reproduce with $build/bin/<name>_fuzzer $build/artifacts/<file>; make it a gtest regression test"
fi
exit "$status"
