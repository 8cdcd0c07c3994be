#!/usr/bin/env bash
# Installs what is missing, configures and builds onnx-legalize into build/ (build/bin/onnx-legalize).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
