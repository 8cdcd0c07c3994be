#!/usr/bin/env bash
# Runs clang-tidy with the root's .clang-tidy over the library's and the CLI's sources (src/, tools/), reading
# build/'s compile_commands.json (scripts/build.sh makes it). Fails on any finding. About 6 minutes on 2
# cores; scripts/test.sh runs it, so CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v run-clang-tidy >/dev/null || ./scripts/install-deps.sh
[ -f build/compile_commands.json ] || ./scripts/build.sh onnx_legalize
# The compile commands are GCC's; clang-tidy's driver refuses the GCC flags it does not know (the kernels'
# -fvect-cost-model, CMakeLists.txt), so it reads a copy without them.
commands=$(mktemp -d)
trap 'rm -rf "$commands"' EXIT
sed 's/ -fvect-cost-model=[a-z-]*//g' build/compile_commands.json >"$commands/compile_commands.json"
run-clang-tidy -p "$commands" -j "$(nproc)" -quiet "$(pwd)/(src|tools)/.*\.cc$"
