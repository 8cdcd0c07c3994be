#!/usr/bin/python3
"""A stand-in for onnx-legalize on testdata/removed_ops, written to test run_differential.py and the numerics of
docs/removed_ops_numerics.md before the C++ exists: it applies the replacements that document recommends.

    "$PY" tests/differential/standin_legalize_removed_ops.py IN OUT [--target-opset=N]

Not a legalizer: it knows only the shapes of model in testdata/removed_ops (NCHW ops on rank 4, the ops those
models hold besides the removed ones keep their meaning between opsets 7 and 17, so raising the opset is a
change of the import), and does no verification. Exit 0 and OUT written, or exit 3 with every refused node named
and nothing written.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INT64_MAX = np.iinfo(np.int64).max
KNOWN_REMOVED = {"ImageScaler", "Crop", "Affine", "ScaledTanh", "ParametricSoftplus", "Scale", "ConstantFill",
                 "GivenTensorFill", "DynamicSlice"}


class Refused(Exception):
    pass


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def declared_shapes(graph):
    shapes = {}
    for v in list(graph.input) + list(graph.value_info) + list(graph.output):
        if v.type.HasField("tensor_type") and v.type.tensor_type.HasField("shape"):
            shapes[v.name] = [d.dim_value if d.HasField("dim_value") else None for d in v.type.tensor_type.shape.dim]
    return shapes


class Rewriter:
    def __init__(self, opset):
        self.opset = opset
        self.counter = 0
        self.inits = []

    def name(self, base):
        self.counter += 1
        return f"{base}__legal{self.counter}"

    def const(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def needed_opset(self, node):
        op = node.op_type
        if op == "ThresholdedRelu":
            return 9
        if op == "ConstantFill" and node.input and node.input[0]:
            return 9
        if op == "DynamicSlice":
            return 10
        return 0

    def rewrite(self, node, shapes, where):
        """-> list of nodes replacing `node` at self.opset, or None when it stays."""
        op, a, x, y = node.op_type, attrs(node), (node.input[0] if node.input else ""), node.output[0]
        o = self.opset
        N = helper.make_node
        if op == "ImageScaler":
            bias = np.array(a["bias"], np.float32)
            c = shapes.get(x, [None, None])[1]
            if c is not None and bias.size != c:
                raise Refused(f"{where}: ImageScaler bias has {bias.size} values for {c} channels")
            t = self.name(y)
            return [N("Mul", [x, self.const(y + "_scale", np.float32(a.get("scale", 1.0)))], [t]),
                    N("Add", [t, self.const(y + "_bias", bias.reshape(-1, 1, 1))], [y])]
        if op == "Affine":
            t = self.name(y)
            return [N("Mul", [x, self.const(y + "_alpha", np.float32(a.get("alpha", 1.0)))], [t]),
                    N("Add", [t, self.const(y + "_beta", np.float32(a.get("beta", 0.0)))], [y])]
        if op == "Scale":
            return [N("Mul", [x, self.const(y + "_scale", np.float32(a.get("scale", 1.0)))], [y])]
        if op in ("ScaledTanh", "ParametricSoftplus"):
            if "alpha" not in a or "beta" not in a:
                raise Refused(f"{where}: {op} without alpha and beta (both required)")
            t, u = self.name(y), self.name(y)
            inner = "Tanh" if op == "ScaledTanh" else "Softplus"
            return [N("Mul", [x, self.const(y + "_beta", np.float32(a["beta"]))], [t]), N(inner, [t], [u]),
                    N("Mul", [u, self.const(y + "_alpha", np.float32(a["alpha"]))], [y])]
        if op == "Crop":
            border = list(a.get("border", []))
            if len(border) != 4:
                raise Refused(f"{where}: Crop border has {len(border)} values, 4 required")
            left, top, right, bottom = border
            if "scale" in a:
                starts, ends = [top, left], [top + a["scale"][0], left + a["scale"][1]]
            else:
                starts, ends = [top, left], [-bottom if bottom else INT64_MAX, -right if right else INT64_MAX]
            if o < 10:
                return [N("Slice", [x], [y], axes=[2, 3], starts=starts, ends=ends)]
            return [N("Slice", [x, self.const(y + "_starts", np.array(starts, np.int64)),
                                self.const(y + "_ends", np.array(ends, np.int64)),
                                self.const(y + "_axes", np.array([2, 3], np.int64))], [y])]
        if op == "ThresholdedRelu" and node.domain in ("", "ai.onnx"):
            alpha = np.float32(a.get("alpha", 1.0))
            if o >= 10:
                return [N("ThresholdedRelu", [x], [y], alpha=float(alpha))]
            g, ng = self.name(y), self.name(y)
            return [N("Greater", [x, self.const(y + "_alpha", alpha)], [g]), N("Not", [g], [ng]),
                    N("Where", [ng, self.const(y + "_zero", np.float32(0)), x], [y])]
        if op == "MeanVarianceNormalization" and ("across_channels" in a or "normalize_variance" in a or
                                                  self.original_opset < 9):
            ac, nv = a.get("across_channels", 0), a.get("normalize_variance", 1)
            if ac not in (0, 1) or nv not in (0, 1):
                raise Refused(f"{where}: MeanVarianceNormalization-1 with across_channels {ac}, normalize_variance {nv}")
            if o >= 9 and nv == 1:
                return [N("MeanVarianceNormalization", [x], [y], axes=[0, 1, 2, 3] if ac else [0, 2, 3])]
            nodes, src = [], x
            axes = [0, 1, 2, 3] if ac else [1, 2, 3]
            if not ac:
                src = self.name(y)
                nodes.append(N("Transpose", [x], [src], perm=[1, 0, 2, 3]))
            m, d = self.name(y), self.name(y)
            nodes += [N("ReduceMean", [src], [m], axes=axes, keepdims=1), N("Sub", [src, m], [d])]
            last = d
            if nv:
                d2, v, s, q = self.name(y), self.name(y), self.name(y), self.name(y)
                nodes += [N("Mul", [d, d], [d2]), N("ReduceMean", [d2], [v], axes=axes, keepdims=1),
                          N("Sqrt", [v], [s]), N("Div", [d, s], [q])]
                last = q
            nodes.append(N("Transpose", [last], [y], perm=[1, 0, 2, 3]) if not ac else N("Identity", [last], [y]))
            return nodes
        if op == "Upsample" and o >= 10:
            mode = a.get("mode", b"nearest")
            mode = mode.decode() if isinstance(mode, bytes) else mode
            scales = self.const(y + "_scales", np.array(a["scales"], np.float32)) if "scales" in a else node.input[1]
            kw = {"mode": mode, "coordinate_transformation_mode": "asymmetric"}
            if mode == "nearest":
                kw["nearest_mode"] = "floor"
            roi = self.const(y + "_roi", np.array([], np.float32)) if o == 11 else ""
            return [N("Resize", [x, roi, scales], [y], **kw)]
        if op == "ConstantFill":
            dtype = a.get("dtype", TensorProto.FLOAT)
            npt = onnx.helper.tensor_dtype_to_np_dtype(dtype)
            value = np.array([a.get("value", 0.0)]).astype(npt)
            extra = list(a.get("extra_shape", []))
            if not x:
                # an initializer, not a Constant: Constant-1 (opsets 1-8) holds float types only
                self.inits.append(numpy_helper.from_array(np.full(list(a.get("shape", [])) + extra, value[0], npt), y))
                return []
            if a.get("input_as_shape", 0):
                shape = x
            else:
                shape = self.name(y)
                pre = [N("Shape", [x], [shape])]
            nodes = [] if a.get("input_as_shape", 0) else pre
            if extra:
                full = self.name(y)
                nodes.append(N("Concat", [shape, self.const(y + "_extra", np.array(extra, np.int64))], [full], axis=0))
                shape = full
            nodes.append(N("ConstantOfShape", [shape], [y], value=numpy_helper.from_array(value, y + "_value")))
            return nodes
        if op == "GivenTensorFill":
            arr = np.array(a["values"], np.float32).reshape(list(a.get("shape", [])) + list(a.get("extra_shape", [])))
            self.inits.append(numpy_helper.from_array(arr, y))
            return []
        if op == "DynamicSlice":
            return [N("Slice", list(node.input), [y])]
        return None


def legalize(model, target):
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    refused = []

    def scan(graph, path):
        for n in graph.node:
            where = f"{path}/{n.name or n.op_type}"
            if n.domain in ("", "ai.onnx"):
                known = n.op_type in KNOWN_REMOVED or n.op_type == "ThresholdedRelu" or \
                    n.op_type == "MeanVarianceNormalization"
                if not known:
                    try:
                        onnx.defs.get_schema(n.op_type, opset)
                    except Exception:  # noqa: BLE001
                        refused.append(f"{where}: {n.op_type} (no schema, cannot be legalized)")
            for at in n.attribute:
                for g in list(at.graphs) + ([at.g] if at.HasField("g") else []):
                    scan(g, f"{where}.{at.name}")
    scan(model.graph, "graph")
    rw = Rewriter(opset)
    rw.original_opset = opset

    def need(graph):
        m = 0
        for n in graph.node:
            m = max(m, rw.needed_opset(n))
            for at in n.attribute:
                for g in list(at.graphs) + ([at.g] if at.HasField("g") else []):
                    m = max(m, need(g))
        return m
    new_opset = target if target is not None else max(opset, need(model.graph))
    rw.opset = new_opset

    def walk(graph, path, shapes):
        shapes = dict(shapes, **declared_shapes(graph))
        out = []
        for n in graph.node:
            where = f"{path}/{n.name or n.op_type}"
            for at in n.attribute:
                for g in list(at.graphs) + ([at.g] if at.HasField("g") else []):
                    walk(g, f"{where}.{at.name}", shapes)
            try:
                r = rw.rewrite(n, shapes, where) if n.domain in ("", "ai.onnx") else None
            except Refused as e:
                refused.append(str(e))
                r = None
            out.extend([n] if r is None else r)
        del graph.node[:]
        graph.node.extend(out)
        if graph is model.graph:
            graph.initializer.extend(rw.inits)
            if model.ir_version <= 3:  # IR 3: every initializer is listed in graph.input
                for t in rw.inits:
                    graph.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        elif rw.inits:
            model.graph.initializer.extend(rw.inits)
            if model.ir_version <= 3:
                for t in rw.inits:
                    model.graph.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        rw.inits = []
    walk(model.graph, "graph", {})
    if refused:
        raise Refused("\n".join(refused))
    if new_opset != opset:
        for o in model.opset_import:
            if o.domain in ("", "ai.onnx"):
                o.version = new_opset
        need_ir = min(ir for (_, ir, ai, *_r) in helper.VERSION_TABLE if ai >= new_opset)
        model.ir_version = max(model.ir_version, need_ir)
    # drop stale value_info (shapes may have changed names); outputs keep their declarations
    del model.graph.value_info[:]
    return model


def main(argv):
    target = None
    pos = []
    for a in argv:
        if a.startswith("--target-opset="):
            target = int(a.split("=", 1)[1])
        else:
            pos.append(a)
    if len(pos) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    model = onnx.load(pos[0])
    try:
        legalize(model, target)
    except Refused as e:
        print(f"refused:\n{e}", file=sys.stderr)
        return 3
    onnx.save(model, pos[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
