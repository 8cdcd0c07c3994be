#!/usr/bin/python3
"""Measures, in ONNX Runtime (tests/ort/run_model.js), how the removed experimental ops compare with their
decompositions: the numbers of docs/removed_ops_numerics.md.

    nice "$PY" tests/differential/measure_removed_ops.py SCRATCH_DIR [--only NAME ...]

Every comparison builds one small model per side (or one model holding both sides when both run at the same
opset), feeds both the same seeded inputs (which include +-0, +-inf, NaN, denormals and magnitudes past 1e30),
runs them in ORT (CPU, one thread, graph optimizations off) and reports, per output: byte-identical or not, the
number of differing elements, and the largest distance in ULPs (float32 values mapped onto a monotonic integer
line, +0 and -0 both at 0; NaN vs NaN is 0, NaN vs a number is reported separately as a NaN mismatch).
Deterministic: fixed seeds; the printed table is the evidence.
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_MODEL = os.path.normpath(os.path.join(HERE, "..", "ort", "run_model.js"))
F = TensorProto.FLOAT

SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -3e-39, 1.1754944e-38,
                     1e30, -1e30, 3e38, -3e38, 1.0, -1.0, 0.5, 88.0, 89.0, 100.0, -100.0, 1e-7, 20.0, -20.0,
                     9.0, -9.0, 1e10, -87.0, -104.0, 3.4028235e38], dtype=np.float32)


def cases_for(shape, seed):
    """Named input arrays of `shape`: specials tiled, normal randoms, wide-magnitude randoms."""
    n = int(np.prod(shape))
    rs = np.random.RandomState(seed)
    specials = np.resize(SPECIALS, n).astype(np.float32)
    rs.shuffle(specials)
    normal = (rs.randn(n) * 3).astype(np.float32)
    wide = (np.sign(rs.randn(n)) * 10.0 ** rs.uniform(-45, 38.5, n)).astype(np.float32)
    return {"specials": specials.reshape(shape), "normal": normal.reshape(shape), "wide": wide.reshape(shape)}


def ordered(a):
    i = a.astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def compare(a, b):
    """-> dict: identical (bytes), ndiff, max_ulp over numbers, nan_mismatch count, sample of differences."""
    if a.shape != b.shape:
        return {"shape": f"{a.shape} vs {b.shape}"}
    identical = a.tobytes() == b.tobytes()
    an, bn = np.isnan(a), np.isnan(b)
    nan_mismatch = int(np.sum(an != bn))
    both = ~an & ~bn
    ulp = np.abs(ordered(a) - ordered(b))
    ulp = np.where(both, ulp, 0)
    ndiff = int(np.sum(a.view(np.uint32) != b.view(np.uint32)))
    zero_sign = int(np.sum((a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))))
    worst = np.unravel_index(int(np.argmax(ulp)), ulp.shape) if ulp.size else None
    return {"identical": identical, "ndiff": ndiff, "max_ulp": int(ulp.max()) if ulp.size else 0,
            "nan_mismatch": nan_mismatch, "zero_sign": zero_sign,
            "worst": (a[worst], b[worst]) if worst is not None and ulp.max() > 0 else None}


def write_inputs(folder, feeds):
    os.makedirs(folder, exist_ok=True)
    for k, (name, arr) in enumerate(feeds.items()):
        with open(os.path.join(folder, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(arr), name).SerializeToString())


def run(model, feeds, work, tag):
    path = os.path.join(work, tag + ".onnx")
    onnx.save(model, path)
    ind, outd = os.path.join(work, tag + ".in"), os.path.join(work, tag + ".out")
    shutil.rmtree(ind, ignore_errors=True)
    write_inputs(ind, feeds)
    shutil.rmtree(outd, ignore_errors=True)
    p = subprocess.run(["node", RUN_MODEL, path, ind, outd], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else str(p.returncode)
    outs = sorted(f for f in os.listdir(outd) if f.startswith("output_"))
    return [numpy_helper.to_array(onnx.load_tensor(os.path.join(outd, f))) for f in outs], None


def model(nodes, inputs, outputs, opset, inits=(), ir=None):
    g = helper.make_graph(nodes, "m", [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
                          [helper.make_tensor_value_info(n, F, None) for n in outputs], list(inits))
    m = helper.make_model(g, producer_name="measure", opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir if ir is not None else (3 if opset <= 8 else 4 if opset == 9 else 5 if opset == 10 else
                                             6 if opset == 11 else 7 if opset <= 13 else 8)
    return m


def c(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


RESULTS = []


def report(title, a, b):
    r = compare(a, b)
    RESULTS.append((title, r))
    if "shape" in r:
        line = f"SHAPE {r['shape']}"
    else:
        line = ("IDENTICAL" if r["identical"] else "differs") + \
            f" ndiff={r['ndiff']} max_ulp={r['max_ulp']} nan_mismatch={r['nan_mismatch']} zero_sign={r['zero_sign']}"
        if r["worst"] is not None:
            line += f" worst={r['worst'][0]!r}/{r['worst'][1]!r}"
    print(f"{title}: {line}", flush=True)


def pair_same_model(name, work, shape, orig_nodes, dec_nodes, opsets, inits=(), seed=1, cases=None):
    """orig_nodes produce 'y_orig', dec_nodes produce 'y_dec' from input 'x'; both in one model."""
    for opset in opsets:
        m = model(orig_nodes + dec_nodes, [("x", shape)], ["y_orig", "y_dec"], opset, inits)
        for case, x in (cases or cases_for(shape, seed)).items():
            outs, err = run(m, {"x": x}, work, f"{name}_o{opset}_{case}")
            if err:
                print(f"{name} opset {opset} {case}: ORT ERROR {err}", flush=True)
                continue
            report(f"{name} opset {opset} {case}", outs[0], outs[1])


def pair_two_models(name, work, shape, orig, dec, seed=1, cases=None):
    """orig = (nodes, opset, inits), dec = (nodes, opset, inits); each produces 'y' from 'x'."""
    def renamed(nodes):
        out = []
        for n in nodes:
            n2 = onnx.NodeProto()
            n2.CopyFrom(n)
            n2.output[:] = ["y" if o in ("y_orig", "y_dec") else o for o in n2.output]
            out.append(n2)
        return out
    orig, dec = (renamed(orig[0]),) + tuple(orig[1:]), (renamed(dec[0]),) + tuple(dec[1:])
    for case, x in (cases or cases_for(shape, seed)).items():
        o, err = run(model(orig[0], [("x", shape)], ["y"], orig[1], orig[2]), {"x": x}, work, f"{name}_orig_{case}")
        if err:
            print(f"{name} {case}: ORT ERROR on original: {err}", flush=True)
            continue
        d, err = run(model(dec[0], [("x", shape)], ["y"], dec[1], dec[2]), {"x": x}, work, f"{name}_dec_{case}")
        if err:
            print(f"{name} {case}: ORT ERROR on decomposition: {err}", flush=True)
            continue
        report(f"{name} {case}", o[0], d[0])


N = helper.make_node


def m_imagescaler(work):
    shape = [2, 3, 4, 5]
    for scale, bias in [(0.003921569, [0.0, 0.0, 0.0]), (0.017, [-2.1, 1.5, -0.4]), (-2.5, [1e30, -0.0, 3.0]),
                        (0.0, [1.0, -1.0, 0.0]), (1e30, [0.0, 1.0, 2.0]), (1.0, [0.1, 0.2, 0.3])]:
        tag = f"imagescaler_s{scale}_b{bias[1]}"
        orig = [N("ImageScaler", ["x"], ["y_orig"], scale=scale, bias=bias)]
        dec = [N("Mul", ["x", "s"], ["t"]), N("Add", ["t", "b"], ["y_dec"])]
        inits = [c("s", np.float32(scale)), c("b", np.array(bias, np.float32).reshape(3, 1, 1))]
        pair_same_model(tag, work, shape, orig, dec, [7, 8, 9], inits)
    # scale-only default attributes (ORT's kernel requires bias: check what happens without it)
    pair_same_model("imagescaler_nobias", work, shape, [N("ImageScaler", ["x"], ["y_orig"], scale=2.0)],
                    [N("Mul", ["x", "s"], ["y_dec"])], [9], [c("s", np.float32(2.0))])
    pair_same_model("imagescaler_noscale", work, shape, [N("ImageScaler", ["x"], ["y_orig"], bias=[1.0, 2.0, 3.0])],
                    [N("Add", ["x", "b"], ["y_dec"])], [9], [c("b", np.array([1, 2, 3], np.float32).reshape(3, 1, 1))])


def m_affine(work):
    shape = [3, 40]
    for a, b in [(1.0, 0.0), (0.5, -3.0), (-1.7, 2.2), (0.0, 1.0), (1e30, 1e30), (3.0, -0.0)]:
        orig = [N("Affine", ["x"], ["y_orig"], alpha=a, beta=b)]
        dec = [N("Mul", ["x", "a"], ["t"]), N("Add", ["t", "b"], ["y_dec"])]
        pair_same_model(f"affine_a{a}_b{b}", work, shape, orig, dec, [7, 8, 9],
                        [c("a", np.float32(a)), c("b", np.float32(b))])
    pair_same_model("affine_defaults", work, shape, [N("Affine", ["x"], ["y_orig"])],
                    [N("Identity", ["x"], ["y_dec"])], [9])


def m_scale(work):
    shape = [3, 40]
    for s in [1.0, 0.5, -3.3, 0.0, 1e30, -0.0]:
        pair_same_model(f"scale_{s}", work, shape, [N("Scale", ["x"], ["y_orig"], scale=s)],
                        [N("Mul", ["x", "s"], ["y_dec"])], [7, 8, 9], [c("s", np.float32(s))])
    pair_same_model("scale_default", work, shape, [N("Scale", ["x"], ["y_orig"])], [N("Identity", ["x"], ["y_dec"])], [9])


def m_scaledtanh(work):
    shape = [3, 41]
    for a, b in [(1.0, 1.0), (0.5, 2.0), (-1.7, 0.3), (2.0, -1e30), (1e30, 1.0)]:
        orig = [N("ScaledTanh", ["x"], ["y_orig"], alpha=a, beta=b)]
        dec = [N("Mul", ["x", "b"], ["t"]), N("Tanh", ["t"], ["u"]), N("Mul", ["u", "a"], ["y_dec"])]
        dec2 = [N("Mul", ["x", "b"], ["t2"]), N("Tanh", ["t2"], ["u2"]), N("Mul", ["a", "u2"], ["y_dec2"])]
        pair_same_model(f"scaledtanh_a{a}_b{b}", work, shape, orig, dec, [7, 8, 9],
                        [c("a", np.float32(a)), c("b", np.float32(b))])
    # dense sweep: tanh kernels compared directly
    xs = {"sweep": np.linspace(-12, 12, 4 * 2001, dtype=np.float32).reshape(4, 2001)}
    pair_same_model("scaledtanh_sweep_a1_b1", work, [4, 2001], [N("ScaledTanh", ["x"], ["y_orig"], alpha=1.0, beta=1.0)],
                    [N("Tanh", ["x"], ["y_dec"])], [9], cases=xs)
    pair_same_model("scaledtanh_missing_attrs", work, shape, [N("ScaledTanh", ["x"], ["y_orig"])],
                    [N("Tanh", ["x"], ["y_dec"])], [9])


def m_psoftplus(work):
    shape = [3, 41]
    for a, b in [(1.0, 1.0), (0.5, 2.0), (-1.7, 0.3), (2.0, -3.0), (1e30, 1.0), (1.0, 1e30)]:
        orig = [N("ParametricSoftplus", ["x"], ["y_orig"], alpha=a, beta=b)]
        dec = [N("Mul", ["x", "b"], ["t"]), N("Softplus", ["t"], ["u"]), N("Mul", ["u", "a"], ["y_dec"])]
        pair_same_model(f"psoftplus_a{a}_b{b}", work, shape, orig, dec, [7, 8, 9],
                        [c("a", np.float32(a)), c("b", np.float32(b))])
    xs = {"sweep": np.linspace(-120, 120, 4 * 2001, dtype=np.float32).reshape(4, 2001)}
    pair_same_model("psoftplus_sweep", work, [4, 2001], [N("ParametricSoftplus", ["x"], ["y_orig"], alpha=1.0, beta=1.0)],
                    [N("Softplus", ["x"], ["y_dec"])], [9], cases=xs)
    # onnxmltools' Log(Exp(x)+1) form, to show the overflow
    pair_same_model("psoftplus_vs_log_exp", work, shape, [N("ParametricSoftplus", ["x"], ["y_orig"], alpha=1.0, beta=1.0)],
                    [N("Exp", ["x"], ["e"]), N("Add", ["e", "one"], ["e1"]), N("Log", ["e1"], ["y_dec"])], [9],
                    [c("one", np.float32(1))])
    pair_same_model("psoftplus_missing_attrs", work, shape, [N("ParametricSoftplus", ["x"], ["y_orig"])],
                    [N("Softplus", ["x"], ["y_dec"])], [9])


def m_crop(work):
    shape = [2, 3, 7, 9]
    for border, scale in [([1, 2, 3, 1], None), ([0, 0, 0, 0], None), ([2, 1, 0, 0], None), ([1, 2, 0, 0], [3, 4]),
                          ([0, 0, 0, 0], [7, 9]), ([3, 1, 5, 5], [2, 2])]:
        left, top, right, bottom = border
        if scale:
            starts, ends = [top, left], [top + scale[0], left + scale[1]]
        else:
            big = 2 ** 63 - 1
            starts, ends = [top, left], [-bottom if bottom else big, -right if right else big]
        kw = {"border": border}
        if scale:
            kw["scale"] = scale
        tag = f"crop_b{'_'.join(map(str, border))}" + (f"_s{'_'.join(map(str, scale))}" if scale else "")
        orig = [N("Crop", ["x"], ["y_orig"], **kw)]
        dec = [N("Slice", ["x"], ["y_dec"], axes=[2, 3], starts=starts, ends=ends)]
        pair_same_model(tag, work, shape, orig, dec, [7, 8, 9])
        for opset in (10, 11, 13):
            inits = [c("st", np.array(starts, np.int64)), c("en", np.array(ends, np.int64)),
                     c("ax", np.array([2, 3], np.int64))]
            pair_two_models(f"{tag}_vs_slice{opset}", work, shape, (orig, 9, []),
                            ([N("Slice", ["x", "st", "en", "ax"], ["y"])], opset, inits))
    # out-of-range crops: ORT's Crop refuses; Slice would clamp
    pair_same_model("crop_too_big", work, shape, [N("Crop", ["x"], ["y_orig"], border=[0, 0, 0, 0], scale=[8, 9])],
                    [N("Identity", ["x"], ["y_dec"])], [9])
    pair_same_model("crop_borders_exceed", work, shape, [N("Crop", ["x"], ["y_orig"], border=[5, 0, 5, 0])],
                    [N("Identity", ["x"], ["y_dec"])], [9])
    pair_same_model("crop_no_border", work, shape, [N("Crop", ["x"], ["y_orig"])], [N("Identity", ["x"], ["y_dec"])], [9])
    pair_same_model("crop_3_border", work, shape, [N("Crop", ["x"], ["y_orig"], border=[1, 1, 1])],
                    [N("Identity", ["x"], ["y_dec"])], [9])
    pair_same_model("crop_5_border", work, shape, [N("Crop", ["x"], ["y_orig"], border=[1, 1, 1, 1, 7])],
                    [N("Slice", ["x"], ["y_dec"], axes=[2, 3], starts=[1, 1], ends=[-1, -1])], [9])


def m_thresholdedrelu(work):
    shape = [3, 40]
    for alpha in [1.0, 0.0, -0.0, -2.0, 0.5, np.inf, -np.inf, 1e30]:
        orig = [N("ThresholdedRelu", ["x"], ["y_orig"], alpha=float(alpha))]
        where = [N("Greater", ["x", "al"], ["g"]), N("Where", ["g", "x", "z"], ["y_dec"])]
        pair_same_model(f"thrrelu_{alpha}_vs_where", work, shape, orig, where, [9],
                        [c("al", np.float32(alpha)), c("z", np.float32(0))])
        pair_two_models(f"thrrelu_{alpha}_o7_vs_thrrelu10", work, shape, (orig[:], 7, []),
                        ([N("ThresholdedRelu", ["x"], ["y"], alpha=float(alpha))], 10, []))
        pair_two_models(f"thrrelu_{alpha}_o8_vs_where9", work, shape, (orig[:], 8, []),
                        (where[:1] + [N("Where", ["g", "x", "z"], ["y"])], 9,
                         [c("al", np.float32(alpha)), c("z", np.float32(0))]))
        notwhere = [N("Greater", ["x", "al"], ["g"]), N("Not", ["g"], ["ng"]), N("Where", ["ng", "z", "x"], ["y_dec"])]
        pair_same_model(f"thrrelu_{alpha}_vs_where_not", work, shape, orig, notwhere, [9],
                        [c("al", np.float32(alpha)), c("z", np.float32(0))])
        gcm = [N("Greater", ["x", "al"], ["g"]), N("Cast", ["g"], ["gf"], to=F), N("Mul", ["x", "gf"], ["y_dec"])]
        pair_same_model(f"thrrelu_{alpha}_vs_greater_cast_mul", work, shape, orig, gcm, [7],
                        [c("al", np.float32(alpha))])
    # opsets 7/8 have no Where: a Min/Max form (hi = +inf/0, lo = -inf/0 from the mask via Reciprocal) is exact
    # except that ORT's Min and Max propagate NaN (so a NaN input stays NaN instead of 0)
    for alpha in [1.0, -2.0]:
        orig = [N("ThresholdedRelu", ["x"], ["y_orig"], alpha=alpha)]
        minmax = [N("Greater", ["x", "al"], ["g"]), N("Cast", ["g"], ["m"], to=F), N("Sub", ["one", "m"], ["nm"]),
                  N("Reciprocal", ["nm"], ["r"]), N("Sub", ["r", "one"], ["hi"]), N("Sub", ["one", "r"], ["lo"]),
                  N("Min", ["x", "hi"], ["t"]), N("Max", ["t", "lo"], ["y_dec"])]
        pair_same_model(f"thrrelu_{alpha}_vs_minmax", work, shape, orig, minmax, [7, 8],
                        [c("al", np.float32(alpha)), c("one", np.float32(1))])
    pair_same_model("thrrelu_default_alpha", work, shape, [N("ThresholdedRelu", ["x"], ["y_orig"])],
                    [N("Greater", ["x", "al"], ["g"]), N("Where", ["g", "x", "z"], ["y_dec"])], [9],
                    [c("al", np.float32(1.0)), c("z", np.float32(0))])


def mvn_ref(x, across, normvar):
    """float64 reference with ORT's MVN-1 statistics domain (per channel over N,H,W; or over everything)."""
    axes = (0, 1, 2, 3) if across else (0, 2, 3)
    x64 = x.astype(np.float64)
    m = x64.mean(axis=axes, keepdims=True)
    d = x64 - m
    if not normvar:
        return d.astype(np.float32)
    return (d / np.sqrt((d * d).mean(axis=axes, keepdims=True))).astype(np.float32)


def mvn_cases(shape, seed):
    rs = np.random.RandomState(seed)
    n = int(np.prod(shape))
    cases = {
        "normal": (rs.randn(*shape) * 3 + 1).astype(np.float32),
        "offset": (rs.randn(*shape) + 1000).astype(np.float32),
        "wide": (rs.randn(*shape) * 1e15).astype(np.float32),
        "constant": np.full(shape, 2.5, np.float32),
        "tiny_var": (1.0 + rs.randint(0, 2, size=shape) * np.float32(1.1920929e-07)).astype(np.float32),
        "denormal": (rs.randn(*shape) * 1e-41).astype(np.float32),
        "big": (rs.randn(*shape) * 1e30).astype(np.float32),
    }
    sp = np.resize(SPECIALS, n).astype(np.float32)
    rs.shuffle(sp)
    cases["specials"] = sp.reshape(shape)
    one_nan = cases["normal"].copy()
    one_nan.flat[5] = np.nan
    cases["one_nan"] = one_nan
    one_inf = cases["normal"].copy()
    one_inf.flat[7] = np.inf
    cases["one_inf"] = one_inf
    return cases


def m_mvn(work):
    shape = [2, 3, 4, 5]
    cases = mvn_cases(shape, 7)
    for across in (0, 1):
        for normvar in (0, 1):
            axes = [0, 1, 2, 3] if across else [0, 2, 3]
            tag = f"mvn_ac{across}_nv{normvar}"
            orig = [N("MeanVarianceNormalization", ["x"], ["y_orig"], across_channels=across, normalize_variance=normvar)]
            dec = [N("ReduceMean", ["x"], ["m"], axes=axes, keepdims=1), N("Sub", ["x", "m"], ["d"])]
            if normvar:
                dec += [N("Mul", ["d", "d"], ["d2"]), N("ReduceMean", ["d2"], ["v"], axes=axes, keepdims=1),
                        N("Sqrt", ["v"], ["s"]), N("Div", ["d", "s"], ["y_dec"])]
            else:
                dec += [N("Identity", ["d"], ["y_dec"])]
            pair_same_model(tag + "_vs_reduce_div", work, shape, orig, dec, [7, 8], cases=cases)
            if normvar:
                dec2 = dec[:-1] + [N("Reciprocal", ["s"], ["r"]), N("Mul", ["d", "r"], ["y_dec"])]
                pair_same_model(tag + "_vs_reduce_recip_mul", work, shape, orig, dec2, [7, 8], cases=cases)
                pair_two_models(tag + "_vs_mvn9", work, shape, (orig, 8, []),
                                ([N("MeanVarianceNormalization", ["x"], ["y"], axes=axes)], 9, []), cases=cases)
                pair_two_models(tag + "_vs_mvn13", work, shape, (orig, 8, []),
                                ([N("MeanVarianceNormalization", ["x"], ["y"], axes=axes)], 13, []), cases=cases)
            # against float64 reference
            for case, x in cases.items():
                outs, err = run(model(orig, [("x", shape)], ["y_orig"], 8), {"x": x}, work, f"{tag}_ref_{case}")
                if err:
                    print(f"{tag} ref {case}: ORT ERROR {err}")
                    continue
                with np.errstate(all="ignore"):
                    report(f"{tag} opset 8 {case} vs float64 reference (ORT stats domain)", outs[0], mvn_ref(x, across, normvar))
                    if not across:
                        # the per-(n, c) reading (Caffe's MVN) for comparison
                        x64 = x.astype(np.float64)
                        m = x64.mean(axis=(2, 3), keepdims=True)
                        d = x64 - m
                        r = d / np.sqrt((d * d).mean(axis=(2, 3), keepdims=True)) if normvar else d
                        report(f"{tag} opset 8 {case} vs per-(n,c) float64 reading", outs[0], r.astype(np.float32))
    # default attributes
    pair_same_model("mvn_defaults_vs_ac0_nv1", work, shape, [N("MeanVarianceNormalization", ["x"], ["y_orig"])],
                    [N("MeanVarianceNormalization", ["x"], ["y_dec"], across_channels=0, normalize_variance=1)], [8],
                    cases={"normal": cases["normal"]})
    for bad in [dict(across_channels=2), dict(normalize_variance=-1), dict(normalize_variance=5)]:
        pair_same_model("mvn_attr_" + "_".join(f"{k}{v}" for k, v in bad.items()), work, shape,
                        [N("MeanVarianceNormalization", ["x"], ["y_orig"], **bad)],
                        [N("Identity", ["x"], ["y_dec"])], [8], cases={"normal": cases["normal"]})
    pair_same_model("mvn_rank3", work, [2, 3, 4], [N("MeanVarianceNormalization", ["x"], ["y_orig"])],
                    [N("Identity", ["x"], ["y_dec"])], [8], cases={"normal": np.ones([2, 3, 4], np.float32)})


def m_upsample(work):
    for shape, scales in [([1, 2, 3, 4], [1.0, 1.0, 2.0, 2.0]), ([1, 2, 3, 4], [1.0, 1.0, 2.0, 3.0]),
                          ([1, 2, 3, 4], [1.0, 1.0, 1.5, 2.5]), ([2, 2, 3, 4], [2.0, 1.0, 1.0, 1.0]),
                          ([1, 2, 3, 4], [1.0, 1.0, 1.0, 1.0]), ([1, 2, 3, 4], [1.0, 1.0, 1.7, 1.3])]:
        for mode in ("nearest", "linear"):
            tag = f"upsample_{mode}_{'_'.join(str(s) for s in scales)}"
            orig = ([N("Upsample", ["x"], ["y"], mode=mode, scales=scales)], 7, [])
            sc = c("sc", np.array(scales, np.float32))
            roi = c("roi", np.array([], np.float32))
            pair_two_models(tag + "_vs_resize10", work, shape, orig,
                            ([N("Resize", ["x", "sc"], ["y"], mode=mode)], 10, [sc]), seed=3)
            for opset in (11, 13):
                kw = {"mode": mode, "coordinate_transformation_mode": "asymmetric"}
                if mode == "nearest":
                    kw["nearest_mode"] = "floor"
                inputs = ["x", "roi", "sc"] if opset == 11 else ["x", "", "sc"]
                pair_two_models(f"{tag}_vs_resize{opset}", work, shape, orig,
                                ([N("Resize", inputs, ["y"], **kw)], opset, [sc, roi] if opset == 11 else [sc]), seed=3)
                if mode == "nearest":
                    kw2 = dict(kw)
                    kw2.pop("nearest_mode")  # default round_prefer_floor
                    pair_two_models(f"{tag}_vs_resize{opset}_default_nearest_mode", work, shape, orig,
                                    ([N("Resize", inputs, ["y"], **kw2)], opset, [sc, roi] if opset == 11 else [sc]),
                                    seed=3)
        # Upsample-9 (scales input) vs Upsample-7
        pair_two_models(f"upsample7_vs_upsample9_{'_'.join(str(s) for s in scales)}", work, shape,
                        ([N("Upsample", ["x"], ["y"], mode="linear", scales=scales)], 7, []),
                        ([N("Upsample", ["x", "sc"], ["y"], mode="linear")], 9, [c("sc", np.array(scales, np.float32))]),
                        seed=3)


def m_accuracy(work):
    """Each kernel against a float64 reference rounded to float32 (ulp of the float32 result)."""
    xs = np.concatenate([np.linspace(-120, 120, 24001), np.linspace(-20, 20, 8001), -np.logspace(-45, 1.5, 3000),
                         np.logspace(-45, 1.5, 3000), [0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -3e38]])
    xs = xs.astype(np.float32)
    xs = np.resize(xs, (1, xs.size))
    shape = list(xs.shape)
    x64 = xs.astype(np.float64)
    with np.errstate(all="ignore"):
        ref_tanh = np.tanh(x64).astype(np.float32)
        ref_sp = np.where(x64 > 0, x64 + np.log1p(np.exp(-x64)), np.log1p(np.exp(x64))).astype(np.float32)
    kernels = [("ScaledTanh(1,1) [Eigen tanh]", N("ScaledTanh", ["x"], ["y"], alpha=1.0, beta=1.0), ref_tanh),
               ("Tanh [MLAS]", N("Tanh", ["x"], ["y"]), ref_tanh),
               ("ParametricSoftplus(1,1)", N("ParametricSoftplus", ["x"], ["y"], alpha=1.0, beta=1.0), ref_sp),
               ("Softplus", N("Softplus", ["x"], ["y"]), ref_sp)]
    for title, node, ref in kernels:
        for opset in (9, 13) if node.op_type in ("Tanh", "Softplus") else (9,):
            outs, err = run(model([node], [("x", shape)], ["y"], opset), {"x": xs}, work, f"acc_{node.op_type}_{opset}")
            if err:
                print(f"{title}: ORT ERROR {err}")
                continue
            y = outs[0]
            report(f"accuracy {title} opset {opset} vs float64", y, ref)
            with np.errstate(all="ignore"):
                absd = np.abs(y.astype(np.float64) - ref.astype(np.float64))
            fin = np.isfinite(absd)
            i = int(np.argmax(np.where(fin, absd, -1)))
            print(f"   max abs error {absd[fin].max():.3g} at x={xs.flat[i]!r} (got {y.flat[i]!r}, want {ref.flat[i]!r})")
            for probe in (1e-40, -1e-40, 1e-45, 1e-30, 1e-7, -17.0, -20.0, -30.0, -88.0, -104.0, 88.0, 89.0, 100.0, 1e30,
                          np.inf, -np.inf, np.nan, -0.0):
                j = np.where(xs.view(np.uint32) == np.float32(probe).view(np.uint32))[1]
                if j.size:
                    print(f"   x={probe!r}: {y[0, j[0]]!r} (float64 ref {ref[0, j[0]]!r})")


GROUPS = {"accuracy": m_accuracy, "imagescaler": m_imagescaler, "affine": m_affine, "scale": m_scale, "scaledtanh": m_scaledtanh,
          "psoftplus": m_psoftplus, "crop": m_crop, "thrrelu": m_thresholdedrelu, "mvn": m_mvn, "upsample": m_upsample}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scratch")
    ap.add_argument("--only", nargs="+", choices=sorted(GROUPS))
    args = ap.parse_args()
    os.makedirs(args.scratch, exist_ok=True)
    for name, fn in GROUPS.items():
        if args.only and name not in args.only:
            continue
        print(f"== {name}", flush=True)
        fn(args.scratch)


if __name__ == "__main__":
    sys.exit(main())
