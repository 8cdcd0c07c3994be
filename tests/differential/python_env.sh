#!/usr/bin/env bash
# The Python environment of tests/differential/run_real_models.py: what users run, onnx 1.23.2 and onnxruntime
# 1.31.1 from PyPI (with numpy), in a virtual environment of its own, never in the system's python3.
#
# Usage: bash tests/differential/python_env.sh [DIR]     (DIR: build/python-env under the repository root)
# Prints the environment's python on standard output (everything else goes to standard error), so that
#     PY=$(bash tests/differential/python_env.sh) && "$PY" tests/differential/run_real_models.py ...
# A stamp in DIR (the pinned requirements and the interpreter it was made with) makes a second run a no-op; a
# changed pin rebuilds DIR from scratch.
#
# Pins: every package, the dependencies too, at an exact version. On CPython 3.11 on Linux x86_64 (Debian 12's
# /usr/bin/python3) pip installs with --require-hashes: each wheel must have the sha256 below (the manylinux
# x86_64 cp311 wheels, and the pure-Python ones; as PyPI's index lists them). Elsewhere the same versions are
# installed without hashes, and the script says so.
# The interpreter: $PYTHON, else /usr/bin/python3 (python3-venv is installed with apt-get when its venv cannot be
# made and this runs as root).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIR=${1:-$ROOT/build/python-env}
PYTHON=${PYTHON:-/usr/bin/python3}

REQUIREMENTS='onnx==1.23.2 --hash=sha256:c03ecf6b835d136108eeaeeafbd0026fc7b3cf98661409fbc6b63d5a29361348
onnxruntime==1.31.1 --hash=sha256:5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f
numpy==2.4.6 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93
ml_dtypes==0.7.0 --hash=sha256:d214c910cabaf80aa1ee37b0f25131e20d7a6474182e5293a68985b0421299da
protobuf==7.36.2 --hash=sha256:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2
typing_extensions==4.16.0 --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
flatbuffers==25.12.19 --hash=sha256:7634f50c427838bb021c2d66a3d1168e9d199b0607e6329399f04846d42e20b4
packaging==26.4 --hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2'
# What the environment must import (checked after installing, and by run_real_models.py).
EXPECT='onnx 1.23.2, onnxruntime 1.31.1, numpy 2.4.6'

say() { echo "python_env: $*" >&2; }

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  say "no $PYTHON (set PYTHON to a python3 that has venv)"; exit 1
fi
PYTHON=$(command -v "$PYTHON")
PY_ID=$("$PYTHON" -c 'import platform, sys; print(sys.implementation.name, "%d.%d" % sys.version_info[:2], sys.platform, platform.machine())')
STAMP="$DIR/.onnx-legalize-python-env"
WANT_STAMP=$(printf '%s\n%s\n%s\n' "$PYTHON" "$PY_ID" "$REQUIREMENTS" | sha256sum | cut -d' ' -f1)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT_STAMP" ] && [ -x "$DIR/bin/python" ]; then
  echo "$DIR/bin/python"
  exit 0
fi

# A folder that holds something other than a virtual environment is not ours to clear.
if [ -e "$DIR" ] && [ ! -f "$DIR/pyvenv.cfg" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
  say "$DIR exists and is not a virtual environment: not touching it"; exit 1
fi

if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing python3-venv"
    apt-get install -y python3-venv >&2 || { apt-get update >&2 && apt-get install -y python3-venv >&2; }
  else
    say "$PYTHON cannot make a virtual environment: install python3-venv"; exit 1
  fi
fi

say "making $DIR with $PYTHON ($PY_ID)"
rm -f "$STAMP"
"$PYTHON" -m venv --clear "$DIR" >&2

REQ_FILE=$(mktemp)
trap 'rm -f "$REQ_FILE"' EXIT
if [ "$PY_ID" = "cpython 3.11 linux x86_64" ]; then
  printf '%s\n' "$REQUIREMENTS" > "$REQ_FILE"
  HASHES=(--require-hashes)
else
  say "$PY_ID is not CPython 3.11 on Linux x86_64: the hashes pin cp311 x86_64 wheels; installing the same" \
      "versions without hashes"
  printf '%s\n' "$REQUIREMENTS" | sed 's/ --hash=.*//' > "$REQ_FILE"
  HASHES=()
fi
"$DIR/bin/python" -m pip install --quiet --no-input --only-binary=:all: "${HASHES[@]}" -r "$REQ_FILE" >&2

GOT=$("$DIR/bin/python" -c 'import numpy, onnx, onnxruntime
print(f"onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}, numpy {numpy.__version__}")')
if [ "$GOT" != "$EXPECT" ]; then
  say "the environment imports $GOT, not $EXPECT"; exit 1
fi
echo "$WANT_STAMP" > "$STAMP"
say "$GOT"
echo "$DIR/bin/python"
