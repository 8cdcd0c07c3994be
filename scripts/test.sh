#!/usr/bin/env bash
# Installs what is missing (Debian packages, and ONNX Runtime for Node from npm), checks the C++ files' format
# (.clang-format), builds, holds the sources to .clang-tidy, and runs the whole test suite with ctest; then the
# same suite built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/), then the fuzzers for a
# bounded time each (fuzz/run.sh, 60 s). Stops at the first failure.
# SKIP_SANITIZERS=1 runs the plain suite only (a quick local check; CI runs everything).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/check-format.sh
./scripts/build.sh
./scripts/check-tidy.sh
./tests/ort/install.sh
# The plain suite also runs the test that saves a real 2.25 GiB model (about 2.5 GiB of memory, 10 s).
(cd build && ONNX_LEGALIZE_LARGE_TESTS=1 ctest --output-on-failure -j"$(nproc)")
[ "${SKIP_SANITIZERS:-0}" = 1 ] && exit 0
./scripts/test-sanitizers.sh
FUZZ_BUILD_DIR=build-asan ./fuzz/run.sh
