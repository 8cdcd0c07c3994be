#!/usr/bin/env bash
# Builds the tool and legalizes two bundled legacy models: PyTorch's opset-9 export of x[:, 2:n] with n
# computed at run time (Shape -> Gather -> Unsqueeze -> DynamicSlice), and the head of a CoreML-converted
# tiny-yolov2 (ImageScaler -> Conv -> BatchNormalization -> LeakyRelu -> MaxPool, opset 7, IR 3).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh onnx-legalize
for model in testdata/legacy/pytorch_dynamic_ends.onnx testdata/removed_ops/tiny_yolov2_head_opset7.onnx; do
  out=$(mktemp -d)/$(basename "$model" .onnx).legalized.onnx
  echo "== onnx-legalize --check $model"
  build/bin/onnx-legalize --check "$model" || true
  echo "== onnx-legalize $model $out"
  build/bin/onnx-legalize "$model" "$out"
  echo "== onnx-legalize --check $out"
  build/bin/onnx-legalize --check "$out"
done
