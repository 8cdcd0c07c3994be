#!/usr/bin/env bash
# Fails, listing the files, when a C++ file of the repository differs from what clang-format makes of it with
# the root's .clang-format. FIX=1 rewrites them instead. scripts/test.sh runs it, so CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || ./scripts/install-deps.sh
mapfile -t files < <(git ls-files '*.cc' '*.h')
if [ "${FIX:-0}" = 1 ]; then
  clang-format -i --style=file "${files[@]}"
  exit 0
fi
unformatted=()
for file in "${files[@]}"; do
  if ! clang-format --style=file "$file" | cmp -s "$file" -; then unformatted+=("$file"); fi
done
if [ "${#unformatted[@]}" -gt 0 ]; then
  echo "not formatted as .clang-format says (FIX=1 ./scripts/check-format.sh rewrites them):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "clang-format: ${#files[@]} files as .clang-format says"
