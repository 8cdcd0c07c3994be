#!/usr/bin/python3
"""Differential test of the onnx-legalize CLI against ONNX Runtime, on the legacy models of testdata/legacy.

Usage:
    "$PY" tests/differential/run_differential.py CLI LEGACY_DIR SCRATCH_DIR [--only NAME ...]
        [--target-opset N]

With --target-opset N the CLI is run as `CLI IN OUT --target-opset=N` and OUT's default opset must be N: the
other ops of the legacy models then change semantics on the way (Upsample, Slice-1, TopK, Clip, Pad,
Squeeze/Unsqueeze, Softmax, Split, ReduceSum ...), and ONNX Runtime must still give identical outputs.

For every model of LEGACY_DIR/manifest.json (written by testdata/make_legacy_models.py):
  1. `CLI IN OUT` must exit 0 and write OUT.
  2. OUT is checked without running it: no DynamicSlice left anywhere (graph, subgraphs, functions); a default
     opset >= 10 unless every DynamicSlice of IN folds (and never below IN's); when the opset changed, an
     ir_version that fits the new one;
     onnx.checker passes; the same inputs (names, order, element types) and outputs (names, order, element types)
     as IN; at IR >= 4, IN's overridable initializers (initializers listed in graph.input) are still graph inputs.
  3. For each input case: ONNX Runtime (tests/ort/run_model.js, CPU, graph optimizations off) runs IN and OUT on the
     same inputs and every output file must match byte for byte. Where the generator saved numpy's expected
     outputs, ORT's outputs of IN and OUT must match those too. A model ORT must not run as written (a DynamicSlice
     at opset >= 10) is checked to be refused, and OUT is compared with numpy's expectation only.
The same driver runs testdata/removed_ops/manifest.json (written by testdata/make_removed_op_models.py): its entries carry
a `removed_ops` field, and for them
  1. a model with `expect_refusal` must make the CLI exit 3, write no OUT, and name (in its output) every word of
     `refusal_mentions`; nothing else is checked;
  2. otherwise `CLI IN OUT` must exit 0; OUT must hold none of the removed ops (ImageScaler, Crop, Affine, ScaledTanh,
     ParametricSoftplus, Scale, ConstantFill, GivenTensorFill, GRUUnit, ATen, DynamicSlice; ThresholdedRelu below
     opset 10; MeanVarianceNormalization with MVN-1's attributes or below opset 9; Upsample at opset >= 10) in any
     graph or function, import `expect_default_opset` when no --target-opset is given (when the manifest names one),
     pass onnx.checker with full_check=True, keep IN's interface as above;
  3. ONNX Runtime runs IN (unless `ort_runs_original` is false; or the entry's `ort_reference`, IN's twin at an
     opset where ORT still runs the removed op, e.g. MVN-1 written at opset 9) and OUT on every case: per element, both NaN, or equal
     within `max_ulp` ULPs or `abs_tol` (both 0: the output files must be equal byte for byte); numpy's expectations,
     where saved, are held to the same rule (ORT's run of IN to byte equality: they are only saved where exact).
One line per model, then `N passed, M failed`; the exit status is non-zero when anything failed.
Python: the project's environment, PY=$(scripts/install-python-env.sh) (onnx 1.23.2, numpy). Node: tests/ort/install.sh is run
first (quick when ONNX Runtime is already installed).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_DIR = os.path.normpath(os.path.join(HERE, "..", "ort"))
RUN_MODEL = os.path.join(ORT_DIR, "run_model.js")
CLI_TIMEOUT = 300
ORT_TIMEOUT = 300


class Failure(Exception):
    pass


# ---------------------------------------------------------------------------------------------- static checks

def default_opset(model):
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    return max(versions) if versions else None


def min_ir_for_opset(opset):
    """Lowest IR version of an onnx release whose default-domain opset reaches `opset` (helper.VERSION_TABLE)."""
    fits = [ir for (_, ir, ai_onnx, *_rest) in helper.VERSION_TABLE if ai_onnx >= opset]
    return min(fits) if fits else None


def graphs_of(model):
    """Every graph of the model: the main graph, subgraphs at any depth, and function bodies' subgraphs."""
    def walk_nodes(nodes, where):
        for node in nodes:
            yield node, where
            for attr in node.attribute:
                subs = list(attr.graphs) + ([attr.g] if attr.HasField("g") else [])
                for sub in subs:
                    yield from walk_nodes(sub.node, f"{where}/{node.name or node.op_type}.{attr.name}")
    yield from walk_nodes(model.graph.node, "graph")
    for fn in model.functions:
        yield from walk_nodes(fn.node, f"function {fn.domain}:{fn.name}")


def interface(graph):
    inits = {t.name for t in graph.initializer}
    def elem(v):
        return v.type.tensor_type.elem_type if v.type.HasField("tensor_type") else None
    real = [(v.name, elem(v)) for v in graph.input if v.name not in inits]
    overridable = [v.name for v in graph.input if v.name in inits]
    outputs = [(v.name, elem(v)) for v in graph.output]
    return real, overridable, outputs


def static_checks(entry, in_model, out_path, target_opset):
    problems = []
    try:
        out_model = onnx.load(out_path)
    except Exception as e:  # noqa: BLE001 - any load error is the finding
        raise Failure(f"OUT does not load as an ONNX model: {e}")
    left = [where for node, where in graphs_of(out_model) if node.op_type == "DynamicSlice"]
    if left:
        problems.append(f"{len(left)} DynamicSlice left (in {', '.join(sorted(set(left)))})")
    in_opset, out_opset = default_opset(in_model), default_opset(out_model)
    if out_opset is None:
        problems.append("OUT imports no default-domain opset")
    else:
        if out_opset < in_opset:
            problems.append(f"default opset lowered from {in_opset} to {out_opset}")
        if target_opset is not None and out_opset != target_opset:
            problems.append(f"default opset {out_opset}, but --target-opset={target_opset} was asked for")
        if out_opset < 10 and not entry["all_dynamic_slices_fold"]:
            problems.append(f"default opset {out_opset} < 10 although not every DynamicSlice folds")
        need_ir = min_ir_for_opset(out_opset)  # onnx 1.4's own tests pair IR 3 with opset 9: judge a change only
        if out_opset != in_opset and need_ir is not None and out_model.ir_version < need_ir:
            problems.append(f"ir_version {out_model.ir_version} too low for opset {out_opset} (needs >= {need_ir})")
    try:
        onnx.checker.check_model(out_model)
    except Exception as e:  # noqa: BLE001
        problems.append(f"onnx.checker: {str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}")
    in_real, in_over, in_outs = interface(in_model.graph)
    out_real, out_over, out_outs = interface(out_model.graph)
    if out_real != in_real:
        problems.append(f"graph inputs changed: {in_real} -> {out_real}")
    if out_outs != in_outs:
        problems.append(f"graph outputs changed: {in_outs} -> {out_outs}")
    notes = []
    if in_model.ir_version >= 4:
        lost = [n for n in in_over if n not in out_over]
        if lost:
            problems.append(f"overridable initializers no longer graph inputs: {lost}")
    elif out_model.ir_version >= 4:
        # At IR 3 these were constants; left in graph.input at IR >= 4 they become overridable defaults. Not an
        # error (the outputs are the same), but the interface grew: say so.
        still = [n for n in in_over if n in out_over]
        if still:
            notes.append(f"IR-3 constants now overridable inputs: {', '.join(still)}")
    return out_model, out_opset, problems, notes


# ---------------------------------------------------------------------------------------------- running

def run_ort(model_path, input_dir, output_dir, optimization=None):
    """Runs run_model.js (graph optimizations off, or `optimization`); returns (exit code, stderr)."""
    if os.path.isdir(output_dir):
        shutil.rmtree(output_dir)
    extra = [f"--optimization={optimization}"] if optimization else []
    try:
        p = subprocess.run(["node", RUN_MODEL, model_path, input_dir, output_dir] + extra,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=ORT_TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {ORT_TIMEOUT}s"
    return p.returncode, p.stderr.strip()


def output_files(folder):
    return sorted(f for f in os.listdir(folder) if f.startswith("output_") and f.endswith(".pb"))


def describe_difference(a_path, b_path):
    try:
        a = numpy_helper.to_array(onnx.load_tensor(a_path))
        b = numpy_helper.to_array(onnx.load_tensor(b_path))
    except Exception as e:  # noqa: BLE001
        return f"undecodable ({e})"
    ta, tb = onnx.load_tensor(a_path), onnx.load_tensor(b_path)
    if ta.name != tb.name:
        return f"name {ta.name!r} vs {tb.name!r}"
    if ta.data_type != tb.data_type:
        return f"type {ta.data_type} vs {tb.data_type}"
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    if a.dtype.kind in "fc":
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        return f"values differ at {int(np.sum(~(a == b) & ~(np.isnan(a) & np.isnan(b))))} places, max |diff| {np.nanmax(diff)}"
    return f"values differ at {int(np.sum(a != b))} places"


def compare_dirs(got_dir, want_dir, what):
    got, want = output_files(got_dir), output_files(want_dir)
    if got != want:
        return [f"{what}: output files {got} vs {want}"]
    problems = []
    for f in got:
        with open(os.path.join(got_dir, f), "rb") as a, open(os.path.join(want_dir, f), "rb") as b:
            if a.read() != b.read():
                problems.append(f"{what}: {f} {describe_difference(os.path.join(got_dir, f), os.path.join(want_dir, f))}")
    return problems


def check_model(entry, cli, legacy, scratch, target_opset):
    name = entry["name"]
    in_path = os.path.join(legacy, entry["file"])
    work = os.path.join(scratch, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out_path = os.path.join(work, "legalized.onnx")

    try:
        extra = [f"--target-opset={target_opset}"] if target_opset is not None else []
        p = subprocess.run([cli, in_path, out_path] + extra, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=CLI_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Failure(f"CLI timed out after {CLI_TIMEOUT}s")
    except OSError as e:
        raise Failure(f"CLI did not start: {e}")
    with open(os.path.join(work, "cli.log"), "w") as log:
        log.write(p.stdout + p.stderr)
    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or [""]
        raise Failure(f"CLI exited {p.returncode}: {tail[0]}")
    if not os.path.isfile(out_path):
        raise Failure("CLI exited 0 but wrote no output model")

    in_model = onnx.load(in_path)
    _, out_opset, problems, notes = static_checks(entry, in_model, out_path, target_opset)

    empty_inputs = os.path.join(work, "no_inputs")
    os.makedirs(empty_inputs, exist_ok=True)
    for case in entry["cases"]:
        inputs = os.path.join(legacy, entry["inputs_dir"], case) if entry["inputs_dir"] else empty_inputs
        expected = os.path.join(legacy, entry["expected_dir"], case) if entry["expected_dir"] else None
        orig_dir, legal_dir = os.path.join(work, case, "original"), os.path.join(work, case, "legalized")
        rc, err = run_ort(in_path, inputs, orig_dir)
        if entry["ort_runs_original"]:
            if rc != 0:
                problems.append(f"{case}: ORT failed on the ORIGINAL model (test data broken?): {err}")
                continue
            if expected:
                problems += compare_dirs(orig_dir, expected, f"{case}: original vs numpy")
        elif rc == 0:
            problems.append(f"{case}: ORT ran the original although the manifest says it must refuse it")
        rc, err = run_ort(out_path, inputs, legal_dir)
        if rc != 0:
            problems.append(f"{case}: ORT failed on the legalized model: {err.splitlines()[0] if err else rc}")
            continue
        if entry["ort_runs_original"]:
            problems += compare_dirs(legal_dir, orig_dir, f"{case}: legalized vs original")
        if expected:
            problems += compare_dirs(legal_dir, expected, f"{case}: legalized vs numpy")
    if problems:
        raise Failure("; ".join(problems))
    detail = f"opset {default_opset(in_model)} -> {out_opset}, {len(entry['cases'])} case(s)"
    return detail + "".join(f"; note: {n}" for n in notes)


# ---------------------------------------------------------------------------------------------- removed ops

# Ops ONNX 1.5 removed (plus the two it never defined and DynamicSlice): none may be left in OUT.
REMOVED_ALWAYS = {"ImageScaler", "Crop", "Affine", "ScaledTanh", "ParametricSoftplus", "Scale", "ConstantFill",
                  "GivenTensorFill", "GRUUnit", "ATen", "DynamicSlice"}
MVN1_ATTRIBUTES = {"across_channels", "normalize_variance"}


def removed_ops_left(model):
    """(op, where) of every node in OUT that is still a removed op at OUT's default opset."""
    opset = default_opset(model) or 0
    left = []
    for node, where in graphs_of(model):
        if node.domain not in ("", "ai.onnx"):
            continue
        op = node.op_type
        if op in REMOVED_ALWAYS \
                or (op == "ThresholdedRelu" and opset < 10) \
                or (op == "MeanVarianceNormalization" and
                    (opset < 9 or any(a.name in MVN1_ATTRIBUTES for a in node.attribute))) \
                or (op == "Upsample" and opset >= 10):
            left.append((op, where))
    return left


def float_ulp_distance(a, b):
    """ULP distance of two float arrays (float32, float64 or float16) on a monotonic integer line (+0 = -0)."""
    itype = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    bits = 8 * a.dtype.itemsize
    def ordered(x):
        i = np.ascontiguousarray(x).view(itype).astype(object if bits == 64 else np.int64)
        mask = (1 << (bits - 1)) - 1
        return np.where(i < 0, -(i & mask), i)
    d = ordered(a) - ordered(b)
    return np.abs(d)


def describe_bits(tg, tw):
    """For two float tensors of one name, type and shape whose bytes differ: what differs, bit for bit."""
    if tg.name != tw.name or tg.data_type != tw.data_type:
        return None
    a, b = numpy_helper.to_array(tg), numpy_helper.to_array(tw)
    if a.shape != b.shape or a.dtype.kind != "f":
        return None
    itype = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    differ = np.ascontiguousarray(a).view(itype) != np.ascontiguousarray(b).view(itype)
    an, bn = np.isnan(a), np.isnan(b)
    nan_bits = int(np.sum(differ & an & bn))
    nan_vs_number = int(np.sum(an != bn))
    zero_sign = int(np.sum(differ & (a == 0) & (b == 0)))
    other = differ & ~(an | bn) & ~((a == 0) & (b == 0))
    parts = [f"{int(np.sum(differ))} element(s) differ bit for bit"]
    if other.any():
        with np.errstate(invalid="ignore", over="ignore"):
            ulp = float_ulp_distance(a[other], b[other])
        k = int(np.flatnonzero(other)[0])
        parts.append(f"{int(np.sum(other))} in value (max {int(np.max(ulp))} ULP; first at flat index {k}: "
                     f"{a.flat[k]!r} vs {b.flat[k]!r})")
    if zero_sign:
        parts.append(f"{zero_sign} only in the sign of zero")
    if nan_bits:
        parts.append(f"{nan_bits} NaN vs NaN with other sign/payload bits")
    if nan_vs_number:
        parts.append(f"{nan_vs_number} NaN vs a number")
    return "; ".join(parts[:1]) + (": " + ", ".join(parts[1:]) if len(parts) > 1 else "")


def compare_tolerant(got_path, want_path, max_ulp, abs_tol):
    """None when the two TensorProto files agree (byte for byte when max_ulp and abs_tol are 0), else why not."""
    with open(got_path, "rb") as f:
        got_bytes = f.read()
    with open(want_path, "rb") as f:
        want_bytes = f.read()
    if got_bytes == want_bytes:
        return None
    tg, tw = onnx.load_tensor(got_path), onnx.load_tensor(want_path)
    if not max_ulp and not abs_tol:
        return describe_bits(tg, tw) or describe_difference(got_path, want_path)
    if tg.name != tw.name or tg.data_type != tw.data_type:
        return describe_difference(got_path, want_path)
    a, b = numpy_helper.to_array(tg), numpy_helper.to_array(tw)
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    if a.dtype.kind != "f":
        return describe_difference(got_path, want_path)
    an, bn = np.isnan(a), np.isnan(b)
    if np.any(an != bn):
        return f"NaN at {int(np.sum(an != bn))} places where the other has a number"
    with np.errstate(invalid="ignore", over="ignore"):
        same = (a == b) | an  # equal values (+0 == -0, inf == inf) or both NaN
        ulp = np.where(same | an, 0, float_ulp_distance(a, b))
        absd = np.where(same, 0.0, np.abs(a.astype(np.float64) - b.astype(np.float64)))
    bad = ~same & (ulp > max_ulp) & ~(absd <= abs_tol)
    zero_sign = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    if max_ulp == 0 and abs_tol == 0 and np.any(zero_sign):
        bad |= zero_sign
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        return (f"{int(np.sum(bad))} element(s) beyond {max_ulp} ULP / abs {abs_tol:g} (max {int(np.max(ulp))} ULP; "
                f"first at flat index {k}: {a.flat[k]!r} vs {b.flat[k]!r})")
    return None


def compare_dirs_tolerant(got_dir, want_dir, what, max_ulp, abs_tol):
    got, want = output_files(got_dir), output_files(want_dir)
    if got != want:
        return [f"{what}: output files {got} vs {want}"]
    problems = []
    for f in got:
        why = compare_tolerant(os.path.join(got_dir, f), os.path.join(want_dir, f), max_ulp, abs_tol)
        if why:
            problems.append(f"{what}: {f} {why}")
    return problems


def run_cli(cli, in_path, out_path, work, target_opset):
    try:
        extra = [f"--target-opset={target_opset}"] if target_opset is not None else []
        p = subprocess.run([cli, in_path, out_path] + extra, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=CLI_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Failure(f"CLI timed out after {CLI_TIMEOUT}s")
    except OSError as e:
        raise Failure(f"CLI did not start: {e}")
    with open(os.path.join(work, "cli.log"), "w") as log:
        log.write(p.stdout + p.stderr)
    return p


def static_checks_removed(entry, in_model, out_path, target_opset):
    problems, notes = [], []
    try:
        out_model = onnx.load(out_path)
    except Exception as e:  # noqa: BLE001
        raise Failure(f"OUT does not load as an ONNX model: {e}")
    left = removed_ops_left(out_model)
    if left:
        problems.append(f"{len(left)} removed op(s) left: " + ", ".join(sorted({f"{op} in {w}" for op, w in left})))
    in_opset, out_opset = default_opset(in_model), default_opset(out_model)
    if out_opset is None:
        problems.append("OUT imports no default-domain opset")
    else:
        if out_opset < in_opset:
            problems.append(f"default opset lowered from {in_opset} to {out_opset}")
        if target_opset is not None:
            if out_opset != target_opset:
                problems.append(f"default opset {out_opset}, but --target-opset={target_opset} was asked for")
        elif entry.get("expect_default_opset") is not None:
            if out_opset != entry["expect_default_opset"]:
                problems.append(f"default opset {out_opset}, expected {entry['expect_default_opset']} (the lowest "
                                "that expresses every rewrite)")
        elif "DynamicSlice" in {n.op_type for n, _ in graphs_of(in_model)} and out_opset < 10 \
                and not entry.get("all_fold"):
            problems.append(f"default opset {out_opset} < 10 although a DynamicSlice does not fold")
        need_ir = min_ir_for_opset(out_opset)
        if out_opset != in_opset and need_ir is not None and out_model.ir_version < need_ir:
            problems.append(f"ir_version {out_model.ir_version} too low for opset {out_opset} (needs >= {need_ir})")
    try:
        onnx.checker.check_model(out_model, full_check=True)
    except Exception as e:  # noqa: BLE001
        problems.append(f"onnx.checker (full_check): "
                        f"{str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}")
    in_real, in_over, in_outs = interface(in_model.graph)
    out_real, out_over, out_outs = interface(out_model.graph)
    if out_real != in_real:
        problems.append(f"graph inputs changed: {in_real} -> {out_real}")
    if out_outs != in_outs:
        problems.append(f"graph outputs changed: {in_outs} -> {out_outs}")
    if in_model.ir_version >= 4:
        lost = [n for n in in_over if n not in out_over]
        if lost:
            problems.append(f"overridable initializers no longer graph inputs: {lost}")
    elif out_model.ir_version >= 4:
        still = [n for n in in_over if n in out_over]
        if still:
            notes.append(f"IR-3 constants now overridable inputs: {', '.join(still)}")
    return out_model, out_opset, problems, notes


def check_removed_model(entry, cli, data_dir, scratch, target_opset):
    name = entry["name"]
    in_path = os.path.join(data_dir, entry["file"])
    work = os.path.join(scratch, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out_path = os.path.join(work, "legalized.onnx")
    p = run_cli(cli, in_path, out_path, work, target_opset)
    said = p.stdout + p.stderr

    if entry.get("expect_refusal"):
        problems = []
        if p.returncode != 3:
            problems.append(f"CLI exited {p.returncode}, expected 3 (refusal)")
        if os.path.exists(out_path):
            problems.append("CLI wrote an output model although it must refuse")
        missing = [w for w in entry.get("refusal_mentions", []) if w not in said]
        if missing:
            problems.append(f"the CLI's output does not name {missing}")
        if problems:
            raise Failure("; ".join(problems))
        return "refused (exit 3, nothing written)"

    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or [""]
        raise Failure(f"CLI exited {p.returncode}: {tail[0]}")
    if not os.path.isfile(out_path):
        raise Failure("CLI exited 0 but wrote no output model")
    in_model = onnx.load(in_path)
    _, out_opset, problems, notes = static_checks_removed(entry, in_model, out_path, target_opset)

    max_ulp, abs_tol = entry.get("max_ulp", 0), entry.get("abs_tol", 0.0)
    # What ORT runs as the original: IN, or its twin at an opset where ORT still has the removed op.
    reference_path = os.path.join(data_dir, entry.get("ort_reference") or entry["file"])
    empty_inputs = os.path.join(work, "no_inputs")
    os.makedirs(empty_inputs, exist_ok=True)
    for case in entry["cases"]:
        inputs = os.path.join(data_dir, entry["inputs_dir"], case) if entry["inputs_dir"] else empty_inputs
        expected = os.path.join(data_dir, entry["expected_dir"], case) if entry["expected_dir"] else None
        orig_dir, legal_dir = os.path.join(work, case, "original"), os.path.join(work, case, "legalized")
        if entry["ort_runs_original"]:
            rc, err = run_ort(reference_path, inputs, orig_dir)
            if rc != 0:
                problems.append(f"{case}: ORT failed on the ORIGINAL model (test data broken?): {err}")
                continue
            if expected:
                problems += compare_dirs(orig_dir, expected, f"{case}: original vs numpy")
        rc, err = run_ort(out_path, inputs, legal_dir)
        if rc != 0:
            problems.append(f"{case}: ORT failed on the legalized model: {err.splitlines()[0] if err else rc}")
            continue
        if entry["ort_runs_original"]:
            problems += compare_dirs_tolerant(legal_dir, orig_dir, f"{case}: legalized vs original", max_ulp, abs_tol)
        if expected:
            problems += compare_dirs_tolerant(legal_dir, expected, f"{case}: legalized vs numpy", max_ulp, abs_tol)
    if problems:
        raise Failure("; ".join(problems))
    tol = "byte-exact" if not max_ulp and not abs_tol else f"<= {max_ulp} ULP or abs {abs_tol:g}"
    detail = f"opset {default_opset(in_model)} -> {out_opset}, {len(entry['cases'])} case(s), {tol}"
    return detail + "".join(f"; note: {n}" for n in notes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("cli", help="the onnx-legalize binary (or any program taking IN OUT)")
    ap.add_argument("legacy_dir", help="testdata/legacy or testdata/removed_ops")
    ap.add_argument("scratch_dir", help="where legalized models and outputs go (created)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these models")
    ap.add_argument("--target-opset", type=int, help="pass --target-opset=N to the CLI and expect opset N")
    args = ap.parse_args()

    cli = os.path.abspath(args.cli)
    legacy = os.path.abspath(args.legacy_dir)
    scratch = os.path.abspath(args.scratch_dir)
    with open(os.path.join(legacy, "manifest.json")) as f:
        entries = json.load(f)["models"]
    entries = select_only(entries, args.only, "name")
    if shutil.which("node") is None:
        sys.exit("run_differential: node not found")
    subprocess.run(["bash", os.path.join(ORT_DIR, "install.sh")], check=True, stdin=subprocess.DEVNULL)
    os.makedirs(scratch, exist_ok=True)

    def check(entry):
        if "removed_ops" in entry:
            return check_removed_model(entry, cli, legacy, scratch, args.target_opset)
        return check_model(entry, cli, legacy, scratch, args.target_opset)
    return run_checks((entry["name"], lambda entry=entry: check(entry)) for entry in entries)


def select_only(entries, only, key):
    """The entries whose `key` field is one of `only` (all of them when `only` is empty); exits naming any unknown."""
    if not only:
        return entries
    unknown = set(only) - {e[key] for e in entries}
    if unknown:
        sys.exit(f"unknown model(s): {sorted(unknown)}")
    return [e for e in entries if e[key] in only]


def run_checks(checks):
    """Runs each (label, check) of `checks`, printing PASS with the check's detail or FAIL with its Failure, then the
    totals; returns the exit status: 1 when any failed or none ran."""
    passed = failed = 0
    for label, check in checks:
        try:
            detail = check()
            print(f"PASS {label} ({detail})", flush=True)
            passed += 1
        except Failure as e:
            print(f"FAIL {label}: {e}", flush=True)
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
