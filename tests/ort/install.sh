#!/usr/bin/env bash
# Installs, each exactly as its package-lock.json pins it, ONNX Runtime for Node.js with Microsoft's SARIF validator
# (tests/ort/node_modules), and the older ONNX Runtime releases of releases/ (releases/*/node_modules), whose
# ceilings the --check --runtime gate is held to (tests/differential/run_max_opset_gate.py).
# Idempotent: does nothing for a folder whose node_modules was installed from its current package-lock.json.
# --ignore-scripts: onnxruntime-node's postinstall tries to download optional GPU binaries, which fails offline;
# the CPU library it needs ships inside the npm package itself (so for every release of releases/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

command -v npm >/dev/null 2>&1 || { echo "install.sh: npm not found (scripts/install-deps.sh installs it)" >&2; exit 1; }

# npm ci --ignore-scripts in folder $1, unless its node_modules is current.
install_in() (
  cd "$1"
  stamp=node_modules/.onnx-legalize-install-stamp
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  is_current() {
    [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
      [ -f node_modules/onnxruntime-node/package.json ] &&
      ls node_modules/onnxruntime-node/bin/napi-v*/linux/*/onnxruntime_binding.node >/dev/null 2>&1
  }
  is_current && exit 0

  # Serialize concurrent installs (two test runs starting at once); re-check once the lock is ours.
  exec 9>.install.lock
  flock 9
  is_current && exit 0

  echo "install.sh: npm ci --ignore-scripts in tests/ort/$1" >&2
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
)

install_in .
for release in releases/*/; do install_in "${release%/}"; done
