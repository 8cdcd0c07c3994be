"""The model runner on onnx's node tests (as onnx 1.23.2 makes them), against the outputs onnx computed for them.

Usage:
    PY=$(scripts/install-python-env.sh)
    "$PY" tests/differential/make_node_test_data.py /tmp/node-data      # once: writes /tmp/node-data/node
    "$PY" tests/differential/run_node_tests.py MODEL_RUNNER_CLI /tmp/node-data/node SCRATCH_DIR [--only SUBSTRING ...]

NODE_DIR holds onnx's node tests as make_node_test_data.py writes them with the installed onnx (onnx's wheel ships
their generators, not their data): one folder per test, each a model.onnx of one node (sometimes with Constant
nodes feeding it) and test_data_set_*/ folders of input_K.pb and the expected output_K.pb, computed by onnx's
reference implementation in numpy. Issue 24 asks that the runner compute these for the ops real models are made
of (OPS below, the issue's list); a test is selected when its model's main op (its single node, or the one node
that is not a Constant) is one of them. Its expanded forms (the op written as its function body, Softmax as
ReduceMax, Sub, Exp, ...: `_expanded`, and `_expanded_verN` for the body at opset N) are selected with it.

For each selected test and data set, MODEL_RUNNER_CLI (tests/differential/model_runner_cli.cc) runs the model on
the inputs, written to SCRATCH_DIR under the graph inputs' names (onnx's files may name them otherwise), and each
output_K.pb must equal onnx's output_K.pb as onnx 1.23's own backend tests compare them
(onnx/backend/test/runner: assert_similar_outputs): same dtype and shape; floats, ml_dtypes' bfloat16, float8 and
float4 among them, within np.testing.assert_allclose(rtol=1e-3, atol=1e-7) (rtol 2**-6 for bfloat16: two of its
ULPs), NaN equal to NaN; integers (int4, uint4, int2, uint2 among them), bools and strings exactly.

One line per test: PASS, FAIL (with the worst element), NOT RUN (why: the runner's refusal, an input file of an
element type the runner does not read, or inputs the CLI cannot feed), or SKIPPED (its opset is outside what the
runner implements). Then the counts. The exit status is 1 when a test is not run without an entry in
NOT_RUN_ALLOWED, or fails without one in FAIL_KNOWN (each entry says why), 77 when NODE_DIR does not exist (ctest
then reports the test as skipped), 0 otherwise.
Python: the project's environment (scripts/install-python-env.sh: onnx 1.23.2, numpy 2, ml_dtypes), in which
onnx reads the element types onnx 1.23 writes.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import numpy_helper

# The ops issue 24 asks the runner to execute, from Conv to TopK (the issue also names the removed ops, by their
# rules' kernels, and If/Loop/Scan "as today": those are checked elsewhere), and the recurrent ops legacy exporters
# wrote (PyTorch's and CNTK's RNN, GRU and LSTM).
OPS = frozenset("""
    Conv ConvTranspose BatchNormalization InstanceNormalization LRN MaxPool AveragePool GlobalAveragePool
    GlobalMaxPool Gemm MatMul Softmax LogSoftmax Relu LeakyRelu PRelu Elu Selu Sigmoid HardSigmoid Tanh Softplus
    Softsign Clip Sum Max Min Mean Div Pow Sqrt Exp Log Abs Neg Reciprocal Floor Ceil Pad Concat Split Slice
    Reshape Flatten Transpose Squeeze Unsqueeze Expand Tile Gather Shape Size Constant ConstantOfShape Cast Dropout
    Identity Upsample Resize DepthToSpace SpaceToDepth ReduceMean ReduceSum ReduceMax ReduceMin ReduceProd
    ReduceL2 ReduceLogSumExp ArgMax ArgMin Equal Less Greater Not And Or Where Range TopK
    RNN GRU LSTM
""".split())

def _each(names, reason):
    """{name: reason} for each of the whitespace-separated names."""
    return dict.fromkeys(names.split(), reason)


# Selected tests that may end NOT RUN, each with the reason. Any other NOT RUN fails the script.
_DROPOUT_TRAINING = ("Dropout in training mode: its mask is random (onnx drew it from numpy's seeded generator); "
                     "the runner refuses it as Unimplemented")
_BFLOAT16 = ("bfloat16: not among the types issue 24 asks for (float16, float, double, integers); the runner holds "
             "bfloat16 tensors but neither casts them nor makes a Range of them (both refused as Unimplemented)")
_SMALL_TYPES = ("float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0), float4e2m1, int4, uint4, int2, uint2: types onnx "
                "added after 1.12, not among those issue 24 asks for; the runner reads no tensor of them and casts "
                "to none")
_NOT_A_TENSOR = "an optional or sequence graph input: model_runner_cli feeds tensors only"
_ANTIALIAS = ("Resize-18's antialias (a downscaling filter widened by the scale): the runner resizes without one and "
              "refuses it as Unimplemented")
_ALIGN_CORNERS = ("align_corners with a fractional resized length (onnx/onnx#2462): the runner reads it as ONNX "
                  "Runtime does")
NOT_RUN_ALLOWED = {
    **_each("""test_training_dropout test_training_dropout_default test_training_dropout_default_mask
               test_training_dropout_mask""", _DROPOUT_TRAINING),
    **_each("""test_cast_BFLOAT16_to_FLOAT test_cast_FLOAT_to_BFLOAT16
               test_range_bfloat16_type_positive_delta test_range_bfloat16_type_positive_delta_expanded""", _BFLOAT16),
    # Casts to the small types (the runner refuses the Cast) and from them (model_runner_cli refuses the input file).
    **_each("""test_cast_FLOAT_to_FLOAT8E4M3FN test_cast_FLOAT_to_FLOAT8E4M3FNUZ test_cast_FLOAT_to_FLOAT8E5M2
               test_cast_FLOAT_to_FLOAT8E5M2FNUZ test_cast_FLOAT_to_FLOAT4E2M1 test_cast_FLOAT_to_INT4
               test_cast_FLOAT_to_UINT4 test_cast_FLOAT_to_INT2 test_cast_FLOAT_to_UINT2
               test_cast_FLOAT16_to_FLOAT8E4M3FN test_cast_FLOAT16_to_FLOAT8E4M3FNUZ test_cast_FLOAT16_to_FLOAT8E5M2
               test_cast_FLOAT16_to_FLOAT8E5M2FNUZ test_cast_FLOAT16_to_FLOAT4E2M1 test_cast_FLOAT16_to_INT4
               test_cast_FLOAT16_to_UINT4 test_cast_FLOAT16_to_INT2 test_cast_FLOAT16_to_UINT2
               test_cast_no_saturate_FLOAT_to_FLOAT8E4M3FN test_cast_no_saturate_FLOAT_to_FLOAT8E4M3FNUZ
               test_cast_no_saturate_FLOAT_to_FLOAT8E5M2 test_cast_no_saturate_FLOAT_to_FLOAT8E5M2FNUZ
               test_cast_no_saturate_FLOAT16_to_FLOAT8E4M3FN test_cast_no_saturate_FLOAT16_to_FLOAT8E4M3FNUZ
               test_cast_no_saturate_FLOAT16_to_FLOAT8E5M2 test_cast_no_saturate_FLOAT16_to_FLOAT8E5M2FNUZ
               test_cast_e8m0_FLOAT_to_FLOAT8E8M0 test_cast_e8m0_FLOAT16_to_FLOAT8E8M0
               test_cast_FLOAT8E4M3FN_to_FLOAT test_cast_FLOAT8E4M3FNUZ_to_FLOAT test_cast_FLOAT8E5M2_to_FLOAT
               test_cast_FLOAT8E5M2FNUZ_to_FLOAT test_cast_FLOAT4E2M1_to_FLOAT test_cast_INT4_to_FLOAT
               test_cast_UINT4_to_FLOAT test_cast_INT2_to_FLOAT test_cast_UINT2_to_FLOAT
               test_cast_FLOAT8E4M3FN_to_FLOAT16 test_cast_FLOAT8E4M3FNUZ_to_FLOAT16 test_cast_FLOAT8E5M2_to_FLOAT16
               test_cast_FLOAT8E5M2FNUZ_to_FLOAT16 test_cast_FLOAT4E2M1_to_FLOAT16 test_cast_INT4_to_FLOAT16
               test_cast_UINT4_to_FLOAT16 test_cast_INT2_to_FLOAT16 test_cast_UINT2_to_FLOAT16
               test_cast_INT4_to_INT8 test_cast_UINT4_to_UINT8 test_cast_INT2_to_INT8 test_cast_UINT2_to_UINT8
               test_cast_e8m0_FLOAT8E8M0_to_FLOAT test_cast_e8m0_FLOAT8E8M0_to_FLOAT16""", _SMALL_TYPES),
    **_each("test_identity_opt test_identity_sequence", _NOT_A_TENSOR),
    **_each("""test_resize_downsample_scales_cubic_antialias test_resize_downsample_scales_linear_antialias
               test_resize_downsample_sizes_cubic_antialias test_resize_downsample_sizes_linear_antialias""",
            _ANTIALIAS),
}

# Selected tests that FAIL for a reason someone else settles, each with it: printed as FAIL, but they do not fail
# the script. Keep this short; a new FAIL belongs in a kernel fix, not here.
FAIL_KNOWN = {
    # Resize-11 align_corners with scales 0.6 of width 4: onnx's reference maps by the fractional resized length
    # 4 * 0.6 = 2.4 (x * 3 / 1.4, giving 3.142857), which onnx's maintainers call intended (onnx/onnx#2462);
    # ONNX Runtime maps by the output's length 2 (x * 3 / 1, giving 4), and so does the runner: its kernels are
    # checked against ONNX Runtime, the runtime that executes these models (run_runner_kernels.py), and a proof
    # compares the runner with itself, so either reading proves the same moves.
    "test_resize_downsample_scales_linear_align_corners": _ALIGN_CORNERS,
    "test_resize_downsample_scales_cubic_align_corners": _ALIGN_CORNERS,
}

# onnx's backend tests' tolerance (onnx/backend/test/runner: assert_similar_outputs).
RTOL = 1e-3
ATOL = 1e-7
TIMEOUT = 60
# model_runner_cli's exit status when the runner refuses or fails the model (its message on stderr).
RUNNER_REFUSED = 1
# model_runner_cli's exit status on a usage or file error (its message on stderr).
CLI_FILE_ERROR = 2
# Among those file errors, the library's refusal to read an input file's tensor because it does not hold its element
# type (core/tensor.cc, TensorFromProto: "input_0.pb: tensor 'x': data_type 17 (data_type 17) is not a tensor
# element type"): a refusal of the type, like the runner's refusal of an op on it, not a fault in reading files.
UNREAD_ELEMENT_TYPE = re.compile(r"^(input_\d+\.pb): .*: data_type (\d+) \(.*\) is not a tensor element type$")
# The runner's refusal of a model whose default opset it does not implement (eval/model_runner.cc).
OPSET_REFUSAL = "the model runner implements opsets"


def main_op(model):
    """The op a node test tests: its single node's, or the one that is not a Constant; None when there is none."""
    ops = [node.op_type for node in model.graph.node]
    if len(ops) == 1:
        return ops[0]
    not_constant = [op for op in ops if op != "Constant"]
    return not_constant[0] if len(not_constant) == 1 else None


def load_model(node_dir, test):
    return onnx.load(os.path.join(node_dir, test, "model.onnx"))


# An expanded test's name: its base test's, then `_expanded`, then `_verN` when the function body is the one of
# opset N (onnx writes one per opset where the op's function changed: test_elu_expanded_ver18).
_EXPANDED = re.compile(r"_expanded(_ver\d+)?$")


def base_test(test):
    """The test an expanded test expands (test_elu for test_elu_expanded_ver18); test itself otherwise."""
    return _EXPANDED.sub("", test)


def selected_tests(node_dir):
    """The node tests whose main op is in OPS, with their expanded forms, sorted by name."""
    tests = sorted(t for t in os.listdir(node_dir) if os.path.isfile(os.path.join(node_dir, t, "model.onnx")))
    # An expanded test's main op is none of OPS (its nodes are the body's), so it is chosen by its base test's.
    chosen = {t for t in tests if base_test(t) == t and main_op(load_model(node_dir, t)) in OPS}
    return [t for t in tests if base_test(t) in chosen]


def data_sets(test_dir):
    return sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))


def numbered_files(folder, prefix):
    """folder's PREFIX_K.pb in order of K."""
    names = [f for f in os.listdir(folder) if f.startswith(prefix) and f.endswith(".pb")]
    return sorted(names, key=lambda f: int(f[len(prefix):-len(".pb")]))


def write_feeds(model, data_set, feeds_dir):
    """Writes data_set's input_K.pb into feeds_dir named as the K-th graph input; returns why not, or ""."""
    inputs = numbered_files(data_set, "input_")
    graph_inputs = [i for i in model.graph.input if i.name not in {init.name for init in model.graph.initializer}]
    if len(inputs) != len(graph_inputs):
        return f"{len(inputs)} input files for {len(graph_inputs)} graph inputs"
    for k, (file_name, graph_input) in enumerate(zip(inputs, graph_inputs)):
        if graph_input.type.WhichOneof("value") != "tensor_type":
            return (f"graph input '{graph_input.name}' is a {graph_input.type.WhichOneof('value')}: "
                    "model_runner_cli feeds tensors only")
        tensor = onnx.load_tensor(os.path.join(data_set, file_name))
        tensor.name = graph_input.name
        onnx.save_tensor(tensor, os.path.join(feeds_dir, f"input_{k}.pb"))
    return ""


def is_float(dtype):
    """Whether dtype holds floats: numpy's, and ml_dtypes' (bfloat16, float8*, float4_e2m1fn, float8_e8m0fnu), which
    numpy does not count as np.floating (their kind is 'V'): without this they would be compared bit for bit."""
    if np.issubdtype(dtype, np.floating):
        return True
    try:
        ml_dtypes.finfo(dtype)  # refuses integers (int4, uint2, ... included), bools and strings
    except (TypeError, ValueError):
        return False
    return True


def relative_tolerance(dtype):
    """onnx 1.23's backend tests widen rtol to two ULPs for bfloat16 (8 significant bits); float8 and float4 keep
    RTOL, which on their coarse grids means equal values (or both NaN, or zeros of either sign)."""
    return max(RTOL, 2**-6) if dtype == ml_dtypes.bfloat16 else RTOL


def plain(value):
    """A numpy or ml_dtypes scalar as the Python number it holds, for messages (numpy 2 prints np.float64(0.5))."""
    return value.item() if isinstance(value, np.generic) else value


def position(i, shape):
    """The flat index i as a tuple of plain ints in shape (numpy 2's unravel_index gives np.int64s)."""
    return tuple(int(k) for k in np.unravel_index(i, shape)) if shape else ()


def worst_element(ours, expected):
    """The element furthest past assert_allclose's bound, as text; "" when every element is within it."""
    a, b = ours.astype(np.float64).ravel(), expected.astype(np.float64).ravel()
    rtol = relative_tolerance(expected.dtype)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        excess = np.abs(a - b) - (ATOL + rtol * np.abs(b))
        excess = np.where(both_nan, -np.inf, np.where(np.isnan(excess), np.inf, excess))
        same_infinity = (a == b) & np.isinf(b)
    excess = np.where(same_infinity, -np.inf, excess)
    bad = np.flatnonzero(excess > 0)
    if not bad.size:
        return ""
    i = bad[np.argmax(excess[bad])]
    return (f"{bad.size} of {a.size} elements differ; worst at {position(i, expected.shape)}: "
            f"runner {plain(a[i])!r}, onnx {plain(b[i])!r}")


def compare(ours, expected):
    """How ours differs from expected under onnx's backend-test rules, or ""."""
    if ours.dtype != expected.dtype:
        return f"dtype {ours.dtype}, onnx {expected.dtype}"
    if ours.shape != expected.shape:
        return f"shape {ours.shape}, onnx {expected.shape}"
    if is_float(expected.dtype):
        return worst_element(ours, expected)
    mismatched = np.flatnonzero(ours.ravel() != expected.ravel())
    if not mismatched.size:
        return ""
    i = mismatched[0]
    return (f"{mismatched.size} of {expected.size} elements differ; first at {position(i, expected.shape)}: "
            f"runner {plain(ours.ravel()[i])!r}, onnx {plain(expected.ravel()[i])!r}")


def unread_element_type(code, last_line, feeds_dir):
    """Why the CLI read no inputs when it refused an input file's element type, as text; "" for any other exit."""
    match = UNREAD_ELEMENT_TYPE.match(last_line) if code == CLI_FILE_ERROR else None
    if not match:
        return ""
    file_name, data_type = match.group(1), int(match.group(2))
    path = os.path.join(feeds_dir, file_name)
    # Only a refusal of the type that file holds counts: any other message stays the file error it is.
    if not os.path.isfile(path) or onnx.load_tensor(path).data_type != data_type:
        return ""
    type_name = onnx.TensorProto.DataType.Name(data_type)
    return f"{file_name} holds {type_name} (data_type {data_type}), an element type the runner does not read"


def run_runner(runner, model_path, feeds_dir, outputs_dir):
    try:
        done = subprocess.run([runner, model_path, feeds_dir, outputs_dir], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {TIMEOUT}s"
    return done.returncode, done.stderr.strip()


def run_test(runner, node_dir, test, scratch):
    """(outcome, detail) of one node test over all its data sets: outcome is PASS, FAIL, NOT RUN or SKIPPED."""
    test_dir = os.path.join(node_dir, test)
    model_path = os.path.join(test_dir, "model.onnx")
    model = load_model(node_dir, test)
    sets = data_sets(test_dir)
    if not sets:
        return "NOT RUN", "no test_data_set_* folder"
    shutil.rmtree(os.path.join(scratch, test), ignore_errors=True)
    for data_set in sets:
        feeds_dir, outputs_dir = (os.path.join(scratch, test, data_set, d) for d in ("inputs", "outputs"))
        for d in (feeds_dir, outputs_dir):
            os.makedirs(d)
        why_not = write_feeds(model, os.path.join(test_dir, data_set), feeds_dir)
        if why_not:
            return "NOT RUN", why_not
        code, message = run_runner(runner, model_path, feeds_dir, outputs_dir)
        last_line = message.splitlines()[-1] if message else ""
        if code == RUNNER_REFUSED:
            return ("SKIPPED" if OPSET_REFUSAL in message else "NOT RUN"), last_line
        unread = unread_element_type(code, last_line, feeds_dir)
        if unread:
            return "NOT RUN", unread
        if code != 0:  # a crash, a timeout or any other file error is no refusal: no allow-list excuses it
            return "FAIL", f"{data_set}: model_runner_cli exited with {code}: {last_line}"
        expected_outputs = numbered_files(os.path.join(test_dir, data_set), "output_")
        for file_name in expected_outputs:
            expected = numpy_helper.to_array(onnx.load_tensor(os.path.join(test_dir, data_set, file_name)))
            ours_path = os.path.join(outputs_dir, file_name)
            if not os.path.isfile(ours_path):
                return "FAIL", f"{data_set}/{file_name}: the runner wrote no such output"
            difference = compare(numpy_helper.to_array(onnx.load_tensor(ours_path)), expected)
            if difference:
                return "FAIL", f"{data_set}/{file_name}: {difference}"
    return "PASS", f"{len(sets)} data set(s)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runner", help="model_runner_cli")
    parser.add_argument("node_dir", help="onnx's node tests: the node folder make_node_test_data.py writes")
    parser.add_argument("scratch", help="where the renamed inputs and the runner's outputs go, a folder per test")
    parser.add_argument("--only", nargs="*", default=[], help="run only the tests whose names hold one of these")
    args = parser.parse_args()
    if not os.path.isdir(args.node_dir):
        print(f"run_node_tests: no {args.node_dir} (make_node_test_data.py writes it): skipped")
        return 77
    runner = os.path.abspath(args.runner)
    if not os.access(runner, os.X_OK):
        sys.exit(f"run_node_tests: {runner} is not an executable (build the model_runner_cli target)")
    counts = {"PASS": 0, "FAIL": 0, "NOT RUN": 0, "SKIPPED": 0}
    unexcused = []
    selected = selected_tests(args.node_dir)
    for test in selected:
        if args.only and not any(s in test for s in args.only):
            continue
        outcome, detail = run_test(runner, args.node_dir, test, args.scratch)
        counts[outcome] += 1
        excuses = NOT_RUN_ALLOWED if outcome == "NOT RUN" else FAIL_KNOWN if outcome == "FAIL" else {}
        if test in excuses:
            detail += f" (allowed: {excuses[test]})"
        elif outcome in ("NOT RUN", "FAIL"):
            unexcused.append(test)
        elif test in NOT_RUN_ALLOWED or test in FAIL_KNOWN:
            detail += " (allowed not to pass, but passes: take it off its list)"
        print(f"{outcome:8} {test}: {detail}", flush=True)
    print(f"{sum(counts.values())} tests: {counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['NOT RUN']} not run, {counts['SKIPPED']} skipped by opset; "
          f"{len(unexcused)} failed or not run without an entry")
    stale = sorted((set(NOT_RUN_ALLOWED) | set(FAIL_KNOWN)) - set(selected))
    if stale:  # onnx renamed or dropped them, or the data is another onnx's: the lists should say what is there
        print(f"allow-list entries naming no selected test (take them off): {', '.join(stale)}")
    return 1 if unexcused else 0


if __name__ == "__main__":
    sys.exit(main())
