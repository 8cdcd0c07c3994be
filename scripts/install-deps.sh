#!/usr/bin/env bash
# Installs every Debian package onnx-legalize needs to build and test, and nothing that is already there.
# On a fresh machine this runs `apt-get update` first, as package lookups need a current list.
set -euo pipefail

packages=(
  cmake g++ make
  # Eigen: the model runner's matrix work (src/eval/kernels/), header-only
  libeigen3-dev
  # onnx's C++ library is built from its PyPI wheel (scripts/install-onnx.sh): curl fetches the wheel, protoc
  # and Debian's protobuf headers build it.
  curl ca-certificates libprotobuf-dev protobuf-compiler libabsl-dev
  libgtest-dev libgmock-dev
  # onnx itself comes from PyPI, never Debian (1.12): its C++ library from the wheel's sources (above), its Python
  # package, its backend test data and its node-test generators in scripts/install-python-env.sh's environment.
  python3-numpy
  # The Python module (python/): pybind11 builds it, pytest tests it, python3-build makes its wheel
  # offline; pkg-config is how tests/consumer checks the installed onnx_legalize.pc.
  pybind11-dev python3-dev python3-pytest python3-build python3-setuptools python3-wheel pkg-config
  # The tests judge results with onnx 1.23.2 and onnxruntime 1.31.1 from PyPI, in a virtual environment
  # (scripts/install-python-env.sh).
  python3-venv python3-pip
  # legalize_tree(executor=client.get_executor()) is tested on a LocalCluster of dask.distributed workers.
  python3-distributed
  # The sanitizer build and the fuzzers (scripts/test-sanitizers.sh, fuzz/run.sh): clang, its ASan/UBSan
  # and libFuzzer runtimes, and llvm-symbolizer for readable stack traces.
  clang libclang-rt-14-dev llvm
  # The style the code is held to (scripts/check-format.sh, .clang-format; .clang-tidy).
  clang-format clang-tidy
)
# Node.js runs ONNX Runtime, the independent oracle of the differential tests. The machine image ships its
# own Node.js and npm; Debian's are installed only where there are none.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
