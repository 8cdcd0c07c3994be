"""Differential test of the onnx-legalize CLI on real legacy models held outside the project, with what users run.

Usage:
    PY=$(scripts/install-python-env.sh)
    "$PY" tests/differential/run_real_models.py CLI MODELS_DIR SCRATCH_DIR [--targets default 13 17] [--only FILE ...]

The Python is scripts/install-python-env.sh's virtual environment: onnx 1.23.2 and onnxruntime 1.31.1 from PyPI, what users of a
legalized model run (the script refuses other versions). Nothing is taken out of any model: a check that loads
a model with its ZipMaps removed, or checks it with an older onnx, passes results that users cannot load.

MODELS_DIR holds the models (every *.onnx directly in it) and says where each came from (a PROVENANCE.md beside them:
their licenses do not let the project ship them). For each model and target (`default`: no --target-opset;
otherwise `--target-opset=N`):
  1. `CLI IN OUT [--target-opset=N]` must exit 0 and write OUT. OUT must hold no removed op in any graph, be at
     opset N when one is given, and pass onnx 1.23's `onnx.checker.check_model(OUT, full_check=True)` (strict
     shape and type inference) as it is, the whole model.
  2. onnxruntime 1.31's Python InferenceSession (CPUExecutionProvider, ORT's default session options: every graph
     optimization on) loads IN and OUT whole and runs both on the same inputs: the model's own
     FILE.test_data_set_0 beside it (input_*.pb; onnx's test models, whose index inputs must be valid), else
     seeded ones (symbolic dims drawn as 1, values uniform in [0, 255), as images are; seed: the length of the
     file's stem). Every output, in the graph's order and under the same name, must be equal: a tensor of the same
     element type and shape, bit for bit (floats: by their bits, so -0 vs +0 and NaN payloads count; strings
     exactly); a sequence of maps (ZipMap's output) of the same length, each map with the same keys and each value
     exactly equal (by its bits). Allowances, each named with its reason: MVN_ULP (MeanVarianceNormalization-1:
     ORT's kernel sums in its own order), ORT_DIFFERS (models ORT computes differently at another opset),
     OPTIMIZER_DIFFERS (models whose outputs differ only under ORT's graph optimizations). When the outputs
     differ, both are run again at ORT_ENABLE_EXTENDED, ORT_ENABLE_BASIC, ORT_DISABLE_ALL, then also without
     weight pre-packing: where they first agree the line names the level (or the pre-packing) the difference
     comes from, an artifact of ORT's optimizer; it still fails unless OPTIMIZER_DIFFERS names the model.
  2'. At a target past ORT_MAX_OPSET (27, 28: ORT 1.31 runs opsets to 26), the model runner (model_runner_cli,
     beside CLI or --runner) runs IN, read as its era, and OUT on the same inputs instead: identical outputs
     (within REFERENCE_ULP where IN holds a removed op, which the runner computes by its rule's reference kernel).
  3. A model ORT 1.31 does not load as written (IR < 3 or no ir_version, opset < 7, no opset_import, an op or
     attribute ORT does not know; the line says which and quotes ORT) has no oracle: OUT must load and run in ORT,
     and where the model comes with its exporter's own outputs (FILE.test_data_set_0 with output_*.pb: PyTorch
     0.3's, say), OUT's outputs must equal them within EXPORTER_ULP ULPs or EXPORTER_ABS (the exporter's framework
     summed in an order of its own). The one exception: OUT at an ai.onnx opset below 7 (the default target keeps a
     legal model's opset), which ORT does not run; then step 1 is all there is, and the line says so.
A model that is not ONNX (EXPECTED_REFUSALS: why) must be refused instead: exit 3, the message saying so, no OUT.
ORT runs in a child process of this script (a crash or a hang in ORT fails one line, not the run).
One line per model and target, then `N passed, M failed`; the exit status is non-zero when anything failed.
Scratch: SCRATCH_DIR/STEM_TARGET/ holds legalized.onnx, cli.log, the seeded inputs (inputs/input_*.pb) and each
run's outputs (*.pkl).
"""

import argparse
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

# Version-neutral helpers shared with the ctest differential (which runs under /usr/bin/python3 and onnx 1.12):
# the removed ops' list and the CLI, selection and PASS/FAIL plumbing.
import run_differential
from run_differential import Failure, default_opset, float_ulp_distance, removed_ops_left, run_checks, run_cli, \
    select_only

ONNX_VERSION, ORT_VERSION = "1.23.2", "1.31.1"
ORT_TIMEOUT = 900
# The newest default opset ONNX Runtime 1.31 runs; a result at a later one (27, 28) is run by the model runner.
ORT_MAX_OPSET = 26
# model_runner_cli (tests/differential/model_runner_cli.cc): beside the CLI in the build's bin/, or --runner.
RUNNER = None
# Ops of ONNX's first releases that a rule rewrites and whose reference kernel the runner uses likewise.
ERA_RULE_OPS = {"FC", "LegacyPadding"}

# MeanVarianceNormalization-1 over each channel: ONNX Runtime's kernel sums in another order than any ReduceMean
# (testdata/make_removed_op_models.py's MVN_ULP); every other difference must be none.
MVN_ULP = 4
# The outputs an exporter stored beside its model were computed by its own framework (PyTorch 0.3's THNN, say),
# whose sums run in another order than ONNX Runtime's MLAS.
EXPORTER_ULP = 16
EXPORTER_ABS = 1e-6
# The runner computes a removed op of an original read as its era (FC, say) by its rule's reference kernel, whose
# products are summed in order, where its Gemm kernel for the rewrite sums in blocks: the allowance of an
# exporter's own outputs (ULPs, or an absolute difference for the small values a Softmax makes).
REFERENCE_ULP, REFERENCE_ABS = EXPORTER_ULP, EXPORTER_ABS

# Models that are not ONNX and must be refused (exit 3), by file: what the refusal says, and why.
EXPECTED_REFUSALS = {
    "pt03_lstm_constantfill_opset6.onnx": (
        # LSTM-7's inference says the first; LSTM-22's (from opset 22) the second.
        ("First input tensor must have rank 3", "Input 0 expected to have rank 3 but has rank 4"),
        "PyTorch 0.3 wrote each layer's Y at rank 3 (ONNX's is rank 4) and fed it to the next layer as X, with a "
        "lower-case activation: only Caffe2 ran it"),
    "pt03_rnn_constantfill_opset6.onnx": (
        "W '1' is of rank 2",
        "PyTorch 0.3 wrote 2-D weights (ONNX's are rank 3) and fed each layer's rank-3 Y to the next as X: only "
        "Caffe2 ran it"),
    "ngraph_mvn_model_ir0_noopset.onnx": (
        "'Y' is defined twice",
        "nGraph's test model of an expanded MeanVarianceNormalization writes its output 'Y' from two nodes: no "
        "ONNX model defines a name twice"),
    "pt03_rnn_single_layer_2dW_opset6.onnx": (
        "W '1' is of rank 2",
        "PyTorch 0.3 wrote 2-D weights (ONNX's are rank 3; onnx/onnx#926 re-exported the model with them "
        "Unsqueezed): only Caffe2 ran it"),
    "onnxtest_pt03_rnn_single_layer_relu_opset6.onnx": (
        "W '1' is of rank 2",
        "onnx's own test_operator_rnn_single_layer of 2018-04, PyTorch 0.3's 2-D weights (onnx/onnx#960 re-exported it "
        "with them Unsqueezed: onnxtest_pt03_rnn_single_layer_relu_squeeze_opset6): only Caffe2 ran it"),
    "winml_mel_spectrogram_opset13_noname.onnx": (
        "No opset import for domain 'com.microsoft.experimental'",
        "Windows ML's mel-spectrogram model uses com.microsoft.experimental's HannWindow, STFT and MelWeightMatrix "
        "without importing the domain: ONNX Runtime 1.31 loads neither it nor the ops"),
}

# Models of a custom op's sample, by file: its domain, which ONNX Runtime loads only with the op's own library
# registered (SessionOptions.register_custom_ops_library), and why. Neither form loads in a stock ONNX Runtime; the
# result is held to onnx's full check, and ORT must refuse it for that op and nothing else.
CUSTOM_OP_DOMAINS = {
    "wml_noisy_relu_ir0_customop.onnx": (
        "MyNoisyReluDomain",
        "Windows ML's custom-operator sample: one NoisyRelu node, computed by the sample's own DLL"),
}

# Where ONNX Runtime itself computes the original and the legalized model differently, by file: the ULPs allowed
# when the legalized model is at another opset, and why.
ORT_DIFFERS = {
    "wml_squeezenet_caffe2_fp16_opset7.onnx": (
        1, "ONNX Runtime has no float16 CPU kernel of Conv or Dropout-13: at 13 and later the Casts it inserts keep "
           "Concat -> Dropout -> Conv in float, where at 7 it rounds to float16 at the Concat (the rewrites of "
           "Dropout and Softmax are exact)"),
}

# Where the outputs differ under ORT's default session options only (its graph optimizations or weight pre-packing
# fuse or pack the original and the legalized graph differently) and are identical with them off, by file: why.
OPTIMIZER_DIFFERS = {}

# Session options of each run: (what the line calls it, graph optimization level, weight pre-packing on). The
# default is ORT's (ORT_ENABLE_ALL, pre-packing on); the reruns step the level down to find the one that differs.
DEFAULT_RUN = ("ORT_ENABLE_ALL", "all", True)
RERUNS = (("ORT_ENABLE_EXTENDED", "extended", True), ("ORT_ENABLE_BASIC", "basic", True),
          ("ORT_DISABLE_ALL", "disabled", True), ("ORT_DISABLE_ALL without weight pre-packing", "disabled", False))


# ---------------------------------------------------------------------------------------------- ORT, in a child

def ort_worker(model_path, feeds_path, result_path, level, prepack):
    """Child process: loads the model whole in an InferenceSession and runs it on the pickled feeds; pickles
    {"names", "types", "values"}. Exit 3: ORT refused to load it; 4: it failed to run it."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.graph_optimization_level = {
        "disabled": ort.GraphOptimizationLevel.ORT_DISABLE_ALL, "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    }[level]
    if not prepack:
        options.add_session_config_entry("session.disable_prepacking", "1")
    try:
        session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - the refusal is the finding
        sys.stderr.write(str(e))
        return 3
    with open(feeds_path, "rb") as f:
        feeds = pickle.load(f)
    try:
        values = session.run(None, feeds)
    except Exception as e:  # noqa: BLE001
        sys.stderr.write(str(e))
        return 4
    with open(result_path, "wb") as f:
        pickle.dump({"names": [o.name for o in session.get_outputs()],
                     "types": [o.type for o in session.get_outputs()], "values": values}, f)
    return 0


def ort_message(text):
    """ORT's error, without its code, source location and the model's path; a node's error as node and error."""
    text = " ".join(text.split())
    text = re.sub(r"^\[ONNXRuntimeError\] : \d+ : \w+ : ", "", text)
    text = re.sub(r"^Load model from \S+ failed:\s*", "", text)
    text = re.sub(r"^\S+\.(cc|h):\d+ .*?\) (?=[A-Z])", "", text)
    node = re.match(r'This is an invalid model\. In Node, \("([^"]*)", ([^,]+), "([^"]*)", -?\d+\) : .*? , (.*)$', text)
    if node:
        text = f"node {node.group(2)} '{node.group(1)}' ({node.group(3) or 'ai.onnx'}): {node.group(4)}"
    return text if len(text) <= 300 else text[:297] + "..."


class OrtRun:
    def __init__(self, error=None, stage=None, names=(), types=(), values=()):
        self.error, self.stage, self.names, self.types, self.values = error, stage, list(names), list(types), list(values)


def run_ort(model_path, feeds_path, result_path, session):
    _, level, prepack = session
    if os.path.exists(result_path):
        os.remove(result_path)
    cmd = [sys.executable, os.path.abspath(__file__), "--ort-worker", model_path, feeds_path, result_path,
           level, "1" if prepack else "0"]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=ORT_TIMEOUT)
    except subprocess.TimeoutExpired:
        return OrtRun(f"timed out after {ORT_TIMEOUT}s", "run")
    if p.returncode == 3:
        return OrtRun(ort_message(p.stderr), "load")
    if p.returncode != 0:
        why = ort_message(p.stderr) if p.returncode == 4 else \
            f"exit {p.returncode}: {(p.stderr.strip().splitlines() or [''])[-1]}"
        return OrtRun(why, "run")
    with open(result_path, "rb") as f:
        result = pickle.load(f)
    return OrtRun(None, None, result["names"], result["types"], result["values"])


# ---------------------------------------------------------------------------------------------- inputs

def real_inputs(model):
    initializers = {t.name for t in model.graph.initializer}
    return [v for v in model.graph.input if v.name not in initializers]


def seeded_inputs(model, folder, seed):
    """Seeded inputs for the model's graph inputs that no initializer sets, written to folder/input_K.pb too."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    feeds = {}
    for k, value in enumerate(real_inputs(model)):
        if not value.type.HasField("tensor_type"):
            raise Failure(f"input '{value.name}' is not a tensor: no seeded input for it")
        tensor_type = value.type.tensor_type
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in tensor_type.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        draws = rng.random(dims) * 255
        array = draws.astype(np.int64).astype(str).astype(object) if dtype == object else draws.astype(dtype)
        feeds[value.name] = array
        with open(os.path.join(folder, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, value.name).SerializeToString())
    return feeds


def own_test_data(in_path):
    """The folder of the model's own test data beside it, STEM.test_data_set_0 or STEM_test_data_set_0 (both
    spellings are in use: onnx's test models sit beside test_data_set_0, copied under the model's stem)."""
    stem = os.path.splitext(in_path)[0]
    for folder in (stem + ".test_data_set_0", stem + "_test_data_set_0"):
        if os.path.isdir(folder):
            return folder
    return stem + ".test_data_set_0"


def stored_files(folder, prefix):
    found = [f for f in os.listdir(folder) if re.fullmatch(prefix + r"_(\d+)\.pb", f)]
    return sorted(found, key=lambda f: int(re.search(r"(\d+)", f).group(1)))


def stored_inputs(model, folder):
    """The model's own test inputs: each tensor by its name, or (unnamed, as exporters of 2017 stored them) by its
    file's position among the inputs that no initializer sets."""
    names = [v.name for v in real_inputs(model)]
    feeds = {}
    for f in stored_files(folder, "input"):
        tensor = onnx.load_tensor(os.path.join(folder, f))
        k = int(re.search(r"(\d+)", f).group(1))
        name = tensor.name or (names[k] if k < len(names) else None)
        if name is None or name not in names or name in feeds:
            raise Failure(f"{folder}/{f}: no input of the model to feed it to")
        feeds[name] = numpy_helper.to_array(tensor)
    return feeds


# ---------------------------------------------------------------------------------------------- comparing

def float_bits(x):
    return struct.pack("<d", x)


def compare_floats(got, want, max_ulp, abs_tol):
    """None when the float arrays agree (bit for bit when max_ulp and abs_tol are 0), else what differs."""
    itype = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    g, w = np.ascontiguousarray(got), np.ascontiguousarray(want)
    differ = g.view(itype) != w.view(itype)
    if not differ.any():
        return None
    gn, wn = np.isnan(g), np.isnan(w)
    with np.errstate(invalid="ignore", over="ignore"):
        same = (g == w) | (gn & wn)
        ulp = np.where(same | gn | wn, 0, float_ulp_distance(g, w)).astype(np.float64)
        absd = np.where(same | gn | wn, 0.0, np.abs(g.astype(np.float64) - w.astype(np.float64)))
    if max_ulp or abs_tol:
        bad = (gn != wn) | (~same & (ulp > max_ulp) & ~(absd <= abs_tol))
        if not bad.any():
            return None
        allowed = f"beyond {max_ulp} ULP / abs {abs_tol:g}"
    else:
        bad, allowed = differ, "differ bit for bit"
    k = int(np.flatnonzero(bad)[0])
    parts = [f"{int(bad.sum())} of {bad.size} element(s) {allowed}"]
    values = ~same & ~gn & ~wn
    if values.any():
        parts.append(f"max {int(ulp.max())} ULP, max |diff| {float(absd.max()):.3g}")
    if int(np.sum(differ & same & ~gn)):
        parts.append(f"{int(np.sum(differ & same & ~gn))} only in the sign of zero")
    if int(np.sum(gn != wn)):
        parts.append(f"{int(np.sum(gn != wn))} NaN vs a number")
    if int(np.sum(differ & gn & wn)):
        parts.append(f"{int(np.sum(differ & gn & wn))} NaN vs NaN of other bits")
    parts.append(f"first at flat index {k}: {g.flat[k].item()!r} vs {w.flat[k].item()!r}")
    return "; ".join(parts)


def describe(value):
    if isinstance(value, np.ndarray):
        return f"tensor({value.dtype}) {list(value.shape)}"
    if isinstance(value, list):
        return f"sequence of {len(value)}" + (f" {describe(value[0])}" if value else "")
    if isinstance(value, dict):
        return "map" + (f" of {type(next(iter(value.values()))).__name__}" if value else "")
    return type(value).__name__


def holds_default_domain_node(model):
    """Whether a graph of the model (subgraphs included) holds a node of the default domain."""
    def graph_holds(graph):
        for node in graph.node:
            if node.domain in ("", "ai.onnx"):
                return True
            for attribute in node.attribute:
                if attribute.HasField("g") and graph_holds(attribute.g):
                    return True
                if any(graph_holds(g) for g in attribute.graphs):
                    return True
        return False
    return graph_holds(model.graph)


def outputs_declared_anew(cli_text):
    """The graph outputs the CLI's summary says it declared anew (an interface change the report lists)."""
    return set(re.findall(r"^  output '(.*)' declared anew: ", cli_text, flags=re.MULTILINE))


def same_but_for_unit_dims(got, want):
    """Whether two arrays hold as many elements and differ in shape by dims of 1 only (an axis of one declared
    anew: PyTorch 0.3's RNN output without the num_directions axis ONNX gives it)."""
    return (isinstance(got, np.ndarray) and isinstance(want, np.ndarray) and got.size == want.size
            and [d for d in got.shape if d != 1] == [d for d in want.shape if d != 1])


def compare_values(got, want, where, max_ulp, abs_tol):
    """What differs between an output of the legalized model (got) and of the original (want), element by element."""
    if isinstance(got, np.ndarray) and isinstance(want, np.ndarray):
        if got.dtype != want.dtype or got.shape != want.shape:
            return [f"{where}: {describe(got)} vs {describe(want)}"]
        if got.dtype.kind == "f":
            why = compare_floats(got, want, max_ulp, abs_tol)
            return [f"{where}: {why}"] if why else []
        equal = got == want
        if not np.all(equal):
            k = int(np.flatnonzero(~np.asarray(equal))[0])
            return [f"{where}: {int(np.sum(~np.asarray(equal)))} element(s) differ; first at flat index {k}: "
                    f"{got.flat[k].item()!r} vs {want.flat[k].item()!r}"]
        return []
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return [f"{where}: a sequence of {len(got)} vs {len(want)}"]
        problems = []
        for k, (g, w) in enumerate(zip(got, want)):
            problems += compare_values(g, w, f"{where}[{k}]", max_ulp, abs_tol)
            if len(problems) >= 3:
                break
        return problems
    if isinstance(got, dict) and isinstance(want, dict):
        if list(got) != list(want):
            missing, extra = [k for k in want if k not in got], [k for k in got if k not in want]
            return [f"{where}: keys differ" + (f" (missing {missing[:5]})" if missing else "") +
                    (f" (extra {extra[:5]})" if extra else "") + ("" if missing or extra else " in order")]
        problems = []
        for key in want:
            g, w = got[key], want[key]
            if isinstance(g, float) and isinstance(w, float):
                if float_bits(g) == float_bits(w):
                    continue
                # A map's float value is a float32 made a Python float: its ULPs are float32's.
                dtype = np.float32 if np.float32(g) == g and np.float32(w) == w else np.float64
                ga, wa = np.array([g], dtype), np.array([w], dtype)
                if compare_floats(ga, wa, max_ulp, abs_tol):
                    with np.errstate(invalid="ignore", over="ignore"):
                        ulp = int(float_ulp_distance(ga, wa)[0]) if not np.isnan(ga[0]) and not np.isnan(wa[0]) else None
                    problems.append(f"{where}[{key!r}]: {g!r} vs {w!r}" + (f" ({ulp} ULP of {dtype.__name__})"
                                                                            if ulp is not None else ""))
            else:
                problems += compare_values(g, w, f"{where}[{key!r}]", max_ulp, abs_tol)
            if len(problems) >= 3:
                break
        return problems
    if got is None and want is None:
        return []
    if type(got) is type(want) and not isinstance(got, (np.ndarray, list, dict)):
        return [] if got == want else [f"{where}: {got!r} vs {want!r}"]
    return [f"{where}: {describe(got)} vs {describe(want)}"]


def compare_runs(got, want, max_ulp, abs_tol):
    """What differs between the legalized model's run (got) and the original's (want): outputs by name and order."""
    if got.names != want.names:
        return [f"outputs {got.names} vs the original's {want.names}"]
    problems = []
    for name, t_got, t_want, g, w in zip(want.names, got.types, want.types, got.values, want.values):
        if t_got != t_want:
            problems.append(f"output '{name}': ORT's type {t_got} vs the original's {t_want}")
        problems += compare_values(g, w, f"output '{name}'", max_ulp, abs_tol)
    return problems


def kinds(run):
    maps = sum(1 for t in run.types if "map(" in t)
    return f"{len(run.types)} output(s)" + (f", {maps} a sequence of maps" if maps else "")


# ---------------------------------------------------------------------------------------------- one model, one target

def opset_text(model):
    v = default_opset(model)
    return "none" if v is None else str(v)


def ort_cannot(model, run):
    """Why ORT does not load (or run) the model: the legacy trait it has, if any, then ORT's own words."""
    traits = []
    if model.ir_version < 3:
        traits.append(f"IR {model.ir_version}" if model.ir_version else "no ir_version")
    if not model.opset_import:
        traits.append("no opset_import")
    elif default_opset(model) is not None and default_opset(model) < 7:
        traits.append(f"opset {default_opset(model)} < 7")
    said = f"ORT {'refuses it' if run.stage == 'load' else 'fails to run it'}: {run.error}"
    return ", ".join(traits + [said])


def constants_made_inputs(model, out):
    """Why ORT may compute OUT otherwise under its optimizations: at IR < 4 an initializer listed in graph.input is
    a constant; at IR >= 4 it is an overridable input, which ORT neither folds, nor lays out, nor pre-packs."""
    if model.ir_version >= 4 or out.ir_version < 4:
        return ""
    initializers = {t.name for t in out.graph.initializer}
    listed = sum(1 for v in out.graph.input if v.name in initializers)
    if not listed:
        return ""
    return (f"; the legalized model (IR {out.ir_version}) lists {listed} of the IR-{model.ir_version} model's constant "
            f"initializers as graph inputs, which ORT takes as overridable, not constant")


def check(cli, in_path, scratch, target):
    base = os.path.basename(in_path)
    name = os.path.splitext(base)[0]
    work = os.path.join(scratch, f"{name}_{target}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out_path = os.path.join(work, "legalized.onnx")
    p = run_cli(cli, in_path, out_path, work, None if target == "default" else int(target))
    refusal = EXPECTED_REFUSALS.get(base)
    if refusal is not None:
        said = refusal[0] if isinstance(refusal[0], tuple) else (refusal[0],)
        if p.returncode != 3 or not any(s in p.stdout + p.stderr for s in said) or os.path.exists(out_path):
            raise Failure(f"expected a refusal saying '{' or '.join(said)}' ({refusal[1]}); CLI exited {p.returncode}")
        return f"refused as it must be: {refusal[1]}"
    if p.returncode != 0:
        said = " ".join((p.stderr.strip() or p.stdout.strip()).split())
        raise Failure(f"CLI exited {p.returncode}: {said if len(said) <= 500 else said[:497] + '...'}")
    if not os.path.isfile(out_path):
        raise Failure("CLI exited 0 but wrote no output model")

    # 1. OUT as written: no removed op, the target opset, onnx 1.23's full check of the whole model.
    model, out = onnx.load(in_path), onnx.load(out_path)
    problems = [f"{op} left in {where}" for op, where in removed_ops_left(out)]
    # A model of no default-domain node (ai.onnx.ml alone) has no default opset to move, and gains no import.
    if target != "default" and default_opset(out) != int(target) and not (default_opset(out) is None and
                                                                          not holds_default_domain_node(out)):
        problems.append(f"default opset {opset_text(out)}, not {target}")
    try:
        onnx.checker.check_model(out, full_check=True)
    except Exception as e:  # noqa: BLE001
        problems.append(f"onnx {onnx.__version__} check_model(full_check=True): "
                        f"{' '.join(str(e).split())[:300] or type(e).__name__}")
    moved = f"opset {opset_text(model)} -> {opset_text(out)}"
    # (A model of ai.onnx.ml alone gains no default opset: ONNX Runtime runs it at any target.)
    if (default_opset(out) or 0) > ORT_MAX_OPSET:
        return check_beyond_ort(in_path, out_path, model, work, len(name), moved, problems)

    # 2. Both models whole in ORT, on the model's own inputs or seeded ones.
    own = own_test_data(in_path)
    own_inputs = os.path.isdir(own) and bool(stored_files(own, "input"))
    feeds = stored_inputs(model, own) if own_inputs else seeded_inputs(model, os.path.join(work, "inputs"), len(name))
    feeds_path = os.path.join(work, "feeds.pkl")
    with open(feeds_path, "wb") as f:
        pickle.dump(feeds, f)
    original = run_ort(in_path, feeds_path, os.path.join(work, "original.pkl"), DEFAULT_RUN)
    legalized = run_ort(out_path, feeds_path, os.path.join(work, "legalized.pkl"), DEFAULT_RUN)

    if original.error:
        # 3. No oracle: OUT must run, and give the exporter's own outputs where they are stored.
        unrun = f"ORT {ORT_VERSION} does not load the original ({ort_cannot(model, original)})"
        if original.stage == "run":
            unrun = f"ORT {ORT_VERSION} does not run the original ({ort_cannot(model, original)})"
        if legalized.error:
            out_opset = default_opset(out)
            if out_opset is not None and out_opset < 7 and not problems:
                return (f"{moved}; {unrun}; nor the legalized model, at opset {out_opset} < 7: checked by onnx "
                        f"{onnx.__version__} only")
            custom = CUSTOM_OP_DOMAINS.get(base)
            if custom and f"{custom[0]}:" in legalized.error and "is not a registered function/op" in legalized.error \
                    and not problems:
                return (f"{moved}; {unrun}; nor the legalized model without the library of custom domain "
                        f"'{custom[0]}' ({custom[1]}): checked by onnx {onnx.__version__} only")
            problems.append(f"ORT {ORT_VERSION} {'refuses' if legalized.stage == 'load' else 'fails to run'} the "
                            f"legalized model: {legalized.error}")
            raise Failure("; ".join(problems + [unrun]))
        expected = stored_files(own, "output") if own_inputs else []
        redeclared = outputs_declared_anew(p.stdout + p.stderr)
        if expected:
            if len(expected) != len(legalized.values):
                problems.append(f"{len(legalized.values)} outputs vs the exporter's {len(expected)}")
            for f, name_k, value in zip(expected, legalized.names, legalized.values):
                tensor = onnx.load_tensor(os.path.join(own, f))
                if tensor.name and tensor.name != name_k:
                    problems.append(f"output '{name_k}' vs the exporter's '{tensor.name}'")
                want = numpy_helper.to_array(tensor)
                if name_k in redeclared and same_but_for_unit_dims(value, want):
                    value = value.reshape(want.shape)  # the report names the new declaration: the same values
                problems += [f"vs the exporter's outputs: {d}" for d in
                             compare_values(value, want, f"output '{name_k}'", EXPORTER_ULP, EXPORTER_ABS)]
        if problems:
            raise Failure("; ".join(problems + [unrun]))
        if expected:
            return (f"{moved}; {unrun}; the legalized model gives the exporter's own stored outputs "
                    f"(within {EXPORTER_ULP} ULP / abs {EXPORTER_ABS:g})")
        return f"{moved}; {unrun}; it loads and runs the legalized model ({kinds(legalized)})"

    if legalized.error:
        problems.append(f"ORT {ORT_VERSION} {'refuses' if legalized.stage == 'load' else 'fails to run'} the "
                        f"legalized model (it runs the original): {legalized.error}")
        raise Failure("; ".join(problems))

    max_ulp = MVN_ULP if any(n.op_type == "MeanVarianceNormalization" for n in model.graph.node) else 0
    ort_differs = ORT_DIFFERS.get(base)
    if ort_differs is not None and default_opset(out) != default_opset(model):
        max_ulp = max(max_ulp, ort_differs[0])
    differences = compare_runs(legalized, original, max_ulp, 0.0)
    inputs_said = "its own test inputs" if own_inputs else "seeded inputs"
    tolerance = f"within {max_ulp} ULP" if max_ulp else "identical"
    if not differences:
        if problems:
            raise Failure("; ".join(problems + [f"(outputs {tolerance} in ORT {ORT_VERSION})"]))
        return f"{moved}; {tolerance} in ORT {ORT_VERSION} on {inputs_said} ({kinds(original)})"

    # The outputs differ under ORT's default options: again at lower optimization levels, to tell the artifacts of
    # its optimizer apart (the first level, going down, at which the two agree).
    shown = "; ".join(differences[:3]) + (f"; and {len(differences) - 3} more" if len(differences) > 3 else "")
    previous = DEFAULT_RUN[0]
    for session in RERUNS:
        o = run_ort(in_path, feeds_path, os.path.join(work, f"original_{session[1]}.pkl"), session)
        l = run_ort(out_path, feeds_path, os.path.join(work, f"legalized_{session[1]}.pkl"), session)
        if o.error or l.error:
            continue
        if not compare_runs(l, o, max_ulp, 0.0):
            artifact = (f"{tolerance} with {session[0]}, not with {previous}: an artifact of ORT's "
                        f"{'weight pre-packing' if session is RERUNS[-1] else previous + ' optimizations'}"
                        f"{constants_made_inputs(model, out)}")
            if base in OPTIMIZER_DIFFERS and not problems:
                return (f"{moved}; under ORT {ORT_VERSION}'s default options: {shown}; {artifact} "
                        f"({OPTIMIZER_DIFFERS[base]})")
            raise Failure("; ".join(problems + [
                f"under ORT {ORT_VERSION}'s default options: {shown}; {artifact} (OPTIMIZER_DIFFERS names none for "
                f"this model)"]))
        previous = session[0]
    raise Failure("; ".join(problems + [f"legalized vs original in ORT {ORT_VERSION}: {shown} (at every "
                                        f"optimization level, and without weight pre-packing){constants_made_inputs(model, out)}"]))


def zipmaps(model):
    """The main graph's ai.onnx.ml ZipMaps, serialized, in order."""
    return [n.SerializeToString() for n in model.graph.node if n.op_type == "ZipMap" and n.domain == "ai.onnx.ml"]


def run_runner(model_path, inputs_dir, outputs_dir, as_its_era, zipmap_scores):
    """The model runner's outputs for the inputs in inputs_dir (named TensorProtos), in the graph's order, or raises
    Failure with the runner's message. zipmap_scores: a ZipMap gives its scores (the runner holds no maps)."""
    os.makedirs(outputs_dir, exist_ok=True)
    command = ([RUNNER] + (["--as-its-era"] if as_its_era else []) + (["--zipmap-scores"] if zipmap_scores else [])
               + [model_path, inputs_dir, outputs_dir])
    p = subprocess.run(command, capture_output=True, text=True, timeout=ORT_TIMEOUT, check=False)
    if p.returncode != 0:
        form = "original (as its era)" if as_its_era else "legalized model"
        raise Failure(f"the model runner fails the {form}: {' '.join(p.stderr.split())[:300]}")
    return [numpy_helper.to_array(onnx.load_tensor(os.path.join(outputs_dir, f)))
            for f in stored_files(outputs_dir, "output")]


def check_beyond_ort(in_path, out_path, model, work, seed, moved, problems):
    """Step 2 for a target past ORT_MAX_OPSET, which ONNX Runtime does not run: the model runner runs IN (read as
    its era, its removed ops by their reference kernels) and OUT on the same seeded inputs, and every output must
    be identical, bit for bit. The runner is checked against ONNX Runtime elsewhere (ort_runner_kernels). The runner
    holds no sequence of maps: a ZipMap (ai.onnx.ml, which the move leaves alone) must be the very same node in both,
    and gives its scores in both."""
    custom = CUSTOM_OP_DOMAINS.get(os.path.basename(in_path))
    if custom and not problems:
        return (f"{moved}; past ORT {ORT_VERSION}'s opset {ORT_MAX_OPSET}, and an op of custom domain '{custom[0]}' "
                f"({custom[1]}), which no runner here computes: checked by onnx {onnx.__version__} only")
    if RUNNER is None:
        raise Failure(f"target past opset {ORT_MAX_OPSET} and no model_runner_cli beside the CLI (--runner)")
    own = own_test_data(in_path)
    inputs_dir = os.path.join(work, "inputs")
    if os.path.isdir(own) and stored_files(own, "input"):
        os.makedirs(inputs_dir, exist_ok=True)
        for k, (input_name, array) in enumerate(stored_inputs(model, own).items()):
            with open(os.path.join(inputs_dir, f"input_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(array, input_name).SerializeToString())
    else:
        seeded_inputs(model, inputs_dir, seed)
    out = onnx.load(out_path)
    by_scores = bool(zipmaps(model))
    if zipmaps(model) != zipmaps(out):
        problems.append("the ZipMaps differ between the original and the result")
    original = run_runner(in_path, inputs_dir, os.path.join(work, "runner_original"), True, by_scores)
    legalized = run_runner(out_path, inputs_dir, os.path.join(work, "runner_legalized"), False, by_scores)
    names = [o.name for o in model.graph.output]
    if len(original) != len(legalized):
        problems.append(f"{len(legalized)} outputs vs the original's {len(original)} in the model runner")
    by_reference = removed_ops_left(model) or any(n.op_type in ERA_RULE_OPS
                                                  for n, _ in run_differential.graphs_of(model))
    max_ulp, abs_tol = (REFERENCE_ULP, REFERENCE_ABS) if by_reference else (0, 0.0)
    for output_name, got, want in zip(names, legalized, original):
        problems += compare_values(got, want, f"output '{output_name}'", max_ulp, abs_tol)
    if problems:
        raise Failure("; ".join(problems))
    scores = "; ZipMaps the same node, compared by their scores" if by_scores else ""
    tolerance = (f"within {max_ulp} ULP or {abs_tol:g} (removed or era ops by their reference kernels)" if max_ulp
                 else "identical")
    return (f"{moved}; past ORT {ORT_VERSION}'s opset {ORT_MAX_OPSET}: {tolerance} in the model runner "
            f"({len(legalized)} outputs{scores})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli", help="the onnx-legalize binary")
    ap.add_argument("models_dir", help="a folder of real legacy models (*.onnx) and their PROVENANCE.md")
    ap.add_argument("scratch_dir", help="where legalized models and outputs go (created)")
    ap.add_argument("--targets", nargs="+", default=["default", "13", "17"], help="'default' and/or opsets")
    ap.add_argument("--only", nargs="+", metavar="FILE", help="run only these files of MODELS_DIR")
    ap.add_argument("--runner", metavar="PATH", help="model_runner_cli, for targets past ORT's (default: beside CLI)")
    ap.add_argument("--cli-timeout", type=int, default=run_differential.CLI_TIMEOUT, metavar="S",
                    help=f"seconds the CLI may take on one model and target (default {run_differential.CLI_TIMEOUT})")
    args = ap.parse_args()
    run_differential.CLI_TIMEOUT = args.cli_timeout
    for target in args.targets:
        if target != "default" and not target.isdigit():
            ap.error(f"--targets: '{target}' is neither 'default' nor an opset")
    import onnxruntime
    if (onnx.__version__, onnxruntime.__version__) != (ONNX_VERSION, ORT_VERSION):
        sys.exit(f"run_real_models: onnx {onnx.__version__} and onnxruntime {onnxruntime.__version__} here, not "
                 f"{ONNX_VERSION} and {ORT_VERSION}: run it with the python that scripts/install-python-env.sh "
                 "prints")
    files = [{"file": f} for f in sorted(os.listdir(args.models_dir)) if f.endswith(".onnx")]
    files = select_only(files, args.only, "file")
    cli, scratch = os.path.abspath(args.cli), os.path.abspath(args.scratch_dir)
    global RUNNER
    beside = os.path.join(os.path.dirname(cli), "model_runner_cli")
    RUNNER = os.path.abspath(args.runner) if args.runner else (beside if os.path.isfile(beside) else None)
    os.makedirs(scratch, exist_ok=True)
    return run_checks((f"{entry['file']} [{target}]",
                       lambda entry=entry, target=target: check(cli, os.path.join(args.models_dir, entry["file"]),
                                                                scratch, target))
                      for entry in files for target in args.targets)


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--ort-worker":
        sys.exit(ort_worker(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6] == "1"))
    sys.exit(main())
