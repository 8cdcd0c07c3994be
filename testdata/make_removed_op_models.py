#!/usr/bin/python3
"""Generates the models of testdata/removed_ops/: the experimental ops ONNX 1.5 removed (ImageScaler, Crop, Affine,
ScaledTanh, ParametricSoftplus, Scale, ThresholdedRelu before opset 10, MeanVarianceNormalization-1, ConstantFill,
GivenTensorFill) and Upsample-7/9 (legal up to opset 9, Resize on the way to 10+), their input cases, numpy's
expected outputs where numpy computes them exactly, and the models onnx-legalize must refuse.

Run in the project's Python environment (onnx 1.23.2 and numpy; onnx 1.12 wrote the same bytes):

    PY=$(scripts/install-python-env.sh) && "$PY" testdata/make_removed_op_models.py

onnx has no schema for these ops, so nodes are built with onnx.helper.make_node and the models are not put
through onnx.checker. Every run writes byte-identical files: fixed seeds (numpy's legacy RandomState), no
timestamps, a fixed order everywhere. The numerics every tolerance below rests on are in
docs/removed_ops_numerics.md (measured with tests/differential/measure_removed_ops.py).

Layout under testdata/removed_ops/ (everything is removed and rewritten on each run):
    <model>.onnx
    <model>.inputs/<case>/input_K.pb      one TensorProto per real graph input (initializers listed in graph.input
                                          are not fed), K its position among them, named after the input. A model
                                          without real inputs has no .inputs folder: run it on an empty folder.
    <model>.expected/<case>/output_K.pb   numpy's result for graph output K, only where numpy computes it exactly
                                          (copies, selects, single IEEE operations, fills).
    manifest.json                         one entry per model (fields described in README.md).
    README.md                             the table of models, generated from the same descriptions.
"""

import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "removed_ops")

F = TensorProto.FLOAT
I32 = TensorProto.INT32
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL
INT64_MAX = np.iinfo(np.int64).max

# Per-element tolerances (docs/removed_ops_numerics.md): ORT's ScaledTanh uses Eigen's tanh, its Tanh op MLAS's;
# ORT's ParametricSoftplus loses exp(z) < 2^-24, its Softplus op does not; MVN-1 with across_channels = 0 at opsets
# 7/8 sums in another order than any ReduceMean.
TANH_ULP = 8
SOFTPLUS_ULP = 3
MVN_ULP = 4

SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -3e-39, 1.1754944e-38,
                     1e30, -1e30, 3e38, -3e38, 1.0, -1.0, 0.5, 88.0, 89.0, 100.0, -100.0, 1e-7, 20.0, -20.0,
                     9.0, -9.0, 1e10, -87.0, -104.0, 3.4028235e38, -2.0, 2.0], dtype=np.float32)


# ----------------------------------------------------------------------------------------------- helpers

def vi(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def node(op, inputs, outputs, name=None, **attrs):
    return helper.make_node(op, inputs, outputs, name=name or outputs[0], **attrs)


def ir_for(opset):
    return 3 if opset <= 8 else 4


def make_model(graph, opset, ir_version=None, producer=("onnx-legalize-testdata", "1")):
    m = helper.make_model(graph, producer_name=producer[0], producer_version=producer[1],
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir_for(opset) if ir_version is None else ir_version
    return m


def float_cases(shape, seed):
    """specials (tiled, shuffled), normal (3 * N(0,1)) and wide (random sign * 10^U(-45, 38.5)) arrays of shape."""
    n = int(np.prod(shape))
    rs = np.random.RandomState(seed)
    specials = np.resize(SPECIALS, n).astype(np.float32)
    rs.shuffle(specials)
    normal = (rs.randn(n) * 3).astype(np.float32)
    with np.errstate(over="ignore"):
        wide = (np.sign(rs.randn(n)) * 10.0 ** rs.uniform(-45, 38.5, n)).astype(np.float32)
    return {"specials": specials.reshape(shape), "normal": normal.reshape(shape), "wide": wide.reshape(shape)}


def mvn_cases(shape, seed):
    rs = np.random.RandomState(seed)
    n = int(np.prod(shape))
    sp = np.resize(SPECIALS, n).astype(np.float32)
    rs.shuffle(sp)
    normal = (rs.randn(*shape) * 3 + 1).astype(np.float32)
    one_nan = normal.copy()
    one_nan.flat[5] = np.nan
    return {"normal": normal,
            "offset": (rs.randn(*shape) + 1000).astype(np.float32),
            "wide": (rs.randn(*shape) * 1e15).astype(np.float32),
            "constant": np.full(shape, 2.5, np.float32),
            "denormal": (rs.randn(*shape) * 1e-41).astype(np.float32),
            "specials": sp.reshape(shape),
            "one_nan": one_nan,
            # sums whose rounding depends on the summation order (a replacement that sums in another order than
            # ORT's kernel shows up here; the cases above may happen to round alike)
            "magnitudes": (rs.randn(*shape) * 10.0 ** rs.uniform(-3, 3, shape)).astype(np.float32),
            "offset100": (rs.randn(*shape) * 3 + 100).astype(np.float32)}


MODELS = []  # manifest entries, in generation order


def real_inputs(graph):
    inits = {t.name for t in graph.initializer}
    return [i.name for i in graph.input if i.name not in inits]


def write_tensor(path, name, array):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.asarray(array), name).SerializeToString())


def removed_ops_of(model):
    removed = {"ImageScaler", "Crop", "Affine", "ScaledTanh", "ParametricSoftplus", "Scale", "ConstantFill",
               "GivenTensorFill", "GRUUnit", "ATen"}
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    found = set()

    def walk(nodes):
        for n in nodes:
            if n.domain in ("", "ai.onnx"):
                if n.op_type in removed or (n.op_type == "ThresholdedRelu" and opset < 10) or \
                        (n.op_type == "MeanVarianceNormalization" and any(
                            a.name in ("across_channels", "normalize_variance") for a in n.attribute)):
                    found.add(n.op_type)
            for a in n.attribute:
                for g in list(a.graphs) + ([a.g] if a.HasField("g") else []):
                    walk(g.node)
    walk(model.graph.node)
    return sorted(found)


def save(name, model, cases, *, pattern, legalization, max_ulp=0, abs_tol=0.0, ort_runs_original=True,
         expected=None, expect_default_opset=None, all_fold=False, expect_refusal=False, refusal_mentions=(),
         ort_reference=None):
    """Writes <name>.onnx, its input cases and expected outputs, and records it for the manifest.

    cases: {case: {graph input name: array}}; expected: {case: [array per graph output]} or None.
    max_ulp / abs_tol: legalized vs original in ORT must agree per element within max_ulp ULPs or abs_tol
    (max_ulp 0 and abs_tol 0: byte for byte). expect_default_opset: the default opset OUT should have without
    --target-opset (None: not checked). all_fold: every removed op has constant inputs only. ort_reference: the
    model ORT runs in place of this one (its twin at an opset where ORT has the removed op)."""
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
        "removed_ops": removed_ops_of(model),
        "inputs_dir": (name + ".inputs") if inputs and cases else None,
        "expected_dir": (name + ".expected") if expected is not None else None,
        "cases": list(cases),
        "ort_runs_original": ort_runs_original,
        "ort_reference": ort_reference,
        "expect_refusal": expect_refusal,
        "refusal_mentions": list(refusal_mentions),
        "max_ulp": max_ulp,
        "abs_tol": abs_tol,
        "expect_default_opset": expect_default_opset,
        "all_fold": all_fold,
        "pattern": pattern,
        "legalization": legalization,
    })


def f32(v):
    return np.float32(v)


# ----------------------------------------------------------------------------------------------- elementwise ops

def unary_model(name, op, attrs, opset, shape, *, pattern, legalization, expected_fn=None, max_ulp=0, abs_tol=0.0,
                expect_default_opset=None, seed=1, out_shape=None):
    graph = helper.make_graph([node(op, ["x"], ["y"], name=name, **attrs)], name,
                              [vi("x", F, shape)], [vi("y", F, shape if out_shape is None else out_shape)])
    cases = float_cases(shape, seed)
    expected = None
    if expected_fn is not None:
        with np.errstate(all="ignore"):
            expected = {c: [expected_fn(x)] for c, x in cases.items()}
    save(name, make_model(graph, opset), {c: {"x": x} for c, x in cases.items()}, pattern=pattern,
         legalization=legalization, expected=expected, max_ulp=max_ulp, abs_tol=abs_tol,
         expect_default_opset=opset if expect_default_opset is None else expect_default_opset)


def imagescaler_models():
    shape = [2, 3, 4, 5]
    variants = [("tinyyolo", {"scale": 0.003921569, "bias": [0.0, 0.0, 0.0]}),
                ("bias", {"scale": 0.017, "bias": [-2.1, 1.5, -0.4]}),
                ("default_scale", {"bias": [1e30, -0.0, 3.0]})]
    for tag, attrs in variants:
        scale = f32(attrs.get("scale", 1.0))
        bias = np.array(attrs["bias"], np.float32).reshape(3, 1, 1)
        for opset in (7, 8, 9):
            unary_model(f"imagescaler_{tag}_opset{opset}", "ImageScaler", attrs, opset, shape, seed=10 + opset,
                        expected_fn=lambda x, s=scale, b=bias: (x * s + b).astype(np.float32),
                        pattern=f"ImageScaler {attrs} on NCHW [2,3,4,5] (N = 2), run-time input",
                        legalization="Mul(x, scale as a float scalar) then Add(bias shaped [C,1,1]); bit-exact in ORT; "
                                     "opset unchanged")


def affine_scale_models():
    shape = [3, 41]
    for tag, attrs in [("defaults", {}), ("a0.5_b-3", {"alpha": 0.5, "beta": -3.0}), ("a1e30_b-0", {"alpha": 1e30, "beta": -0.0})]:
        a, b = f32(attrs.get("alpha", 1.0)), f32(attrs.get("beta", 0.0))
        for opset in (7, 8, 9):
            unary_model(f"affine_{tag}_opset{opset}", "Affine", attrs, opset, shape, seed=20 + opset,
                        expected_fn=lambda x, a=a, b=b: (x * a + b).astype(np.float32),
                        pattern=f"Affine {attrs or '(defaults alpha 1, beta 0)'}",
                        legalization="Mul(x, alpha) then Add(beta); bit-exact; the Add of +0 must stay (it turns -0 "
                                     "into +0 as Affine does)")
    for tag, attrs in [("default", {}), ("m3.3", {"scale": -3.3})]:
        s = f32(attrs.get("scale", 1.0))
        for opset in (7, 8, 9):
            unary_model(f"scale_{tag}_opset{opset}", "Scale", attrs, opset, shape, seed=30 + opset,
                        expected_fn=lambda x, s=s: (x * s).astype(np.float32),
                        pattern=f"Scale {attrs or '(default scale 1)'}",
                        legalization="Mul(x, scale) (or nothing for scale 1); bit-exact")


def tanh_softplus_models():
    shape = [3, 41]
    for a, b in [(0.5, 2.0), (-1.7, 0.3)]:
        for opset in (7, 8, 9):
            unary_model(f"scaledtanh_a{a}_b{b}_opset{opset}", "ScaledTanh", {"alpha": a, "beta": b}, opset, shape,
                        seed=40 + opset, max_ulp=TANH_ULP, abs_tol=abs(a) * 2.0 ** -126,
                        pattern=f"ScaledTanh alpha {a} beta {b}",
                        legalization="Mul(beta) -> Tanh -> Mul(alpha); not bit-exact in ORT (Eigen tanh vs MLAS "
                                     f"tanh): <= {TANH_ULP} ULP or |diff| <= |alpha| * 2^-126")
    for a, b in [(1.0, 1.0), (0.5, 2.0), (2.0, -3.0)]:
        for opset in (7, 8, 9):
            unary_model(f"psoftplus_a{a}_b{b}_opset{opset}", "ParametricSoftplus", {"alpha": a, "beta": b}, opset,
                        shape, seed=50 + opset, max_ulp=SOFTPLUS_ULP, abs_tol=abs(a) * 2.0 ** -23,
                        pattern=f"ParametricSoftplus alpha {a} beta {b} (inputs up to 3e38: log(exp(x)+1) overflows)",
                        legalization="Mul(beta) -> Softplus -> Mul(alpha); ORT's ParametricSoftplus returns 0 below "
                                     f"beta*x ~ -16.6, Softplus does not: <= {SOFTPLUS_ULP} ULP or |diff| <= |alpha| * "
                                     "2^-23")


def thresholdedrelu_models():
    shape = [3, 41]
    for alpha in (None, -2.0, 0.5):
        attrs = {} if alpha is None else {"alpha": alpha}
        al = f32(1.0 if alpha is None else alpha)
        tag = "default" if alpha is None else f"a{alpha}"
        for opset in (7, 8, 9):
            unary_model(f"thresholdedrelu_{tag}_opset{opset}", "ThresholdedRelu", attrs, opset, shape, seed=60 + opset,
                        expected_fn=lambda x, al=al: np.where(x > al, x, np.float32(0)).astype(np.float32),
                        expect_default_opset=9,
                        pattern=f"experimental ThresholdedRelu {attrs or '(default alpha 1)'} at opset {opset}"
                                + (" (alpha < 0: -0 must stay -0)" if alpha is not None and alpha < 0 else ""),
                        legalization="ThresholdedRelu-10 at a target >= 10; at 9 Where(Not(Greater(x, alpha)), 0, x) "
                                     "(bit-exact in ORT; Where(Greater, x, 0) loses -0); at 7/8 no exact form, so "
                                     "the default target is 9")


# ----------------------------------------------------------------------------------------------- NCHW ops

def crop_models():
    shape = [2, 3, 7, 9]
    for tag, attrs in [("b1_2_3_1", {"border": [1, 2, 3, 1]}), ("b2_1_0_0", {"border": [2, 1, 0, 0]}),
                       ("b1_2_0_0_s3_4", {"border": [1, 2, 0, 0], "scale": [3, 4]}),
                       ("b3_1_5_5_s2_2", {"border": [3, 1, 5, 5], "scale": [2, 2]})]:
        left, top, right, bottom = attrs["border"]
        if "scale" in attrs:
            rows, cols = slice(top, top + attrs["scale"][0]), slice(left, left + attrs["scale"][1])
        else:
            rows, cols = slice(top, shape[2] - bottom), slice(left, shape[3] - right)
        for opset in (7, 8, 9):
            unary_model(f"crop_{tag}_opset{opset}", "Crop", attrs, opset, shape, seed=70 + opset,
                        out_shape=shape[:2] + [rows.stop - rows.start, cols.stop - cols.start],
                        expected_fn=lambda x, r=rows, c=cols: np.ascontiguousarray(x[:, :, r, c]),
                        pattern=f"Crop {attrs} on [2,3,7,9]" + (" (scale given: right/bottom ignored)"
                                                                if "scale" in attrs and attrs["border"][2] else ""),
                        legalization="Slice on axes [2,3]: Slice-1 attributes below 10, Slice-10+ inputs above; "
                                     "ends -bottom/-right or INT64_MAX when 0, or top+height/left+width with scale")
    # Crop on an initializer: folds
    x = float_cases(shape, 79)["normal"]
    for opset in (7, 9):
        graph = helper.make_graph([node("Crop", ["img"], ["y"], border=[1, 2, 3, 1])], "crop_fold",
                                  [vi("img", F, shape)] if opset <= 8 else [], [vi("y", F, [2, 3, 4, 5])],
                                  initializer=[init("img", x)])
        save(f"crop_initializer_opset{opset}", make_model(graph, opset), {"default": {}},
             expected={"default": [np.ascontiguousarray(x[:, :, 2:6, 1:6])]}, all_fold=True, expect_default_opset=opset,
             pattern="Crop of a constant image (an initializer" + (", listed in graph.input at IR 3)" if opset <= 8
                                                                    else ")"),
             legalization="fold to an initializer (or Slice of the constant); no run-time input; opset unchanged")


def mvn_models():
    shape = [2, 3, 4, 5]
    for across in (0, 1):
        for nv in (0, 1):
            cases = mvn_cases(shape, 80 + 2 * across + nv)
            for opset in (7, 8, 9):
                name = f"mvn_ac{across}_nv{nv}_opset{opset}"
                graph = helper.make_graph(
                    [node("MeanVarianceNormalization", ["x"], ["y"], name=name, across_channels=across,
                          normalize_variance=nv)], name, [vi("x", F, shape)], [vi("y", F, shape)])
                tol = MVN_ULP if (nv and not across) else 0
                # At 9 the name is MVN-9's, ORT's MVN-1 kernel is gone: ORT runs the opset-8 twin instead.
                save(name, make_model(graph, opset), {c: {"x": x} for c, x in cases.items()}, max_ulp=tol,
                     expect_default_opset=opset,
                     ort_reference=f"mvn_ac{across}_nv{nv}_opset8.onnx" if opset == 9 else None,
                     pattern=f"MeanVarianceNormalization-1 across_channels {across} normalize_variance {nv}, N = 2 "
                             "(ORT's statistics are per channel over N,H,W, not per (n,c)); constant, denormal and "
                             "NaN cases (no epsilon: 0/0 = NaN)",
                     legalization="at 7/8: ReduceMean/Sub[/Mul/ReduceMean/Sqrt/Div] over " +
                                  ("[0,1,2,3] (bit-exact)" if across else
                                   "[1,2,3] between two Transpose(perm [1,0,2,3]) (" +
                                   (f"<= {MVN_ULP} ULP" if nv else "bit-exact") + ")") +
                                  "; at >= 9 MVN-9 with axes " + ("[0,1,2,3]" if across else "[0,2,3]") +
                                  (" (bit-exact)" if nv else " cannot (no normalize_variance): the mean-only form"))
    # defaults (no attributes) at 8
    cases = mvn_cases(shape, 90)
    graph = helper.make_graph([node("MeanVarianceNormalization", ["x"], ["y"])], "mvn_defaults",
                              [vi("x", F, shape)], [vi("y", F, shape)])
    m = make_model(graph, 8)
    save("mvn_defaults_opset8", m, {c: {"x": x} for c, x in cases.items()}, max_ulp=MVN_ULP, expect_default_opset=8,
         pattern="MeanVarianceNormalization without attributes at opset 8 (MVN-1 and MVN-9 share the name: the "
                 "opset decides; defaults across_channels 0, normalize_variance 1)",
         legalization="as across_channels 0, normalize_variance 1")


def upsample_models():
    shape = [1, 2, 3, 4]
    for mode, scales in [("nearest", [1.0, 1.0, 2.0, 3.0]), ("nearest", [1.0, 1.0, 1.5, 2.5]),
                         ("linear", [1.0, 1.0, 2.0, 2.0]), ("linear", [1.0, 1.0, 1.7, 1.3])]:
        out_shape = [int(np.floor(d * s)) for d, s in zip(shape, scales)]
        tag = f"{mode}_{'_'.join(f'{s:g}' for s in scales[2:])}"
        for opset in (7, 8):
            name = f"upsample7_{tag}_opset{opset}"
            graph = helper.make_graph([node("Upsample", ["x"], ["y"], name=name, mode=mode, scales=scales)], name,
                                      [vi("x", F, shape)], [vi("y", F, out_shape)])
            expected = None
            if mode == "nearest":
                def nn(x, sc=scales, os_=out_shape):
                    idx = [np.minimum(np.floor(np.arange(o) / s).astype(np.int64), d - 1)
                           for o, s, d in zip(os_, sc, shape)]
                    return x[np.ix_(*idx)]
                expected = nn
            cases = float_cases(shape, 100 + opset)
            save(name, make_model(graph, opset), {c: {"x": x} for c, x in cases.items()},
                 expected={c: [expected(x)] for c, x in cases.items()} if expected else None,
                 expect_default_opset=opset,
                 pattern=f"Upsample-7 mode {mode} scales {scales} (legal at {opset}: unchanged at the default target)",
                 legalization="unchanged at the default target; on the way to >= 10: Resize-10 (scales input), "
                              "Resize-11/13 with coordinate_transformation_mode asymmetric" +
                              (" and nearest_mode floor" if mode == "nearest" else "") + " (bit-exact in ORT)")
    # Upsample-9 (scales as an input) at 9
    name = "upsample9_nearest_2_3_opset9"
    graph = helper.make_graph([node("Upsample", ["x", "scales"], ["y"], name=name, mode="nearest")], name,
                              [vi("x", F, shape)], [vi("y", F, [1, 2, 6, 12])],
                              initializer=[init("scales", np.array([1, 1, 2, 3], np.float32))])
    cases = float_cases(shape, 110)
    save(name, make_model(graph, 9), {c: {"x": x} for c, x in cases.items()},
         expected={c: [x.repeat(2, axis=2).repeat(3, axis=3)] for c, x in cases.items()}, expect_default_opset=9,
         pattern="Upsample-9 nearest, scales a constant initializer (not in graph.input at IR 4)",
         legalization="unchanged at the default target; Resize on the way to >= 10 (asymmetric, floor)")


def deprecated_upsample_models():
    """Upsample written at opset 10 and later (PyTorch 1.1 at opset 10), where ONNX deprecated it: onnx's checker and
    ORT refuse it. ORT runs the same graph at opset 9 (the `twin`), the oracle; the legalized model must match it."""
    shape = [1, 2, 3, 4]
    for mode, scales in [("nearest", [1.0, 1.0, 2.0, 3.0]), ("linear", [1.0, 1.0, 2.0, 2.0]),
                         ("linear", [1.0, 1.0, 1.7, 1.3])]:
        out_shape = [int(np.floor(d * s)) for d, s in zip(shape, scales)]
        tag = f"{mode}_{'_'.join(f'{s:g}' for s in scales[2:])}"
        twin = f"upsample_deprecated_{tag}_twin_opset9"
        for opset in (9, 10, 11, 13):
            name = twin if opset == 9 else f"upsample_deprecated_{tag}_opset{opset}"
            graph = helper.make_graph([node("Upsample", ["x", "scales"], ["y"], name=name, mode=mode)], name,
                                      [vi("x", F, shape)], [vi("y", F, out_shape)],
                                      initializer=[init("scales", np.array(scales, np.float32))])
            cases = float_cases(shape, 120)
            save(name, make_model(graph, opset), {c: {"x": x} for c, x in cases.items()},
                 expect_default_opset=opset, ort_reference=None if opset == 9 else twin + ".onnx",
                 pattern=f"Upsample {mode} scales {scales} at opset {opset}" +
                         (" (legal: the twin ORT runs for the others)" if opset == 9 else
                          " (deprecated there: ORT refuses it)"),
                 legalization="unchanged" if opset == 9 else
                 ("Resize-10" if opset == 10 else "Resize (asymmetric" + (", floor)" if mode == "nearest" else ")")) +
                 "; ORT's Resize and Upsample are one kernel: bit-exact")


# ----------------------------------------------------------------------------------------------- fills

def fill_models():
    # ConstantFill with a shape attribute, no input: a constant; here added to x so the model has an input.
    shape = [2, 3]
    for opset in (8, 9):
        graph = helper.make_graph(
            [node("ConstantFill", [], ["c"], value=1.5, dtype=F, shape=shape), node("Add", ["x", "c"], ["y"])],
            "constantfill_shape", [vi("x", F, shape)], [vi("y", F, shape), vi("c", F, shape)])
        cases = float_cases(shape, 120 + opset)
        save(f"constantfill_shape_opset{opset}", make_model(graph, opset), {c: {"x": x} for c, x in cases.items()},
             expected={c: [(x + f32(1.5)).astype(np.float32), np.full(shape, 1.5, np.float32)] for c, x in cases.items()},
             ort_runs_original=False, all_fold=True, expect_default_opset=opset,
             pattern="ConstantFill(value 1.5, dtype FLOAT, shape [2,3]) without input, added to x; also a graph output",
             legalization="an initializer (or Constant) of 1.5s; opset unchanged; ORT cannot run the original: numpy")
    # ConstantFill from the input's shape, dtype int64, extra_shape
    for opset in (8, 9):
        graph = helper.make_graph(
            [node("ConstantFill", ["x"], ["y"], value=7.9, dtype=I64, extra_shape=[2])],
            "constantfill_like", [vi("x", F, ["N", 3])], [vi("y", I64, ["N", 3, 2])])
        cases = {"n2": {"x": np.zeros([2, 3], np.float32)}, "n1": {"x": np.ones([1, 3], np.float32)},
                 "n0": {"x": np.zeros([0, 3], np.float32)}}
        save(f"constantfill_like_input_opset{opset}", make_model(graph, opset), cases,
             expected={c: [np.full(list(f["x"].shape) + [2], 7, np.int64)] for c, f in cases.items()},
             ort_runs_original=False, expect_default_opset=9,
             pattern="ConstantFill(input x of run-time shape [N,3], value 7.9, dtype INT64, extra_shape [2]): output "
                     "shape = x's shape + [2], value cast to int64 (7)",
             legalization="ConstantOfShape-9 of Concat(Shape(x), [2]) with value int64 7 (at 8: the opset must "
                          "become 9); ORT cannot run the original: numpy")
    # ConstantFill with input_as_shape
    graph = helper.make_graph(
        [node("ConstantFill", ["s"], ["y"], value=-2.0, dtype=I32, input_as_shape=1, extra_shape=[3])],
        "constantfill_input_as_shape", [vi("s", I64, [2])], [vi("y", I32, [None, None, 3])])
    cases = {"s2x4": {"s": np.array([2, 4], np.int64)}, "s1x0": {"s": np.array([1, 0], np.int64)}}
    save("constantfill_input_as_shape_opset9", make_model(graph, 9), cases,
         expected={c: [np.full(list(f["s"]) + [3], -2, np.int32)] for c, f in cases.items()},
         ort_runs_original=False, expect_default_opset=9,
         pattern="ConstantFill(input_as_shape 1, input s = the shape as int64 values, extra_shape [3], dtype INT32, "
                 "value -2)",
         legalization="ConstantOfShape-9 of Concat(s, [3]) with value int32 -2; ORT cannot run the original: numpy")
    # ConstantFill bool, default value
    graph = helper.make_graph([node("ConstantFill", [], ["y"], dtype=BOOL, shape=[4])], "constantfill_bool",
                              [], [vi("y", BOOL, [4])])
    save("constantfill_bool_default_value_opset8", make_model(graph, 8), {"default": {}},
         expected={"default": [np.zeros([4], bool)]}, ort_runs_original=False, all_fold=True, expect_default_opset=8,
         pattern="ConstantFill(dtype BOOL, shape [4]), value left at its default 0.0: all false; no graph input",
         legalization="an initializer of four false; opset unchanged")
    # GivenTensorFill
    values = np.array([1.0, -0.0, np.inf, np.nan, 1e-45, -3e38], np.float32)
    for opset in (7, 9):
        graph = helper.make_graph(
            [node("GivenTensorFill", [], ["g"], values=values.tolist(), shape=[2, 3]), node("Mul", ["x", "g"], ["y"])],
            "giventensorfill", [vi("x", F, [2, 3])], [vi("y", F, [2, 3]), vi("g", F, [2, 3])])
        cases = float_cases([2, 3], 130 + opset)
        with np.errstate(all="ignore"):
            exp = {c: [(x * values.reshape(2, 3)).astype(np.float32), values.reshape(2, 3)] for c, x in cases.items()}
        save(f"giventensorfill_opset{opset}", make_model(graph, opset), {c: {"x": x} for c, x in cases.items()},
             expected=exp, ort_runs_original=False, all_fold=True, expect_default_opset=opset,
             pattern="GivenTensorFill(values [1, -0, inf, NaN, 1e-45, -3e38], shape [2,3]) multiplied into x and "
                     "also a graph output (the initializer must keep -0, NaN and the denormal bit for bit)",
             legalization="an initializer typed as the values (float); opset unchanged; ORT cannot run it: numpy")


# ----------------------------------------------------------------------------------------------- composite models

def tiny_yolov2_head():
    """The model zoo's tiny-yolov2 (CoreML-converted) head: ImageScaler -> Conv -> BatchNormalization -> LeakyRelu ->
    MaxPool, opset 7, IR 3, every initializer also listed in graph.input."""
    rs = np.random.RandomState(140)
    w = (rs.randn(8, 3, 3, 3) * 0.2).astype(np.float32)
    bn = [rs.uniform(0.5, 1.5, 8).astype(np.float32), (rs.randn(8) * 0.1).astype(np.float32),
          (rs.randn(8) * 0.1).astype(np.float32), rs.uniform(0.5, 2.0, 8).astype(np.float32)]
    names = ["convolution_W", "BatchNormalization_scale", "BatchNormalization_B", "BatchNormalization_mean",
             "BatchNormalization_variance"]
    nodes = [node("ImageScaler", ["image"], ["scalerPreprocessor"], bias=[0.0, 0.0, 0.0], scale=0.003921569),
             node("Conv", ["scalerPreprocessor", "convolution_W"], ["convolution_output"], name="convolution",
                  kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1], dilations=[1, 1], group=1),
             node("BatchNormalization", ["convolution_output"] + names[1:], ["BatchNormalization_Y"],
                  name="BatchNormalization", epsilon=1e-5),
             node("LeakyRelu", ["BatchNormalization_Y"], ["activation_output"], name="activation", alpha=0.1),
             node("MaxPool", ["activation_output"], ["grid"], name="pooling", kernel_shape=[2, 2], strides=[2, 2],
                  pads=[0, 0, 0, 0])]
    graph = helper.make_graph(
        nodes, "tiny-yolov2-head",
        [vi("image", F, [None, 3, 16, 16]), vi(names[0], F, [8, 3, 3, 3])] + [vi(n, F, [8]) for n in names[1:]],
        [vi("grid", F, [None, 8, 8, 8])],
        initializer=[init(names[0], w)] + [init(n, a) for n, a in zip(names[1:], bn)])
    model = make_model(graph, 7, 3, producer=("OnnxMLTools", "1.2.2.0129"))
    rs = np.random.RandomState(141)
    pixels = rs.randint(0, 256, size=(1, 3, 16, 16)).astype(np.float32)
    sp = pixels.copy()
    sp.flat[::7] = np.resize(SPECIALS, sp.flat[::7].size)
    cases = {"pixels": {"image": pixels}, "batch2": {"image": rs.randint(0, 256, size=(2, 3, 16, 16)).astype(np.float32)},
             "specials": {"image": sp}}
    save("tiny_yolov2_head_opset7", model, cases, expect_default_opset=7,
         pattern="model zoo tiny-yolov2 head (CoreML-converted, OnnxMLTools producer): ImageScaler(scale 1/255, bias "
                 "0) -> Conv -> BatchNormalization -> LeakyRelu -> MaxPool, opset 7, IR 3, initializers also in "
                 "graph.input, batch dimension symbolic",
         legalization="ImageScaler -> Mul + Add; everything else untouched; opset and IR unchanged (byte-identical "
                      "outputs in ORT); at --target-opset 13/17 the whole model converts")


def mixed_with_dynamic_slice():
    shape = [1, 3, 8, 10]
    nodes = [node("ImageScaler", ["x"], ["scaled"], scale=0.5, bias=[1.0, -1.0, 0.25]),
             node("Crop", ["scaled"], ["cropped"], border=[1, 1, 2, 2]),
             helper.make_node("DynamicSlice", ["cropped", "starts", "ends", "axes"], ["y"], name="y")]
    graph = helper.make_graph(nodes, "mixed", [vi("x", F, shape), vi("starts", I64, [2]), vi("ends", I64, [2])],
                              [vi("y", F, [1, 3, None, None])], initializer=[init("axes", np.array([2, 3], np.int64))])
    x = float_cases(shape, 150)
    idx = {"basic": (np.array([1, 0], np.int64), np.array([4, 6], np.int64)),
           "negative": (np.array([-3, -100], np.int64), np.array([INT64_MAX, -1], np.int64))}
    cases = {}
    for xc in ("normal", "specials"):
        for ic, (s, e) in idx.items():
            cases[f"{xc}_{ic}"] = {"x": x[xc], "starts": s, "ends": e}
    save("mixed_imagescaler_crop_dynamicslice_opset9", make_model(graph, 9), cases, expect_default_opset=None,
         pattern="ImageScaler -> Crop -> DynamicSlice (run-time starts/ends, constant axes) at opset 9, IR 4",
         legalization="Mul+Add, Slice, and the DynamicSlice's Slice-10+: one target for all (>= 10); bit-exact")


def fold_models():
    shape = [1, 3, 2, 2]
    x = float_cases(shape, 160)["specials"]
    graph = helper.make_graph([node("ImageScaler", ["c"], ["s"], scale=2.0, bias=[1.0, 2.0, 3.0]),
                               node("Add", ["x", "s"], ["y"])], "imagescaler_fold",
                              [vi("x", F, shape), vi("c", F, shape)], [vi("y", F, shape)],
                              initializer=[init("c", x)])
    cases = float_cases(shape, 161)
    bias = np.array([1, 2, 3], np.float32).reshape(3, 1, 1)
    with np.errstate(all="ignore"):
        exp = {k: [(v + (x * f32(2.0) + bias)).astype(np.float32)] for k, v in cases.items()}
    save("imagescaler_initializer_opset8", make_model(graph, 8), {k: {"x": v} for k, v in cases.items()},
         expected=exp, all_fold=True, expect_default_opset=8,
         pattern="ImageScaler of an IR-3 initializer listed in graph.input (a constant holding +-0, inf, NaN, "
                 "denormals), added to a run-time x",
         legalization="fold (the scaled constant) or Mul+Add; opset unchanged; bit-exact")
    graph = helper.make_graph([node("Scale", ["c"], ["s"], scale=3.0), node("Add", ["x", "s"], ["y"])],
                              "scale_overridable", [vi("x", F, shape), vi("c", F, shape)], [vi("y", F, shape)],
                              initializer=[init("c", x)])
    with np.errstate(all="ignore"):
        exp = {k: [(v + x * f32(3.0)).astype(np.float32)] for k, v in cases.items()}
    save("scale_overridable_initializer_opset9", make_model(graph, 9), {k: {"x": v} for k, v in cases.items()},
         expected=exp, expect_default_opset=9,
         pattern="Scale of an IR-4 initializer that is also a graph input: an overridable default, not a constant",
         legalization="must NOT fold: Mul(c, 3) with c kept as an overridable graph input")


def subgraph_model():
    shape = [1, 3, 2, 4]
    then_g = helper.make_graph([node("ImageScaler", ["x"], ["t"], scale=2.0, bias=[0.5, -0.5, 0.0])], "then", [],
                               [vi("t", F, shape)])
    else_g = helper.make_graph([node("Affine", ["x"], ["e"], alpha=-1.5, beta=0.25),
                                node("ThresholdedRelu", ["e"], ["e2"], alpha=-0.5)], "else", [], [vi("e2", F, shape)])
    graph = helper.make_graph([node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g)], "if_removed",
                              [vi("cond", BOOL, []), vi("x", F, shape)], [vi("y", F, shape)])
    xs = float_cases(shape, 170)
    cases = {f"{b}_{c}": {"cond": np.array(b == "then"), "x": xs[c]} for b in ("then", "else")
             for c in ("specials", "normal")}
    save("subgraph_if_opset9", make_model(graph, 9), cases, expect_default_opset=9,
         pattern="If at opset 9: ImageScaler in the then-branch, Affine -> ThresholdedRelu in the else-branch, on the "
                 "outer-scope x",
         legalization="rewrite inside both branches; bit-exact")


# ----------------------------------------------------------------------------------------------- refusals

def refusal_models():
    shape = [1, 3, 4, 4]

    def refuse(name, nodes, inputs, outputs, opset, pattern, mentions, inits=()):
        graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
        save(name, make_model(graph, opset), {}, ort_runs_original=False, expect_refusal=True,
             refusal_mentions=mentions, pattern=pattern,
             legalization="refused: exit 3, every such node named (graph path and op), nothing written")

    refuse("refuse_aten_opset9", [node("ATen", ["x", "x"], ["y"], operator="add")],
           [vi("x", F, shape)], [vi("y", F, shape)], 9, "ATen (operator 'add'), PyTorch's escape hatch", ["ATen"])
    refuse("refuse_gruunit_opset7",
           [node("GRUUnit", ["h", "g", "len", "t"], ["hidden"], drop_states=0)],
           [vi("h", F, [2, 4]), vi("g", F, [2, 12]), vi("len", F, [2]), vi("t", F, [1])], [vi("hidden", F, [2, 4])],
           7, "Caffe2's GRUUnit", ["GRUUnit"])
    refuse("refuse_unknown_op_opset8", [node("FancyNorm", ["x"], ["y"])], [vi("x", F, shape)], [vi("y", F, shape)], 8,
           "an op onnx never defined, in the default domain", ["FancyNorm"])
    refuse("refuse_imagescaler_bias_length_opset8",
           [node("ImageScaler", ["x"], ["y"], scale=1.0, bias=[1.0, 2.0])], [vi("x", F, shape)], [vi("y", F, shape)],
           8, "ImageScaler with 2 bias values for a declared C = 3 (the spec: 'same size as C'; ORT fails at run time)",
           ["ImageScaler"])
    refuse("refuse_mvn_across_channels_2_opset8",
           [node("MeanVarianceNormalization", ["x"], ["y"], across_channels=2)], [vi("x", F, shape)],
           [vi("y", F, shape)], 8, "MeanVarianceNormalization-1 with across_channels 2 (the spec gives 0 and 1 a "
           "meaning only; ORT silently treats it as 0)", ["MeanVarianceNormalization"])
    refuse("refuse_crop_three_borders_opset9", [node("Crop", ["x"], ["y"], border=[1, 1, 1])], [vi("x", F, shape)],
           [vi("y", F, [1, 3, None, None])], 9, "Crop with 3 border values (4 required; ORT fails at run time)",
           ["Crop"])
    refuse("refuse_scaledtanh_no_alpha_opset9", [node("ScaledTanh", ["x"], ["y"], beta=1.0)], [vi("x", F, shape)],
           [vi("y", F, shape)], 9, "ScaledTanh without alpha (required: no default in the spec; ORT refuses it)",
           ["ScaledTanh"])
    refuse("refuse_psoftplus_no_beta_opset9", [node("ParametricSoftplus", ["x"], ["y"], alpha=1.0)],
           [vi("x", F, shape)], [vi("y", F, shape)], 9,
           "ParametricSoftplus without beta (required: no default in the spec; ORT refuses it)", ["ParametricSoftplus"])
    # a legalizable op beside a hopeless one: the whole model is refused, both findings named
    refuse("refuse_mixed_imagescaler_aten_opset8",
           [node("ImageScaler", ["x"], ["s"], scale=2.0, bias=[0.0, 0.0, 0.0]),
            node("ATen", ["s"], ["y"], operator="relu")], [vi("x", F, shape)], [vi("y", F, shape)], 8,
           "ImageScaler (legalizable) followed by ATen: nothing may be written", ["ATen"])
    then_g = helper.make_graph([node("GRUUnit", ["h", "g", "len", "t"], ["hid"])], "then", [],
                               [vi("hid", F, [2, 4])])
    else_g = helper.make_graph([node("Identity", ["h"], ["h2"])], "else", [], [vi("h2", F, [2, 4])])
    refuse("refuse_gruunit_in_if_opset9",
           [node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
           [vi("cond", BOOL, []), vi("h", F, [2, 4]), vi("g", F, [2, 12]), vi("len", F, [2]), vi("t", F, [1])],
           [vi("y", F, [2, 4])], 9, "GRUUnit inside an If's then-branch: refused with its graph path", ["GRUUnit"])


# ----------------------------------------------------------------------------------------------- main

README_HEAD = """# Models holding the experimental ops ONNX 1.5 removed

Generated, this README included, by `testdata/make_removed_op_models.py`: run it with the Python of
`scripts/install-python-env.sh` (onnx 1.23.2 and numpy); it deletes and rewrites every file here, byte for byte the same
on every run. Edit the script, not the files. `manifest.json` carries the same facts for
`tests/differential/run_differential.py`; the numerics behind every tolerance are in
`docs/removed_ops_numerics.md`.

Per model: `<model>.onnx`; `<model>.inputs/<case>/input_K.pb` (one TensorProto per real graph input);
where numpy computes the result exactly, `<model>.expected/<case>/output_K.pb`.

Manifest fields beyond those of `testdata/legacy/manifest.json`:
- `removed_ops`: the removed op types the model holds (none may be left in OUT);
- `expect_refusal`: the CLI must exit 3 and write nothing; `refusal_mentions`: words its output must contain;
- `max_ulp`, `abs_tol`: legalized vs original in ONNX Runtime, per element: both NaN, or within `max_ulp` ULPs,
  or within `abs_tol`; `max_ulp` 0 with `abs_tol` 0 means byte for byte;
- `expect_default_opset`: the default-domain opset OUT must import when no `--target-opset` is given (null: not
  checked; then the DynamicSlice rule applies: >= 10 unless everything folds);
- `all_fold`: every removed op has constant inputs only;
- `ort_runs_original`: false for ConstantFill and GivenTensorFill (ORT has no kernel): compared with numpy only;
- `ort_reference`: the file ORT runs as the original, where it has no kernel for the op at the model's opset
  (MVN-1 written at opset 9: its opset-8 twin, same graph and inputs).

| file | IR / opset | ORT runs it | refusal | max_ulp / abs_tol | cases | pattern | what legalization should do |
|---|---|---|---|---|---|---|---|
"""


def write_readme():
    lines = [README_HEAD]
    for m in MODELS:
        lines.append("| `{}` | {} / {} | {} | {} | {} | {} | {} | {} |\n".format(
            m["file"], m["ir_version"], m["default_opset"],
            (f"as `{m['ort_reference']}`" if m["ort_reference"] else "yes") if m["ort_runs_original"] else "no (numpy)",
            "**refuse**" if m["expect_refusal"] else "", f"{m['max_ulp']} / {m['abs_tol']:g}",
            ", ".join(m["cases"]), m["pattern"].replace("|", "\\|"), m["legalization"].replace("|", "\\|")))
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("".join(lines))


# ----------------------------------------------------------------------------------------------- chains

# The removed ops ORT computes bit for bit like their replacements, each as one node over NCHW data [1,3,H,W], with
# the shape it leaves. MVN across channels: the across_channels 0 form sums in another order than ORT's kernel.
PAIR_OPS = {
    "ImageScaler": lambda x, y: [node("ImageScaler", [x], [y], scale=0.5, bias=[1.0, -2.0, 0.25])],
    "Crop": lambda x, y: [node("Crop", [x], [y], border=[1, 1, 1, 1])],
    "Affine": lambda x, y: [node("Affine", [x], [y], alpha=1.5, beta=-0.75)],
    "Scale": lambda x, y: [node("Scale", [x], [y], scale=3.0)],
    "ThresholdedRelu": lambda x, y: [node("ThresholdedRelu", [x], [y], alpha=0.25)],
    "MeanVarianceNormalization": lambda x, y: [node("MeanVarianceNormalization", [x], [y], across_channels=1,
                                                    normalize_variance=1)],
    "DynamicSlice": lambda x, y: [
        node("Constant", [], [y + "_starts"], value=numpy_helper.from_array(np.array([1], np.int64))),
        node("Constant", [], [y + "_ends"], value=numpy_helper.from_array(np.array([-1], np.int64))),
        node("Constant", [], [y + "_axes"], value=numpy_helper.from_array(np.array([3], np.int64))),
        helper.make_node("DynamicSlice", [x, y + "_starts", y + "_ends", y + "_axes"], [y])],
    "ScaledTanh": lambda x, y: [node("ScaledTanh", [x], [y], alpha=1.5, beta=0.5)],
    "ParametricSoftplus": lambda x, y: [node("ParametricSoftplus", [x], [y], alpha=0.5, beta=2.0)],
    # A fill shaped like its input (the shape known only at run time), as Caffe2 exports wrote zeros-like.
    "ConstantFill": lambda x, y: [node("ConstantFill", [x], [y], value=0.75)],
}
PAIR_SHRINKS = {"Crop": (2, 2), "DynamicSlice": (0, 2)}  # (rows, columns) an op takes away
# Where the pair is not bit-exact in ORT, per element (docs/removed_ops_numerics.md): each inexact op's bound,
# which the Tanh between them does not widen (|tanh'| <= 1); the second op's scaling (MVN divides by a standard
# deviation of about 0.5 here) is covered by doubling. Near zero, an absolute bound of 2^-20 (results are O(1)).
PAIR_ULPS = {"ScaledTanh": TANH_ULP, "ParametricSoftplus": SOFTPLUS_ULP}


def pair_twin_for_ort(nodes):
    """The pair with its ConstantFill written as opset 8's Expand of the fill value to the input's shape: ORT has no
    ConstantFill kernel, and the twin computes what it did."""
    twin = []
    for n in nodes:
        if n.op_type != "ConstantFill":
            twin.append(n)
            continue
        value = next(a.f for a in n.attribute if a.name == "value")
        out = n.output[0]
        twin += [node("Shape", [n.input[0]], [out + "_shape"]),
                 node("Constant", [], [out + "_value"], value=numpy_helper.from_array(np.array(value, np.float32))),
                 node("Expand", [out + "_value", out + "_shape"], [out])]
    return twin


def removed_op_pairs():
    """Every ordered pair of PAIR_OPS, the first one's output reaching the second through a Tanh: onnx's inference
    has no schema for either, so the Tanh's output, which the second reads, is typed only if the first one's
    output is (the rules' output types, shown to inference). A pair with a ConstantFill has a twin ORT runs."""
    shape = [1, 3, 8, 10]
    for first in PAIR_OPS:
        for second in PAIR_OPS:
            rows = shape[2] - PAIR_SHRINKS.get(first, (0, 0))[0] - PAIR_SHRINKS.get(second, (0, 0))[0]
            cols = shape[3] - PAIR_SHRINKS.get(first, (0, 0))[1] - PAIR_SHRINKS.get(second, (0, 0))[1]
            nodes = PAIR_OPS[first]("x", "a") + [node("Tanh", ["a"], ["t"], name="tanh")] + PAIR_OPS[second]("t", "y")
            name = f"pair_{first}_{second}_opset8"
            inexact = PAIR_ULPS.get(first, 0) + PAIR_ULPS.get(second, 0)
            if first == "ConstantFill":
                inexact = PAIR_ULPS.get(second, 0)  # the first one's value is exact
            if second == "ConstantFill":
                inexact = 0  # its value does not depend on its input's
            cases = float_cases(shape, 200)
            feeds = {c: {"x": cases[c]} for c in ("normal", "specials")}
            twin = None
            if "ConstantFill" in (first, second):
                twin = name.replace("_opset8", "_twin_opset8")
                twin_graph = helper.make_graph(pair_twin_for_ort(nodes), twin, [vi("x", F, [None, 3, 8, 10])],
                                               [vi("y", F, [None, 3, None, None])])
                save(twin, make_model(twin_graph, 8), feeds,
                     pattern=f"{name} with its ConstantFill as Shape -> Expand: what ORT runs for it",
                     legalization="each removed op by its rule", max_ulp=2 * inexact,
                     abs_tol=2.0 ** -20 if inexact else 0.0)
            # No value_info and no output sizes: as the exporters of the time wrote them.
            graph = helper.make_graph(nodes, name, [vi("x", F, [None, 3, 8, 10])], [vi("y", F, [None, 3, None, None])])
            save(name, make_model(graph, 8), feeds, max_ulp=2 * inexact, abs_tol=2.0 ** -20 if inexact else 0.0,
                 ort_reference=None if twin is None else twin + ".onnx",
                 pattern=f"{first} -> Tanh -> {second} at opset 8, IR 3, symbolic batch, no value_info (output "
                         f"[1,3,{rows},{cols}])",
                 legalization="each removed op by its rule; the second one's input typed through the Tanh")


def style_transfer_shape():
    """The CoreML-converted style-transfer networks of the Windows ML samples (OnnxMLTools 1.2, opset 7, IR 3, no
    value_info, a symbolic batch): ImageScaler at the input, reflect Pad, Conv/InstanceNormalization/Relu, a Crop on
    each residual branch, ConvTranspose, Tanh, Affine at the output. Small: 8 channels, 20x20."""
    rs = np.random.RandomState(210)

    def weight(name, *dims):
        return init(name, (rs.randn(*dims) * 0.3).astype(np.float32))

    inits = [weight("conv1_W", 8, 3, 3, 3), weight("conv1_B", 8), weight("in1_scale", 8), weight("in1_B", 8),
             weight("res_W", 8, 8, 3, 3), weight("res_B", 8), weight("up_W", 8, 3, 3, 3), weight("up_B", 3)]
    nodes = [node("ImageScaler", ["inputImage"], ["scaled"], name="scalerPreprocessor", scale=1.0,
                  bias=[-104.0, -117.0, -123.0]),
             node("Pad", ["scaled"], ["padded"], mode="reflect", pads=[0, 0, 2, 2, 0, 0, 2, 2]),
             node("Conv", ["padded", "conv1_W", "conv1_B"], ["conv1"], kernel_shape=[3, 3], strides=[1, 1]),
             node("InstanceNormalization", ["conv1", "in1_scale", "in1_B"], ["in1"], epsilon=1e-5),
             node("Relu", ["in1"], ["relu1"]),
             node("Conv", ["relu1", "res_W", "res_B"], ["res_conv"], kernel_shape=[3, 3], strides=[1, 1]),
             node("Crop", ["relu1"], ["res_crop"], border=[1, 1, 1, 1]),
             node("Add", ["res_conv", "res_crop"], ["res_sum"]),
             node("ConvTranspose", ["res_sum", "up_W", "up_B"], ["up"], kernel_shape=[3, 3], strides=[1, 1]),
             node("Tanh", ["up"], ["tanh"]),
             node("Affine", ["tanh"], ["outputImage"], name="activation11", alpha=150.0, beta=0.0)]
    graph = helper.make_graph(nodes, "style_transfer", [vi("inputImage", F, ["None", 3, 20, 20])] +
                              [vi(t.name, F, list(t.dims)) for t in inits],
                              [vi("outputImage", F, ["None", 3, 22, 22])], initializer=inits)
    model = make_model(graph, 7, 3, producer=("OnnxMLTools", "1.2.0.0116"))
    pixels = rs.randint(0, 256, size=(1, 3, 20, 20)).astype(np.float32)
    save("style_transfer_shape_opset7", model, {"pixels": {"inputImage": pixels}}, expect_default_opset=7,
         pattern="CoreML-converted style transfer (Windows ML samples): ImageScaler -> reflect Pad -> Conv -> "
                 "InstanceNormalization -> Relu -> Conv + Crop residual -> ConvTranspose -> Tanh -> Affine; opset 7, "
                 "IR 3, no value_info, batch 'None'",
         legalization="Mul + Add, Slice-1 (Slice-10+ at 13/17), Mul + Add; Affine's input typed through the "
                      "standard ops after the ImageScaler and the Crop")


def float16_models():
    """float16 data, as Windows ML's fp16 legacy models held it: each op that computes becomes Cast to float, its
    float replacement, Cast to float16 (computed in float, rounded once, as ONNX Runtime's kernels of these ops do);
    Crop takes float16 as it is. ORT runs every original here, so it is the oracle; the bounds are the float ones
    rounded to float16 (1 ULP where the float form is not bit-exact). Then the style-transfer shape, all float16."""
    H = TensorProto.FLOAT16
    shape = [2, 3, 4, 5]
    ops = [("imagescaler", "ImageScaler", {"scale": 0.017, "bias": [-2.1, 1.5, -0.4]}, 0, 0.0),
           ("affine", "Affine", {"alpha": 0.5, "beta": -3.0}, 0, 0.0),
           ("scale", "Scale", {"scale": -3.3}, 0, 0.0),
           ("scaledtanh", "ScaledTanh", {"alpha": 0.5, "beta": 2.0}, 1, 0.5 * 2.0 ** -24),
           ("psoftplus", "ParametricSoftplus", {"alpha": 0.5, "beta": 2.0}, 1, 0.5 * 2.0 ** -24),
           ("thresholdedrelu", "ThresholdedRelu", {"alpha": 0.5}, 0, 0.0),
           ("mvn", "MeanVarianceNormalization", {"across_channels": 0, "normalize_variance": 1}, 1, 0.0),
           ("crop", "Crop", {"border": [1, 1, 1, 1]}, 0, 0.0)]
    for tag, op, attrs, max_ulp, abs_tol in ops:
        name = f"float16_{tag}_opset8"
        out_shape = [2, 3, 2, 3] if op == "Crop" else shape
        graph = helper.make_graph([node(op, ["x"], ["y"], name=name, **attrs)], name, [vi("x", H, shape)],
                                  [vi("y", H, out_shape)])
        # "specials" rounded to float16: float's large values become infinities, its denormals zeros
        with np.errstate(over="ignore"):
            cases = {c: x.astype(np.float16) for c, x in float_cases(shape, 230).items()
                     if c in ("normal", "specials", "constant", "magnitudes", "offset100")}
        save(name, make_model(graph, 8), {c: {"x": x} for c, x in cases.items()}, max_ulp=max_ulp, abs_tol=abs_tol,
             expect_default_opset=9 if op == "ThresholdedRelu" else 8,
             pattern=f"{op} {attrs} on float16 data at opset 8",
             legalization=("Slice-1 on the float16 data, no Cast" if op == "Crop" else
                           "Cast to float, the float replacement, Cast to float16; ORT computes the old op in float "
                           "and rounds once too"))

    rs = np.random.RandomState(231)

    def weight(name, *dims):
        return init(name, (rs.randn(*dims) * 0.3).astype(np.float16))

    inits = [weight("conv1_W", 4, 3, 3, 3), weight("conv1_B", 4), weight("in1_scale", 4), weight("in1_B", 4),
             weight("up_W", 4, 3, 3, 3), weight("up_B", 3)]
    nodes = [node("ImageScaler", ["inputImage"], ["scaled"], name="scalerPreprocessor", scale=1.0,
                  bias=[-104.0, -117.0, -123.0]),
             node("Conv", ["scaled", "conv1_W", "conv1_B"], ["conv1"], kernel_shape=[3, 3]),
             node("InstanceNormalization", ["conv1", "in1_scale", "in1_B"], ["in1"], epsilon=1e-5),
             node("Relu", ["in1"], ["relu1"]),
             node("Crop", ["relu1"], ["cropped"], border=[1, 1, 1, 1]),
             node("ConvTranspose", ["cropped", "up_W", "up_B"], ["up"], kernel_shape=[3, 3]),
             node("Tanh", ["up"], ["tanh"]),
             node("Affine", ["tanh"], ["outputImage"], name="activation11", alpha=150.0, beta=0.0)]
    graph = helper.make_graph(nodes, "style_transfer_fp16", [vi("inputImage", H, ["None", 3, 12, 12])] +
                              [vi(t.name, H, list(t.dims)) for t in inits],
                              [vi("outputImage", H, ["None", 3, 10, 10])], initializer=inits)
    model = make_model(graph, 7, 3, producer=("OnnxMLTools", "1.2.0.0116"))
    pixels = rs.randint(0, 256, size=(1, 3, 12, 12)).astype(np.float16)
    save("float16_style_transfer_shape_opset7", model, {"pixels": {"inputImage": pixels}}, expect_default_opset=7,
         pattern="the CoreML-converted style-transfer shape with float16 data and weights (Windows ML's fp16 "
                 "variants): ImageScaler -> Conv -> InstanceNormalization -> Relu -> Crop -> ConvTranspose -> Tanh -> "
                 "Affine; opset 7, IR 3, no value_info",
         legalization="Cast + Mul + Add + Cast, Slice-1 on float16, Cast + Mul + Add + Cast")


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    imagescaler_models()
    affine_scale_models()
    tanh_softplus_models()
    thresholdedrelu_models()
    crop_models()
    mvn_models()
    upsample_models()
    deprecated_upsample_models()
    fill_models()
    tiny_yolov2_head()
    mixed_with_dynamic_slice()
    removed_op_pairs()
    style_transfer_shape()
    float16_models()
    fold_models()
    subgraph_model()
    refusal_models()
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump({"generator": "testdata/make_removed_op_models.py", "models": MODELS}, f, indent=1)
        f.write("\n")
    write_readme()
    print(f"wrote {len(MODELS)} models to {OUT}")


if __name__ == "__main__":
    main()
