#!/usr/bin/env bash
# Installs what is missing (Debian packages, and ONNX Runtime for Node from npm), builds, and runs the
# whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./tests/ort/install.sh
cd build
ctest --output-on-failure -j"$(nproc)"
