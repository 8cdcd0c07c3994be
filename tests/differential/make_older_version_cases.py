"""Writes node cases of older op versions, for run_downgrades.py to move down and compare in ONNX Runtime.

Usage:
    "$PY" tests/differential/make_older_version_cases.py OUT

onnx's node tests are each at the opset of its op's newest version, so run_downgrades.py reaches an older version
only through the steps above it: a Resize-10 only from a Resize-11 that samples as Resize-10 does, which no node
test does. And the node tests feed every input, so an input that was an attribute before (Slice's starts, Pad's
pads, Clip's bounds, the axes of Squeeze, Unsqueeze and the Reduce ops, Split's split) has no form below and never
moves. These cases start at the older versions themselves, and give those inputs as constants: OUT/<case>/model.onnx and its
test_data_set_0/input_K.pb, the layout of onnx's node tests (the expected outputs are ONNX Runtime's of the model
as it is, which run_downgrades.py computes). The inputs are drawn from a fixed seed: two runs write the same bytes.
"""

import math
import os
import shutil
import sys

import numpy as np
import onnx
import onnx.parser
from onnx import TensorProto, helper, numpy_helper


def scaled(shape, scales):
    """The output shape of Resize-10 and Upsample: each dim times its scale, rounded down."""
    return [math.floor(d * s) for d, s in zip(shape, scales)]


def scaling(op, opset, mode, scales, shape):
    """A node of `op` (Resize-10 or Upsample-9) at `opset` scaling a float input of `shape` by constant `scales`."""
    node = helper.make_node(op, ["x", "scales"], ["y"], mode=mode)
    graph = helper.make_graph([node], op.lower(), [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, scaled(shape, scales))],
                              [numpy_helper.from_array(np.array(scales, dtype=np.float32), "scales")])
    ir_version = 5 if opset >= 10 else 4
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version), {"x": shape}


def resize10(mode, scales, shape):
    return scaling("Resize", 10, mode, scales, shape)


def upsample9(mode, scales, shape):
    return scaling("Upsample", 9, mode, scales, shape)


def constant_inputs(op, opset, x_shape, outputs, constants, **attributes):
    """A node of `op` at `opset` reading a float x of `x_shape` and then `constants` (name, values, numpy type) as
    initializers, which moving down takes into attributes; `outputs` are (name, shape)."""
    initializers = [numpy_helper.from_array(np.array(values, dtype=dtype), name) for name, values, dtype in constants]
    node = helper.make_node(op, ["x"] + [name for name, _, _ in constants], [name for name, _ in outputs],
                            **attributes)
    graph = helper.make_graph([node], op.lower(), [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape) for name, shape in outputs],
                              initializers)
    ir_version = 8 if opset >= 15 else 7 if opset >= 13 else 6
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version), {
        "x": x_shape}


def pytorch_pad(mode):
    """F.pad(x, (1, 2), mode) as PyTorch 1.9-2.x exports it at opset 13: the pads [1, 2] padded with zeros for the
    other dims, reshaped to pairs, the pairs reversed (a Slice with steps -1), transposed, flattened and cast; every
    step of constants, so a move below 11 computes them (and below 10 the Slice with steps -1 goes with them)."""
    text = """
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1, 2, 5] x) => (float[1, 2, 8] y)
        <int64[2] p = {1, 2}, int64[1] four = {4}, int64[2] pairs = {-1, 2}, int64[1] last = {-1},
         int64[1] stop = {-9223372036854775807}, int64[1] axis0 = {0}, int64[1] back = {-1}, int64[1] flat = {-1}> {
      zeros = ConstantOfShape <value = int64[1] {0}> (four)
      padded = Concat <axis = 0> (p, zeros)
      paired = Reshape (padded, pairs)
      reversed = Slice (paired, last, stop, axis0, back)
      transposed = Transpose <perm = [1, 0]> (reversed)
      flattened = Reshape (transposed, flat)
      pads = Cast <to = 7> (flattened)
      y = Pad <mode = "MODE"> (x, pads)
    }
    """
    return onnx.parser.parse_model(text.replace("MODE", mode)), {"x": [1, 2, 5]}


def pad_of_a_pad():
    """A Pad of constant pads, then a Pad whose pads are the first Pad's output shape twice: computed once the first
    pads are written in, which lets shape inference fix the first output's dims (a move down looks again)."""
    return onnx.parser.parse_model("""
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1, 2, 3] x) => (float[6, 9, 12] y) <int64[3] b = {0, 0, 1}, int64[3] e = {1, 1, 0}> {
      first_pads = Concat <axis = 0> (b, e)
      p = Pad (x, first_pads)
      shape = Shape (p)
      second_pads = Concat <axis = 0> (shape, shape)
      y = Pad <mode = "edge"> (p, second_pads)
    }
    """), {"x": [1, 2, 3]}


def one_hot_11(index_type):
    """OneHot-11 of indices given at run time, some counting from the back, some below -depth (off everywhere); depth
    of the same type (ONNX Runtime runs int32 indices with int32 depth, not int64)."""
    text = """
    <ir_version: 7, opset_import: ["" : 11]>
    g (TYPE[2, 5] i) => (float[2, 4, 5] y) <TYPE d = {4}, float[2] v = {-0.5, 2.0}> {
      y = OneHot <axis = 1> (i, d, v)
    }
    """
    indices = np.array([[0, -1, 3, -4, -5], [4, -8, 2, 1, -2]], dtype=np.int64 if index_type == "int64" else np.int32)
    return onnx.parser.parse_model(text.replace("TYPE", index_type)), {"i": indices}


def equal_11():
    """Equal-11 of floats, which Equal-7 does not take: NaN (equal to nothing), -0 and +0, infinities, neighbours."""
    text = """
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[8] a, float[8] b) => (bool[8] y) { y = Equal (a, b) }
    """
    nan, inf = np.float32("nan"), np.float32("inf")
    a = np.array([1.5, nan, nan, -0.0, inf, -inf, inf, 2.0], np.float32)
    b = np.array([1.5, nan, 1.0, 0.0, inf, -inf, -inf, np.nextafter(np.float32(2), np.float32(3))], np.float32)
    return onnx.parser.parse_model(text), {"a": a, "b": b}


def integers_of_nine(op, inputs, output):
    """`op` at opset 9 of int32 values past 2^24, which float would round (moving to 8 casts them to double)."""
    names = ", ".join(f"int32[{len(values)}] {name}" for name, values in inputs)
    text = f"""
    <ir_version: 4, opset_import: ["" : 9]>
    g ({names}) => ({output}) {{ y = {op} ({", ".join(name for name, _ in inputs)}) }}
    """
    return onnx.parser.parse_model(text), {name: np.array(values, np.int32) for name, values in inputs}


def unsqueeze_at_the_back():
    """Unsqueeze-13 along -2 and -1 of a value whose rank inference does not know (a Reshape to a shape fed at run
    time): below 11 a Reshape to its shape followed by two 1s."""
    text = """
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[6] x, int64[N] s) => (float[?, ?, ?, ?] y) <int64[2] back = {-2, -1}> {
      r = Reshape (x, s)
      y = Unsqueeze (r, back)
    }
    """
    x = np.arange(6, dtype=np.float32) - 2.5
    return onnx.parser.parse_model(text), {"x": x, "s": np.array([2, 3], np.int64)}


I64 = np.int64
F32 = np.float32

# name -> (model, the shape of each input, or its values)
CASES = {
    # Inputs that were attributes before, back to attributes where they are constants (the node tests feed them,
    # which has no form below: refused, so only these cases move them).
    "older_slice13_constant_bounds": constant_inputs(
        "Slice", 13, [4, 6], [("y", [3, 3])], [("starts", [1, -4], I64), ("ends", [100, -1], I64),
                                               ("axes", [0, 1], I64)]),
    "older_pad13_constant_pads": constant_inputs(
        "Pad", 13, [2, 3], [("y", [3, 5])], [("pads", [1, 0, 0, 2], I64), ("value", 1.5, F32)]),
    "older_clip13_constant_bounds": constant_inputs(
        "Clip", 13, [3, 4], [("y", [3, 4])], [("lo", -0.5, F32), ("hi", 0.75, F32)]),
    "older_unsqueeze13_constant_axes": constant_inputs(
        "Unsqueeze", 13, [3, 4], [("y", [1, 3, 4])], [("axes", [0], I64)]),
    "older_squeeze13_constant_axes": constant_inputs(
        "Squeeze", 13, [1, 3, 4], [("y", [3, 4])], [("axes", [0], I64)]),
    "older_reducesum13_constant_axes": constant_inputs(
        "ReduceSum", 13, [3, 4], [("y", [3, 1])], [("axes", [1], I64)]),
    "older_reducemean18_constant_axes": constant_inputs(
        "ReduceMean", 18, [3, 4], [("y", [1, 4])], [("axes", [0], I64)]),
    "older_split13_constant_split": constant_inputs(
        "Split", 13, [2, 4], [("a", [2, 1]), ("b", [2, 3])], [("split", [1, 3], I64)], axis=1),
    # Pads the model computes from constants alone (PyTorch's F.pad), computed once by the move.
    "older_pad13_pytorch_constant_pads": pytorch_pad("constant"),
    "older_pad13_pytorch_reflect_pads": pytorch_pad("reflect"),
    "older_pad13_pads_from_a_padded_shape": pad_of_a_pad(),
    # A Resize-11 that samples as Resize-10: to Resize-10, then Upsample.
    "older_resize11_asymmetric_floor": constant_inputs(
        "Resize", 11, [1, 1, 2, 3], [("y", [1, 1, 4, 6])], [("roi", [], F32), ("scales", [1, 1, 2, 2], F32)],
        mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
    # PyTorch's F.interpolate(scale_factor=2) at 13: Resize (x, "", scales), to Resize-10, then Upsample.
    "older_resize13_nearest_no_roi": (onnx.parser.parse_model("""
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1, 2, 3, 3] x) => (float[1, 2, 6, 6] y) <float[4] scales = {1, 1, 2, 2}> {
      y = Resize <mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"> (x, , scales)
    }
    """), {"x": [1, 2, 3, 3]}),
    # Resize-10 upsampling: written as Upsample-9, and below 9 as Upsample-7 (scales an attribute).
    "older_resize10_nearest_upsample": resize10("nearest", [1, 1, 2, 3], [1, 2, 3, 3]),
    "older_resize10_nearest_fractional_upsample": resize10("nearest", [1, 1, 1.5, 2.5], [1, 2, 4, 3]),
    "older_resize10_linear_upsample": resize10("linear", [1, 1, 2.5, 2], [1, 2, 3, 4]),
    "older_resize10_nearest_3d": resize10("nearest", [1, 2, 3], [2, 3, 2]),
    # Resize-10 downsampling: no form below 10 (Upsample takes no scale below 1), refused by name.
    "older_resize10_nearest_downsample": resize10("nearest", [1, 1, 0.5, 0.5], [1, 1, 4, 4]),
    # OneHot-11's indices counted from the front below 11 (OneHot-10 reads no negative index as 11 does).
    "older_onehot11_int64_indices": one_hot_11("int64"),
    "older_onehot11_int32_indices": one_hot_11("int32"),
    # x.unsqueeze(-1) of a value of unknown rank as a Reshape below 11.
    "older_unsqueeze13_back_of_unknown_rank": unsqueeze_at_the_back(),
    # Equal-11 of floats in comparisons of opset 7 (Equal-7 takes bool, int32 and int64 alone).
    "older_equal11_floats": equal_11(),
    # Less and Flatten of int32 through double below 9 (onnx's own adapter goes through float).
    "older_less9_int32": integers_of_nine(
        "Less", [("a", [16777217, -16777217, 2**31 - 1, 5]), ("b", [16777216, -16777216, 2**31 - 2, 5])], "bool[4] y"),
    "older_flatten9_int32": integers_of_nine(
        "Flatten", [("a", [16777217, -2**31, 2**31 - 1, 33554433])], "int32[4, 1] y"),
    # Upsample-9, the version Resize-10 is written as: onnx's own adapter takes its scales to an attribute below 9.
    "older_upsample9_nearest": upsample9("nearest", [1, 1, 2, 2], [1, 3, 2, 3]),
    "older_upsample9_linear": upsample9("linear", [1, 1, 2, 3], [1, 1, 3, 2]),
}


def write_case(out, name, model, shapes, random):
    folder = os.path.join(out, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for index, (input_name, shape) in enumerate(shapes.items()):
        # A shape draws float values; an array is the input itself (indices, say).
        values = shape if isinstance(shape, np.ndarray) else random.standard_normal(shape).astype(np.float32)
        with open(os.path.join(data, f"input_{index}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(values, input_name).SerializeToString())


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    shutil.rmtree(out, ignore_errors=True)
    random = np.random.default_rng(20261207)
    for name, (model, shapes) in CASES.items():
        write_case(out, name, model, shapes, random)
    print(f"make_older_version_cases: {len(CASES)} cases in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
