#!/usr/bin/python3
"""The model runner's kernels (src/eval/kernels/) against ONNX Runtime.

Usage:
    "$PY" tests/differential/run_runner_kernels.py MODEL_RUNNER_CLI SCRATCH_DIR [--only SUBSTRING ...]

Every case below is one node of one op at one opset (7..26, where the op's version changes and around; ORT 1.30
runs opsets up to 26, not 27 and 28, which tests/eval/kernels/ checks alone),
written with onnx's helpers into SCRATCH_DIR/<case>/model.onnx with its inputs. ONNX Runtime
(tests/ort/run_model.js: CPU, graph optimizations off, one thread) and the runner (MODEL_RUNNER_CLI, built from
tests/differential/model_runner_cli.cc) run it on the same inputs, floats among them +-0, +-inf, NaN, denormals
and values near the op's thresholds. Their outputs must have the same types and dims and, element by element,
be both NaN, or equal bit for bit, or within the case's ULP bound when it has one. A bound says why: ORT computes
the op with other operations or in another order (MLAS's vectorized exp/tanh/logistic, its GEMM's blocking,
Eigen's reductions), so the two agree only up to rounding. A bounded case draws its inputs where the bound
means something: no cancelling sums (values of one sign for products and sums), magnitudes where a ULP of the
result is a ULP of the terms.

A case whose model ORT refuses counts as skipped, with ORT's reason (none should: the list names only what ORT
1.30 runs). One line per case, then `N passed, M failed, K skipped`; exit status 1 when anything failed.
Python: the project's environment, PY=$(scripts/install-python-env.sh) (onnx 1.23.2, numpy).
"""

import argparse
import copy
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_MODEL = os.path.normpath(os.path.join(HERE, "..", "ort", "run_model.js"))
INSTALL_ORT = os.path.normpath(os.path.join(HERE, "..", "ort", "install.sh"))
TIMEOUT = 120

# IR version each opset was released with (helper.VERSION_TABLE): ORT checks the pair.
IR_OF_OPSET = {7: 3, 8: 3, 9: 4, 10: 5, 11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9, 20: 9, 21: 10,
               22: 10, 23: 11, 24: 12, 25: 13, 26: 13}

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.25, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 65504.0, 1e30,
                    -1e-7, 7.5, 2.0, -0.75, 100.0, -30.0], dtype=np.float32)


def rng(seed):
    return np.random.default_rng(seed)


def special(shape, seed=0, dtype=np.float32):
    """SPECIAL's values in a random order, then ordinary ones, to fill `shape`."""
    count = int(np.prod(shape))
    r = rng(seed)
    values = np.concatenate([r.permutation(SPECIAL), r.normal(0, 3, max(0, count - len(SPECIAL)))])[:count]
    with np.errstate(over="ignore"):  # 1e30 and 65504 overflow float16 to inf: one more special value
        return values.reshape(shape).astype(dtype)


def normal(shape, seed=0, dtype=np.float32, scale=1.0):
    return (rng(seed).normal(0, scale, shape)).astype(dtype)


def positive(shape, seed=0, dtype=np.float32):
    """Values in [0.5, 1.5): sums of them do not cancel, so a ULP bound on a sum is meaningful."""
    return (rng(seed).random(shape) + 0.5).astype(dtype)


def ints(shape, low, high, seed=0, dtype=np.int64):
    return rng(seed).integers(low, high, shape).astype(dtype)


def tensor_type(dtype):
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class Case:
    def __init__(self, name, opset, op, inputs, attrs=None, out_types=None, n_outputs=1, max_ulp=0, why="",
                 initializers=None, abs_tol=0.0):
        self.name = f"{name}_opset{opset}"
        self.opset = opset
        self.op = op
        self.inputs = inputs  # list of (name, array or None for an omitted input)
        self.attrs = attrs or {}
        self.out_types = out_types
        self.n_outputs = n_outputs
        self.max_ulp = max_ulp
        self.why = why
        self.initializers = initializers or {}
        self.abs_tol = abs_tol  # also within this absolute distance (for results that cancel, or are tiny)

    def model(self):
        names = [name if array is not None else "" for name, array in self.inputs]
        outputs = [f"y{k}" for k in range(self.n_outputs)]
        node = helper.make_node(self.op, names, outputs, **self.attrs)
        graph_inputs = [helper.make_tensor_value_info(name, tensor_type(array.dtype), array.shape)
                        for name, array in self.inputs if array is not None and name not in self.initializers]
        first = next(array for _, array in self.inputs if array is not None)
        types = self.out_types or [tensor_type(first.dtype)] * self.n_outputs
        graph_outputs = [helper.make_tensor_value_info(name, t, None) for name, t in zip(outputs, types)]
        inits = [numpy_helper.from_array(array, name) for name, array in self.initializers.items()]
        graph = helper.make_graph([node], self.name, graph_inputs, graph_outputs, inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                 ir_version=IR_OF_OPSET[self.opset])


class GraphCase(Case):
    """A case of a few nodes: ops whose values ORT's Node API cannot return (the sequence ops' sequences) are read
    through the ops at the end that make tensors of them (SequenceAt, SequenceLength, ConcatFromSequence).
    `nodes` are (op, inputs, outputs, attrs) with the graph's outputs named y0, y1, ...; `imports` adds opsets of
    other domains."""

    def __init__(self, name, opset, nodes, inputs, out_types, imports=None, **kwargs):
        super().__init__(name, opset, None, inputs, out_types=out_types, n_outputs=len(out_types), **kwargs)
        self.nodes = nodes
        self.imports = imports or {}

    def model(self):
        nodes = [helper.make_node(op, ins, outs, domain=attrs.pop("domain", ""), **attrs)
                 for op, ins, outs, attrs in ((op, ins, outs, dict(attrs)) for op, ins, outs, attrs in self.nodes)]
        graph_inputs = [helper.make_tensor_value_info(name, tensor_type(array.dtype), array.shape)
                        for name, array in self.inputs if array is not None]
        graph_outputs = [helper.make_tensor_value_info(f"y{k}", t, None) for k, t in enumerate(self.out_types)]
        graph = helper.make_graph(nodes, self.name, graph_inputs, graph_outputs)
        imports = [helper.make_opsetid("", self.opset)] + [helper.make_opsetid(d, v) for d, v in self.imports.items()]
        return helper.make_model(graph, opset_imports=imports, ir_version=IR_OF_OPSET[self.opset])


CASES = []


def add(name, opsets, op, inputs, **kwargs):
    for opset in opsets:
        CASES.append(Case(name, opset, op, inputs, **kwargs))


F16 = np.float16
X4 = special((2, 3, 4, 5))

# ------------------------------------------------------------------ elementwise, exact
for op in ["Relu", "Neg", "Abs", "Floor", "Ceil", "Sqrt", "Reciprocal"]:
    add(op.lower(), [7, 13], op, [("x", X4)])
add("round", [11, 22], "Round", [("x", X4)])
add("round_halves", [11], "Round", [("x", np.arange(-5, 5, 0.5, dtype=np.float32).reshape(4, 5))])
add("relu_f16", [14], "Relu", [("x", special((4, 5), dtype=F16))])
add("relu_double", [14], "Relu", [("x", special((4, 5), dtype=np.float64))])
add("relu_int32", [14], "Relu", [("x", ints((4, 5), -5, 5, dtype=np.int32))])
add("abs_int64", [13], "Abs", [("x", ints((4, 5), -5, 5))])
add("neg_int32", [13], "Neg", [("x", ints((4, 5), -5, 5, dtype=np.int32))])
add("leakyrelu", [7, 16], "LeakyRelu", [("x", X4)], attrs={"alpha": 0.1})
add("clip_attrs", [7], "Clip", [("x", X4)], attrs={"min": -1.0, "max": 2.0})
add("clip_inputs", [11, 13], "Clip", [("x", X4), ("lo", np.array(-1.0, np.float32)), ("hi", np.array(2.0, np.float32))])
add("clip_min_only", [13], "Clip", [("x", X4), ("lo", np.array(0.0, np.float32))])
add("clip_int", [13], "Clip", [("x", ints((4, 5), -9, 9)), ("lo", np.array(-2)), ("hi", np.array(3))])
add("hardsigmoid", [7], "HardSigmoid", [("x", X4)], attrs={"alpha": 0.25, "beta": 0.4})
add("shrink", [9, 13], "Shrink", [("x", X4)], attrs={"lambd": 1.5, "bias": 0.5})
add("sign", [9, 13], "Sign", [("x", X4)])
add("sign_int", [13], "Sign", [("x", ints((4, 5), -3, 3))])
add("thresholdedrelu", [10, 13], "ThresholdedRelu", [("x", X4)], attrs={"alpha": 0.5})
add("softsign", [7], "Softsign", [("x", X4)], max_ulp=1,
    why="ORT evaluates x / (1 + |x|) as an Eigen expression that rounds once more (seen: 1 ULP)")
add("prelu_scalar", [7, 9, 16], "PRelu", [("x", X4), ("s", np.array([0.25], np.float32))])
add("prelu_channel", [9, 16], "PRelu", [("x", X4), ("s", positive((3, 1, 1), 1))])

# ------------------------------------------------------------------ elementwise, transcendental
TRANSCENDENTAL = ("ORT computes it with MLAS's or Eigen's vectorized approximation, not the C library's: within a few "
                  "ULPs, and in absolute terms (2^-24) where the result is tiny or denormal (MLAS's tanh and logistic "
                  "clamp their input)")
for op in ["Exp", "Log", "Tanh", "Sigmoid"]:
    add(op.lower(), [7, 13], op, [("x", X4)], max_ulp=4, abs_tol=2.0 ** -24, why=TRANSCENDENTAL)
add("erf", [9, 13], "Erf", [("x", X4)], max_ulp=4, abs_tol=2.0 ** -24, why=TRANSCENDENTAL)
add("erf_wide", [13], "Erf", [("x", normal((4, 64), 3, scale=1.5))], max_ulp=4, abs_tol=2.0 ** -24, why=TRANSCENDENTAL)
CANCELS = "; the spec's alpha * exp(x) - alpha cancels near 0, so there the bound is absolute (2^-22)"
add("elu", [7], "Elu", [("x", X4)], attrs={"alpha": 0.7}, max_ulp=4, abs_tol=2.0 ** -22, why=TRANSCENDENTAL + CANCELS)
add("selu", [7], "Selu", [("x", X4)], max_ulp=4, abs_tol=2.0 ** -22, why=TRANSCENDENTAL + CANCELS)
add("softplus", [7], "Softplus", [("x", X4)], max_ulp=4, abs_tol=2.0 ** -24, why=TRANSCENDENTAL)
add("mish", [18, 22], "Mish", [("x", X4)], max_ulp=8, abs_tol=2.0 ** -24,
    why=TRANSCENDENTAL + "; x * tanh(softplus(x)) carries both functions' rounding")
add("pow", [7, 13], "Pow", [("x", positive((2, 3, 4, 5))), ("y", special((4, 5), 1))], max_ulp=2,
    why="ORT's pow for float goes through its own broadcasting helpers and may use powf of another libm path")
# Pow-12's integer base: to small integer powers (exact, no overflow) and to float powers whose results truncate.
add("pow_int", [12, 13, 15], "Pow", [("x", ints((3, 4), -5, 6)), ("y", ints((4,), 0, 4, 1))])
add("pow_int32_float", [12, 15], "Pow", [("x", ints((3, 4), 0, 7, dtype=np.int32)),
                                         ("y", np.array([0.0, 1.0, 0.5, 2.5], np.float32))])

# ------------------------------------------------------------------ arithmetic and broadcasting
for op in ["Add", "Sub", "Mul", "Div"]:
    add(op.lower(), [7, 14, 17], op, [("a", X4), ("b", special((4, 5), 3))])
    add(op.lower() + "_bcast_middle", [7, 13], op, [("a", X4), ("b", special((3, 1, 1), 4))])
add("add_int64", [13], "Add", [("a", ints((3, 4), -9, 9)), ("b", ints((4,), -9, 9, 1))])
add("div_int32", [13], "Div", [("a", ints((3, 4), -20, 20, dtype=np.int32)), ("b", ints((4,), 1, 5, 1, dtype=np.int32))])
add("mul_f16", [13], "Mul", [("a", special((3, 4), dtype=F16)), ("b", special((3, 4), 2, dtype=F16))])
add("add_double", [13], "Add", [("a", special((3, 4), dtype=np.float64)), ("b", special((4,), 2, dtype=np.float64))])
MEAN = "ORT multiplies the sum by 1/n where the runner divides it by n (seen: 1 ULP)"
for op in ["Sum", "Max", "Min"]:
    add(op.lower(), [8, 13], op, [("a", special((3, 4))), ("b", special((4,), 1)), ("c", special((3, 1), 2))])
add("sum_same", [7], "Sum", [("a", special((3, 4))), ("b", special((3, 4), 1))])
add("mean", [8, 13], "Mean", [("a", positive((3, 4))), ("b", positive((4,), 1)), ("c", positive((3, 1), 2))],
    max_ulp=1, why=MEAN)

# ------------------------------------------------------------------ comparisons and logic
for op in ["Equal", "Less", "Greater"]:
    # Less-7 and Greater-7 take floats only; integers from 9.
    add(op.lower(), [7 if op == "Equal" else 9, 13], op, [("a", ints((3, 4), -2, 2)), ("b", ints((4,), -2, 2, 1))], out_types=[TensorProto.BOOL])
for op in ["Less", "Greater"]:
    add(op.lower() + "_float", [9, 13], op, [("a", special((4, 5))), ("b", special((4, 5), 1))],
        out_types=[TensorProto.BOOL])
B1 = ints((3, 4), 0, 2, dtype=np.bool_)
B2 = ints((4,), 0, 2, 1, dtype=np.bool_)
add("and", [7], "And", [("a", B1), ("b", B2)])
add("or", [7], "Or", [("a", B1), ("b", B2)])
add("not", [7], "Not", [("a", B1)])
add("where", [9, 16], "Where", [("c", B1), ("x", special((3, 4))), ("y", special((4,), 1))],
    out_types=[TensorProto.FLOAT])

# ------------------------------------------------------------------ shape and data movement
add("reshape", [7, 13, 14], "Reshape", [("x", X4), ("s", np.array([0, -1, 5], np.int64))])
add("flatten", [9, 13], "Flatten", [("x", X4)], attrs={"axis": 2})
add("transpose", [7, 13], "Transpose", [("x", X4)], attrs={"perm": [0, 2, 3, 1]})
add("concat", [7, 13], "Concat", [("a", special((2, 3))), ("b", special((2, 5), 1))], attrs={"axis": 1})
add("split", [7, 11], "Split", [("x", X4)], attrs={"axis": 3, "split": [2, 3]}, n_outputs=2)
add("split_input", [13], "Split", [("x", X4), ("s", np.array([1, 4], np.int64))], attrs={"axis": 3}, n_outputs=2)
add("gather_axis1", [7, 13], "Gather", [("x", X4), ("i", np.array([[2, 0], [1, 1]], np.int64))], attrs={"axis": 1})
add("tile", [7, 13], "Tile", [("x", special((2, 3))), ("r", np.array([2, 3], np.int64))])
add("expand", [8, 13], "Expand", [("x", special((3, 1))), ("s", np.array([2, 1, 4], np.int64))])
add("unsqueeze", [7], "Unsqueeze", [("x", special((3, 4)))], attrs={"axes": [0, 3]})
add("squeeze", [13], "Squeeze", [("x", special((3, 1, 4))), ("a", np.array([1], np.int64))])
add("depthtospace_dcr", [7, 13], "DepthToSpace", [("x", special((1, 8, 2, 3)))], attrs={"blocksize": 2})
add("depthtospace_crd", [11, 13], "DepthToSpace", [("x", special((1, 8, 2, 3)))], attrs={"blocksize": 2, "mode": "CRD"})
add("spacetodepth", [7, 13], "SpaceToDepth", [("x", special((1, 2, 4, 6)))], attrs={"blocksize": 2})
add("shape", [7, 15], "Shape", [("x", X4)], out_types=[TensorProto.INT64])
add("size", [7, 13], "Size", [("x", X4)], out_types=[TensorProto.INT64])
add("constantofshape", [9], "ConstantOfShape", [("s", np.array([2, 3], np.int64))],
    attrs={"value": numpy_helper.from_array(np.array([1.5], np.float32))}, out_types=[TensorProto.FLOAT])
add("range", [11], "Range", [("a", np.array(1.0, np.float32)), ("b", np.array(9.0, np.float32)),
                              ("c", np.array(0.75, np.float32))])
add("range_int", [11], "Range", [("a", np.array(10)), ("b", np.array(-3)), ("c", np.array(-3))])
add("pad_attr", [7], "Pad", [("x", special((2, 3)))], attrs={"pads": [1, 2, 0, 1], "value": 1.5})
add("pad_reflect", [7], "Pad", [("x", special((3, 4)))], attrs={"pads": [1, 2, 2, 1], "mode": "reflect"})
add("pad_edge", [11, 13], "Pad", [("x", special((3, 4))), ("p", np.array([2, 1, 1, 3], np.int64))],
    attrs={"mode": "edge"})
add("pad_input", [11, 13], "Pad", [("x", special((3, 4))), ("p", np.array([0, 1, 2, 1], np.int64)),
                                   ("v", np.array(2.5, np.float32))])
add("cast_to_int", [13], "Cast", [("x", normal((3, 4), scale=50))], attrs={"to": TensorProto.INT32},
    out_types=[TensorProto.INT32])
add("cast_to_f16", [7, 13], "Cast", [("x", special((4, 5)))], attrs={"to": TensorProto.FLOAT16},
    out_types=[TensorProto.FLOAT16])
add("cast_to_double", [13], "Cast", [("x", special((4, 5)))], attrs={"to": TensorProto.DOUBLE},
    out_types=[TensorProto.DOUBLE])
add("cast_int_to_float", [13], "Cast", [("x", ints((4, 5), -1 << 40, 1 << 40))], attrs={"to": TensorProto.FLOAT},
    out_types=[TensorProto.FLOAT])
# Negative axes and indices before opset 11, which the op texts leave undefined there: the runner counts them from
# the back, as ONNX Runtime does (src/eval/kernels/kernel_support.h). Not Flatten's: ONNX Runtime refuses it, as
# onnx's shape inference of Flatten-1 and -9 does.
add("concat_negative_axis", [7, 9], "Concat", [("a", special((2, 3))), ("b", special((2, 5), 1))], attrs={"axis": -1})
add("gather_negative", [7, 9], "Gather", [("x", X4), ("i", np.array([[-1, 0], [-3, 2]], np.int64))], attrs={"axis": -3})
# OneHot: an index in [-depth, -1] counts from the back at 9 too, as ONNX Runtime reads it (src/eval/kernels/one_hot.cc);
# beyond either end, and a floating index that is not a whole number, off everywhere.
ONE_HOT_INDICES = np.array([[0, 3, -1, 4], [-4, 5, -5, 2]], np.int64)
ONE_HOT_VALUES = np.array([-0.5, 2.0], np.float32)
add("onehot", [9, 11], "OneHot", [("i", ONE_HOT_INDICES), ("d", np.array(4, np.int64)), ("v", ONE_HOT_VALUES)],
    out_types=[TensorProto.FLOAT])
add("onehot_axis0", [11], "OneHot", [("i", ONE_HOT_INDICES), ("d", np.array([4], np.int64)), ("v", ONE_HOT_VALUES)],
    attrs={"axis": 0}, out_types=[TensorProto.FLOAT])
add("onehot_axis_negative", [11], "OneHot",
    [("i", ONE_HOT_INDICES), ("d", np.array(3, np.int64)), ("v", np.array([0, 7], np.int64))],
    attrs={"axis": -2}, out_types=[TensorProto.INT64])
add("onehot_int32", [11], "OneHot",
    [("i", ONE_HOT_INDICES.astype(np.int32)), ("d", np.array(5, np.int32)), ("v", ONE_HOT_VALUES)],
    out_types=[TensorProto.FLOAT])
add("onehot_float_indices", [11], "OneHot",
    [("i", np.array([0.0, 2.75, -1.25, 3.0, -3.5, 4.0], np.float32)), ("d", np.array(4.0, np.float32)),
     ("v", ONE_HOT_VALUES)], out_types=[TensorProto.FLOAT])
add("split_negative_axis", [7], "Split", [("x", X4)], attrs={"axis": -1, "split": [2, 3]}, n_outputs=2)
add("unsqueeze_negative_axis", [7], "Unsqueeze", [("x", special((3, 4)))], attrs={"axes": [-1]})
add("squeeze_negative_axis", [7], "Squeeze", [("x", special((3, 1, 4)))], attrs={"axes": [-2]})
add("slice_negative_axis", [7], "Slice", [("x", X4)], attrs={"starts": [1], "ends": [4], "axes": [-1]})
add("slice10_negative_axis", [10], "Slice", [("x", X4), ("s", np.array([1], np.int64)), ("e", np.array([3], np.int64)),
                                            ("a", np.array([-2], np.int64))])
add("reducemax_negative_axis", [7], "ReduceMax", [("x", normal((2, 3, 4, 5), 5))], attrs={"axes": [-1]})
add("argmax_negative_axis", [7], "ArgMax", [("x", ints((3, 4, 5), 0, 3).astype(np.float32))], attrs={"axis": -1},
    out_types=[TensorProto.INT64])
add("dropout", [7, 10, 13], "Dropout", [("x", X4)])
add("identity", [7, 16], "Identity", [("x", X4)])

# ------------------------------------------------------------------ reductions
REDUCE_SUM = "ORT sums with Eigen's vectorized reduction (pairs of partial sums), not left to right"
for op, bound in [("ReduceMax", 0), ("ReduceMin", 0), ("ReduceSum", 2), ("ReduceMean", 2), ("ReduceProd", 2),
                  ("ReduceL2", 2), ("ReduceLogSumExp", 4), ("ReduceSumSquare", 2), ("ReduceL1", 2)]:
    # ReduceMax/Min on finite values: with a NaN, ORT's Eigen reduction may or may not return it (the spec is
    # silent); the runner propagates it.
    data = positive((2, 3, 4, 5)) if bound else normal((2, 3, 4, 5), 5)
    why = REDUCE_SUM if bound else ""
    if op == "ReduceSum":
        add("reducesum_axes_attr", [7, 11], op, [("x", data)], attrs={"axes": [1, 3]}, max_ulp=bound, why=why)
        add("reducesum_axes_input", [13], op, [("x", data), ("a", np.array([1, 3], np.int64))], max_ulp=bound, why=why)
        add("reducesum_all_nokeep", [13], op, [("x", data)], attrs={"keepdims": 0}, max_ulp=bound, why=why)
    else:
        add(op.lower(), [7, 13], op, [("x", data)], attrs={"axes": [1, 3]}, max_ulp=bound, why=why)
        add(op.lower() + "_nokeep", [11], op, [("x", data)], attrs={"axes": [-1], "keepdims": 0}, max_ulp=bound,
            why=why)
ARGS = ints((3, 4, 5), 0, 3).astype(np.float32)  # ties, so first or last index matters
add("argmax", [7, 11], "ArgMax", [("x", ARGS)], attrs={"axis": 1}, out_types=[TensorProto.INT64])
add("argmax_last", [12, 13], "ArgMax", [("x", ARGS)], attrs={"axis": 2, "keepdims": 0, "select_last_index": 1},
    out_types=[TensorProto.INT64])
add("argmin", [7, 13], "ArgMin", [("x", ARGS)], attrs={"axis": 0}, out_types=[TensorProto.INT64])
add("topk_attr", [7], "TopK", [("x", normal((3, 6)))], attrs={"k": 3}, n_outputs=2,
    out_types=[TensorProto.FLOAT, TensorProto.INT64])
add("topk_input", [10], "TopK", [("x", normal((3, 6))), ("k", np.array([2], np.int64))], n_outputs=2,
    out_types=[TensorProto.FLOAT, TensorProto.INT64])
add("topk_smallest", [11, 13], "TopK", [("x", normal((3, 6))), ("k", np.array([2], np.int64))],
    attrs={"axis": -2, "largest": 0}, n_outputs=2, out_types=[TensorProto.FLOAT, TensorProto.INT64])

# ------------------------------------------------------------------ softmax
SOFTMAX = "ORT's softmax exponentiates with MLAS's vectorized exp and sums in another order"
add("softmax", [7, 11, 13], "Softmax", [("x", normal((2, 3, 4), scale=2))], max_ulp=8, why=SOFTMAX)
add("softmax_axis1", [7, 13], "Softmax", [("x", normal((2, 3, 4), scale=2))], attrs={"axis": 1}, max_ulp=8, why=SOFTMAX)
add("logsoftmax", [7, 13], "LogSoftmax", [("x", normal((2, 3, 4), scale=2))], max_ulp=8, why=SOFTMAX)
add("softmax_negative_axis", [7, 9], "Softmax", [("x", normal((2, 3, 4), scale=2))], attrs={"axis": -1}, max_ulp=8,
    why=SOFTMAX)
add("logsoftmax_negative_axis", [7], "LogSoftmax", [("x", normal((2, 3, 4), scale=2))], attrs={"axis": -2},
    max_ulp=8, why=SOFTMAX)

# ------------------------------------------------------------------ matrix products
GEMM = "ORT's MLAS GEMM blocks and vectorizes the dot products differently from Eigen's"
A = positive((4, 6))
add("gemm", [7, 11, 13], "Gemm", [("a", A), ("b", positive((6, 5), 1)), ("c", positive((5,), 2))],
    attrs={"alpha": 0.5, "beta": 2.0}, max_ulp=4, why=GEMM)
add("gemm_trans", [9, 13], "Gemm", [("a", positive((6, 4))), ("b", positive((5, 6), 1)), ("c", positive((4, 1), 2))],
    attrs={"transA": 1, "transB": 1}, max_ulp=4, why=GEMM)
add("gemm_no_c", [11, 13], "Gemm", [("a", A), ("b", positive((6, 5), 1))], max_ulp=4, why=GEMM)
add("matmul", [7, 13], "MatMul", [("a", positive((2, 1, 4, 6))), ("b", positive((3, 6, 5), 1))], max_ulp=4, why=GEMM)
add("matmul_vector", [9, 13], "MatMul", [("a", positive((6,))), ("b", positive((2, 6, 5), 1))], max_ulp=4, why=GEMM)
add("matmul_int", [9, 13], "MatMul", [("a", ints((3, 4), -5, 5, dtype=np.int32)), ("b", ints((4, 2), -5, 5, 1, dtype=np.int32))])

# ------------------------------------------------------------------ convolutions
CONV = "ORT convolves with MLAS (im2col or direct kernels, its own blocking), summing in another order"
X = positive((2, 4, 9, 8))
add("conv", [7, 11, 13], "Conv", [("x", X), ("w", positive((6, 4, 3, 3), 1)), ("b", positive((6,), 2))],
    max_ulp=8, why=CONV)
add("conv_pads_strides", [7, 11], "Conv", [("x", X), ("w", positive((6, 4, 3, 2), 1))],
    attrs={"pads": [1, 0, 2, 1], "strides": [2, 3]}, max_ulp=8, why=CONV)
add("conv_dilated_group", [11, 13], "Conv", [("x", X), ("w", positive((6, 2, 3, 3), 1)), ("b", positive((6,), 2))],
    attrs={"group": 2, "dilations": [2, 1], "pads": [1, 1, 1, 1]}, max_ulp=8, why=CONV)
add("conv_depthwise", [11], "Conv", [("x", X), ("w", positive((4, 1, 3, 3), 1))], attrs={"group": 4},
    max_ulp=8, why=CONV)
for pad in ["SAME_UPPER", "SAME_LOWER", "VALID"]:
    add("conv_" + pad.lower(), [7, 11], "Conv", [("x", X), ("w", positive((6, 4, 3, 4), 1))],
        attrs={"auto_pad": pad, "strides": [2, 2]}, max_ulp=8, why=CONV)
add("conv_1d", [11], "Conv", [("x", positive((2, 3, 10))), ("w", positive((4, 3, 3), 1))], attrs={"pads": [1, 1]},
    max_ulp=8, why=CONV)
add("conv_3d", [11], "Conv", [("x", positive((1, 2, 5, 6, 4))), ("w", positive((3, 2, 3, 3, 2), 1))],
    max_ulp=8, why=CONV)
add("conv_f16", [11], "Conv", [("x", positive((1, 2, 5, 6), dtype=F16)), ("w", positive((3, 2, 3, 3), 1, dtype=F16))],
    max_ulp=2, why=CONV + "; float16 rounds once at the end on both sides")
add("convtranspose", [7, 11, 13], "ConvTranspose",
    [("x", positive((2, 4, 5, 4))), ("w", positive((4, 3, 3, 3), 1)), ("b", positive((3,), 2))],
    attrs={"strides": [2, 2]}, max_ulp=8, why=CONV)
add("convtranspose_pads_outpad", [11], "ConvTranspose", [("x", positive((1, 4, 5, 4))), ("w", positive((4, 2, 3, 3), 1))],
    attrs={"strides": [2, 3], "pads": [1, 0, 1, 1], "output_padding": [1, 2]}, max_ulp=8, why=CONV)
add("convtranspose_group", [11], "ConvTranspose", [("x", positive((1, 4, 5, 4))), ("w", positive((4, 1, 3, 3), 1))],
    attrs={"group": 2, "dilations": [2, 1]}, max_ulp=8, why=CONV)
add("convtranspose_output_shape", [11], "ConvTranspose",
    [("x", positive((1, 2, 4, 4))), ("w", positive((2, 3, 3, 3), 1))],
    attrs={"strides": [2, 2], "output_shape": [8, 7]}, max_ulp=8, why=CONV)
# One past the full output (9): a total padding of -1, whose half rounds down (the output grows at its end).
add("convtranspose_output_shape_past_full", [11], "ConvTranspose",
    [("x", positive((1, 2, 4, 4))), ("w", positive((2, 3, 3, 3), 1))],
    attrs={"strides": [2, 2], "output_shape": [10, 10]}, max_ulp=8, why=CONV)
add("convtranspose_same_upper", [11], "ConvTranspose",
    [("x", positive((1, 2, 4, 4))), ("w", positive((2, 3, 3, 3), 1))],
    attrs={"strides": [2, 2], "auto_pad": "SAME_UPPER"}, max_ulp=8, why=CONV)

# ------------------------------------------------------------------ pooling
POOL = "ORT's AveragePool divides the same sum but adds the window with MLAS's kernels, in another order"
XP = special((2, 3, 9, 8))
add("maxpool", [7, 8, 10, 12], "MaxPool", [("x", XP)], attrs={"kernel_shape": [3, 3], "strides": [2, 2],
                                                            "pads": [1, 1, 1, 1]})
add("maxpool_same", [7, 11], "MaxPool", [("x", XP)], attrs={"kernel_shape": [3, 2], "strides": [2, 2],
                                                          "auto_pad": "SAME_UPPER"})
add("maxpool_ceil_dilated", [10, 12], "MaxPool", [("x", XP)],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1, "dilations": [2, 1]})
add("maxpool_indices", [8, 12], "MaxPool", [("x", normal((1, 2, 6, 5)))],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2], "storage_order": 1}, n_outputs=2,
    out_types=[TensorProto.FLOAT, TensorProto.INT64])
add("maxpool_int8", [12], "MaxPool", [("x", ints((1, 2, 6, 5), -100, 100, dtype=np.int8))],
    attrs={"kernel_shape": [3, 3]})
add("averagepool", [7, 11], "AveragePool", [("x", positive((2, 3, 9, 8)))],
    attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, max_ulp=4, why=POOL)
add("averagepool_include_pad", [7, 11], "AveragePool", [("x", positive((2, 3, 9, 8)))],
    attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1}, max_ulp=4, why=POOL)
add("averagepool_ceil", [10, 11], "AveragePool", [("x", positive((2, 3, 9, 8)))],
    attrs={"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}, max_ulp=4, why=POOL)
add("globalaveragepool", [7, 13], "GlobalAveragePool", [("x", positive((2, 3, 9, 8)))], max_ulp=4, why=POOL)
add("globalmaxpool", [7], "GlobalMaxPool", [("x", XP)])

# ------------------------------------------------------------------ normalization
NORM = ("ORT folds mean, var, scale and B into one multiply-add per channel (x * a + b), a different rounding; "
        "where the result cancels to near 0 the bound is absolute (2^-22, a few ULPs of the inputs)")
C = 3
add("batchnorm", [7, 9, 14, 15], "BatchNormalization",
    [("x", normal((2, C, 4, 5))), ("s", positive((C,), 1)), ("b", normal((C,), 2)), ("m", normal((C,), 3)),
     ("v", positive((C,), 4))], attrs={"epsilon": 1e-3}, max_ulp=16, abs_tol=2.0 ** -22, why=NORM)
add("batchnorm_training", [14, 15], "BatchNormalization",
    [("x", normal((2, C, 4, 5))), ("s", positive((C,), 1)), ("b", normal((C,), 2)), ("m", normal((C,), 3)),
     ("v", positive((C,), 4))], attrs={"epsilon": 1e-3, "momentum": 0.8, "training_mode": 1}, n_outputs=3,
    max_ulp=64, abs_tol=2.0 ** -21, why="the batch's statistics summed in another order (the runner in double)")
add("instancenorm", [7, 13], "InstanceNormalization",
    [("x", normal((2, C, 4, 5))), ("s", positive((C,), 1)), ("b", normal((C,), 2))], max_ulp=64, abs_tol=2.0 ** -21,
    why="ORT computes mean and variance with Eigen's reductions and folds the scale differently; absolute (2^-21) "
        "where the result cancels to near 0")
add("meanvariancenormalization", [9, 13], "MeanVarianceNormalization", [("x", normal((2, 3, 4, 5)))], max_ulp=64,
    abs_tol=2.0 ** -21, why="ORT computes the means with Eigen's reductions (another order), and the result cancels "
                            "near the mean")
add("meanvariancenormalization_axes", [13], "MeanVarianceNormalization", [("x", normal((2, 3, 4, 5)))],
    attrs={"axes": [1, 3]}, max_ulp=64, abs_tol=2.0 ** -21, why="as above")
add("lrn", [7, 13], "LRN", [("x", normal((2, 5, 3, 4)))], attrs={"size": 3, "alpha": 0.01, "beta": 0.6, "bias": 1.5},
    max_ulp=8, why="ORT sums the squares by a sliding window and raises with its own pow")

# ------------------------------------------------------------------ resizing
LINEAR = "ORT's linear resize precomputes the weights per dim and adds the corners in another order"
XR = normal((1, 2, 3, 4))
add("upsample_nearest", [7], "Upsample", [("x", XR)], attrs={"scales": [1.0, 1.0, 2.0, 3.0]})
add("upsample_input", [9], "Upsample", [("x", XR), ("s", np.array([1, 1, 2, 1.5], np.float32))])
add("upsample_linear", [7], "Upsample", [("x", XR)], attrs={"scales": [1.0, 1.0, 2.0, 2.0], "mode": "linear"},
    max_ulp=4, why=LINEAR)
add("resize10_nearest", [10], "Resize", [("x", XR), ("s", np.array([1, 1, 2, 2.5], np.float32))])
add("resize10_linear", [10], "Resize", [("x", XR), ("s", np.array([1, 1, 2, 2], np.float32))],
    attrs={"mode": "linear"}, max_ulp=4, why=LINEAR)
EMPTY = np.array([], np.float32)
for mode in ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"]:
    add("resize_linear_" + mode, [11, 13], "Resize",
        [("x", XR), ("roi", EMPTY), ("s", np.array([1, 1, 2, 1.5], np.float32))],
        attrs={"mode": "linear", "coordinate_transformation_mode": mode}, max_ulp=4, why=LINEAR)
for nearest in ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]:
    add("resize_nearest_" + nearest, [11, 13], "Resize",
        [("x", XR), ("roi", EMPTY), ("s", np.array([1, 1, 2.5, 1.75], np.float32))],
        attrs={"mode": "nearest", "nearest_mode": nearest, "coordinate_transformation_mode": "half_pixel"})
add("resize_sizes", [13], "Resize", [("x", XR), ("roi", EMPTY), ("s", None), ("z", np.array([1, 2, 5, 7], np.int64))],
    attrs={"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"})
# Cubic: the runner sums the last dim first and divides where ORT does, so the bits agree (max_ulp 0).
for mode in ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"]:
    add("resize_cubic_" + mode, [11, 13], "Resize",
        [("x", XR), ("roi", EMPTY), ("s", np.array([1, 1, 2, 1.5], np.float32))],
        attrs={"mode": "cubic", "coordinate_transformation_mode": mode})
add("resize_cubic_exclude_outside", [11, 13], "Resize",
    [("x", XR), ("roi", EMPTY), ("s", np.array([1, 1, 0.7, 2.5], np.float32))],
    attrs={"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1})
add("resize_cubic_sizes", [13], "Resize", [("x", XR), ("roi", EMPTY), ("s", None), ("z", np.array([1, 2, 2, 7], np.int64))],
    attrs={"mode": "cubic"})
# W's crop runs past both ends: extrapolated there. ORT crops only the dims it resizes (a dim of scale 1 keeps its
# coordinates whatever its roi), the runner every dim as the text says, so the crops here are of resized dims.
ROI = np.array([0, 0, 0.4, -0.2, 1, 1, 0.8, 1.3], np.float32)
for mode in ["nearest", "linear", "cubic"]:
    add("resize_crop_" + mode, [13], "Resize", [("x", XR), ("roi", ROI), ("s", None), ("z", np.array([1, 2, 5, 6], np.int64))],
        attrs={"mode": mode, "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": -7.5},
        max_ulp=4 if mode == "linear" else 0, why=LINEAR if mode == "linear" else "")
add("resize_cubic_special", [13], "Resize",
    [("x", special((1, 2, 4, 5), 3)), ("roi", EMPTY), ("s", np.array([1, 1, 1.5, 2], np.float32))],
    attrs={"mode": "cubic"})

# ------------------------------------------------------------------ sequences (opset 11), read through tensors
F, I64 = TensorProto.FLOAT, TensorProto.INT64
SA, SB, SC = special((2, 3), 1), special((2, 3), 2), special((2, 3), 3)
SEQ_ABC = ("SequenceConstruct", ["a", "b", "c"], ["s"], {})
ABC = [("a", SA), ("b", SB), ("c", SC)]


def add_graph(name, opsets, nodes, inputs, out_types, **kwargs):
    for opset in opsets:
        CASES.append(GraphCase(name, opset, nodes, inputs, out_types, **kwargs))


for k, position in enumerate([0, 2, -1, -3]):
    add_graph(f"sequence_at_{k}", [11, 13], [SEQ_ABC, ("SequenceAt", ["s", "p"], ["y0"], {}),
                                             ("SequenceLength", ["s"], ["y1"], {})],
              ABC + [("p", np.array(position, np.int64))], [F, I64])
add_graph("sequence_at_int32", [11], [SEQ_ABC, ("SequenceAt", ["s", "p"], ["y0"], {})],
          ABC + [("p", np.array(-2, np.int32))], [F])
for k, position in enumerate([0, 2, -1, -2]):
    add_graph(f"sequence_insert_{k}", [11, 13],
              [("SequenceConstruct", ["a", "b"], ["s"], {}), ("SequenceInsert", ["s", "c", "p"], ["t"], {}),
               ("ConcatFromSequence", ["t"], ["y0"], {"axis": 0}), ("SequenceLength", ["t"], ["y1"], {})],
              ABC + [("p", np.array(position, np.int64))], [F, I64])
add_graph("sequence_insert_append", [11, 13],
          [("SequenceEmpty", [], ["e"], {}), ("SequenceInsert", ["e", "a"], ["s"], {}),
           ("SequenceInsert", ["s", "b"], ["t"], {}), ("ConcatFromSequence", ["t"], ["y0"], {"axis": 1})],
          [("a", SA), ("b", SB)], [F])
for k, position in enumerate([0, -1, 1]):
    add_graph(f"sequence_erase_{k}", [11, 13],
              [SEQ_ABC, ("SequenceErase", ["s", "p"], ["t"], {}), ("ConcatFromSequence", ["t"], ["y0"], {"axis": -1}),
               ("SequenceLength", ["t"], ["y1"], {})],
              ABC + [("p", np.array(position, np.int64))], [F, I64])
add_graph("sequence_erase_last", [11, 13],
          [SEQ_ABC, ("SequenceErase", ["s"], ["t"], {}), ("ConcatFromSequence", ["t"], ["y0"], {"axis": 0})],
          ABC, [F])
for axis in [0, 1, 2, -1, -3]:
    add_graph(f"concat_from_sequence_new_axis_{axis}".replace("-", "m"), [11, 13],
              [SEQ_ABC, ("ConcatFromSequence", ["s"], ["y0"], {"axis": axis, "new_axis": 1})], ABC, [F])
add_graph("concat_from_sequence_ragged", [11, 13],
          [SEQ_ABC, ("ConcatFromSequence", ["s"], ["y0"], {"axis": 1})],
          [("a", SA), ("b", special((2, 1), 4)), ("c", special((2, 4), 5))], [F])
add_graph("concat_from_sequence_int", [11],
          [SEQ_ABC, ("ConcatFromSequence", ["s"], ["y0"], {"axis": 0})],
          [("a", ints((2, 2), -5, 5)), ("b", ints((1, 2), -5, 5, 1)), ("c", ints((3, 2), -5, 5, 2))], [I64])
XS = special((2, 5, 3), 6)
for axis, keepdims in [(0, 1), (1, 0), (-1, 0), (2, 1)]:
    add_graph(f"split_to_sequence_{axis}_{keepdims}".replace("-", "m"), [11, 13],
              [("SplitToSequence", ["x"], ["s"], {"axis": axis, "keepdims": keepdims}),
               ("SequenceAt", ["s", "p"], ["y0"], {}), ("SequenceLength", ["s"], ["y1"], {})],
              [("x", XS), ("p", np.array(1, np.int64))], [F, I64])
# keepdims 0 is ignored with a split input (the spec); ORT 1.30 applies it to a scalar split and fails, so those
# cases leave it at 1.
for k, split in enumerate([np.array(2, np.int64), np.array([1, 3, 1], np.int64), np.array([0, 5], np.int32),
                           np.array(5, np.int64), np.array(7, np.int64)]):
    add_graph(f"split_to_sequence_split_{k}", [11, 13],
              [("SplitToSequence", ["x", "split"], ["s"], {"axis": 1, "keepdims": 0 if split.ndim else 1}),
               ("SequenceAt", ["s", "p"], ["y0"], {}), ("SequenceLength", ["s"], ["y1"], {})],
              [("x", XS), ("split", split), ("p", np.array(-1, np.int64))], [F, I64])

# ------------------------------------------------------------------ strings
# ORT's StringNormalizer builds the attribute's locale (en_US.UTF-8 by default, absent on a bare Debian): the cases
# name C.UTF-8, which every glibc has; the runner maps ASCII only, where every locale agrees.
WORDS = np.array(["monday", "Monday", "MONDAY", "tuesday", "The", "quick", "", "fox", "a b", "x1-Y2"], dtype=object)
for action in ["NONE", "LOWER", "UPPER"]:
    for sensitive in [0, 1]:
        add(f"stringnormalizer_{action.lower()}_{sensitive}", [10, 13], "StringNormalizer", [("x", WORDS)],
            attrs={"case_change_action": action, "is_case_sensitive": sensitive, "stopwords": ["monday", "fox"],
                   "locale": "C.UTF-8"})
add("stringnormalizer_row", [10, 13], "StringNormalizer", [("x", WORDS.reshape(1, -1))],
    attrs={"case_change_action": "UPPER", "stopwords": ["the"], "locale": "C.UTF-8"})
add("stringnormalizer_nostopwords", [10], "StringNormalizer", [("x", WORDS)],
    attrs={"case_change_action": "LOWER", "locale": "C.UTF-8"})
for shape in [(3,), (1, 3)]:
    add(f"stringnormalizer_all_stopped_{len(shape)}d", [10, 13], "StringNormalizer",
        [("x", np.array(["monday", "Monday", "MONDAY"], dtype=object).reshape(shape))],
        attrs={"case_change_action": "UPPER", "stopwords": ["monday"], "locale": "C.UTF-8"})

# ------------------------------------------------------------------ ai.onnx.ml
ML = {"ai.onnx.ml": 1}
for name, x, y in [("2d", special((3, 5), 7), np.array([4, 0, 2, 2], np.int64)),
                   ("1d", special((6,), 8), np.array([5, 1], np.int64)),
                   ("3d", special((2, 3, 4), 9), np.array([[3, 1]], np.int64)),
                   ("int64", ints((2, 4), -9, 9), np.array([1], np.int64)),
                   ("string", WORDS.reshape(2, 5), np.array([0, 4], np.int64))]:
    add_graph(f"arrayfeatureextractor_{name}", [7, 13], [("ArrayFeatureExtractor", ["x", "y"], ["y0"],
                                                          {"domain": "ai.onnx.ml"})],
              [("x", x), ("y", y)], [tensor_type(x.dtype)], imports=ML)


for norm in ["MAX", "L1", "L2"]:
    for name, x in [("2d", special((3, 5), 10)), ("1d", normal((7,), 11)), ("int64", ints((3, 4), -9, 9)),
                    ("int32", ints((2, 3), -9, 9, dtype=np.int32)), ("double", normal((2, 4), 12, dtype=np.float64))]:
        add_graph(f"normalizer_{norm.lower()}_{name}", [7, 13],
                  [("Normalizer", ["x"], ["y0"], {"domain": "ai.onnx.ml", "norm": norm})],
                  [("x", x)], [TensorProto.FLOAT], imports=ML)

# Tree ensembles: random forests of every branch mode, NaN sent either way, over X holding special values, features
# repeated as thresholds (so that BRANCH_EQ and the bounds are met exactly), trees of uneven depth, leaves with one
# weight per output or none. ORT runs on one thread, where it adds the trees in order. At opset 12 (and ml-3's at 15):
# the ops are ai.onnx.ml's, which the default opset does not change, so the cases are not repeated at 17, 21, 26.
TREE_MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def random_forest(seed, x, trees, outputs, weight_prefix, negative=True, one_id=None):
    """Attributes of a forest over `x`'s columns: (tree, node) ids in order, each tree's nodes listed together."""
    r = rng(seed)
    features = x.shape[-1] if x.ndim == 2 else 1
    pool = x.reshape(-1)
    pool = pool[np.isfinite(pool)] if pool.dtype.kind == "f" else pool
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes", "nodes_values",
                         "nodes_truenodeids", "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                         "nodes_hitrates"]}
    w = {k: [] for k in ["treeids", "nodeids", "ids", "weights"]}
    for tree in range(trees):
        count = [0]

        def grow(depth):
            node = count[0]
            count[0] += 1
            a["nodes_treeids"].append(tree)
            a["nodes_nodeids"].append(node)
            a["nodes_hitrates"].append(1.0)
            slot = len(a["nodes_modes"])
            for k in ["nodes_featureids", "nodes_modes", "nodes_values", "nodes_truenodeids", "nodes_falsenodeids",
                      "nodes_missing_value_tracks_true"]:
                a[k].append(None)
            if depth == 0 or r.random() < 0.15:
                a["nodes_featureids"][slot], a["nodes_modes"][slot] = 0, "LEAF"
                a["nodes_values"][slot] = float(r.normal())
                a["nodes_truenodeids"][slot] = a["nodes_falsenodeids"][slot] = 0
                a["nodes_missing_value_tracks_true"][slot] = 0
                ids = [one_id] if one_id is not None else list(range(outputs))
                for out in ids:
                    if r.random() < 0.85:
                        w["treeids"].append(tree)
                        w["nodeids"].append(node)
                        w["ids"].append(out)
                        # Positive weights add up to about one, so that a binary classifier's sums fall either side
                        # of its one half and a probit's inside (0, 1).
                        w["weights"].append(float(r.normal() if negative else r.random() * 1.6 / trees))
                return node
            mode = TREE_MODES[r.integers(len(TREE_MODES))]
            value = float(pool[r.integers(len(pool))]) if r.random() < 0.6 else float(r.normal(0, 3))
            if mode == "BRANCH_EQ":
                value += 0.25  # ORT folds chains of BRANCH_EQ over whole numbers 1..32, which the runner refuses
            a["nodes_featureids"][slot] = int(r.integers(features))
            a["nodes_modes"][slot] = mode
            a["nodes_values"][slot] = value
            a["nodes_missing_value_tracks_true"][slot] = int(r.integers(2))
            a["nodes_truenodeids"][slot] = grow(depth - 1)
            a["nodes_falsenodeids"][slot] = grow(depth - 1)
            return node

        grow(int(r.integers(1, 6)))
    a.update({f"{weight_prefix}{k}": v for k, v in w.items()})
    return a


TREE_X = np.concatenate([special((4, 5), 40), normal((30, 5), 41)]).astype(np.float32)
TREE_X[::7, 2] = TREE_X[1::7, 3]  # values met again in other rows and columns
ML3 = {"ai.onnx.ml": 3}


def as_tensors(attrs, names, dtype):
    """The ml-3 form: each float list of `names` as a `<name>_as_tensor` tensor of `dtype`."""
    attrs = dict(attrs)
    for name in names:
        if name in attrs:
            attrs[f"{name}_as_tensor"] = numpy_helper.from_array(np.array(attrs.pop(name), dtype), "")
    return attrs


for targets in [1, 3]:
    for aggregate in ["SUM", "AVERAGE", "MIN", "MAX"]:
        transforms = ["NONE", "PROBIT"] if targets == 1 else ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT"]
        for k, transform in enumerate(transforms):
            forest = random_forest(100 + 10 * targets + k, TREE_X, 12, targets, "target_")
            attrs = {"domain": "ai.onnx.ml", "n_targets": targets, "aggregate_function": aggregate,
                     "post_transform": transform, **forest}
            if k % 2:
                attrs["base_values"] = [float(v) for v in normal((targets,), 7 + k)]
            add_graph(f"treeregressor_{targets}_{aggregate.lower()}_{transform.lower()}", [12],
                      [("TreeEnsembleRegressor", ["x"], ["y0"], attrs)], [("x", TREE_X)], [TensorProto.FLOAT],
                      imports=ML)
X_DOUBLE = TREE_X.astype(np.float64) * (1 + 1e-9)
add_graph("treeregressor_double_as_tensor", [15],
          [("TreeEnsembleRegressor", ["x"], ["y0"],
            as_tensors({"domain": "ai.onnx.ml", "n_targets": 2, "base_values": [0.5, -1.5],
                        **random_forest(130, X_DOUBLE, 9, 2, "target_")},
                       ["nodes_values", "target_weights", "base_values", "nodes_hitrates"], np.float64))],
          [("x", X_DOUBLE)], [TensorProto.FLOAT], imports=ML3)
add_graph("treeregressor_1d", [12],
          [("TreeEnsembleRegressor", ["x"], ["y0"], {"domain": "ai.onnx.ml", "n_targets": 2,
                                                     **random_forest(131, TREE_X[0, :1], 6, 2, "target_")})],
          [("x", TREE_X[0])], [TensorProto.FLOAT], imports=ML)

LABELS = {"classlabels_strings": ["bloom", "huwahuwa", "other", "throwup"]}
for k, transform in enumerate(["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT"]):
    for labels in [LABELS, {"classlabels_int64s": [3, 1, 4, 15, 9]}]:
        classes = len(next(iter(labels.values())))
        attrs = {"domain": "ai.onnx.ml", "post_transform": transform, **labels,
                 **random_forest(140 + k, TREE_X, 15, classes, "class_", negative=k % 2 == 0 and transform != "PROBIT")}
        if k % 2:
            attrs["base_values"] = [float(v) for v in normal((classes,), 9 + k)]
        kind = "strings" if "classlabels_strings" in labels else "ints"
        add_graph(f"treeclassifier_{kind}_{transform.lower()}", [12],
                  [("TreeEnsembleClassifier", ["x"], ["y0", "y1"], attrs)], [("x", TREE_X)],
                  [TensorProto.STRING if kind == "strings" else TensorProto.INT64, TensorProto.FLOAT], imports=ML)
# Binary: one column of weights (class 0's or class 1's), decided at 0.5 (0 when a weight is negative).
for one_id in [0, 1]:
    for negative in [False, True]:
        for transform in ["NONE", "LOGISTIC"]:
            for base in [[], [0.25]]:
                attrs = {"domain": "ai.onnx.ml", "post_transform": transform, "classlabels_int64s": [0, 1],
                         **random_forest(150 + one_id + 2 * negative, TREE_X, 10, 2, "class_", negative=negative,
                                         one_id=one_id)}
                if base:
                    attrs["base_values"] = base
                add_graph(f"treeclassifier_binary_{one_id}_{'neg' if negative else 'pos'}_{transform.lower()}"
                          f"_{len(base)}", [12], [("TreeEnsembleClassifier", ["x"], ["y0", "y1"], attrs)],
                          [("x", TREE_X)], [TensorProto.INT64, TensorProto.FLOAT], imports=ML)
X_INT = ints((20, 5), -6, 6)
add_graph("treeclassifier_int64", [12],
          [("TreeEnsembleClassifier", ["x"], ["y0", "y1"],
            {"domain": "ai.onnx.ml", **LABELS, **random_forest(160, X_INT.astype(np.float32), 8, 4, "class_")})],
          [("x", X_INT)], [TensorProto.STRING, TensorProto.FLOAT], imports=ML)
add_graph("treeclassifier_double_as_tensor", [15],
          [("TreeEnsembleClassifier", ["x"], ["y0", "y1"],
            as_tensors({"domain": "ai.onnx.ml", **LABELS, "base_values": [0.1, 0.2, 0.3, 0.4],
                        **random_forest(161, X_DOUBLE, 8, 4, "class_")},
                       ["nodes_values", "class_weights", "base_values", "nodes_hitrates"], np.float64))],
          [("x", X_DOUBLE)], [TensorProto.STRING, TensorProto.FLOAT], imports=ML3)

# ------------------------------------------------------------------ quantization
# Values on a grid of quarter steps of the scale, so that ties (x / scale = k + 0.5) are among them.
XQ = (np.arange(-40, 40, dtype=np.float32) * 0.37).reshape(2, 5, 8)
for opset in [10, 13, 21]:
    add(f"quantizelinear_uint8", [opset], "QuantizeLinear",
        [("x", XQ), ("s", np.array(0.25 * 0.37, np.float32)), ("z", np.array(128, np.uint8))],
        out_types=[TensorProto.UINT8])
    add(f"quantizelinear_int8", [opset], "QuantizeLinear",
        [("x", XQ * 20), ("s", np.array(0.5, np.float32)), ("z", np.array(-3, np.int8))],
        out_types=[TensorProto.INT8])
    add(f"dequantizelinear_uint8", [opset], "DequantizeLinear",
        [("x", ints((2, 5, 8), 0, 255, dtype=np.uint8)), ("s", np.array(0.037, np.float32)),
         ("z", np.array(131, np.uint8))])
    add(f"dequantizelinear_int32", [opset], "DequantizeLinear",
        [("x", ints((2, 5, 8), -2**30, 2**30, dtype=np.int32)), ("s", np.array(1e-5, np.float32))],
        out_types=[TensorProto.FLOAT])
for opset in [13, 21]:
    add("quantizelinear_per_axis", [opset], "QuantizeLinear",
        [("x", XQ), ("s", positive((5,), 13)), ("z", ints((5,), -20, 20, dtype=np.int8))], attrs={"axis": 1},
        out_types=[TensorProto.INT8])
    add("dequantizelinear_per_axis", [opset], "DequantizeLinear",
        [("x", ints((2, 5, 8), -128, 127, dtype=np.int8)), ("s", positive((8,), 14)),
         ("z", ints((8,), -9, 9, dtype=np.int8))], attrs={"axis": -1}, out_types=[TensorProto.FLOAT])
add("quantizelinear_blocked_int16", [21], "QuantizeLinear",
    [("x", XQ * 300), ("s", positive((2, 5, 3), 15)), ("z", ints((2, 5, 3), -99, 99, dtype=np.int16))],
    attrs={"axis": 2, "block_size": 3}, out_types=[TensorProto.INT16])
add("dequantizelinear_blocked_uint16", [21], "DequantizeLinear",
    [("x", ints((2, 5, 8), 0, 65535, dtype=np.uint16)), ("s", positive((1, 5, 8), 16)),
     ("z", ints((1, 5, 8), 0, 65535, dtype=np.uint16))], attrs={"axis": 0, "block_size": 2},
    out_types=[TensorProto.FLOAT])

# ------------------------------------------------------------------ recurrent (RNN, GRU, LSTM)
# Versions change at 7 (output_sequence dropped; ORT runs nothing older) and 14 (layout), which 17 still runs
# (no opset-13 case: the copy to 17 below is for ops unchanged from 13 to 17). Weights are drawn small (sigma
# 0.3, as in a trained network), so that the state neither saturates the activations, where every runtime
# agrees trivially, nor amplifies a rounding from one step to the next.
# Measured: at most 1.8e-7 apart over 5 steps and 2.4e-7 over 24 (the differences do not pile up: with small
# weights the recurrence contracts), which is up to 3456 ULP of a value near 0. Such a value is a sum of terms
# near 1 (the states and gates lie in [-1, 1]), so its error is theirs, absolute: the bound is 8 ULP, or 2^-21
# (4 ULP of 1.0, MLAS's Tanh and Logistic being a few ULP from the rounded value) absolute.
RECURRENT = ("ORT computes Sigmoid and Tanh with MLAS's vectorized approximations (MlasComputeLogistic, "
             "MlasComputeTanh), its products with MLAS's SGEMM and adds the biases before the recurrent product; "
             "each step carries its difference into the next, at the states' scale of 1")
# ORT 1.30 refuses layout = 1 ("Batchwise recurrent operations (layout == 1) are not supported") and double
# ("does not support double yet"; RNN has no double kernel): tests/eval/kernels/recurrent_test.cc checks those.
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def recurrent_inputs(op, directions, seed=0, seq=5, batch=3, size=4, hidden=3, lens=None, initial=False,
                     peepholes=False):
    """X, W, R, B, sequence_lens, initial_h (and for LSTM initial_c, P) as the spec orders them."""
    rows = GATES[op] * hidden
    state = (directions, batch, hidden)
    inputs = [("x", normal((seq, batch, size), seed)),
              ("w", normal((directions, rows, size), seed + 1, scale=0.3)),
              ("r", normal((directions, rows, hidden), seed + 2, scale=0.3)),
              ("b", normal((directions, 2 * rows), seed + 3, scale=0.3)),
              ("lens", None if lens is None else np.array(lens, np.int32)),
              ("h0", normal(state, seed + 4) if initial else None)]
    if op == "LSTM":
        inputs += [("c0", normal(state, seed + 5) if initial else None),
                   ("p", normal((directions, 3 * hidden), seed + 6, scale=0.3) if peepholes else None)]
    while inputs[-1][1] is None:  # trailing optional inputs are left out, not named empty
        inputs.pop()
    return inputs


def add_recurrent(name, opsets, op, directions=1, attrs=None, **kwargs):
    direction = {1: "forward", 2: "bidirectional"}[directions]
    attrs = {"hidden_size": 3, "direction": direction, **(attrs or {})}
    inputs = recurrent_inputs(op, directions, **kwargs)
    add(f"{op.lower()}_{name}", opsets, op, inputs, attrs=attrs, n_outputs=3 if op == "LSTM" else 2,
        max_ulp=RECURRENT_ULP, abs_tol=RECURRENT_ABS, why=RECURRENT)


RECURRENT_ULP = 8
RECURRENT_ABS = 2.0 ** -21
for op in ["RNN", "GRU", "LSTM"]:
    add_recurrent("plain", [7, 14, 17], op)
    add_recurrent("bidirectional", [7, 14, 17], op, directions=2)
    add_recurrent("reverse_states_lens", [7, 14], op, attrs={"direction": "reverse"}, lens=[5, 2, 4], initial=True,
                  peepholes=True)
    add_recurrent("bidirectional_states_lens", [7, 14, 17], op, directions=2, lens=[3, 5, 1], initial=True,
                  peepholes=True, seed=10)
    add_recurrent("clip", [7, 14], op, attrs={"clip": 0.75}, initial=True, seed=20)
    add_recurrent("long_sequence", [14], op, directions=2, seq=24, initial=True, peepholes=True, seed=110)
    add_recurrent("empty_sequence", [7, 14], op, directions=2, lens=[3, 0, 5], initial=True, seed=100)
add_recurrent("linear_before_reset", [7, 14, 17], "GRU", directions=2, attrs={"linear_before_reset": 1},
              lens=[5, 3, 4], initial=True, seed=50)
add_recurrent("input_forget", [7, 14], "LSTM", directions=2, attrs={"input_forget": 1}, initial=True, peepholes=True,
              seed=60)
add_recurrent("activations", [7, 14], "RNN", directions=2,
              attrs={"activations": ["LeakyRelu", "HardSigmoid"], "activation_alpha": [0.3, 0.25],
                     "activation_beta": [0.4]}, initial=True, seed=70)
add_recurrent("activations", [7, 14], "GRU",
              attrs={"activations": ["HardSigmoid", "Softsign"], "activation_alpha": [0.3],
                     "activation_beta": [0.45]}, initial=True, seed=80)
add_recurrent("activations", [7, 14], "LSTM",
              attrs={"activations": ["HardSigmoid", "Elu", "ScaledTanh"], "activation_alpha": [0.3, 0.8, 1.5],
                     "activation_beta": [0.45, 0.7]}, initial=True, peepholes=True, seed=90)


# Every case at opset 13 again at 17: no op listed here changes between the two (the next versions come at 18),
# so the runner and ORT must agree there too.
for case in [c for c in CASES if c.opset == 13]:
    again = copy.copy(case)
    again.opset = 17
    again.name = case.name[: -len("13")] + "17"
    CASES.append(again)

# ------------------------------------------------------------------ onnx 1.23's versions (opsets 18..26)
# Reductions take their axes as input 1 from 18 (ReduceSum from 13) and noop_with_empty_axes with them.
for op, bound in [("ReduceMax", 0), ("ReduceMin", 0), ("ReduceMean", 2), ("ReduceProd", 2), ("ReduceL2", 2),
                  ("ReduceLogSumExp", 4), ("ReduceSumSquare", 2), ("ReduceL1", 2), ("ReduceLogSum", 2)]:
    data = positive((2, 3, 4, 5)) if bound else normal((2, 3, 4, 5), 5)
    why = REDUCE_SUM if bound else ""
    add(op.lower() + "_axes_input", [18, 20], op, [("x", data), ("a", np.array([1, -1], np.int64))], max_ulp=bound,
        why=why)
    add(op.lower() + "_all_nokeep", [18], op, [("x", data)], attrs={"keepdims": 0}, max_ulp=bound, why=why)
    add(op.lower() + "_noop", [18], op, [("x", data), ("a", np.array([], np.int64))],
        attrs={"noop_with_empty_axes": 1}, max_ulp=bound, why=why)
BOOLS = ints((2, 3, 4), 0, 2, 7, dtype=np.bool_)
for op in ["ReduceMax", "ReduceMin"]:
    add(op.lower() + "_bool", [20], op, [("x", BOOLS), ("a", np.array([1], np.int64))])
    add(op.lower() + "_bool_all", [20], op, [("x", BOOLS)], attrs={"keepdims": 0})
add("pad_axes", [18], "Pad", [("x", special((3, 4))), ("p", np.array([2, 1], np.int64)), ("v", np.array(2.5, np.float32)),
                              ("a", np.array([-1], np.int64))])
add("pad_axes_int32", [18], "Pad", [("x", special((2, 3, 4))), ("p", np.array([1, 0, 2, 1], np.int64)), ("v", None),
                                    ("a", np.array([2, 0], np.int32))], attrs={"mode": "edge"})
add("pad_wrap", [19], "Pad", [("x", special((3, 4))), ("p", np.array([2, 1, 1, 6], np.int64))], attrs={"mode": "wrap"})
add("pad_reflect_19", [19], "Pad", [("x", special((3, 4))), ("p", np.array([2, 1, 1, 2], np.int64))],
    attrs={"mode": "reflect"})
add("split_num_outputs", [18], "Split", [("x", X4)], attrs={"axis": 1, "num_outputs": 3}, n_outputs=3)
add("split_num_outputs_uneven", [18], "Split", [("x", X4)], attrs={"axis": -1, "num_outputs": 2}, n_outputs=2)
add("split_num_outputs_uneven3", [18], "Split", [("x", special((7, 2)))], attrs={"num_outputs": 3}, n_outputs=3)
add("split_input_18", [18], "Split", [("x", X4), ("s", np.array([1, 4], np.int64))], attrs={"axis": 3}, n_outputs=2)
add("averagepool_dilated", [19], "AveragePool", [("x", positive((2, 3, 9, 8)))],
    attrs={"kernel_shape": [3, 2], "strides": [2, 1], "dilations": [2, 3], "pads": [1, 1, 2, 0]}, max_ulp=4, why=POOL)
add("averagepool_dilated_include_pad", [19], "AveragePool", [("x", positive((2, 3, 9, 8)))],
    attrs={"kernel_shape": [3, 2], "strides": [2, 1], "dilations": [2, 3], "pads": [1, 1, 2, 0],
           "count_include_pad": 1}, max_ulp=4, why=POOL)
add("equal_string", [19], "Equal", [("a", np.array(["monday", "Monday", "", "monday "], dtype=object)), ("b", np.array(["monday"], dtype=object))],
    out_types=[TensorProto.BOOL])
add("resize_axes", [18], "Resize", [("x", XR), ("roi", EMPTY), ("s", np.array([2, 1.5], np.float32))],
    attrs={"mode": "linear", "axes": [2, -1]}, max_ulp=4, why=LINEAR)
add("resize_axes_sizes", [18], "Resize", [("x", XR), ("roi", EMPTY), ("s", None), ("z", np.array([5, 7], np.int64))],
    attrs={"mode": "nearest", "axes": [3, 2]})
for policy in ["not_larger", "not_smaller"]:
    add("resize_" + policy, [18], "Resize", [("x", XR), ("roi", EMPTY), ("s", None), ("z", np.array([7, 7], np.int64))],
        attrs={"mode": "nearest", "axes": [2, 3], "keep_aspect_ratio_policy": policy})
for mode in ["nearest", "linear", "cubic"]:
    add("resize_half_pixel_symmetric_" + mode, [19], "Resize",
        [("x", XR), ("roi", EMPTY), ("s", np.array([1, 1, 1.7, 0.6], np.float32))],
        attrs={"mode": mode, "coordinate_transformation_mode": "half_pixel_symmetric"},
        max_ulp=4 if mode == "linear" else 0, why=LINEAR if mode == "linear" else "")
add("resize_crop_axes", [18], "Resize",
    [("x", XR), ("roi", np.array([0.4, -0.2, 0.8, 1.3], np.float32)), ("s", None), ("z", np.array([5, 6], np.int64))],
    attrs={"mode": "nearest", "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": -7.5,
           "axes": [2, 3]})
add("spacetodepth_18", [18, 26], "SpaceToDepth", [("x", special((1, 2, 4, 6)))], attrs={"blocksize": 2})
# Not Cast-19's saturate on a target other than float8: the text allows it (it has no effect there), ORT 1.30
# refuses it ("only used for cast to float 8 types"); tests/eval/kernels/tensor_ops_test.cc checks the runner.

# Every case at opset 17 again at 21 and 26: from 18 the ops listed here change only in the types they take
# (bfloat16, float8, int4, ...) and in what the cases above add, except the reductions other than ReduceSum,
# whose axes become an input, and Split, which asks for split or num_outputs; their 17 cases stay at 17.
AXES_BECOME_INPUTS = {"ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd", "ReduceL2", "ReduceLogSumExp",
                      "ReduceSumSquare", "ReduceL1", "ReduceLogSum", "Split"}
for case in [c for c in CASES if c.opset == 17 and c.op not in AXES_BECOME_INPUTS]:
    for opset in [21, 26]:
        again = copy.copy(case)
        again.opset = opset
        again.name = case.name[: -len("17")] + str(opset)
        CASES.append(again)


# ------------------------------------------------------------------ running and comparing

def ordered(bits, width):
    """IEEE bit patterns mapped to integers in the order of the values they encode (+0 and -0 alike)."""
    bits = bits.astype(np.int64)
    sign = np.int64(1) << (width - 1)
    return np.where(bits & sign, -(bits & (sign - 1)), bits)


def compare(case, ours, theirs):
    a, b = numpy_helper.to_array(ours), numpy_helper.to_array(theirs)
    if ours.data_type != theirs.data_type or a.shape != b.shape:
        return f"runner {a.dtype}{list(a.shape)}, ORT {b.dtype}{list(b.shape)}"
    if a.dtype.kind != "f":
        bad = np.flatnonzero(a.reshape(-1) != b.reshape(-1))
        return f"element {bad[0]}: runner {a.reshape(-1)[bad[0]]}, ORT {b.reshape(-1)[bad[0]]}" if bad.size else ""
    width = a.dtype.itemsize * 8
    view = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    fa, fb = a.reshape(-1), b.reshape(-1)
    both_nan = np.isnan(fa) & np.isnan(fb)
    ua, ub = fa.view(view), fb.view(view)
    if case.max_ulp == 0:
        bad = np.flatnonzero((ua != ub) & ~both_nan)
    else:
        distance = np.abs(ordered(ua, width) - ordered(ub, width))
        with np.errstate(invalid="ignore"):  # inf - inf: not close, which the ULP distance has judged already
            close = np.abs(fa.astype(np.float64) - fb.astype(np.float64)) <= case.abs_tol
        bad = np.flatnonzero((distance > case.max_ulp) & ~both_nan & ~close)
    if not bad.size:
        return ""
    i = bad[0]
    return (f"{bad.size} elements differ; element {i}: runner {fa[i]!r}, ORT {fb[i]!r} (bound {case.max_ulp} ULP"
            f"{f' or {case.abs_tol}' if case.abs_tol else ''})")


def run(command):
    try:
        p = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {TIMEOUT}s"
    return p.returncode, p.stderr.strip()


def run_case(case, runner, scratch):
    folder = os.path.join(scratch, case.name)
    shutil.rmtree(folder, ignore_errors=True)
    inputs, ours_dir, ort_dir = (os.path.join(folder, d) for d in ("inputs", "runner", "ort"))
    for d in (inputs, ours_dir, ort_dir):
        os.makedirs(d)
    model_path = os.path.join(folder, "model.onnx")
    onnx.save(case.model(), model_path)
    for k, (name, array) in enumerate(case.inputs):
        if array is not None and name not in case.initializers:
            onnx.save_tensor(numpy_helper.from_array(array, name), os.path.join(inputs, f"input_{k}.pb"))
    code, err = run(["node", RUN_MODEL, model_path, inputs, ort_dir])
    if code != 0:
        return "skipped", f"ORT refuses it: {err.splitlines()[-1] if err else code}"
    code, err = run([runner, model_path, inputs, ours_dir])
    if code != 0:
        return "failed", f"the runner fails where ORT runs it: {err}"
    for k in range(case.n_outputs):
        ours = onnx.load_tensor(os.path.join(ours_dir, f"output_{k}.pb"))
        theirs = onnx.load_tensor(os.path.join(ort_dir, f"output_{k}.pb"))
        difference = compare(case, ours, theirs)
        if difference:
            return "failed", f"output {k}: {difference}"
    bound = f" within {case.max_ulp} ULP ({case.why})" if case.max_ulp else " bit for bit"
    if case.abs_tol:
        bound = f" within {case.max_ulp} ULP or {case.abs_tol} ({case.why})"
    return "passed", bound


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runner")
    parser.add_argument("scratch")
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    subprocess.run(["bash", INSTALL_ORT], check=True)
    os.makedirs(args.scratch, exist_ok=True)
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for case in CASES:
        if args.only and not any(s in case.name for s in args.only):
            continue
        outcome, detail = run_case(case, os.path.abspath(args.runner), args.scratch)
        counts[outcome] += 1
        print(f"{outcome.upper():7} {case.name}: {detail}", flush=True)
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
