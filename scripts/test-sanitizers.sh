#!/usr/bin/env bash
# Builds the whole test suite (library, CLI, every gtest suite, the ORT differential test) with
# AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and runs it with ctest. Any report fails the
# run: -fno-sanitize-recover=all makes undefined behaviour fatal, and ASan stops at its first error (leaks
# included). Tests that cannot run under ASan skip themselves (heap limits: hostile_input_test).
#
# Compiled with clang and -fsanitize=fuzzer-no-link as well, so fuzz/run.sh can build its two targets in
# the same folder without compiling the library a third time (FUZZ_BUILD_DIR=build-asan fuzz/run.sh, as
# scripts/test.sh does); the coverage instrumentation does not change what the tests check.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh

build=build-asan
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# No Python module here: an ASan-built extension loads only into an interpreter with the ASan runtime
# preloaded; the plain suite tests it.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$sanitize -fsanitize=fuzzer-no-link" -DONNX_LEGALIZE_BUILD_FUZZERS=ON \
  -DONNX_LEGALIZE_BUILD_PYTHON=OFF >/dev/null
cmake --build "$build" -j"$(nproc)"

# The spawned onnx-legalize binaries (cli_test, hostile_input_test, the differential test) inherit these.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
# The removed ops' and the backend models' differentials run once here (at the default target); the plain suite
# runs them at 13 and 17 too, and the downgrades' differential (its moves are in the gtests here).
ctest --output-on-failure -j"$(nproc)" -E 'ort_differential_removed_ops_opset|ort_backend_models_opset|ort_downgrades'
