#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora: make_seeds.py OUT_DIR -> OUT_DIR/legalize/*.onnx, OUT_DIR/kernel/*,
OUT_DIR/model_file/*.

legalize: every testdata/legacy model, plus small models written here, most of them broken on purpose
(each a case tests/tools/hostile_input_test.cc also covers), so mutation starts next to every guard clause.
kernel: every TensorProto in testdata/legacy/*.inputs and *.expected, framed as kernel_fuzzer.cc reads its
input ([2-byte length][TensorProto][choices]).
model_file: the small models of legalize, each behind a few of the size-choosing first bytes that
model_file_fuzzer.cc reads. Run with onnx 1.23.2 (fuzz/run.sh uses scripts/install-python-env.sh's Python).
"""
import glob
import os
import shutil
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model(nodes, inputs, outputs, initializers=(), opset=9, ir=4):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def i32(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int32), name)


def ds(inputs, outputs=("y",)):
    return helper.make_node("DynamicSlice", list(inputs), list(outputs), name="crop")


def small_models():
    x = helper.make_tensor_value_info("x", T.FLOAT, [4, 5])
    x_any = helper.make_tensor_value_info("x", T.FLOAT, None)
    y = helper.make_tensor_value_info("y", T.FLOAT, None)
    s = helper.make_tensor_value_info("s", T.INT64, [1])
    e = helper.make_tensor_value_info("e", T.INT64, [1])
    se = [i64("s", [0]), i64("e", [1])]
    w = numpy_helper.from_array(np.arange(20, dtype=np.float32).reshape(4, 5), "w")
    yield "fold", model([ds(["w", "s", "e"])], [], [y], [w] + se)
    yield "fold_axes", model([ds(["w", "s", "e", "a"])], [], [y], [w, i64("s", [1]), i64("e", [-1]), i64("a", [-1])])
    yield "rewrite", model([ds(["x", "s", "e"])], [x, s, e], [y])
    yield "rewrite_int32", model([ds(["x", "s", "e"])], [x], [y], [i32("s", [1]), i32("e", [3])])
    yield "rewrite_unknown_rank", model([ds(["x", "s", "e", "a"])], [x_any, s, e], [y], [i64("a", [-1])])
    yield "clean_opset13", model([helper.make_node("Relu", ["x"], ["y"])], [x], [y], opset=13, ir=7)
    yield "two_inputs", model([ds(["x", "s"])], [x], [y], se[:1])
    yield "five_inputs", model([ds(["x", "s", "e", "a", "a"])], [x], [y], se + [i64("a", [0])])
    yield "two_outputs", model([ds(["x", "s", "e"], ["y", "z"])], [x], [y], se)
    yield "mixed_types", model([ds(["x", "s", "e"])], [x], [y], [i64("s", [0]), i32("e", [1])])
    yield "float_indices", model([ds(["x", "s", "e"])], [x], [y],
                                 [numpy_helper.from_array(np.array([0.0], np.float32), "s"),
                                  numpy_helper.from_array(np.array([1.0], np.float32), "e")])
    yield "indices_2d", model([ds(["x", "s", "e"])], [x], [y], [i64("s", [[0]]), i64("e", [[1]])])
    yield "lengths_differ", model([ds(["x", "s", "e"])], [x], [y], [i64("s", [0, 0]), i64("e", [1])])
    yield "duplicate_axes", model([ds(["x", "s", "e", "a"])], [x], [y],
                                  [i64("s", [0, 0]), i64("e", [1, 1]), i64("a", [0, 0])])
    yield "axis_out_of_range", model([ds(["x", "s", "e", "a"])], [x], [y], se + [i64("a", [5])])
    bad_raw = i64("s", [0])
    bad_raw.raw_data = b"\0" * 7
    yield "raw_data_short", model([ds(["x", "s", "e"])], [x], [y], [bad_raw, i64("e", [1])])
    yield "negative_dims", model([ds(["w", "s", "e"])], [], [y],
                                 [onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[-1, 5])] + se)
    yield "dims_overflow", model([ds(["w", "s", "e"])], [], [y],
                                 [onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[1 << 40, 1 << 40])] + se)
    yield "undefined_input", model([ds(["x", "s", "nope"])], [x], [y], se[:1])
    yield "cycle", model([helper.make_node("Relu", ["b"], ["a"]), helper.make_node("Relu", ["a"], ["b"]),
                          ds(["b", "s", "e"])], [x], [y], se)
    yield "two_writers", model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["x"], ["a"]),
                                ds(["a", "s", "e"])], [x], [y], se)
    yield "dangling_output", model([ds(["x", "s", "e"])], [x],
                                   [y, helper.make_tensor_value_info("ghost", T.FLOAT, None)], se)
    # DynamicSlice in both branches of an If, nested twice.
    def branch(name, inner=None):
        nodes = [ds(["x", "s", "e"], [name + "_y"])]
        if inner is not None:
            nodes.append(inner)
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(name + "_y", T.FLOAT, None)])
    cond = helper.make_tensor_value_info("c", T.BOOL, [])
    inner_if = helper.make_node("If", ["c"], ["inner_y"], then_branch=branch("t2"), else_branch=branch("e2"))
    outer_if = helper.make_node("If", ["c"], ["y"], then_branch=branch("t1", inner_if), else_branch=branch("e1"))
    yield "nested_if", model([outer_if], [cond, x], [y], se)
    yield from issue_42_models(x, y, cond, se)


def issue_42_models(x, y, cond, se):
    """The kinds of input issue 42's hostile mutants found faults with, so mutation starts next to each guard."""
    # FC with one input, IR 3 and no opset import (opset 1 implied by the era): refused before its type is read.
    fc = model([helper.make_node("FC", ["x"], ["y"], name="fc")], [x], [y], ir=3)
    del fc.opset_import[:]
    yield "fc_one_input", fc
    # A big initializer (80 KB, past the light copy's cut) of an element type onnx does not know.
    big = numpy_helper.from_array(np.zeros((4, 5000), np.float32), "w")
    big.data_type = 99
    yield "big_initializer_dtype99", model([ds(["w", "s", "e"])], [], [y], [big] + se)
    # ai.onnx.ml alone: nothing to legalize, still checked whole.
    ml = helper.make_model(
        helper.make_graph([helper.make_node("Normalizer", ["x"], ["y"], domain="ai.onnx.ml", norm="L2")], "g", [x],
                          [helper.make_tensor_value_info("y", T.FLOAT, [4, 5])]),
        opset_imports=[helper.make_opsetid("ai.onnx.ml", 1)])
    ml.ir_version = 7
    yield "ml_only", ml
    # Ifs nested 30 deep (about the deepest onnx and ONNX Runtime parse), a DynamicSlice at the bottom.
    body = helper.make_graph([ds(["x", "s", "e"], ["y30"])], "level30", [],
                             [helper.make_tensor_value_info("y30", T.FLOAT, None)])
    for level in range(29, -1, -1):
        name = "y" if level == 0 else "y%d" % level
        other = helper.make_graph([helper.make_node("Identity", ["x"], ["x%d" % level])], "else%d" % level, [],
                                  [helper.make_tensor_value_info("x%d" % level, T.FLOAT, None)])
        node = helper.make_node("If", ["c"], [name], then_branch=body, else_branch=other)
        body = helper.make_graph([node], "level%d" % level, [], [helper.make_tensor_value_info(name, T.FLOAT, None)])
    yield "deep_if_30", model(list(body.node), [cond, x], [y], se)
    # A Loop body onnx's checker refuses (an attribute Identity does not have): refused before any proof runs.
    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"], foo=1), helper.make_node("Relu", ["v"], ["v_out"])],
        "body", [helper.make_tensor_value_info("i", T.INT64, []), helper.make_tensor_value_info("c_in", T.BOOL, []),
                 helper.make_tensor_value_info("v", T.FLOAT, [4, 5])],
        [helper.make_tensor_value_info("c_out", T.BOOL, []), helper.make_tensor_value_info("v_out", T.FLOAT, [4, 5])])
    yield "loop_body_refused", model(
        [helper.make_node("Loop", ["m", "c0", "x"], ["l"], body=loop_body), ds(["l", "s", "e"])], [x], [y],
        se + [i64("m", 1000), numpy_helper.from_array(np.array(True), "c0")])
    # An external data location that leaves the model's folder.
    outside = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[4, 5], data_location=T.EXTERNAL)
    outside.external_data.add(key="location", value="../canary.bin")
    yield "external_outside", model([ds(["w", "s", "e"])], [], [y], [outside] + se)
    # A rank-6 linear Resize whose output reads 64 inputs an element: the proof's budget stops it before it starts.
    r = helper.make_tensor_value_info("r", T.FLOAT, [2, 2, 2, 2, 2, 2])
    resize = helper.make_node("Resize", ["r", "roi", "scales"], ["big"], mode="linear")
    yield "resize_rank6_linear", model(
        [resize, ds(["big", "s", "e"])], [r], [y],
        se + [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
              numpy_helper.from_array(np.full(6, 8.0, np.float32), "scales")], opset=11, ir=6)


def kernel_seeds():
    pattern = os.path.join(ROOT, "testdata", "legacy", "*", "*", "*.pb")
    for index, path in enumerate(sorted(glob.glob(pattern))):
        with open(path, "rb") as f:
            proto = f.read()
        if len(proto) > 0xFFFF:
            continue
        # Choices: int64 indices, one sliced axis, no axes, no steps, then zeros.
        yield "tensor_%03d" % index, struct.pack("<H", len(proto)) + proto + bytes(32)
    yield "made", b"\0\0" + bytes(range(64))


def main():
    out = sys.argv[1]
    for sub in ("legalize", "kernel", "model_file"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
        os.makedirs(os.path.join(out, sub))
    for path in sorted(glob.glob(os.path.join(ROOT, "testdata", "legacy", "*.onnx"))):
        shutil.copy(path, os.path.join(out, "legalize", os.path.basename(path)))
    for name, m in small_models():
        with open(os.path.join(out, "legalize", name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
        for knobs in (0x00, 0x55, 0xAA, 0xFF):
            with open(os.path.join(out, "model_file", "%s_%02x" % (name, knobs)), "wb") as f:
                f.write(bytes([knobs]) + m.SerializeToString())
    for name, data in kernel_seeds():
        with open(os.path.join(out, "kernel", name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
