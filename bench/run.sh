#!/usr/bin/env bash
# Builds onnx-legalize and the benchmark programs, generates the benchmark models (once, under
# ${BENCH_WORK:-/tmp/onnx-legalize-bench}; about 3.5 GiB of disk) and measures every scenario.
#   BUILD_DIR  build folder (default build/, configured as scripts/build.sh does)
#   BENCH_REPEAT, BENCH_SCENARIOS (e.g. 1,2; 4 is --check over a repository, 5 legalizing a tree of
#   1,000 small models against a shell loop, 6 the opset move's proof on an image CNN against ONNX Runtime,
#   which needs node and tests/ort/install.sh's onnxruntime-node), BENCH_PASS_SIZES (e.g.
#   2000,20000; empty: skip)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  ./scripts/install-deps.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake -S . -B "$build" -DONNX_LEGALIZE_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target onnx-legalize protobuf-roundtrip legalize-pass-timer onnx-legalize-bench
scenarios="${BENCH_SCENARIOS:-1,2,3,4,5,6}"
# Scenario 6 times ONNX Runtime for Node beside the proof.
case ",$scenarios," in *,6,*) ./tests/ort/install.sh ;; esac
exec "$build/bin/onnx-legalize-bench" \
  --cli="$build/bin/onnx-legalize" --baseline="$build/bin/protobuf-roundtrip" \
  --pass-timer="$build/bin/legalize-pass-timer" \
  --work="${BENCH_WORK:-/tmp/onnx-legalize-bench}" --repeat="${BENCH_REPEAT:-3}" \
  --scenarios="$scenarios" --pass-sizes="${BENCH_PASS_SIZES-2000,20000}" \
  --node="$(command -v node || true)" --ort-time="$PWD/bench/ort_time.js"
