"""Writes a folder of small models at mixed opsets and IR versions, for run_max_opset_gate.py's ctest
(ort_old_release_gate): each is a case of what `onnx-legalize --check --max-opset=15` must say of a model, beside
what ONNX Runtime 1.10 (whose ceiling is opset 15, IR 8) does with it.

Usage: PY make_mixed_opset_models.py OUT_DIR

The cases, by file name (what the gate says at 15, what ORT 1.10 does):
  cnn_opset13_ir7        passes; loads as it is
  relu_opset13_ir10      blocks, its IR version is above 8 and no move lowers it; refused for its IR version
  mlp_opset17_ir10       fixable by moving down (to opset 15, IR 8); refused as it is, the moved copy loads
  pad_reduce_opset18     fixable: Pad-18 and ReduceMean-18's axes input go back (onnx's and our down-adapters)
  resize_opset19         fixable: Resize-19 -> 18 -> 13 (onnx's adapters)
  slice_clip_opset16     fixable: a Slice with constant bounds and a Clip with one bound
  layernorm_opset17      blocks, LayerNormalization-17 has no form at 15; refused
  gridsample_opset16     blocks, GridSample-16 has no form at 15; refused
The real exports that the gate was also checked on are listed in tests/differential/real_models.md.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def value(name, dims, elem=T.FLOAT):
    return h.make_tensor_value_info(name, elem, dims)


def const(name, array):
    return nh.from_array(np.asarray(array), name)


def save(out_dir, name, nodes, inputs, outputs, opset, ir, initializers=()):
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="make_mixed_opset_models")
    model.ir_version = ir
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out_dir, name + ".onnx"))


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(7)
    w = lambda *dims: rng.standard_normal(dims).astype(np.float32)

    save(out_dir, "cnn_opset13_ir7", [
        h.make_node("Conv", ["x", "k", "b"], ["c"], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c"], ["r"]),
        h.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("Flatten", ["p"], ["f"]),
        h.make_node("Gemm", ["f", "g", "gb"], ["z"], transB=1),
        h.make_node("Softmax", ["z"], ["y"]),
    ], [value("x", [1, 3, 8, 8])], [value("y", [1, 10])], 13, 7,
        [const("k", w(4, 3, 3, 3)), const("b", w(4)), const("g", w(10, 64)), const("gb", w(10))])

    save(out_dir, "relu_opset13_ir10", [h.make_node("Relu", ["x"], ["y"])], [value("x", [2, 3])],
         [value("y", [2, 3])], 13, 10)

    save(out_dir, "mlp_opset17_ir10", [
        h.make_node("MatMul", ["x", "w1"], ["m"]),
        h.make_node("Add", ["m", "b1"], ["a"]),
        h.make_node("Relu", ["a"], ["r"]),
        h.make_node("MatMul", ["r", "w2"], ["y"]),
    ], [value("x", [2, 16])], [value("y", [2, 4])], 17, 10,
        [const("w1", w(16, 32)), const("b1", w(32)), const("w2", w(32, 4))])

    save(out_dir, "pad_reduce_opset18", [
        h.make_node("Pad", ["x", "pads", "cv"], ["p"], mode="constant"),
        h.make_node("ReduceMean", ["p", "axes"], ["y"], keepdims=1),
    ], [value("x", [1, 3, 6, 6])], [value("y", [1, 3, 1, 1])], 18, 8,
        [const("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)), const("cv", np.array(0.5, np.float32)),
         const("axes", np.array([2, 3], np.int64))])

    save(out_dir, "resize_opset19", [
        h.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear", coordinate_transformation_mode="half_pixel"),
    ], [value("x", [1, 2, 4, 4])], [value("y", [1, 2, 8, 8])], 19, 9,
        [const("scales", np.array([1, 1, 2, 2], np.float32))])

    save(out_dir, "slice_clip_opset16", [
        h.make_node("Slice", ["x", "starts", "ends", "axes"], ["s"]),
        h.make_node("Clip", ["s", "", "high"], ["y"]),
    ], [value("x", [2, 8, 8])], [value("y", [2, 6, 3])], 16, 8,
        [const("starts", np.array([1, -5], np.int64)), const("ends", np.array([7, -2], np.int64)),
         const("axes", np.array([1, 2], np.int64)), const("high", np.array(0.75, np.float32))])

    save(out_dir, "layernorm_opset17", [
        h.make_node("LayerNormalization", ["x", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5),
    ], [value("x", [2, 5, 8])], [value("y", [2, 5, 8])], 17, 8, [const("gamma", w(8)), const("beta", w(8))])

    save(out_dir, "gridsample_opset16", [
        h.make_node("GridSample", ["x", "grid"], ["y"], align_corners=0),
    ], [value("x", [1, 1, 4, 4]), value("grid", [1, 3, 3, 2])], [value("y", [1, 1, 3, 3])], 16, 8)


if __name__ == "__main__":
    main()
