#!/usr/bin/python3
"""Differential test of every era of ONNX: models written the way the exporters of ONNX's first releases wrote them,
legalized, run in ONNX Runtime, and compared with the library's model runner executing the original.

Usage:
    "$PY" tests/differential/run_era_models.py CLI MODEL_RUNNER_CLI SCRATCH_DIR [--targets 7 13 17]
        [--only NAME ...]

ONNX Runtime runs nothing below IR 3 or default opset 7, so for these originals the model runner is the only
oracle: `MODEL_RUNNER_CLI --as-its-era` reads the original as its era meant it (the implied opset 1, untyped
attributes, node order, legacy attributes) and runs it at its own opset, with the removed ops (FC, LegacyPadding)
by their rules' reference kernels. The runner's kernels are themselves checked against ONNX Runtime op by op at
every opset ONNX Runtime runs (run_runner_kernels.py).

The models are written here, seeded, into SCRATCH_DIR (nothing binary is kept in the repository):
  - pytorch02_ir1: IR 1, no opset_import, attributes without their type field (PyTorch 0.2): Conv with pads,
    Add-1 with broadcast/axis for the bias, Relu, Reshape-1 (shape attribute), Transpose.
  - pytorch03_ir2: IR 2 with an opset_import (which onnx's checker refuses below IR 3): Gemm-1 with broadcast,
    Relu, Softmax.
  - winmltools01_opset1: IR 3, the default domain imported twice (at 1 and 2), nodes listed out of order,
    BatchNormalization-1 without consumed_inputs (is_test 1), InstanceNormalization with Caffe2's is_test and
    spatial, com.microsoft LegacyPadding before a VALID MaxPool that writes dilations of 1.
  - fc_axisA_axiswB_opset1: FC (Custom Vision's classifiers) at each axis combination, weights as initializers.
  - pytorch03_{lstm,gru,rnn}_opset6: PyTorch 0.3's recurrent exports, LSTM/GRU/RNN-1 at opset 6 with
    output_sequence, bidirectional, initial states as inputs.
  - pytorch03_upsample1_{nearest,bilinear}_opset6: PyTorch 0.3's nn.Upsample, the experimental Upsample-1, which
    no runtime of today runs (the runner runs it by the Upsample rule's reference kernel).
For each model and target N:
  1. `CLI IN OUT --target-opset=N` exits 0; OUT is at opset N, holds no FC or LegacyPadding, passes
     onnx.checker with full_check, and the CLI says the opset move was executed in the model runner.
  2. ONNX Runtime runs OUT; the runner runs IN (--as-its-era); outputs agree within the model's bound: ONNX
     Runtime's convolutions and GEMMs (MLAS) sum in another order than the runner's (Eigen), so a few ULPs, or an
     absolute bound where a sum cancels. Each bound is stated at its model.
One line per model and target, then `N passed, M failed`; non-zero exit on any failure.
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from run_differential import (CLI_TIMEOUT, Failure, compare_dirs_tolerant, default_opset, run_checks, run_ort,
                              select_only)

F = TensorProto.FLOAT
REMOVED = {"FC", "LegacyPadding"}


def untyped(node):
    """`node` with its attributes written as IR 1 exporters wrote them: the value field without the type field."""
    for attribute in node.attribute:
        attribute.ClearField("type")
    return node


def graph_with_inputs_for(nodes, name, inputs, outputs, initializers):
    """Below IR 4 every initializer is also a graph input."""
    listed = inputs + [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in initializers]
    return helper.make_graph(nodes, name, listed, outputs, initializer=initializers)


def model_of(graph, ir_version, opsets):
    model = onnx.ModelProto()
    model.ir_version = ir_version
    model.producer_name = "era-test"
    model.graph.CopyFrom(graph)
    for domain, version in opsets:
        model.opset_import.add(domain=domain, version=version)
    return model


def weight(rs, name, *dims):
    return numpy_helper.from_array((rs.randn(*dims) * 0.5).astype(np.float32), name)


def pytorch02_ir1(rs):
    inits = [weight(rs, "W", 3, 2, 3, 3), weight(rs, "b", 3)]
    nodes = [untyped(helper.make_node("Conv", ["x", "W"], ["conv"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                      strides=[1, 1])),
             untyped(helper.make_node("Add", ["conv", "b"], ["biased"], broadcast=1, axis=1)),
             helper.make_node("Relu", ["biased"], ["relu"]),
             untyped(helper.make_node("Reshape", ["relu"], ["flat"], shape=[1, -1])),
             untyped(helper.make_node("Transpose", ["flat"], ["y"], perm=[1, 0]))]
    graph = graph_with_inputs_for(nodes, "pytorch02", [helper.make_tensor_value_info("x", F, [1, 2, 5, 5])],
                                  [helper.make_tensor_value_info("y", F, [75, 1])], inits)
    return model_of(graph, 1, []), {"x": rs.randn(1, 2, 5, 5).astype(np.float32)}


def pytorch03_ir2(rs):
    inits = [weight(rs, "W", 4, 6), weight(rs, "b", 4)]
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["gemm"], transB=1, broadcast=1),
             helper.make_node("Relu", ["gemm"], ["relu"]),
             helper.make_node("Softmax", ["relu"], ["y"], axis=1)]
    graph = graph_with_inputs_for(nodes, "pytorch03", [helper.make_tensor_value_info("x", F, [2, 6])],
                                  [helper.make_tensor_value_info("y", F, [2, 4])], inits)
    return model_of(graph, 2, [("", 2)]), {"x": rs.randn(2, 6).astype(np.float32)}


def winmltools01_opset1(rs):
    inits = [numpy_helper.from_array((rs.rand(3) + 0.5).astype(np.float32), "bn_scale"), weight(rs, "bn_B", 3),
             weight(rs, "bn_mean", 3), numpy_helper.from_array((rs.rand(3) + 0.5).astype(np.float32), "bn_var"),
             numpy_helper.from_array((rs.rand(3) + 0.5).astype(np.float32), "in_scale"), weight(rs, "in_B", 3)]
    bn = helper.make_node("BatchNormalization", ["x", "bn_scale", "bn_B", "bn_mean", "bn_var"], ["bn"], is_test=1,
                          epsilon=1e-5, name="bn1")
    norm = helper.make_node("InstanceNormalization", ["bn", "in_scale", "in_B"], ["norm"], epsilon=1e-5, is_test=1,
                            spatial=1, name="in1")
    relu = helper.make_node("Relu", ["norm"], ["relu"], name="relu1")
    pad = helper.make_node("LegacyPadding", ["relu"], ["padded"], domain="com.microsoft", kernel_shape=[3, 3],
                           strides=[2, 2], pads=[0, 0], value=-3.4e38, name="pool1_pad")
    pool = helper.make_node("MaxPool", ["padded"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 0, 0],
                            dilations=[1, 1], name="pool1")
    # Listed out of order, as WinMLTools 0.1 listed some nodes after their readers.
    nodes = [pool, bn, norm, pad, relu]
    graph = graph_with_inputs_for(nodes, "winmltools01", [helper.make_tensor_value_info("x", F, [1, 3, 8, 8])],
                                  [helper.make_tensor_value_info("y", F, [1, 3, 4, 4])], inits)
    return (model_of(graph, 3, [("", 1), ("", 2), ("com.microsoft", 1)]),
            {"x": (rs.randn(1, 3, 8, 8) * 4).astype(np.float32)})


def fc_model(axis, axis_w):
    def make(rs):
        # X [2, 3, 4]: K is the product of X's dims from `axis`; W is [N..., K...] split at `axis_w`.
        x_dims = [2, 3, 4]
        k = int(np.prod(x_dims[axis:]))
        w_dims = [5, k] if axis_w == 1 else [5, 2, k]
        n = int(np.prod(w_dims[:axis_w]))
        if axis_w == 2:
            w_dims = [5, 2] + [k]
        out_dims = x_dims[:axis] + [n]  # Caffe2's FC keeps X's dims before `axis`
        inits = [weight(rs, "W", *w_dims), weight(rs, "B", n)]
        nodes = [helper.make_node("FC", ["x", "W", "B"], ["fc"], axis=axis, axis_w=axis_w, name="fc1"),
                 helper.make_node("Relu", ["fc"], ["y"])]
        graph = graph_with_inputs_for(nodes, "fc", [helper.make_tensor_value_info("x", F, x_dims)],
                                      [helper.make_tensor_value_info("y", F, out_dims)], inits)
        return model_of(graph, 3, [("", 1)]), {"x": rs.randn(*x_dims).astype(np.float32)}
    return make


def pytorch03_recurrent(op, gates):
    """PyTorch 0.3's recurrent exports (onnx 1.1-1.2's test models): a bidirectional LSTM/GRU/RNN-1 at opset 6 with
    output_sequence, its weights as initializers, the initial states as inputs."""
    def make(rs):
        hidden, size, directions = 3, 4, 2
        rows = gates * hidden
        inits = [weight(rs, "W", directions, rows, size), weight(rs, "R", directions, rows, hidden),
                 weight(rs, "B", directions, 2 * rows)]
        state = [directions, 2, hidden]
        names = ["x", "W", "R", "B", "", "h0"] + (["c0"] if op == "LSTM" else [])
        outputs = ["y", "y_h"] + (["y_c"] if op == "LSTM" else [])
        node = helper.make_node(op, names, outputs, hidden_size=hidden, direction="bidirectional", output_sequence=1,
                                name=op.lower() + "1")
        inputs = [helper.make_tensor_value_info("x", F, [5, 2, size])]
        inputs += [helper.make_tensor_value_info(n, F, state) for n in names[5:]]
        graph = graph_with_inputs_for(
            [node], op.lower(), inputs,
            [helper.make_tensor_value_info("y", F, [5, directions, 2, hidden])] +
            [helper.make_tensor_value_info(n, F, state) for n in outputs[1:]], inits)
        feeds = {"x": rs.randn(5, 2, size).astype(np.float32)}
        feeds.update({n: (rs.randn(*state) * 0.5).astype(np.float32) for n in names[5:]})
        return model_of(graph, 3, [("", 6)]), feeds
    return make


def pytorch03_upsample1(mode):
    """PyTorch 0.3's nn.Upsample: the experimental Upsample-1 at opset 6, between two convolutions' worth of values
    (a Relu before it, so the rule's replacement reads a computed input, and an Add after it)."""
    def make(rs):
        nodes = [helper.make_node("Relu", ["x"], ["relu"]),
                 helper.make_node("Upsample", ["relu"], ["up"], height_scale=2.0, width_scale=3.0, mode=mode,
                                  name="upsample1"),
                 helper.make_node("Add", ["up", "b"], ["y"], broadcast=1)]
        graph = graph_with_inputs_for(nodes, "upsample", [helper.make_tensor_value_info("x", F, [1, 2, 3, 4])],
                                      [helper.make_tensor_value_info("y", F, [1, 2, 6, 12])], [weight(rs, "b", 1)])
        return model_of(graph, 3, [("", 6)]), {"x": rs.randn(1, 2, 3, 4).astype(np.float32)}
    return make


RECURRENT = ("MLAS's Sigmoid/Tanh approximations and SGEMM against the C library's and Eigen's, carried from step to "
             "step (run_runner_kernels.py's recurrent cases)")

# name: (builder, max_ulp, abs_tol, why)
MODELS = {
    "pytorch02_ir1": (pytorch02_ir1, 8, 1e-6, "a 3x3x2 convolution: MLAS and Eigen sum in other orders"),
    "pytorch03_ir2": (pytorch03_ir2, 8, 1e-6, "a GEMM of K = 6: MLAS and Eigen sum in other orders"),
    "winmltools01_opset1": (winmltools01_opset1, 8, 1e-6,
                            "InstanceNormalization's mean and variance: ORT and the runner sum in other orders"),
    "fc_axis1_axisw1_opset1": (fc_model(1, 1), 8, 1e-6, "a GEMM of K = 12"),
    "fc_axis2_axisw1_opset1": (fc_model(2, 1), 8, 1e-6, "a GEMM of K = 4"),
    "fc_axis1_axisw2_opset1": (fc_model(1, 2), 8, 1e-6, "a GEMM of K = 12, W of rank 3"),
    "pytorch03_lstm_opset6": (pytorch03_recurrent("LSTM", 4), 8, 2.0 ** -21, RECURRENT),
    "pytorch03_gru_opset6": (pytorch03_recurrent("GRU", 3), 8, 2.0 ** -21, RECURRENT),
    "pytorch03_rnn_opset6": (pytorch03_recurrent("RNN", 1), 8, 2.0 ** -21, RECURRENT),
    "pytorch03_upsample1_nearest_opset6": (pytorch03_upsample1("nearest"), 0, 0.0, "copies: equal bit for bit"),
    "pytorch03_upsample1_bilinear_opset6": (pytorch03_upsample1("bilinear"), 4, 0.0,
                                            "ORT's linear Upsample precomputes the weights per dim and adds the "
                                            "corners in another order than the rule's reference"),
}


def write_inputs(folder, feeds):
    os.makedirs(folder, exist_ok=True)
    for k, (name, array) in enumerate(sorted(feeds.items())):
        with open(os.path.join(folder, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, name).SerializeToString())


def ops_left(model, ops):
    found = set()

    def walk(graph):
        for n in graph.node:
            if n.op_type in ops:
                found.add(n.op_type)
            for a in n.attribute:
                for g in list(a.graphs) + ([a.g] if a.HasField("g") else []):
                    walk(g)
    walk(model.graph)
    return sorted(found)


def check(name, target, cli, runner, scratch):
    build, max_ulp, abs_tol, why = MODELS[name]
    work = os.path.join(scratch, f"{name}_to{target}")
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    model, feeds = build(np.random.RandomState(sum(map(ord, name))))
    in_path, out_path = os.path.join(work, "original.onnx"), os.path.join(work, "legalized.onnx")
    with open(in_path, "wb") as f:
        f.write(model.SerializeToString())
    inputs = os.path.join(work, "inputs")
    write_inputs(inputs, feeds)

    p = subprocess.run([cli, in_path, out_path, f"--target-opset={target}"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=CLI_TIMEOUT)
    with open(os.path.join(work, "cli.log"), "w") as log:
        log.write(p.stdout + p.stderr)
    if p.returncode != 0:
        raise Failure(f"CLI exit {p.returncode}: {(p.stdout + p.stderr).strip()[-600:]}")
    if "opset move: executed" not in p.stdout + p.stderr:
        moves = [line.strip() for line in (p.stdout + p.stderr).splitlines() if "opset move" in line]
        raise Failure(f"the opset move was not executed in the model runner: {moves}")
    out = onnx.load(out_path)
    if default_opset(out) != target:
        raise Failure(f"OUT is at opset {default_opset(out)}, not {target}")
    left = ops_left(out, REMOVED)
    if left:
        raise Failure(f"OUT still holds {left}")
    try:
        onnx.checker.check_model(out, full_check=True)
    except Exception as e:  # noqa: BLE001 (any checker error fails the model)
        raise Failure(f"onnx's checker: {str(e).strip()[:400]}")

    code, err = run_ort(out_path, inputs, os.path.join(work, "ort_legalized"))
    if code != 0:
        raise Failure(f"ONNX Runtime cannot run the result: {err[:400]}")
    os.makedirs(os.path.join(work, "runner_original"))
    r = subprocess.run([runner, "--as-its-era", in_path, inputs, os.path.join(work, "runner_original")],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CLI_TIMEOUT)
    if r.returncode != 0:
        raise Failure(f"the model runner cannot run the original: {r.stderr.strip()[:400]}")
    problems = compare_dirs_tolerant(os.path.join(work, "ort_legalized"), os.path.join(work, "runner_original"),
                                     "ORT(legalized) vs runner(original)", max_ulp, abs_tol)
    if problems:
        raise Failure("; ".join(problems))
    return f"opset {default_opset(model) or 1} (IR {model.ir_version}) -> {target}, <= {max_ulp} ULP or abs " \
           f"{abs_tol:g}: {why}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli")
    parser.add_argument("runner")
    parser.add_argument("scratch")
    parser.add_argument("--targets", nargs="+", type=int, default=[7, 13, 17])
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    os.makedirs(args.scratch, exist_ok=True)
    names = [e["name"] for e in select_only([{"name": n} for n in MODELS], args.only, "name")]
    checks = [(f"{name} -> {target}",
               lambda n=name, t=target: check(n, t, os.path.abspath(args.cli), os.path.abspath(args.runner),
                                              args.scratch))
              for name in names for target in args.targets]
    sys.exit(run_checks(checks))


if __name__ == "__main__":
    main()
