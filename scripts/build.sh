#!/usr/bin/env bash
# Installs what is missing, configures and builds onnx-legalize into build/ (the tool: build/bin/onnx-legalize).
# Arguments, if any, name the CMake targets to build (default: everything, tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
