#!/usr/bin/python3
"""Generates the legacy DynamicSlice models of testdata/legacy/, their inputs and (where numpy can say) expected outputs.

Run in the project's Python environment (onnx 1.23.2 and numpy; onnx 1.12 wrote the same bytes):

    PY=$(scripts/install-python-env.sh) && "$PY" testdata/make_legacy_models.py

onnx 1.12 has no DynamicSlice schema, so its nodes are built with onnx.helper.make_node and the models are not put
through onnx.checker. Every run writes byte-identical files: fixed seeds (numpy's legacy RandomState, whose streams
numpy keeps stable), no timestamps, a fixed order everywhere.

Layout written under testdata/legacy/ (everything but README.md is removed and rewritten on each run):
    <model>.onnx
    <model>.inputs/<case>/input_K.pb      one serialized onnx.TensorProto per real graph input (initializers that are
                                          listed in graph.input are not fed), K its position among them, the
                                          TensorProto's name the graph input's name. A model without real inputs
                                          has no .inputs folder: run it on an empty folder.
    <model>.expected/<case>/output_K.pb   numpy's result for graph output K (TensorProto named after the output,
                                          as onnx.numpy_helper.from_array writes it), only for models whose
                                          outputs numpy computes exactly (pure slicing).
    manifest.json                         one entry per model: what the differential test needs to know.
    README.md                             the table of models (generated from the same descriptions).
"""

import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "legacy")

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min
INT32_MAX = np.iinfo(np.int32).max
INT32_MIN = np.iinfo(np.int32).min

F = TensorProto.FLOAT
I64 = TensorProto.INT64
I32 = TensorProto.INT32
BOOL = TensorProto.BOOL


# ----------------------------------------------------------------------------------------------- helpers

def i64(*v):
    return np.array(v, dtype=np.int64)


def i32(*v):
    return np.array(v, dtype=np.int32)


def randn(seed, *shape):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def vi(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def const(output, array, name=None):
    """A Constant node holding `array`."""
    return helper.make_node("Constant", [], [output], name=name or output,
                            value=numpy_helper.from_array(np.asarray(array), output))


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def dyn_slice(inputs, output, name=None, domain=None):
    """A DynamicSlice node (no schema in onnx 1.12: built by hand)."""
    kw = {} if domain is None else {"domain": domain}
    return helper.make_node("DynamicSlice", inputs, [output], name=name or output, **kw)


def make_model(graph, opset=9, ir_version=4, producer=("onnx-legalize-testdata", "1"), extra_opsets=()):
    m = helper.make_model(graph, producer_name=producer[0], producer_version=producer[1],
                          opset_imports=[helper.make_opsetid("", opset)] + list(extra_opsets))
    m.ir_version = ir_version
    return m


def ds_ref(x, starts, ends, axes=None):
    """numpy reference for DynamicSlice as ONNX Runtime runs it (its Slice-10 kernel): negative axes count from the
    back, negative starts/ends add the dimension, then both clamp to [0, dim]; start >= end gives an empty dim."""
    r = x.ndim
    if axes is None:
        axes = range(len(starts))
    index = [slice(None)] * r
    for s, e, a in zip(starts, ends, axes):
        a = int(a) + (r if int(a) < 0 else 0)
        d = x.shape[a]
        s, e = int(s), int(e)
        s = min(max(s + d if s < 0 else s, 0), d)
        e = min(max(e + d if e < 0 else e, 0), d)
        index[a] = slice(s, max(s, e))
    return np.ascontiguousarray(x[tuple(index)])


MODELS = []  # manifest entries, in generation order


def real_inputs(graph):
    inits = {t.name for t in graph.initializer}
    return [i.name for i in graph.input if i.name not in inits]


def write_tensor(path, name, array):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(array), name).SerializeToString())


def save(name, model, cases, *, pattern, legalization, folds_all, ort_runs_original=True, expected=None,
         check=False):
    """Writes <name>.onnx, its input cases and expected outputs, and records it for the manifest.

    cases: {case: {graph input name: array}}; expected: {case: [array per graph output]} or None.
    folds_all: True when every DynamicSlice of the model has constant inputs only (so it folds and the legalized
    model may keep its opset)."""
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    inputs = real_inputs(model.graph)
    outputs = [o.name for o in model.graph.output]
    for case, feeds in cases.items():
        if sorted(feeds) != sorted(inputs):
            sys.exit(f"{name}/{case}: feeds {sorted(feeds)} but the model's inputs are {inputs}")
        for k, inp in enumerate(inputs):
            write_tensor(os.path.join(OUT, name + ".inputs", case, f"input_{k}.pb"), inp, feeds[inp])
    if expected is not None:
        if sorted(expected) != sorted(cases):
            sys.exit(f"{name}: expected outputs for {sorted(expected)}, cases are {sorted(cases)}")
        for case, arrays in expected.items():
            if len(arrays) != len(outputs):
                sys.exit(f"{name}/{case}: {len(arrays)} expected outputs for {len(outputs)} graph outputs")
            for k, (out, arr) in enumerate(zip(outputs, arrays)):
                write_tensor(os.path.join(OUT, name + ".expected", case, f"output_{k}.pb"), out, arr)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    MODELS.append({
        "name": name,
        "file": name + ".onnx",
        "ir_version": model.ir_version,
        "default_opset": opset,
        "inputs_dir": (name + ".inputs") if inputs else None,
        "expected_dir": (name + ".expected") if expected is not None else None,
        "cases": list(cases),
        "ort_runs_original": ort_runs_original,
        "all_dynamic_slices_fold": folds_all,
        "pattern": pattern,
        "legalization": legalization,
    })


# ----------------------------------------------------------------------------------------------- producers

def pytorch_dynamic_ends():
    """PyTorch 1.0's opset-9 exporter for y = relu(x[1:x.size(0)]) followed by a Linear layer."""
    nodes = [
        const("1", np.array(1, dtype=np.int64)),                                   # start, a scalar
        helper.make_node("Unsqueeze", ["1"], ["2"], name="2", axes=[0]),
        helper.make_node("Shape", ["x"], ["3"], name="3"),
        const("4", np.array(0, dtype=np.int64)),
        helper.make_node("Gather", ["3", "4"], ["5"], name="5", axis=0),            # x.size(0), a scalar
        helper.make_node("Unsqueeze", ["5"], ["6"], name="6", axes=[0]),
        const("7", i64(0)),                                                         # dim
        dyn_slice(["x", "2", "6", "7"], "8"),
        helper.make_node("Relu", ["8"], ["y"], name="y"),
        helper.make_node("Gemm", ["y", "fc.weight", "fc.bias"], ["z"], name="z", alpha=1.0, beta=1.0, transB=1),
    ]
    w = randn(11, 4, 10)
    b = randn(12, 4)
    graph = helper.make_graph(
        nodes, "torch-jit-export",
        # IR 3: every initializer is listed in graph.input too.
        [vi("x", F, ["N", 10]), vi("fc.weight", F, [4, 10]), vi("fc.bias", F, [4])],
        [vi("y", F, [None, 10]), vi("z", F, [None, 4])],
        initializer=[init("fc.weight", w), init("fc.bias", b)])
    model = make_model(graph, ir_version=3, producer=("pytorch", "1.0"))
    cases = {"n5": {"x": randn(10, 5, 10)}, "n2": {"x": randn(13, 2, 10)}, "n1_empty": {"x": randn(14, 1, 10)}}
    save("pytorch_dynamic_ends", model, cases, folds_all=False,
         pattern="PyTorch 1.0 opset-9 export of `x[1:x.size(0)]`: ends = Unsqueeze(Gather(Shape(x), 0)), starts = "
                 "Unsqueeze(Constant), axes = Constant; IR 3, initializers (Gemm weights) also in graph.input",
         legalization="rewrite to Slice-10+ (ends are computed at run time); opset raised, IR raised to fit; the "
                      "IR-3 initializers should stay constants, i.e. leave graph.input at IR >= 4 (the "
                      "differential test notes it when they don't)")


def onnxtf_strided():
    """onnx-tensorflow 1.2's StridedSlice: DynamicSlice(x, begin, end), three inputs, int32 indices."""
    graph = helper.make_graph(
        [dyn_slice(["x:0", "begin:0", "end:0"], "StridedSlice:0", name="StridedSlice")], "tf_graph",
        [vi("x:0", F, [4, 6, 8]), vi("begin:0", I32, [3]), vi("end:0", I32, [3])],
        [vi("StridedSlice:0", F, [None, None, None])])
    model = make_model(graph, ir_version=4, producer=("onnx-tensorflow", "1.2.1"))
    x = randn(20, 4, 6, 8)
    idx = {
        "basic": (i32(1, 2, 3), i32(3, 5, 7)),
        "negative": (i32(-3, -4, -5), i32(-1, -1, -1)),
        "int32_max_ends": (i32(0, 1, 2), i32(INT32_MAX, INT32_MAX, INT32_MAX)),
        "out_of_range": (i32(2, -100, 0), i32(100, 3, 1000)),
        "int32_min_starts": (i32(INT32_MIN, INT32_MIN, -8), i32(INT32_MAX, 2, 8)),
        "start_ge_end": (i32(3, 1, 0), i32(1, 5, 8)),
        "start_beyond_dim": (i32(10, 0, 0), i32(20, 6, 8)),
        "end_below_minus_dim": (i32(0, 0, 0), i32(4, -7, -100)),
    }
    cases = {c: {"x:0": x, "begin:0": b, "end:0": e} for c, (b, e) in idx.items()}
    expected = {c: [ds_ref(x, b, e)] for c, (b, e) in idx.items()}
    save("onnxtf_strided", model, cases, expected=expected, folds_all=False,
         pattern="onnx-tensorflow 1.2 StridedSlice: 3 inputs (no axes), int32 begin/end given as graph inputs; "
                 "TF-style names with ':0'",
         legalization="rewrite to Slice-10+ with int32 indices (axes default to 0..2); opset raised")


def onnxmltools_crop_opset11():
    """onnxmltools' CoreML Crop converter: DynamicSlice written into a model whose default opset is already 11."""
    top, left, border = 1, 2, 2
    graph = helper.make_graph(
        [helper.make_node("Relu", ["image"], ["relu_out"], name="relu"),
         dyn_slice(["relu_out", "crop_starts", "crop_ends", "crop_axes"], "cropped", name="crop")],
        "coreml_graph",
        [vi("image", F, [1, 3, 8, 10])],
        [vi("cropped", F, [1, 3, 8 - top, 10 - left - border])],
        initializer=[init("crop_axes", i64(2, 3)), init("crop_starts", i64(top, left)),
                     init("crop_ends", i64(INT64_MAX, -border))])
    model = make_model(graph, opset=11, ir_version=6, producer=("OnnxMLTools", "1.7.0"))
    cases = {"random": {"image": randn(30, 1, 3, 8, 10)}, "signed": {"image": randn(31, 1, 3, 8, 10) * 100}}
    expected = {c: [ds_ref(np.maximum(f["image"], 0), i64(top, left), i64(INT64_MAX, -border), i64(2, 3))]
                for c, f in cases.items()}
    save("onnxmltools_crop_opset11", model, cases, expected=expected, ort_runs_original=False, folds_all=False,
         pattern="onnxmltools CoreML Crop: constant int64 initializers axes [2,3], starts [top,left], "
                 "ends [INT64_MAX,-border], in a model whose default opset is already 11 (IR 6); invalid "
                 "everywhere until legalized (ONNX Runtime refuses it)",
         legalization="rewrite to Slice-11 with constant inputs (data is a run-time value); no opset change "
                      "needed; compared against numpy, not the original")


def historic_vectors():
    """The five DynamicSlice backend tests of onnx 1.4 (ir_version 3, opset 9, x = randn(20, 10, 5))."""
    x = randn(1, 20, 10, 5)
    producer = ("backend-test", "")

    # dynamic_slice: constant indices as initializers (listed in graph.input, as IR 3 requires); x is an input.
    graph = helper.make_graph(
        [dyn_slice(["x", "starts", "ends", "axes"], "y", name="node")], "test_dynamic_slice",
        [vi("x", F, [20, 10, 5]), vi("starts", I64, [2]), vi("ends", I64, [2]), vi("axes", I64, [2])],
        [vi("y", F, [3, 10, 5])],
        initializer=[init("starts", i64(0, 0)), init("ends", i64(3, 10)), init("axes", i64(0, 1))])
    save("dynamic_slice", make_model(graph, ir_version=3, producer=producer), {"onnx14": {"x": x}},
         expected={"onnx14": [x[0:3, 0:10]]}, folds_all=False,
         pattern="onnx 1.4 test dynamic_slice: x[0:3, 0:10]; starts/ends/axes are IR-3 initializers (constants), "
                 "x a graph input",
         legalization="rewrite to Slice-10+ with constant indices; opset raised")

    # dynamic_slice_neg: indices from Constant nodes.
    graph = helper.make_graph(
        [const("starts", i64(0)), const("ends", i64(-1)), const("axes", i64(1)),
         dyn_slice(["x", "starts", "ends", "axes"], "y", name="node")], "test_dynamic_slice_neg",
        [vi("x", F, [20, 10, 5])], [vi("y", F, [20, 9, 5])])
    save("dynamic_slice_neg", make_model(graph, ir_version=3, producer=producer), {"onnx14": {"x": x}},
         expected={"onnx14": [x[:, 0:-1]]}, folds_all=False,
         pattern="onnx 1.4 test dynamic_slice_neg: x[:, 0:-1]; indices from Constant nodes",
         legalization="rewrite to Slice-10+ with constant indices; opset raised")

    # dynamic_slice_start_out_of_bounds: every index a graph input (and so is axes), edge values as cases.
    graph = helper.make_graph(
        [dyn_slice(["x", "starts", "ends", "axes"], "y", name="node")], "test_dynamic_slice_start_out_of_bounds",
        [vi("x", F, [20, 10, 5]), vi("starts", I64, [1]), vi("ends", I64, [1]), vi("axes", I64, [1])],
        [vi("y", F, [None, None, None])])
    idx = {
        "onnx14": (i64(1000), i64(1000), i64(1)),
        "negative_axis": (i64(1), i64(3), i64(-2)),
        "start_below_minus_dim": (i64(-1000), i64(2), i64(1)),
        "int64_max_end": (i64(2), i64(INT64_MAX), i64(2)),
        "int64_min_start": (i64(INT64_MIN), i64(INT64_MAX), i64(0)),
        "negative_end": (i64(0), i64(-1), i64(0)),
        "start_ge_end": (i64(7), i64(3), i64(-3)),
    }
    save("dynamic_slice_start_out_of_bounds", make_model(graph, ir_version=3, producer=producer),
         {c: {"x": x, "starts": s, "ends": e, "axes": a} for c, (s, e, a) in idx.items()},
         expected={c: [ds_ref(x, s, e, a)] for c, (s, e, a) in idx.items()}, folds_all=False,
         pattern="onnx 1.4 test dynamic_slice_start_out_of_bounds (x[:, 1000:1000] -> (20,0,5)); starts, ends AND "
                 "axes are graph inputs; cases add negative axis, INT64 min/max, start >= end",
         legalization="rewrite to Slice (axes only known at run time: may be negative, so Slice-11+ or an explicit "
                      "normalization); opset raised")

    # dynamic_slice_end_out_of_bounds: x too is an IR-3 initializer listed in graph.input: all constant -> folds.
    graph = helper.make_graph(
        [dyn_slice(["x", "starts", "ends", "axes"], "y", name="node")], "test_dynamic_slice_end_out_of_bounds",
        [vi("x", F, [20, 10, 5]), vi("starts", I64, [1]), vi("ends", I64, [1]), vi("axes", I64, [1])],
        [vi("y", F, [20, 9, 5])],
        initializer=[init("x", x), init("starts", i64(1)), init("ends", i64(1000)), init("axes", i64(1))])
    save("dynamic_slice_end_out_of_bounds", make_model(graph, ir_version=3, producer=producer), {"onnx14": {}},
         expected={"onnx14": [x[:, 1:1000]]}, folds_all=True,
         pattern="onnx 1.4 test dynamic_slice_end_out_of_bounds (x[:, 1:1000]); here x is an IR-3 initializer "
                 "too, so every input is constant and the graph output is the DynamicSlice's",
         legalization="fold to a constant (the graph output then comes from an initializer or Constant); no "
                      "opset change needed")

    # dynamic_slice_default_axes: 3 inputs, starts/ends graph inputs.
    graph = helper.make_graph(
        [dyn_slice(["x", "starts", "ends"], "y", name="node")], "test_dynamic_slice_default_axes",
        [vi("x", F, [20, 10, 5]), vi("starts", I64, [3]), vi("ends", I64, [3])],
        [vi("y", F, [None, None, None])])
    idx = {
        "onnx14": (i64(0, 0, 3), i64(20, 10, 4)),
        "negative": (i64(-5, -3, -1), i64(-1, INT64_MAX, INT64_MAX)),
        "clamped": (i64(-100, 9, 0), i64(100, 100, -4)),
    }
    save("dynamic_slice_default_axes", make_model(graph, ir_version=3, producer=producer),
         {c: {"x": x, "starts": s, "ends": e} for c, (s, e) in idx.items()},
         expected={c: [ds_ref(x, s, e)] for c, (s, e) in idx.items()}, folds_all=False,
         pattern="onnx 1.4 test dynamic_slice_default_axes (x[:, :, 3:4]); no axes input; starts/ends are "
                 "graph inputs",
         legalization="rewrite to Slice-10+ (axes [0,1,2]); opset raised")

    # IR 4: initializers listed in graph.input are overridable defaults, not constants.
    graph = helper.make_graph(
        [dyn_slice(["x", "starts", "ends", "axes"], "y", name="node")], "dynamic_slice_ir4_overridable",
        [vi("x", F, [20, 10, 5]), vi("starts", I64, [2]), vi("ends", I64, [2]), vi("axes", I64, [2])],
        [vi("y", F, [None, None, None])],
        initializer=[init("starts", i64(1, 2)), init("ends", i64(4, -1)), init("axes", i64(0, 2))])
    save("dynamic_slice_ir4_overridable", make_model(graph, ir_version=4), {"defaults": {"x": x}},
         expected={"defaults": [ds_ref(x, i64(1, 2), i64(4, -1), i64(0, 2))]}, folds_all=False,
         pattern="IR 4: starts/ends/axes are initializers that are also graph inputs, i.e. defaults a caller may "
                 "override (ONNX Runtime's Node API cannot feed them, so only the defaults are run)",
         legalization="must NOT fold (not constants at IR >= 4): rewrite to Slice-10+, keep starts/ends/axes as "
                      "overridable graph inputs; opset raised")


def subgraphs():
    # If: then-branch slices with outer-scope graph inputs, else-branch with its own Constant indices.
    then_g = helper.make_graph(
        [dyn_slice(["x", "starts", "ends", "axes"], "then_y")], "then_branch", [], [vi("then_y", F, [None, None])])
    else_g = helper.make_graph(
        [const("else_starts", i64(1)), const("else_ends", i64(-1)), const("else_axes", i64(1)),
         dyn_slice(["x", "else_starts", "else_ends", "else_axes"], "else_y")],
        "else_branch", [], [vi("else_y", F, [None, None])])
    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=then_g, else_branch=else_g)],
        "if_graph",
        [vi("cond", BOOL, []), vi("x", F, [4, 5]), vi("starts", I64, [2]), vi("ends", I64, [2])],
        [vi("y", F, [None, None])],
        initializer=[init("axes", i64(0, 1))])
    x = randn(40, 4, 5)
    idx = {"then_basic": (True, i64(1, 0), i64(3, 4)),
           "then_edges": (True, i64(-100, -2), i64(INT64_MAX, 1000)),
           "else": (False, i64(0, 0), i64(1, 1))}
    cases = {c: {"cond": np.array(cd), "x": x, "starts": s, "ends": e} for c, (cd, s, e) in idx.items()}
    expected = {c: [ds_ref(x, s, e, i64(0, 1)) if cd else ds_ref(x, i64(1), i64(-1), i64(1))]
                for c, (cd, s, e) in idx.items()}
    save("subgraph_if_opset9", make_model(graph), cases, expected=expected, folds_all=False,
         pattern="DynamicSlice in both branches of an If: the then-branch uses outer-scope graph inputs (and an "
                 "outer initializer for axes), the else-branch its own Constant indices on outer-scope x",
         legalization="rewrite inside the subgraphs; opset raised for the whole model")

    # Loop: the body slices row i of outer-scope x, with i the iteration number; Unsqueeze-1 and ReduceSum-1 in it.
    body = helper.make_graph(
        [const("one", np.array(1, dtype=np.int64)),
         helper.make_node("Add", ["i", "one"], ["i_plus_1"], name="i_plus_1"),
         helper.make_node("Unsqueeze", ["i"], ["row_start"], name="row_start", axes=[0]),
         helper.make_node("Unsqueeze", ["i_plus_1"], ["row_end"], name="row_end", axes=[0]),
         dyn_slice(["x", "row_start", "row_end", "row_axis"], "row"),
         helper.make_node("Add", ["acc", "row"], ["acc_out"], name="acc_out"),
         helper.make_node("ReduceSum", ["row"], ["row_sum"], name="row_sum", axes=[1], keepdims=0),
         helper.make_node("Identity", ["cond"], ["cond_out"], name="cond_out")],
        "loop_body",
        [vi("i", I64, []), vi("cond", BOOL, []), vi("acc", F, [1, 4])],
        [vi("cond_out", BOOL, []), vi("acc_out", F, [1, 4]), vi("row_sum", F, [1])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trip_count", "", "acc_init"], ["acc_final", "row_sums"], name="loop", body=body)],
        "loop_graph",
        [vi("x", F, [6, 4]), vi("trip_count", I64, [])],
        [vi("acc_final", F, [1, 4]), vi("row_sums", F, [None, 1])],
        initializer=[init("acc_init", np.zeros((1, 4), np.float32)), init("row_axis", i64(0))])
    x = randn(41, 6, 4)
    cases = {"six": {"x": x, "trip_count": np.array(6, dtype=np.int64)},
             "three": {"x": x, "trip_count": np.array(3, dtype=np.int64)}}
    save("subgraph_loop_opset9", make_model(graph), cases, folds_all=False,
         pattern="DynamicSlice in a Loop body: starts/ends from the iteration number (Unsqueeze-1), data and axes "
                 "from the outer scope; ReduceSum-1 in the body too",
         legalization="rewrite inside the body; convert the body's Unsqueeze/ReduceSum to the new opset too")


def chains():
    # DynamicSlice of a DynamicSlice of a Constant (folds), one of them a graph output directly; plus a dynamic
    # DynamicSlice whose starts are themselves a foldable DynamicSlice of a constant.
    nodes = [
        const("table", np.arange(24, dtype=np.float32).reshape(4, 6)),
        const("s1_starts", i64(1)), const("s1_ends", i64(4)), const("s1_axes", i64(0)),
        dyn_slice(["table", "s1_starts", "s1_ends", "s1_axes"], "s1"),                  # (3, 6)
        const("s2_starts", i64(-4)), const("s2_ends", i64(INT64_MAX)), const("s2_axes", i64(1)),
        dyn_slice(["s1", "s2_starts", "s2_ends", "s2_axes"], "folded"),                 # (3, 4), a graph output
        const("positions", i64(0, 1, 2, 3, 4, 5)),
        const("p_starts", i64(2)), const("p_ends", i64(3)),
        dyn_slice(["positions", "p_starts", "p_ends"], "dyn_starts"),                   # [2], int64
        const("dyn_axes", i64(1)),
        dyn_slice(["x", "dyn_starts", "ends", "dyn_axes"], "dynamic"),
    ]
    graph = helper.make_graph(nodes, "chain", [vi("x", F, [3, 8]), vi("ends", I64, [1])],
                              [vi("folded", F, [3, 4]), vi("dynamic", F, [3, None])])
    x = randn(50, 3, 8)
    folded = np.arange(24, dtype=np.float32).reshape(4, 6)[1:4, 2:6]
    ends = {"five": i64(5), "minus_one": i64(-1), "int64_max": i64(INT64_MAX), "before_start": i64(1)}
    save("chain_opset9", make_model(graph), {c: {"x": x, "ends": e} for c, e in ends.items()},
         expected={c: [folded, ds_ref(x, i64(2), e, i64(1))] for c, e in ends.items()}, folds_all=False,
         pattern="DynamicSlice(DynamicSlice(Constant)) as a graph output, and a dynamic DynamicSlice whose starts "
                 "come from a DynamicSlice of a Constant",
         legalization="fold the constant chain (the graph output 'folded' becomes a constant) and the starts; "
                      "rewrite the dynamic one to Slice-10+; opset raised")

    # Every DynamicSlice folds: the model may keep opset 9.
    nodes = [
        const("c", np.arange(30, dtype=np.float32).reshape(3, 10) / 4),
        const("c_starts", i64(0, 3)), const("c_ends", i64(3, 7)), const("c_axes", i64(0, 1)),
        dyn_slice(["c", "c_starts", "c_ends", "c_axes"], "c_slice"),                      # (3, 4)
        helper.make_node("Add", ["x", "c_slice"], ["sum"], name="sum"),
        dyn_slice(["shape_table", "shape_starts", "shape_ends"], "new_shape", name="new_shape"),   # [2, 6]
        helper.make_node("Reshape", ["x", "new_shape"], ["reshaped"], name="reshaped"),
        const("words", np.array(["zero", "one", "two", "three", "four"], dtype=object)),
        const("w_starts", i32(-3)), const("w_ends", i32(INT32_MAX)),
        dyn_slice(["words", "w_starts", "w_ends"], "last_words"),
    ]
    graph = helper.make_graph(
        nodes, "fold_only", [vi("x", F, [3, 4])],
        [vi("sum", F, [3, 4]), vi("reshaped", F, [2, 6]), vi("last_words", TensorProto.STRING, [3])],
        initializer=[init("shape_table", i64(2, 6, 99)), init("shape_starts", i64(0)), init("shape_ends", i64(2))])
    x = randn(51, 3, 4)
    c = np.arange(30, dtype=np.float32).reshape(3, 10) / 4
    save("fold_only_opset9", make_model(graph), {"random": {"x": x}},
         expected={"random": [x + c[0:3, 3:7], x.reshape(2, 6), np.array(["two", "three", "four"], dtype=object)]},
         folds_all=True,
         pattern="every DynamicSlice has constant inputs: of a float Constant (feeds an Add), of an int64 "
                 "initializer (feeds Reshape's shape), of a string Constant with int32 indices (a graph output)",
         legalization="fold all three; no DynamicSlice left, so no opset change is needed")


def large_folds():
    """Folds larger than the skeleton keeps (64 KiB), which LegalizeFile computes as it writes them."""
    w = np.arange(40 * 512, dtype=np.float32).reshape(40, 512) / 7
    nodes = [
        dyn_slice(["w", "rows_starts", "rows_ends"], "rows"),                                  # (36, 512)
        helper.make_node("Add", ["x", "rows"], ["shifted"], name="shifted"),
        dyn_slice(["w", "window_starts", "window_ends", "window_axes"], "window"),             # (39, 488)
    ]
    graph = helper.make_graph(
        nodes, "large_folds", [vi("x", F, [1, 512])], [vi("shifted", F, [36, 512]), vi("window", F, [39, 488])],
        initializer=[init("w", w), init("rows_starts", i64(2)), init("rows_ends", i64(38)),
                     init("window_starts", i64(1, -500)), init("window_ends", i64(40, 500)),
                     init("window_axes", i64(0, -1))])
    save("large_folds_opset9", make_model(graph), {"random": {"x": randn(52, 1, 512)}}, folds_all=True,
         pattern="two DynamicSlices of an 80 KiB weight, each folding to more than 64 KiB: one feeds an Add, one "
                 "is a graph output",
         legalization="fold both (LegalizeFile computes each part by part as it writes the output); the weight "
                      "is removed; no opset change is needed")


def mixed_ops():
    """Ops whose signature or meaning changes between opsets 9 and 13, beside a DynamicSlice with dynamic input."""
    nodes = [
        const("scales", np.array([1, 1, 2, 2], dtype=np.float32)),
        helper.make_node("Upsample", ["x", "scales"], ["upsample_nearest"], name="upsample_nearest", mode="nearest"),
        helper.make_node("Upsample", ["x", "scales"], ["upsample_linear"], name="upsample_linear", mode="linear"),
        helper.make_node("Slice", ["x"], ["slice1"], name="slice1", starts=[1, -3], ends=[1000, -1], axes=[3, 2]),
        helper.make_node("TopK", ["x"], ["topk_values", "topk_indices"], name="topk", k=2, axis=-1),
        helper.make_node("Clip", ["x"], ["clip"], name="clip", min=-0.5, max=0.75),
        helper.make_node("Pad", ["x"], ["pad"], name="pad", mode="constant", value=1.5,
                         pads=[0, 0, 1, 2, 0, 0, 2, 1]),
        helper.make_node("Pad", ["x"], ["pad_reflect"], name="pad_reflect", mode="reflect",
                         pads=[0, 0, 1, 1, 0, 0, 2, 2]),
        helper.make_node("Squeeze", ["x"], ["squeezed"], name="squeezed", axes=[0]),             # (2, 4, 5)
        helper.make_node("Softmax", ["squeezed"], ["softmax"], name="softmax"),                 # axis 1 of rank 3
        helper.make_node("Softmax", ["x"], ["softmax_axis2"], name="softmax_axis2", axis=2),    # rank 4
        helper.make_node("Unsqueeze", ["squeezed"], ["unsqueezed"], name="unsqueezed", axes=[0, 3]),
        helper.make_node("ReduceSum", ["x"], ["reducesum"], name="reducesum", axes=[1, 3], keepdims=1),
        helper.make_node("ReduceSum", ["x"], ["reducesum_all"], name="reducesum_all", keepdims=0),
        helper.make_node("Split", ["x"], ["split_0", "split_1"], name="split", axis=2, split=[1, 3]),
        dyn_slice(["x", "starts", "ends", "ds_axes"], "dyn_slice"),
        helper.make_node("Softmax", ["dyn_slice"], ["dyn_slice_softmax"], name="dyn_slice_softmax", axis=2),
    ]
    outputs = [("upsample_nearest", [1, 2, 8, 10]), ("upsample_linear", [1, 2, 8, 10]), ("slice1", [1, 2, 2, 4]),
               ("topk_values", [1, 2, 4, 2]), ("topk_indices", [1, 2, 4, 2]), ("clip", [1, 2, 4, 5]),
               ("pad", [1, 2, 7, 8]), ("pad_reflect", [1, 2, 7, 8]), ("softmax", [2, 4, 5]),
               ("softmax_axis2", [1, 2, 4, 5]), ("unsqueezed", [1, 2, 4, 1, 5]), ("reducesum", [1, 1, 4, 1]),
               ("reducesum_all", []), ("split_0", [1, 2, 1, 5]), ("split_1", [1, 2, 3, 5]),
               ("dyn_slice", [1, 2, None, None]), ("dyn_slice_softmax", [1, 2, None, None])]
    graph = helper.make_graph(
        nodes, "mixed_ops",
        [vi("x", F, [1, 2, 4, 5]), vi("starts", I64, [2]), vi("ends", I64, [2])],
        [vi(o, I64 if o == "topk_indices" else F, shape) for o, shape in outputs],
        initializer=[init("ds_axes", i64(2, -1))])
    x = randn(60, 1, 2, 4, 5)
    idx = {"basic": (i64(1, 0), i64(3, 4)),
           "edges": (i64(-100, -2), i64(INT64_MAX, 1000)),
           "empty": (i64(3, 0), i64(2, 5))}
    save("mixed_ops_opset9", make_model(graph), {c: {"x": x, "starts": s, "ends": e} for c, (s, e) in idx.items()},
         folds_all=False,
         pattern="opset 9 ops that change between 9 and 13 (Upsample-9 nearest/linear, Slice-1, TopK-1, Clip-6, "
                 "Pad-2 constant/reflect, Squeeze-1, Unsqueeze-1, Softmax-1 on rank 3 and rank 4, ReduceSum-1, "
                 "Split-2) beside a DynamicSlice with dynamic starts/ends and a negative axis",
         legalization="rewrite the DynamicSlice and convert every other node to the target opset without changing "
                      "a single output byte (e.g. Upsample -> Resize-11+ needs coordinate_transformation_mode "
                      "asymmetric, and nearest_mode floor for nearest: onnx 1.12's version converter leaves the "
                      "default half_pixel and changes upsample_linear; Softmax-1's axis semantics at 13)")

    nodes = [
        helper.make_node("Scatter", ["x", "scatter_idx", "scatter_upd"], ["scatter"], name="scatter", axis=1),
        helper.make_node("Dropout", ["x"], ["dropout"], name="dropout", ratio=0.3),
        helper.make_node("BatchNormalization", ["x4", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"],
                         name="bn", epsilon=1e-3),
        helper.make_node("Flatten", ["x4"], ["flat"], name="flat", axis=2),
        helper.make_node("Concat", ["x", "x"], ["concat"], name="concat", axis=1),
        dyn_slice(["concat", "starts", "ends"], "dyn_slice"),
    ]
    graph = helper.make_graph(
        nodes, "mixed_ops_extra",
        [vi("x", F, [3, 4]), vi("x4", F, [2, 3, 2, 2]), vi("starts", I32, [2]), vi("ends", I32, [2])],
        [vi("scatter", F, [3, 4]), vi("dropout", F, [3, 4]), vi("bn", F, [2, 3, 2, 2]), vi("flat", F, [6, 4]),
         vi("concat", F, [3, 8]), vi("dyn_slice", F, [None, None])],
        initializer=[init("scatter_idx", np.array([[1, 0], [3, 2], [0, 2]], dtype=np.int64)),
                     init("scatter_upd", randn(61, 3, 2)),
                     init("bn_scale", randn(62, 3)), init("bn_bias", randn(63, 3)),
                     init("bn_mean", randn(64, 3)), init("bn_var", np.abs(randn(65, 3)) + 0.5)])
    cases = {"basic": {"x": randn(66, 3, 4), "x4": randn(67, 2, 3, 2, 2), "starts": i32(1, 2), "ends": i32(3, -1)}}
    save("mixed_ops_extra_opset9", make_model(graph), cases, folds_all=False,
         pattern="more opset-9 ops a conversion must handle: Scatter-9 (deprecated at 11), Dropout-7 (ratio "
                 "attribute), BatchNormalization-9, Flatten-9, Concat-4; DynamicSlice with int32 inputs",
         legalization="rewrite the DynamicSlice; Scatter -> ScatterElements at 11+; Dropout's ratio -> input at "
                      "12+; same output bytes")


def dtypes():
    """Non-float element types through DynamicSlice; ONNX Runtime's own DynamicSlice vectors."""
    nodes = [
        dyn_slice(["d_int64", "s32", "e32"], "y_int64"),
        dyn_slice(["d_bool", "s64", "e64", "axes64"], "y_bool"),
        dyn_slice(["d_string", "s32", "e32", "axes32"], "y_string"),
        dyn_slice(["d_float16", "s64", "e64"], "y_float16"),
        dyn_slice(["d_double", "s64", "e64"], "y_double"),
        dyn_slice(["d_uint8", "s32", "e32"], "y_uint8"),
        const("c_starts", i32(1)), const("c_ends", i32(3)), const("c_axes", i32(-1)),
        dyn_slice(["d_int32", "c_starts", "c_ends", "c_axes"], "y_int32_last_axis"),
        const("u_starts", i64(1, 0, 1)), const("u_ends", i64(2, 1, 3)), const("u_axes", i64(2, 0, 1)),
        dyn_slice(["d_cube", "u_starts", "u_ends", "u_axes"], "y_cube_unsorted_axes"),
    ]
    types = [("d_int64", I64), ("d_bool", BOOL), ("d_string", TensorProto.STRING), ("d_float16", TensorProto.FLOAT16),
             ("d_double", TensorProto.DOUBLE), ("d_uint8", TensorProto.UINT8), ("d_int32", I32)]
    graph = helper.make_graph(
        nodes, "dtypes",
        [vi(n, t, [3, 3]) for n, t in types] + [vi("d_cube", I32, [3, 3, 3]),
                                                 vi("s32", I32, [2]), vi("e32", I32, [2]),
                                                 vi("s64", I64, [2]), vi("e64", I64, [2])],
        [vi("y" + n[1:], t, [None, None]) for n, t in types[:-1]]
        + [vi("y_int32_last_axis", I32, [3, 2]), vi("y_cube_unsorted_axes", I32, [1, 2, 1])],
        initializer=[init("axes64", i64(0, 1)), init("axes32", i32(-2, 1))])
    one_to_nine = np.arange(1, 10).reshape(3, 3)
    rs = np.random.RandomState(70)
    data = {
        "d_int64": one_to_nine.astype(np.int64),
        "d_bool": np.array([[True, False, True], [False, True, True], [True, True, False]]),
        "d_string": np.array([["1", "2", "3"], ["4", "", "six"], ["sept", "huit", "neun-é"]], dtype=object),
        "d_float16": np.array([[1, 2, 3], [4, -0.0, np.inf], [7, np.nan, 65504]], dtype=np.float16),
        "d_double": rs.randn(3, 3),
        "d_uint8": np.array([[1, 2, 3], [4, 5, 255], [7, 8, 0]], dtype=np.uint8),
        "d_int32": one_to_nine.astype(np.int32),
        "d_cube": np.arange(1, 28, dtype=np.int32).reshape(3, 3, 3),
    }
    idx = {"ort_vectors": (i32(1, 1), i32(3, 3), i64(1, 1), i64(3, 3)),
           "edges": (i32(INT32_MIN, -2), i32(-1, INT32_MAX), i64(-1, INT64_MIN), i64(INT64_MAX, -1))}
    cases, expected = {}, {}
    for c, (s32, e32, s64, e64) in idx.items():
        cases[c] = dict(data, s32=s32, e32=e32, s64=s64, e64=e64)
        expected[c] = [ds_ref(data["d_int64"], s32, e32),
                       ds_ref(data["d_bool"], s64, e64, i64(0, 1)),
                       ds_ref(data["d_string"], s32, e32, i32(-2, 1)),
                       ds_ref(data["d_float16"], s64, e64),
                       ds_ref(data["d_double"], s64, e64),
                       ds_ref(data["d_uint8"], s32, e32),
                       ds_ref(data["d_int32"], i32(1), i32(3), i32(-1)),
                       ds_ref(data["d_cube"], i64(1, 0, 1), i64(2, 1, 3), i64(2, 0, 1))]
    save("dtypes_opset9", make_model(graph), cases, expected=expected, folds_all=False,
         pattern="DynamicSlice on int64, bool, string, float16 (with -0, inf, NaN), double, uint8 and int32 data, "
                 "int32 and int64 indices, negative and unsorted axes (ONNX Runtime's own DynamicSlice test vectors)",
         legalization="rewrite each to Slice-10+ (element type untouched); opset raised")


def domain_ai_onnx():
    graph = helper.make_graph(
        [dyn_slice(["x", "starts", "ends"], "sliced", domain="ai.onnx"),
         helper.make_node("Relu", ["sliced"], ["y"], name="relu", domain="ai.onnx")],
        "ai_onnx_domain", [vi("x", F, [5, 5]), vi("starts", I64, [2]), vi("ends", I64, [2])],
        [vi("y", F, [None, None])])
    x = randn(80, 5, 5)
    idx = {"basic": (i64(1, 2), i64(4, 5)), "negative": (i64(-2, -5), i64(INT64_MAX, -1))}
    save("domain_ai_onnx_opset9", make_model(graph), {c: {"x": x, "starts": s, "ends": e} for c, (s, e) in idx.items()},
         expected={c: [np.maximum(ds_ref(x, s, e), 0)] for c, (s, e) in idx.items()}, folds_all=False,
         pattern="nodes written with domain \"ai.onnx\" (the default domain's other spelling), DynamicSlice "
                 "included",
         legalization="treat as the default domain: rewrite to Slice-10+ (written in domain \"\" or with an \"ai.onnx\" opset_import: onnx 1.12's checker rejects a node domain \"ai.onnx\" without one); opset raised")


def softmax_after_dynamic_slice():
    """Softmax-1, LogSoftmax-1 and Hardmax-1 at inner axes of a DynamicSlice's output, whose shape nothing declares."""
    graph = helper.make_graph(
        [dyn_slice(["x", "starts", "ends", "axes"], "sliced"),
         helper.make_node("Softmax", ["sliced"], ["softmax"], name="softmax", axis=1),
         helper.make_node("LogSoftmax", ["sliced"], ["log_softmax"], name="log_softmax", axis=-2),
         helper.make_node("Hardmax", ["sliced"], ["hardmax"], name="hardmax", axis=0)],
        "softmax_after_dynamic_slice", [vi("x", F, [2, 3, 4]), vi("starts", I64, [1]), vi("ends", I64, [1])],
        [vi("softmax", F, [None] * 3), vi("log_softmax", F, [None] * 3), vi("hardmax", F, [None] * 3)],
        initializer=[init("axes", i64(2))])
    x = randn(90, 2, 3, 4)
    idx = {"middle": (i64(1), i64(3)), "all": (i64(0), i64(INT64_MAX))}
    save("softmax_after_dynamic_slice_opset9", make_model(graph),
         {c: {"x": x, "starts": s, "ends": e} for c, (s, e) in idx.items()}, folds_all=False,
         pattern="Softmax/LogSoftmax/Hardmax at an inner axis (1, -2, 0) of a rank-3 DynamicSlice output whose "
                 "shape no value_info declares",
         legalization="rewrite the DynamicSlice; at 13+ the three ops take one axis, so the 12->13 adapter "
                      "flattens to 2-D and reshapes back, which needs the input's rank: the DynamicSlice keeps its "
                      "data's, and the upgrade must know it")


# ----------------------------------------------------------------------------------------------- main

README_HEAD = """# Legacy DynamicSlice models

Generated, this README included, by `testdata/make_legacy_models.py`: run it with the Python of `scripts/install-python-env.sh`
(onnx 1.23.2 and numpy); it deletes and rewrites every model, input and expected output here, byte for
byte the same on every run. Edit the script, not the files. `manifest.json` carries the same facts for
`tests/differential/run_differential.py`.

Per model: `<model>.onnx`; `<model>.inputs/<case>/input_K.pb`, one serialized `onnx.TensorProto` per real graph
input (named after it; K its position among the inputs that are not initializers); where numpy computes the result
exactly, `<model>.expected/<case>/output_K.pb`, one TensorProto per graph output in graph order, written by
`onnx.numpy_helper.from_array` (the same bytes `tests/ort/run_model.js` writes for the same tensor).

"Folds all" means every DynamicSlice has constant inputs only (at IR 3 an initializer listed in `graph.input` is a
constant; at IR >= 4 it is an overridable default, not a constant). Only such a model may keep its opset after
legalization. "ORT runs it" says whether ONNX Runtime 1.30 runs the original (it runs DynamicSlice at opset 7-9
only).

| file | IR / opset | folds all | ORT runs it | cases | producer pattern | what legalization should do |
|---|---|---|---|---|---|---|
"""


def write_readme():
    lines = [README_HEAD]
    for m in MODELS:
        lines.append("| `{}` | {} / {} | {} | {} | {} | {} | {} |\n".format(
            m["file"], m["ir_version"], m["default_opset"], "yes" if m["all_dynamic_slices_fold"] else "no",
            "yes" if m["ort_runs_original"] else "**no** (compared with numpy)", ", ".join(m["cases"]),
            m["pattern"].replace("|", "\\|"), m["legalization"].replace("|", "\\|")))
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("".join(lines))


def main():
    os.makedirs(OUT, exist_ok=True)
    for entry in sorted(os.listdir(OUT)):  # start clean: stale cases must not survive a change
        path = os.path.join(OUT, entry)
        if entry.endswith((".inputs", ".expected")) and os.path.isdir(path):
            shutil.rmtree(path)
        elif entry.endswith(".onnx") or entry == "manifest.json":
            os.remove(path)
    pytorch_dynamic_ends()
    onnxtf_strided()
    onnxmltools_crop_opset11()
    historic_vectors()
    subgraphs()
    chains()
    mixed_ops()
    dtypes()
    domain_ai_onnx()
    softmax_after_dynamic_slice()
    large_folds()
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump({"generator": "testdata/make_legacy_models.py", "models": MODELS}, f, indent=1)
        f.write("\n")
    write_readme()
    print(f"wrote {len(MODELS)} models to {OUT}")


if __name__ == "__main__":
    main()
