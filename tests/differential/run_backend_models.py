#!/usr/bin/python3
"""Differential test of the onnx-legalize CLI on onnx's own backend test models, as the installed onnx ships them.

Usage:
    "$PY" tests/differential/run_backend_models.py CLI NODE_DIR SCRATCH_DIR [--target-opset N] [--only NAME ...]

The models come from the running onnx (1.23.2 in the environment scripts/install-python-env.sh makes): its wheel
ships the model tests' data (onnx/backend/test/data: pytorch-converted, pytorch-operator, simple, ...), and the node
tests' data is what make_node_test_data.py writes with that onnx (NODE_DIR: its OUT/node folder; an entry
"node/<test>" is read from NODE_DIR/<test>). The models to run, and how, are
listed in backend_models.json beside this script; each entry names a model folder (its model.onnx and its
test_data_set_* folders of inputs and PyTorch's or numpy's expected outputs) and the variants to legalize:
  - "as_is": the model itself. Only with --target-opset (at the default target a model without removed ops is left
    as it is, and that is checked by the other suites): the opset move alone must keep the outputs.
  - "dynamic_slice_on_output": the model with a DynamicSlice over its first output, written the way legacy
    exporters wrote it (Constant starts/ends/axes, the whole range of axis 1, or 0 for a 1-D output), so that
    legalizing must rewrite it into Slice-10+ and move the whole model to opset 10 or the target.
  - "dynamic_slice_over_weight": the model with its first initializer computed as a DynamicSlice (Constant indices,
    the whole of axis 0) of itself, as exporters that cropped weights wrote it: legalizing folds it, and with
    --target-opset the rest of the model moves while the fold is still a DynamicSlice. Only with --target-opset
    (at the default target the fold alone leaves the opset as it is).
  - "dynamic_slice_in_body_output", "dynamic_slice_in_body_over_outer_initializer",
    "dynamic_slice_in_body_over_body_constant": a DynamicSlice inside the body of the model's first Scan: over the
    body's first output (a rewrite), or over a constant offset added to the body's last output, held by the outer
    graph (an initializer the body captures) or by the body (a Constant node): folds. The opset move must find the
    body again after it changed the Scan (Scan-8 -> 9 renames its outputs).
For each variant and test data set:
  1. `CLI IN OUT [--target-opset=N]` must exit 0, write OUT with no removed op left in any graph, at opset N when
     one is given, accepted by onnx.checker with full_check=True.
  2. ONNX Runtime (tests/ort/run_model.js) runs OUT. Its outputs must equal, bit for bit, ORT's outputs of IN where
     ORT runs IN (opset >= 7 models), and otherwise the outputs saved in the test data set (to the entry's
     `max_ulp`, 0 by default: bit for bit).
An entry with `set_opset` is first rewritten to import that default opset (its ops meaning the same there), as a
legacy exporter would have written it; with `expect_default_opset`, the CLI without --target-opset must end there.
An entry with `expect_refusal` instead must make the CLI exit 3, write nothing and name every word of
`refusal_mentions`: a refusal that remains, and its reason, stays visible here.
One line per model and variant, then `N passed, M failed`; the exit status is non-zero when anything failed.
"""

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

from run_differential import (ORT_DIR, Failure, compare_dirs, default_opset, float_ulp_distance, output_files,
                              removed_ops_left, run_checks, run_cli, run_ort, select_only)

HERE = os.path.dirname(os.path.abspath(__file__))
INT64_MAX = 2**63 - 1


def with_dynamic_slice_on_output(model):
    """The model with its first output y computed as DynamicSlice(y', 0, INT64_MAX, axis) of what made y."""
    m = copy.deepcopy(model)
    g = m.graph
    y = g.output[0].name
    dims = g.output[0].type.tensor_type.shape.dim
    axis = 1 if len(dims) >= 2 else 0
    before = y + "_before_dynamic_slice"
    for node in g.node:
        node.output[:] = [before if o == y else o for o in node.output]
        node.input[:] = [before if i == y else i for i in node.input]
    for name, value in (("starts", 0), ("ends", INT64_MAX), ("axes", axis)):
        g.node.append(helper.make_node("Constant", [], [f"{y}_{name}"],
                                       value=numpy_helper.from_array(np.array([value], dtype=np.int64))))
    g.node.append(helper.make_node("DynamicSlice", [before, f"{y}_starts", f"{y}_ends", f"{y}_axes"], [y]))
    return m


def with_dynamic_slice_over_weight(model):
    """The model with its first initializer w read through DynamicSlice(w_full, 0, INT64_MAX, axis 0)."""
    m = copy.deepcopy(model)
    g = m.graph
    w = g.initializer[0].name
    full = w + "_full"
    g.initializer[0].name = full
    for value in g.input:  # IR 3: the initializer is a graph input too
        if value.name == w:
            value.name = full
    nodes = [helper.make_node("Constant", [], [f"{w}_{name}"],
                              value=numpy_helper.from_array(np.array([value], dtype=np.int64)))
             for name, value in (("starts", 0), ("ends", INT64_MAX), ("axes", 0))]
    nodes.append(helper.make_node("DynamicSlice", [full, f"{w}_starts", f"{w}_ends", f"{w}_axes"], [w]))
    rest = list(g.node)
    del g.node[:]
    g.node.extend(nodes + rest)
    return m


def index_constants(prefix):
    """Constant nodes for DynamicSlice's starts, ends and axes: the whole of axis 0."""
    return [helper.make_node("Constant", [], [f"{prefix}_{name}"],
                             value=numpy_helper.from_array(np.array([value], dtype=np.int64)))
            for name, value in (("starts", 0), ("ends", INT64_MAX), ("axes", 0))]


def with_dynamic_slice_in_body(model, source):
    """The model with a DynamicSlice in its first Scan's body; `source` says over what (see the docstring)."""
    m = copy.deepcopy(model)
    scan = next(n for n in m.graph.node if n.op_type == "Scan")
    body = next(a.g for a in scan.attribute if a.name == "body")
    if source == "output":
        y = body.output[0].name
        before = y + "_before_dynamic_slice"
        for node in body.node:
            node.output[:] = [before if o == y else o for o in node.output]
            node.input[:] = [before if i == y else i for i in node.input]
        body.node.extend(index_constants(y))
        body.node.append(helper.make_node("DynamicSlice", [before, f"{y}_starts", f"{y}_ends", f"{y}_axes"], [y]))
        return m
    y = body.output[-1].name
    dims = [d.dim_value for d in body.output[-1].type.tensor_type.shape.dim]
    offset = numpy_helper.from_array(np.linspace(-1.25, 0.5, num=int(np.prod(dims)), dtype=np.float32).reshape(dims),
                                     "offset_full")
    if source == "outer_initializer":
        m.graph.initializer.append(offset)
        m.graph.input.append(helper.make_tensor_value_info("offset_full", onnx.TensorProto.FLOAT, dims))
        nodes = []
    else:
        nodes = [helper.make_node("Constant", [], ["offset_full"], value=offset)]
    before = y + "_before_offset"
    for node in body.node:
        node.output[:] = [before if o == y else o for o in node.output]
    nodes += index_constants("offset")
    nodes.append(helper.make_node("DynamicSlice", ["offset_full", "offset_starts", "offset_ends", "offset_axes"],
                                  ["offset"]))
    nodes.append(helper.make_node("Add", [before, "offset"], [y]))
    body.node.extend(nodes)
    return m


def load_array(path):
    return numpy_helper.to_array(onnx.load_tensor(path))


def compare_with_saved(got_dir, saved_dir, max_ulp):
    """ORT's outputs of OUT against the test data set's output_K.pb, by value: same dtype, shape and bits (or within
    max_ulp for floats; both NaN counts as equal)."""
    got, want = output_files(got_dir), output_files(saved_dir)
    if got != want:
        return [f"output files {got} vs saved {want}"]
    problems = []
    for f in got:
        a, b = load_array(os.path.join(got_dir, f)), load_array(os.path.join(saved_dir, f))
        if a.dtype != b.dtype or a.shape != b.shape:
            problems.append(f"{f}: {a.dtype}{list(a.shape)} vs saved {b.dtype}{list(b.shape)}")
        elif a.tobytes() != b.tobytes():
            if a.dtype.kind == "f" and max_ulp > 0:
                both_nan = np.isnan(a) & np.isnan(b)
                ulps = np.where(both_nan, 0, float_ulp_distance(a, b))
                if int(np.max(ulps, initial=0)) <= max_ulp:
                    continue
            differ = int(np.sum((a != b) & ~(np.isnan(a) & np.isnan(b)))) if a.dtype.kind == "f" else int(
                np.sum(a != b))
            problems.append(f"{f}: differs from the saved output at {differ} of {a.size} places")
    return problems


def check_refusal(entry, p, out_path):
    if p.returncode != 3:
        raise Failure(f"expected a refusal (exit 3), got exit {p.returncode}")
    if os.path.exists(out_path):
        raise Failure("refused but wrote an output file")
    said = p.stdout + p.stderr
    missing = [w for w in entry.get("refusal_mentions", []) if w not in said]
    if missing:
        raise Failure(f"the refusal does not mention {missing}: {said.strip()}")
    return "refused as expected"


def model_folder(entry, node_dir):
    """Where the entry's model folder lies: NODE_DIR for node tests, the installed onnx's test data otherwise."""
    suite, _, name = entry["model"].partition("/")
    if suite == "node":
        return os.path.join(node_dir, name)
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", suite, name)


def check_variant(entry, variant, cli, node_dir, scratch, target_opset):
    folder = model_folder(entry, node_dir)
    model = onnx.load(os.path.join(folder, "model.onnx"))
    if "set_opset" in entry:
        # The model as a legacy exporter would have written it: the same graph at an older opset, whose ops
        # mean the same there (the entry says why), and the IR version of that opset (onnx 1.23 writes its node
        # tests at IR 14, which no exporter of opset 9 wrote and ONNX Runtime 1.31 does not load).
        for imp in model.opset_import:
            if imp.domain in ("", "ai.onnx"):
                imp.version = entry["set_opset"]
        model.ir_version = helper.find_min_ir_version_for(list(model.opset_import))
    if variant == "dynamic_slice_on_output":
        model = with_dynamic_slice_on_output(model)
    elif variant == "dynamic_slice_over_weight":
        model = with_dynamic_slice_over_weight(model)
    elif variant.startswith("dynamic_slice_in_body_"):
        model = with_dynamic_slice_in_body(model, variant[len("dynamic_slice_in_body_"):].replace("over_", "", 1))
    work = os.path.join(scratch, entry["model"].replace("/", "_") + "_" + variant)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    in_path, out_path = os.path.join(work, "original.onnx"), os.path.join(work, "legalized.onnx")
    onnx.save(model, in_path)

    p = run_cli(cli, in_path, out_path, work, target_opset)
    if entry.get("expect_refusal"):
        return check_refusal(entry, p, out_path)
    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or [""]
        raise Failure(f"CLI exited {p.returncode}: {tail[0]}")
    out = onnx.load(out_path)
    problems = [f"{op} left in {where}" for op, where in removed_ops_left(out)]
    if target_opset is not None and default_opset(out) != target_opset:
        problems.append(f"default opset {default_opset(out)}, not {target_opset}")
    expected_opset = entry.get("expect_default_opset")
    if target_opset is None and expected_opset is not None and default_opset(out) != expected_opset:
        problems.append(f"default opset {default_opset(out)}, not {expected_opset}")
    try:
        onnx.checker.check_model(out, full_check=True)
    except Exception as e:  # noqa: BLE001
        problems.append(f"onnx.checker: {str(e).splitlines()[0]}")

    data_sets = sorted(d for d in os.listdir(folder) if d.startswith("test_data_set_"))
    oracle = "saved outputs"
    for data_set in data_sets:
        inputs = os.path.join(folder, data_set)
        orig_dir, legal_dir = os.path.join(work, data_set, "original"), os.path.join(work, data_set, "legalized")
        rc, err = run_ort(out_path, inputs, legal_dir)
        if rc != 0:
            problems.append(f"{data_set}: ORT failed on the legalized model: {err.splitlines()[0] if err else rc}")
            continue
        if run_ort(in_path, inputs, orig_dir)[0] == 0:
            oracle = "ORT on the original"
            problems += compare_dirs(legal_dir, orig_dir, f"{data_set}: legalized vs original")
        else:
            problems += [f"{data_set}: {p}" for p in compare_with_saved(legal_dir, inputs, entry.get("max_ulp", 0))]
    if problems:
        raise Failure("; ".join(problems))
    return f"opset {default_opset(model)} -> {default_opset(out)}, {len(data_sets)} data set(s) against {oracle}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("cli", help="the onnx-legalize binary")
    ap.add_argument("node_dir", help="onnx's node tests: the node folder make_node_test_data.py writes")
    ap.add_argument("scratch_dir", help="where variants, legalized models and outputs go (created)")
    ap.add_argument("--target-opset", type=int, help="pass --target-opset=N to the CLI and expect opset N")
    ap.add_argument("--only", nargs="+", metavar="MODEL", help="run only these entries (their `model` field)")
    args = ap.parse_args()

    with open(os.path.join(HERE, "backend_models.json")) as f:
        entries = json.load(f)["models"]
    entries = select_only(entries, args.only, "model")
    missing = [e["model"] for e in entries if not os.path.isfile(os.path.join(model_folder(e, args.node_dir),
                                                                              "model.onnx"))]
    if missing:
        sys.exit(f"run_backend_models: onnx {onnx.__version__} ({os.path.dirname(onnx.__file__)}) and {args.node_dir} "
                 f"lack: {missing}")
    if shutil.which("node") is None:
        sys.exit("run_backend_models: node not found")
    subprocess.run(["bash", os.path.join(ORT_DIR, "install.sh")], check=True, stdin=subprocess.DEVNULL)
    cli, scratch = os.path.abspath(args.cli), os.path.abspath(args.scratch_dir)
    os.makedirs(scratch, exist_ok=True)

    return run_checks((f"{entry['model']} [{variant}]",
                       lambda entry=entry, variant=variant: check_variant(entry, variant, cli, args.node_dir,
                                                                          scratch, args.target_opset))
                      for entry in entries for variant in entry["variants"]
                      if not (variant in ("as_is", "dynamic_slice_over_weight") and args.target_opset is None))


if __name__ == "__main__":
    sys.exit(main())
