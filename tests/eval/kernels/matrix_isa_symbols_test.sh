#!/usr/bin/env bash
# The matrix products built for AVX-512 and AVX2 (src/eval/kernels/matrix_product_{avx512,avx2}.cc) must
# define no symbol the rest of the library could share: the linker keeps one copy of an inline function or
# template that several object files define, and a copy compiled for AVX-512 would then run wherever the
# baseline one was meant to, on processors without it. Each file may define only its two entry points and
# Eigen's templates under its own renamed namespace (matrix_product_body.h).
# Usage: matrix_isa_symbols_test.sh OBJECT...  (the kernels' object files; the others are ignored)
set -euo pipefail
checked=0
for object in "$@"; do
  case "$object" in
    *matrix_product_avx512.cc.o) isa=avx512 entry=MultiplyAvx512 ;;
    *matrix_product_avx2.cc.o) isa=avx2 entry=MultiplyAvx2 ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
  # Global and weak definitions (nm's upper-case kinds, and u/v/w), demangled.
  shared=$(nm --defined-only -C "$object" | awk '$2 ~ /^[A-Zuvw]$/ { $1 = ""; $2 = ""; print substr($0, 3) }' |
    grep -v -e "^onnx_legalize_eigen_${isa}::" -e "^onnx_legalize::internal::${entry}(" \
      -e "^DW.ref.__gxx_personality_v0$" || true)
  if [ -n "$shared" ]; then
    echo "FAIL: $object defines symbols another object file could share:" >&2
    echo "$shared" >&2
    exit 1
  fi
  echo "ok: $object"
done
if [ "$checked" -eq 0 ]; then
  echo "no matrix_product_avx*.o among the objects: nothing to check on this processor" >&2
fi
