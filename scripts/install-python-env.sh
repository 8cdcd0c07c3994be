#!/usr/bin/env bash
# Creates the Python environment the tests judge results with: what users install today, from PyPI, in a
# virtual environment beside (never into) Debian's python3. onnx 1.23.2's checker (check_model(full_check=True))
# says what is legal, onnxruntime 1.31.1 runs originals and results, and the onnx_legalize module is tested
# beside them. Prints the environment's python on stdout.
#
# The environment: $ONNX_LEGALIZE_PYTHON_ENV if set, else ${XDG_CACHE_HOME:-~/.cache}/onnx-legalize/python-<key>,
# where <key> names the pins below and the interpreter, so that a change of either makes a new one. It is
# complete once its .complete file is written, last; a complete one is reused as it is.
# Built from /usr/bin/python3 (the interpreter the module is built for: the same minor version, so the module
# imports there), with Debian's packages visible beneath its own (--system-site-packages): its onnx, numpy and
# onnxruntime shadow Debian's, and Debian's dask.distributed (python3-distributed), which the module's
# legalize_tree is tested with, stays importable. Needs python3-venv (scripts/install-deps.sh installs it).
set -euo pipefail

# The pins: the versions users run (the project's ground truth), and what the test scripts import besides.
pins=(onnx==1.23.2 onnxruntime==1.31.1 numpy==2.4.6 pytest==9.2.0)

python=/usr/bin/python3
key=$({ printf '%s\n' "${pins[@]}"; "$python" --version; } | sha256sum | cut -c1-12)
env_dir=${ONNX_LEGALIZE_PYTHON_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/onnx-legalize/python-$key}

if [ ! -f "$env_dir/.complete" ]; then
  mkdir -p "$(dirname "$env_dir")"
  # Serialize concurrent installs (two builds configuring at once); re-check once the lock is ours.
  exec 9>"$env_dir.lock"
  flock 9
  if [ ! -f "$env_dir/.complete" ]; then
    echo "install-python-env.sh: creating $env_dir (${pins[*]})" >&2
    rm -rf "$env_dir"
    "$python" -m venv --system-site-packages "$env_dir"
    "$env_dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${pins[@]}" >&2
    "$env_dir/bin/python" -c 'import onnx, onnxruntime, numpy, pytest, distributed; assert onnx.__version__ == "1.23.2"' >&2
    touch "$env_dir/.complete"
  fi
fi
echo "$env_dir/bin/python"
