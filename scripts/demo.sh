#!/usr/bin/env bash
# Builds the tool and legalizes a bundled legacy model: PyTorch's opset-9 export of x[:, 2:n] with n
# computed at run time (Shape -> Gather -> Unsqueeze -> DynamicSlice).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh onnx-legalize
model=testdata/legacy/pytorch_dynamic_ends.onnx
out=$(mktemp -d)/pytorch_dynamic_ends.legalized.onnx
echo "== onnx-legalize --check $model"
build/bin/onnx-legalize --check "$model" || true
echo "== onnx-legalize $model $out"
build/bin/onnx-legalize "$model" "$out"
echo "== onnx-legalize --check $out"
build/bin/onnx-legalize --check "$out"
