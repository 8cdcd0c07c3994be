#!/usr/bin/env bash
# Builds onnx's C++ library (checker, shape inference, schemas, version converter, parser) once, from the
# sources that onnx's wheel on PyPI ships, into a cache that every later build reuses; prints the folder to give
# CMake (CMAKE_PREFIX_PATH, or ONNX_DIR=<it>/lib/cmake/ONNX) on its last line of standard output.
#
# The wheel is pinned by name and SHA-256 (PyPI's own digest) and checked before it is opened. Its onnx/*.in.proto
# become onnx-ml.proto, onnx-operators-ml.proto and onnx-data.proto by its gen_proto.py (full protobuf, not the
# lite variant the wheel's own .proto files declare), Debian's protoc turns those into C++, and
# cmake/onnx-wheel/CMakeLists.txt compiles everything with Debian's protobuf headers into the static libraries
# onnx and onnx_proto (-O2, position-independent: the Python module links them), defined as onnx's build defines
# them (ONNX_NAMESPACE=onnx, ONNX_ML=1, no ONNX_USE_LITE_PROTO), with a CMake package naming them as Debian's
# libonnx-dev does. onnx's own CMake build needs CMake >= 3.26, which Debian 12 lacks.
#
# The cache: $ONNX_LEGALIZE_ONNX_PREFIX if set, else ${XDG_CACHE_HOME:-~/.cache}/onnx-legalize/onnx-<version>-<key>,
# where <key> names the wheel, this recipe, protoc and the compiler, so that a change of any builds anew. A
# prefix is complete once its .complete file is written, last; a complete one is reused as it is.
# Needs: curl, python3, cmake, make, g++, protoc and libprotobuf-dev (scripts/install-deps.sh installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

version=1.23.2
case "$(uname -m)" in
  x86_64)
    wheel=onnx-1.23.2-cp312-abi3-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
    url=https://files.pythonhosted.org/packages/87/56/21509a657f9a73ab0ca307d325043f49ca6c4ff6bf79edeb9e159190d44d/$wheel
    sha256=7abf381d278f31ac62487fddedc9dd42da842dce94d5d43536836ee3efdf4a2b
    ;;
  aarch64)
    wheel=onnx-1.23.2-cp312-abi3-manylinux_2_26_aarch64.manylinux_2_28_aarch64.whl
    url=https://files.pythonhosted.org/packages/f9/50/2e156ef2cae1c9f4ff01a41dffa43fc1eb7b969755055436bf6df1805d54/$wheel
    sha256=a203efdbaabbbe8f25e854e2b2921382d6fcf4c67895656f939044b0632974e8
    ;;
  *)
    echo "install-onnx: no onnx $version wheel pinned for $(uname -m)" >&2
    exit 1
    ;;
esac

recipe=$root/cmake/onnx-wheel/CMakeLists.txt
# -O2 as Debian builds onnx; a Release configuration, as Debian's package names its libraries.
build_flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O2)
# Always Debian's g++, whatever CXX says: the sanitizer and fuzzer builds (clang, which CMake hands its children
# as CXX) link these same libraries, which need no instrumentation, so every build of the project shares one
# cache and a fresh machine builds onnx once.
cxx=g++
key=$({
  echo "$sha256"
  sha256sum <"$recipe"
  echo "${build_flags[*]}"
  protoc --version
  "$cxx" --version | head -n 1
} | sha256sum | cut -c1-12)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/onnx-legalize
prefix=${ONNX_LEGALIZE_ONNX_PREFIX:-$cache/onnx-$version-$key}

if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi

mkdir -p "$cache" "$(dirname "$prefix")"
# One build at a time: a second run waits, then finds the prefix complete.
exec 9>"$cache/.lock"
flock 9
if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi

# The wheel, kept under the cache so that a failed build does not download it again.
downloads=$cache/downloads
mkdir -p "$downloads"
if ! echo "$sha256  $downloads/$wheel" | sha256sum -c --status 2>/dev/null; then
  echo "install-onnx: downloading $wheel" >&2
  curl -fsSL --retry 3 -o "$downloads/$wheel.part" "$url"
  if ! echo "$sha256  $downloads/$wheel.part" | sha256sum -c --status; then
    echo "install-onnx: $wheel does not have the SHA-256 pinned here ($sha256)" >&2
    rm -f "$downloads/$wheel.part"
    exit 1
  fi
  mv "$downloads/$wheel.part" "$downloads/$wheel"
fi

work=$(mktemp -d "$cache/build-XXXXXX")
trap 'rm -rf "$work"' EXIT
# The C++ sources, headers, .proto templates, gen_proto.py and the licence; not the Python package.
python3 - "$downloads/$wheel" "$work/src" <<'EOF'
import re, sys, zipfile
wanted = re.compile(r"^(onnx/.*\.(cc|h|in\.proto|h\.in)|onnx/gen_proto\.py|onnx-[^/]*\.dist-info/licenses/.*)$")
with zipfile.ZipFile(sys.argv[1]) as wheel:
    names = [n for n in wheel.namelist() if wanted.match(n) and not n.startswith("onnx/cpp2py_export")]
    wheel.extractall(sys.argv[2], names)
print(f"install-onnx: {len(names)} files from the wheel", file=sys.stderr)
EOF

echo "install-onnx: building onnx $version into $prefix (about 15 minutes on 2 cores)" >&2
start=$(date +%s)
cmake -S "$root/cmake/onnx-wheel" -B "$work/build" "${build_flags[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
  -DONNX_SOURCE_DIR="$work/src" -DONNX_VERSION="$version" -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_INSTALL_LIBDIR=lib -DPython3_EXECUTABLE="$(command -v python3)" >&2
cmake --build "$work/build" -j"$(nproc)" >&2
rm -rf "$prefix"
cmake --install "$work/build" >&2
mkdir -p "$prefix/share/licenses/onnx"
cp -r "$work/src"/onnx-*.dist-info/licenses/. "$prefix/share/licenses/onnx/"
printf 'onnx %s\nwheel %s\nsha256 %s\nbuilt in %s s\n' "$version" "$wheel" "$sha256" "$(($(date +%s) - start))" \
  >"$prefix/.complete"
echo "install-onnx: onnx $version built in $(($(date +%s) - start)) s" >&2
echo "$prefix"
