#!/usr/bin/env bash
# Creates the Python environment the tests judge results with: what users install today, from PyPI, in a
# virtual environment beside (never into) Debian's python3. onnx 1.23.2's checker (check_model(full_check=True))
# says what is legal, onnxruntime 1.31.1 runs originals and results, and the onnx_legalize module is tested
# beside them. Prints the environment's python on stdout (everything else goes to stderr), so that
#     PY=$(scripts/install-python-env.sh) && "$PY" tests/differential/run_real_models.py ...
#
# The environment: $ONNX_LEGALIZE_PYTHON_ENV if set, else ${XDG_CACHE_HOME:-~/.cache}/onnx-legalize/python-<key>,
# where <key> names the pins below and the interpreter, so that a change of either makes a new one. It is
# complete once its .complete file is written, last; a complete one is reused as it is.
# Built from /usr/bin/python3 (the interpreter the module is built for: the same minor version, so the module
# imports there), with Debian's packages visible beneath its own (--system-site-packages): its onnx, numpy and
# protobuf shadow Debian's, while Debian's pytest and dask.distributed (python3-pytest, python3-distributed:
# the module's legalize_tree is tested on a cluster) stay importable. Needs python3-venv (scripts/install-deps.sh).
#
# Pins: every package installed here, dependencies too, at an exact version. On CPython 3.11 on Linux x86_64
# (Debian 12's python3) pip installs with --require-hashes: each wheel must have the sha256 below (the manylinux
# x86_64 cp311 wheels and the pure-Python ones, as PyPI's index lists them). Elsewhere the same versions are
# installed without hashes, and the script says so.
set -euo pipefail

requirements='onnx==1.23.2 --hash=sha256:c03ecf6b835d136108eeaeeafbd0026fc7b3cf98661409fbc6b63d5a29361348
onnxruntime==1.31.1 --hash=sha256:5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f
numpy==2.4.6 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93
ml_dtypes==0.7.0 --hash=sha256:d214c910cabaf80aa1ee37b0f25131e20d7a6474182e5293a68985b0421299da
protobuf==7.36.2 --hash=sha256:89f23aa53c24553a2416fd4fd1ec06f74fa42b14b546d8883128813f775bbfd2
typing_extensions==4.16.0 --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
flatbuffers==25.12.19 --hash=sha256:7634f50c427838bb021c2d66a3d1168e9d199b0607e6329399f04846d42e20b4
packaging==26.4 --hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2'
# What the environment must import once made (run_real_models.py checks the versions again).
expect='onnx 1.23.2, onnxruntime 1.31.1, numpy 2.4.6'

python=/usr/bin/python3
py_id=$("$python" -c 'import platform, sys; print(sys.implementation.name, "%d.%d" % sys.version_info[:2], sys.platform, platform.machine())')
key=$(printf '%s\n%s\n%s\n' "$python" "$py_id" "$requirements" | sha256sum | cut -c1-12)
env_dir=${ONNX_LEGALIZE_PYTHON_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/onnx-legalize/python-$key}

if [ ! -f "$env_dir/.complete" ]; then
  mkdir -p "$(dirname "$env_dir")"
  # Serialize concurrent installs (two builds configuring at once); re-check once the lock is ours.
  exec 9>"$env_dir.lock"
  flock 9
  if [ ! -f "$env_dir/.complete" ]; then
    echo "install-python-env.sh: creating $env_dir ($expect)" >&2
    rm -rf "$env_dir"
    "$python" -m venv --system-site-packages "$env_dir"
    req_file=$(mktemp)
    trap 'rm -f "$req_file"' EXIT
    if [ "$py_id" = "cpython 3.11 linux x86_64" ]; then
      printf '%s\n' "$requirements" >"$req_file"
      hashes=(--require-hashes)
    else
      echo "install-python-env.sh: $py_id is not CPython 3.11 on Linux x86_64: the hashes pin cp311 x86_64" \
        "wheels; installing the same versions without hashes" >&2
      printf '%s\n' "$requirements" | sed 's/ --hash=.*//' >"$req_file"
      hashes=()
    fi
    "$env_dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --ignore-installed \
      --only-binary=:all: "${hashes[@]}" -r "$req_file" >&2
    got=$("$env_dir/bin/python" -c 'import numpy, onnx, onnxruntime, pytest, distributed
print(f"onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}, numpy {numpy.__version__}")')
    if [ "$got" != "$expect" ]; then
      echo "install-python-env.sh: the environment imports $got, not $expect" >&2
      exit 1
    fi
    touch "$env_dir/.complete"
  fi
fi
echo "$env_dir/bin/python"
