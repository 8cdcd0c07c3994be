#!/usr/bin/env bash
# Runs clang-tidy with the root's .clang-tidy over the library's and the CLI's sources (src/, tools/), reading
# build/'s compile_commands.json (scripts/build.sh makes it). Fails on any finding. About 6 minutes on 2
# cores; scripts/test.sh runs it, so CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v run-clang-tidy >/dev/null || ./scripts/install-deps.sh
[ -f build/compile_commands.json ] || ./scripts/build.sh onnx_legalize
run-clang-tidy -p build -j "$(nproc)" -quiet "$(pwd)/(src|tools)/.*\.cc$"
