#!/usr/bin/env bash
# The installed package, as its users see it: installs BUILD_DIR (already built) into a temporary prefix,
# then, against that prefix only,
#  1. builds tests/consumer with CMake's find_package(onnx_legalize) and runs it on a legacy model;
#  2. builds the same main.cc with g++ and `pkg-config --cflags --libs onnx_legalize`, and runs it;
#  3. runs the installed CLI and imports the installed Python module;
#  4. makes the wheel (python3 -m build --wheel --no-isolation, offline, with BUILD_DIR) and imports it;
#  5. pip-installs that wheel into a clean virtual environment (no system packages) beside onnx 1.23.2 from
#     PyPI, as a user would, and legalizes there with onnx imported before and after onnx_legalize: the model
#     given and returned is that onnx's ModelProto, and its check_model(full_check=True) accepts the result.
# Usage: tests/consumer/run.sh BUILD_DIR   (ctest runs it as the installed_package test)
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
model="$source_dir/testdata/legacy/pytorch_dynamic_ends.onnx"
python=${PYTHON:-/usr/bin/python3}

work=$(mktemp -d "${TMPDIR:-/tmp}/onnx-legalize-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log"

echo "== find_package"
cmake -S "$source_dir/tests/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
# The package must come from the prefix, not from the build tree or the system.
grep -q "^onnx_legalize_DIR:PATH=$prefix/" "$work/cmake-build/CMakeCache.txt"
cmake --build "$work/cmake-build" -j2 >"$work/build.log"
"$work/cmake-build/consumer" "$model" "$work/find_package.onnx" | grep -q '"changed": true'

echo "== pkg-config"
pc=$(find "$prefix" -name onnx_legalize.pc)
[ -n "$pc" ] || { echo "no onnx_legalize.pc installed under $prefix" >&2; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
[ "$(pkg-config --modversion onnx_legalize)" = "$(sed -n 's/^project(onnx_legalize VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")" ]
# shellcheck disable=SC2046 # pkg-config's words are meant to split
g++ -std=c++17 "$source_dir/tests/consumer/main.cc" -o "$work/consumer-pkg-config" \
  $(pkg-config --cflags --libs onnx_legalize)
"$work/consumer-pkg-config" "$model" "$work/pkg_config.onnx" | grep -q '"changed": true'
cmp "$work/find_package.onnx" "$work/pkg_config.onnx"

echo "== CLI and Python module"
"$prefix/bin/onnx-legalize" --version
site=$(find "$prefix" -type d -name site-packages)
if [ -z "$site" ]; then echo "no Python module installed (ONNX_LEGALIZE_BUILD_PYTHON=OFF)"; echo "installed package: ok"; exit 0; fi
PYTHONPATH="$site" "$python" -c '
import sys, onnx_legalize
assert onnx_legalize.__file__.startswith(sys.argv[1]), onnx_legalize.__file__
print("onnx_legalize", onnx_legalize.__version__, "from", onnx_legalize.__file__)
assert onnx_legalize.check(sys.argv[2]) == []
' "$prefix/" "$work/pkg_config.onnx"

echo "== wheel"
(cd "$source_dir" && ONNX_LEGALIZE_BUILD_DIR="$build_dir" "$python" -m build --wheel --no-isolation \
  --outdir "$work/dist" >"$work/wheel.log" 2>&1) || { cat "$work/wheel.log" >&2; exit 1; }
wheel=$(ls "$work"/dist/onnx_legalize-*.whl)
"$python" -m zipfile -e "$wheel" "$work/wheel"
PYTHONPATH="$work/wheel" "$python" -c '
import sys, onnx_legalize
assert onnx_legalize.__file__.startswith(sys.argv[1]), onnx_legalize.__file__
print("wheel", sys.argv[2].rsplit("/", 1)[-1], "imports; check:", len(onnx_legalize.check(sys.argv[3])), "finding")
' "$work/wheel/" "$wheel" "$model"
echo "== the wheel in a clean virtual environment, beside PyPI's onnx"
/usr/bin/python3 -m venv "$work/clean"
"$work/clean/bin/python" -m pip install --quiet --disable-pip-version-check --no-input onnx==1.23.2 "$wheel"
for order in "onnx onnx_legalize" "onnx_legalize onnx"; do
  (cd "$work" && "$work/clean/bin/python" -c '
import sys
for name in sys.argv[1].split():
    __import__(name)
import onnx, onnx_legalize
assert onnx.__version__ == "1.23.2", onnx.__version__
assert onnx_legalize.__file__.startswith(sys.argv[2]), onnx_legalize.__file__
legal, report = onnx_legalize.legalize(onnx.load(sys.argv[3]))
assert isinstance(legal, onnx.ModelProto), type(legal)
onnx.checker.check_model(legal, full_check=True)
print("clean venv, imported", sys.argv[1], "first: legalized to opset", legal.opset_import[0].version)
' "$order" "$work/clean/" "$model")
done
echo "installed package: ok"
