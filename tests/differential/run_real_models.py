#!/usr/bin/python3
"""Differential test of the onnx-legalize CLI on real legacy models held outside the project.

Usage:
    /usr/bin/python3 tests/differential/run_real_models.py CLI MODELS_DIR SCRATCH_DIR [--targets default 13 17]
        [--only FILE ...]

MODELS_DIR holds the models (every *.onnx directly in it) and says where each came from (a PROVENANCE.md beside them:
their licenses do not let the project ship them). For each model and target (`default`: no --target-opset):
  1. `CLI IN OUT [--target-opset=N]` must exit 0 and write OUT; OUT must hold no removed op in any graph, be at opset
     N when one is given, and pass onnx.checker, and with full_check=True (strict inference) once its ZipMaps are
     taken out (onnx 1.12's inference fails on every ZipMap).
  2. ONNX Runtime (tests/ort/run_model.js) runs IN and OUT on the same seeded inputs (symbolic dims drawn as 1,
     floats uniform in [0, 255), as images are; or the model's own FILE.test_data_set_0 beside it): every output must
     be equal byte for byte (MVN-1: within 4 ULPs, ONNX Runtime's kernel summing in its own order; ORT_DIFFERS names
     the models ONNX Runtime itself computes differently at another opset, and why). ONNX Runtime for Node
     cannot return maps, so both models are run with each ZipMap taken out and its input made a graph output
     instead (ZipMap only labels those values). A model ORT does not run as written (opset < 7, IR < 3) has no
     oracle in ORT: its legalized form must run there, and where the model comes with its exporter's own outputs
     (FILE.test_data_set_0 with output_*.pb: PyTorch 0.3's, say), ORT's outputs of the legalized model must equal
     them within EXPORTER_ULP ULPs or EXPORTER_ABS (the exporter's framework summed in an order of its own);
     without them the model passes on step 1 and that run.
A model that is not ONNX (EXPECTED_REFUSALS: why) must be refused instead: exit 3, the message saying so, no OUT.
One line per model and target, then `N passed, M failed`; the exit status is non-zero when anything failed.
"""

import argparse
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from run_differential import (Failure, compare_dirs_tolerant, default_opset, output_files, removed_ops_left,
                              run_checks, run_cli, run_ort, select_only)

# MeanVarianceNormalization-1 over each channel: ONNX Runtime's kernel sums in another order than any ReduceMean
# (testdata/make_removed_op_models.py's MVN_ULP); every other difference must be none.
MVN_ULP = 4
# The outputs an exporter stored beside its model were computed by its own framework (PyTorch 0.3's THNN, say),
# whose sums run in another order than ONNX Runtime's MLAS.
EXPORTER_ULP = 16
EXPORTER_ABS = 1e-6

# Models that are not ONNX and must be refused (exit 3), by file: what the refusal says, and why.
EXPECTED_REFUSALS = {
    name: ("First input tensor must have rank 3",
           "PyTorch 0.3 wrote each layer's Y at rank 3 (ONNX's is rank 4) and fed it to the next layer as X, with 2-D "
           "weights and a lower-case activation: only Caffe2 ran it")
    for name in ("pt03_lstm_constantfill_opset6.onnx", "pt03_rnn_constantfill_opset6.onnx")
}

# Where ONNX Runtime itself computes the original and the legalized model differently, by file: the ULPs allowed
# when the legalized model is at another opset, and why.
ORT_DIFFERS = {
    "wml_squeezenet_caffe2_fp16_opset7.onnx": (
        1, "ONNX Runtime has no float16 CPU kernel of Conv or Dropout-13: at 13 and later the Casts it inserts keep "
           "Concat -> Dropout -> Conv in float, where at 7 it rounds to float16 at the Concat (the rewrites of "
           "Dropout and Softmax are exact)"),
}


def without_zipmaps(model):
    """`model` with every main-graph ZipMap removed and its input a graph output in place of its output."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    zipmaps = [n for n in g.node if n.op_type == "ZipMap"]
    if not zipmaps:
        return m
    for zipmap in zipmaps:
        g.node.remove(zipmap)
        outputs = [o for o in g.output if o.name not in set(zipmap.output)]
        del g.output[:]
        g.output.extend(outputs)
    # The ZipMaps' inputs as outputs, typed as inference finds them (IR 3 wants a shape on every output).
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.value_info}
    for zipmap in zipmaps:
        g.output.append(inferred.get(zipmap.input[0]) or
                        helper.make_tensor_value_info(zipmap.input[0], TensorProto.FLOAT, []))
    return m


def write_inputs(model, folder, seed):
    """Seeded inputs for the model's graph inputs that no initializer sets."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    initializers = {t.name for t in model.graph.initializer}
    k = 0
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in tensor_type.shape.dim]
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tensor_type.elem_type]
        array = (rng.random(dims) * 255).astype(dtype)
        with open(os.path.join(folder, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, value.name).SerializeToString())
        k += 1


def write_named_outputs(folder, graph, destination):
    """The stored outputs of `folder` copied to `destination`, each named as the graph output it is (exporters of
    2017 stored them unnamed)."""
    os.makedirs(destination, exist_ok=True)
    for k, name in enumerate(output_files(folder)):
        tensor = onnx.load_tensor(os.path.join(folder, name))
        if not tensor.name and k < len(graph.output):
            tensor.name = graph.output[k].name
        with open(os.path.join(destination, name), "wb") as f:
            f.write(tensor.SerializeToString())


def ort_runs(model):
    return model.ir_version >= 3 and (default_opset(model) or 0) >= 7


def check(cli, in_path, scratch, target):
    name = os.path.splitext(os.path.basename(in_path))[0]
    work = os.path.join(scratch, f"{name}_{target}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out_path = os.path.join(work, "legalized.onnx")
    p = run_cli(cli, in_path, out_path, work, None if target == "default" else int(target))
    refusal = EXPECTED_REFUSALS.get(os.path.basename(in_path))
    if refusal is not None:
        if p.returncode != 3 or refusal[0] not in p.stderr or os.path.exists(out_path):
            raise Failure(f"expected a refusal saying '{refusal[0]}' ({refusal[1]}); CLI exited {p.returncode}")
        return f"refused as it must be: {refusal[1]}"
    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or [""]
        raise Failure(f"CLI exited {p.returncode}: {tail[0]}")
    model, out = onnx.load(in_path), onnx.load(out_path)
    problems = [f"{op} left in {where}" for op, where in removed_ops_left(out)]
    if target != "default" and default_opset(out) != int(target):
        problems.append(f"default opset {default_opset(out)}, not {target}")
    try:
        # onnx 1.12's strict inference fails on every ZipMap (it cannot merge a map type): the checker reads the
        # model as it is, and the full check (strict inference) the model without its ZipMaps.
        onnx.checker.check_model(out)
        onnx.checker.check_model(without_zipmaps(out), full_check=True)
    except Exception as e:  # noqa: BLE001
        problems.append(f"onnx.checker: {str(e).splitlines()[0]}")
    if problems:
        raise Failure("; ".join(problems))
    moved = f"opset {default_opset(model)} -> {default_opset(out)}"
    if not ort_runs(model) and not ort_runs(out):
        # Nothing legalized moved the model to an opset ONNX Runtime runs (the default target keeps a legal model's
        # opset): onnx's checker above is all there is.
        return f"{moved}; ONNX Runtime runs neither the original nor the legalized model (opset {default_opset(out)})"
    if not ort_runs(model):
        # No oracle for the original: the legalized model must at least run in ONNX Runtime.
        runnable_out = os.path.join(work, "legalized_run.onnx")
        onnx.save(without_zipmaps(out), runnable_out)
        own = os.path.splitext(in_path)[0] + ".test_data_set_0"
        inputs = own if os.path.isdir(own) else os.path.join(work, "inputs")
        if inputs != own:
            write_inputs(model, inputs, seed=len(name))
        rc, err = run_ort(runnable_out, inputs, os.path.join(work, "legalized"))
        if rc != 0:
            raise Failure(f"ORT failed on the legalized model: {err.splitlines()[0] if err else rc}")
        unrun = f"ONNX Runtime does not run the original (IR {model.ir_version}, opset {default_opset(model)})"
        if inputs != own or not output_files(own):
            return f"{moved}; {unrun}; it runs the legalized model"
        expected = os.path.join(work, "exporter")
        write_named_outputs(own, onnx.load(runnable_out).graph, expected)
        differences = compare_dirs_tolerant(os.path.join(work, "legalized"), expected,
                                            "legalized vs the exporter's outputs", EXPORTER_ULP, EXPORTER_ABS)
        if differences:
            raise Failure("; ".join(differences))
        return f"{moved}; {unrun}; the legalized model gives the exporter's own stored outputs in it"
    runnable_in, runnable_out = os.path.join(work, "original_run.onnx"), os.path.join(work, "legalized_run.onnx")
    onnx.save(without_zipmaps(model), runnable_in)
    onnx.save(without_zipmaps(out), runnable_out)
    # The model's own test data where it comes with some (onnx's test models: index inputs must be valid).
    inputs = os.path.splitext(in_path)[0] + ".test_data_set_0"
    if not os.path.isdir(inputs):
        inputs = os.path.join(work, "inputs")
        write_inputs(model, inputs, seed=len(name))
    for path, folder in ((runnable_in, "original"), (runnable_out, "legalized")):
        rc, err = run_ort(path, inputs, os.path.join(work, folder))
        if rc != 0:
            raise Failure(f"ORT failed on the {folder} model: {err.splitlines()[0] if err else rc}")
    max_ulp = MVN_ULP if any(n.op_type == "MeanVarianceNormalization" for n in model.graph.node) else 0
    ort_differs = ORT_DIFFERS.get(os.path.basename(in_path))
    if ort_differs is not None and default_opset(out) != default_opset(model):
        max_ulp = max(max_ulp, ort_differs[0])
    differences = compare_dirs_tolerant(os.path.join(work, "legalized"), os.path.join(work, "original"),
                                        "legalized vs original", max_ulp, 0.0)
    if differences:
        raise Failure("; ".join(differences))
    if max_ulp:
        return f"{moved}; within {max_ulp} ULP in ONNX Runtime"
    return f"{moved}; identical in ONNX Runtime"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("cli", help="the onnx-legalize binary")
    ap.add_argument("models_dir", help="a folder of real legacy models (*.onnx) and their PROVENANCE.md")
    ap.add_argument("scratch_dir", help="where legalized models and outputs go (created)")
    ap.add_argument("--targets", nargs="+", default=["default", "13", "17"], help="'default' and/or opsets")
    ap.add_argument("--only", nargs="+", metavar="FILE", help="run only these files of MODELS_DIR")
    args = ap.parse_args()
    files = [{"file": f} for f in sorted(os.listdir(args.models_dir)) if f.endswith(".onnx")]
    files = select_only(files, args.only, "file")
    cli, scratch = os.path.abspath(args.cli), os.path.abspath(args.scratch_dir)
    os.makedirs(scratch, exist_ok=True)
    return run_checks((f"{entry['file']} [{target}]",
                       lambda entry=entry, target=target: check(cli, os.path.join(args.models_dir, entry["file"]),
                                                                scratch, target))
                      for entry in files for target in args.targets)


if __name__ == "__main__":
    sys.exit(main())
