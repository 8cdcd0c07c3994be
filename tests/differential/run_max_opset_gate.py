"""Does `onnx-legalize --check --max-opset=N` tell which models a real runtime of ceiling N loads, and do the models it
calls fixable, once moved down with `--target-opset=N`, load there and compute what the originals compute?

Usage:
    PY=$(scripts/install-python-env.sh)
    "$PY" tests/differential/run_max_opset_gate.py CLI MODELS_DIR SCRATCH_DIR --max-opset N --old-runtime RUNTIME
        [--min-opset M] [--runtime NAME] [--optimizations disabled|all] [--only FILE ...]

RUNTIME is an older ONNX Runtime release, as the registries serve it:
  node:DIR    DIR/node_modules/onnxruntime-node (or onnxruntime-web, its WebAssembly build), installed with
              `npm install --ignore-scripts onnxruntime-node@1.10.0` (1.10 to 1.21 ship their Linux binaries in the
              npm tarball; 1.8 and 1.9 download them from GitHub in an install script and do not work here);
  python:EXE  a Python interpreter whose onnxruntime is the old release (a venv with `pip install onnxruntime==1.15.1`).
The reference is ONNX Runtime 1.31.1 in this script's own interpreter (scripts/install-python-env.sh's venv).

Why: a CI gate is only worth its verdict. A runtime limited to opset N refuses a model whose default opset is above N
(ORT checks the model's opset imports against the newest opset its bundled onnx released), so the gate's finding must
be there exactly when the runtime refuses; and "fixable: --target-opset=N moves it down" is a promise the moved model
must keep in that very runtime, computing the original's outputs.

What it does:
  0. Probes the old runtime with one-Relu models: the newest ai.onnx opset (at IR 7) and the newest IR version (at
     opset 7) it loads. If the opset is not N the run stops: the runtime is not of ceiling N.
  1. `CLI --check --max-opset=N [--min-opset=M] --format=json MODELS_DIR`: the gate's verdict per file is "blocks"
     when any finding or error names the file, else "passes".
  2. Each model (every *.onnx below MODELS_DIR) is loaded in the old runtime, in a child process (node or the other
     Python), with ORT's default session options but for the graph optimization level (--optimizations, default
     disabled: see below) and one intra-op thread.
  3. Two verdicts per model. The ceiling: the gate's "above N" (opset-out-of-range above the maximum, or
     no-form-at-max-opset) must come exactly when the runtime refuses the model's opset (its message says so; a
     WebAssembly build's bare error number above the probed ceiling counts as that; a model refused first for its IR
     version is "n/a"). The whole verdict: AGREE when the gate passes a model the runtime loads or blocks one it
     refuses; DISAGREE otherwise, put in a category (why_they_part): a schema finding on an op ORT still carries a
     kernel for, an opset below ORT's floor of 7, the runtime's IR ceiling (which --max-opset does not look at), or
     "unexplained" for a person to judge.
  4. A model the gate calls fixable by moving down (an opset-out-of-range finding with fixable true, and every other
     finding of the file fixable too) is moved: `CLI --target-opset=N IN OUT` must exit 0; OUT must load in the old
     runtime; the old runtime's outputs of OUT must equal ORT 1.31's outputs of IN on the same seeded inputs, bit
     for bit (float by their bits: -0 vs +0 and NaN payloads count). No allowance is built in. When they differ,
     two more runs say where the difference comes from: ORT 1.31 on OUT (the move within one runtime) and the old
     runtime vs ORT 1.31 on OUT (the two releases' kernels on one model). Only when ORT 1.31 gives OUT the bits of
     IN is the difference "releases differ", not a failure: the move is exact in one runtime, and the old release
     is as far from ORT 1.31 on OUT as on IN's reference, which is its kernels, not the move.
  Also, for every model the old runtime loads as it is, its outputs there are compared with ORT 1.31's ("drift"):
  how far two releases of ORT agree at all on that model, the context for any difference in step 4.

Graph optimizations are off by default in both runtimes: each release fuses nodes in its own way (ORT 1.31 has
fusions ORT 1.10 lacks), which changes the order of float operations without anything being wrong with the model;
--optimizations=all runs ORT's defaults instead.

Inputs: seeded (seed: the length of the file's stem), symbolic dims 1 unless INPUT_OVERRIDES names the model, values
uniform in [0, 255) as images are, cast to the input's type. A model whose seeded inputs ORT 1.31 does not run has no
oracle for step 4 (the line says so).

With --runtime NAME the gate is run with the runtime's profile (--runtime=NAME: its opset floor and IR ceiling
too), so that a model refused for its IR version is a finding, and the whole verdict agrees there as well.

One line per model, a table of counts, and the exit status (77, which ctest reports as skipped, when a node:DIR
runtime is not installed): 1 when a ceiling verdict disagrees, a whole verdict
disagrees unexplained, or a move fails or differs otherwise; 0 else. Scratch: SCRATCH_DIR/STEM/ holds the inputs,
the outputs, the moved model and the CLI's log; SCRATCH_DIR/gate.json the gate's report.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper

TIMEOUT = 900

# Models whose graph inputs the uniform [0, 255) draw cannot feed, by file: {input: (dims, value or None)}; a value
# fills the tensor, None keeps the draw.
INPUT_OVERRIDES = {
    # silero VAD: a window of 512 samples at 16 kHz, the sample rate as an int64 scalar, a recurrent state.
    "silero_vad_16k_pt231_opset15.onnx": {"input": ([1, 512], None), "sr": ([], 16000)},
    "silero_vad_v3_pt19_opset13.onnx": {"input": ([1, 1536], None)},
    # Microsoft Teams' background segmentation: an RGB + mask frame of 256 x 256.
    "onnxjs_teams_bgseg_pt16_opset11.onnx": {"bgrm": ([1, 4, 256, 256], None)},
}

# ONNX element types -> numpy dtypes (and the tensor type names ORT's JavaScript API uses).
JS_TYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
            10: "float16", 11: "float64", 12: "uint32", 13: "uint64"}
NP_OF_JS = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16,
            "int32": np.int32, "int64": np.int64, "bool": np.bool_, "float16": np.float16, "float64": np.float64,
            "uint32": np.uint32, "uint64": np.uint64}

# ---------------------------------------------------------------------------------------------- runners
# Each runner takes a list of jobs {model, inputs: [{name, type, dims, file}], out_dir or null (load only)} and
# answers one JSON line per job: {loaded, error, outputs: [{name, type, dims, file}]}. Tensors travel as raw
# little-endian files.

NODE_RUNNER = r"""
delete globalThis.fetch;  // onnxruntime-web's Emscripten loader reads its .wasm with fetch() when it exists
const fs = require('fs'), path = require('path');
const [dir, jobsFile, optLevel] = process.argv.slice(2);
const pkg = fs.existsSync(path.join(dir, 'node_modules/onnxruntime-node')) ? 'onnxruntime-node' : 'onnxruntime-web';
const ort = require(path.join(dir, 'node_modules', pkg));
if (pkg === 'onnxruntime-web') { ort.env.wasm.numThreads = 1; }
const ARRAYS = {float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, float16: Uint16Array, float64: Float64Array,
  uint32: Uint32Array, uint64: BigUint64Array};
(async () => {
  for (const job of JSON.parse(fs.readFileSync(jobsFile, 'utf8'))) {
    const answer = {loaded: false, error: null, outputs: []};
    let session;
    try {
      const options = {graphOptimizationLevel: optLevel, intraOpNumThreads: 1, executionMode: 'sequential'};
      if (pkg === 'onnxruntime-web') options.executionProviders = ['wasm'];
      session = await ort.InferenceSession.create(job.model, options);
      answer.loaded = true;
    } catch (e) { answer.error = String(e && e.message || e).split('\n')[0]; }
    if (session && job.out_dir) {
      try {
        const feeds = {};
        for (const t of job.inputs) {
          const b = fs.readFileSync(t.file);
          const A = ARRAYS[t.type];
          const data = new A(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
          feeds[t.name] = new ort.Tensor(t.type, data, t.dims);
        }
        const results = await session.run(feeds);
        session.outputNames.forEach((name, k) => {
          const t = results[name], file = path.join(job.out_dir, `old_${k}.bin`);
          fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
          answer.outputs.push({name, type: t.type, dims: Array.from(t.dims), file});
        });
      } catch (e) { answer.error = 'run: ' + String(e && e.message || e).split('\n')[0]; }
    }
    console.log(JSON.stringify(answer));
  }
})();
"""

PYTHON_RUNNER = r"""
import json, os, sys
import numpy as np
import onnxruntime as ort
ort.set_default_logger_severity(3)
jobs_file, opt_level, prefix = sys.argv[1:4]
levels = {"disabled": ort.GraphOptimizationLevel.ORT_DISABLE_ALL, "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
NP = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16,
      "int32": np.int32, "int64": np.int64, "bool": np.bool_, "float16": np.float16, "float64": np.float64,
      "uint32": np.uint32, "uint64": np.uint64}
JS = {"tensor(float)": "float32", "tensor(double)": "float64", "tensor(float16)": "float16"}
for job in json.load(open(jobs_file)):
    answer = {"loaded": False, "error": None, "outputs": []}
    session = None
    try:
        options = ort.SessionOptions()
        options.graph_optimization_level = levels[opt_level]
        options.intra_op_num_threads = 1
        options.log_severity_level = 3
        session = ort.InferenceSession(job["model"], options, providers=["CPUExecutionProvider"])
        answer["loaded"] = True
    except Exception as e:
        answer["error"] = " ".join(str(e).split())
    if session is not None and job["out_dir"]:
        try:
            feeds = {t["name"]: np.fromfile(t["file"], NP[t["type"]]).reshape(t["dims"]) for t in job["inputs"]}
            for k, (o, v) in enumerate(zip(session.get_outputs(), session.run(None, feeds))):
                if not isinstance(v, np.ndarray):
                    raise TypeError(f"output {o.name} is {o.type}, not a tensor")
                file = os.path.join(job["out_dir"], f"{prefix}_{k}.bin")
                np.ascontiguousarray(v).tofile(file)
                t = {np.dtype(d): n for n, d in NP.items()}[v.dtype]
                answer["outputs"].append({"name": o.name, "type": t, "dims": list(v.shape), "file": file})
        except Exception as e:
            answer["error"] = "run: " + " ".join(str(e).split())
    print(json.dumps(answer), flush=True)
"""


class Runtime:
    """An ONNX Runtime in a child process: node with an npm package, or a Python interpreter with onnxruntime."""

    def __init__(self, spec, opt_level, prefix, scratch):
        self.kind, _, self.where = spec.partition(":")
        if self.kind not in ("node", "python") or not self.where:
            sys.exit(f"bad runtime {spec!r}: node:DIR or python:EXE")
        self.opt_level, self.prefix, self.scratch = opt_level, prefix, scratch
        self.name = spec

    def run(self, jobs):
        with tempfile.NamedTemporaryFile("w", suffix=".json", dir=self.scratch, delete=False) as jobs_file:
            json.dump(jobs, jobs_file)
        if self.kind == "node":
            script = os.path.join(self.scratch, "old_ort_runner.js")
            with open(script, "w") as f:
                f.write(NODE_RUNNER.replace("old_${k}", self.prefix + "_${k}"))
            cmd = ["node", script, os.path.abspath(self.where), jobs_file.name, self.opt_level]
        else:
            cmd = [self.where, "-c", PYTHON_RUNNER, jobs_file.name, self.opt_level, self.prefix]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return [{"loaded": False, "error": f"timed out after {TIMEOUT}s", "outputs": []}] * len(jobs)
        finally:
            os.remove(jobs_file.name)
        answers = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        crash = f"runtime exited {p.returncode}: {(p.stderr.strip().splitlines() or [''])[-1][:200]}"
        return answers + [{"loaded": False, "error": crash, "outputs": []}] * (len(jobs) - len(answers))

    def version(self):
        if self.kind == "node":
            for pkg in ("onnxruntime-node", "onnxruntime-web"):
                meta = os.path.join(self.where, "node_modules", pkg, "package.json")
                if os.path.exists(meta):
                    return f"{pkg} {json.load(open(meta))['version']}"
        p = subprocess.run([self.where, "-c", "import onnxruntime; print(onnxruntime.__version__)"],
                           capture_output=True, text=True)
        return f"onnxruntime {p.stdout.strip()} (PyPI)"


def short(message, limit=160):
    message = " ".join((message or "").split())
    for noise in ("[ONNXRuntimeError] : 1 : FAIL : ", "[ONNXRuntimeError] : 10 : INVALID_GRAPH : "):
        message = message.replace(noise, "")
    if "failed:" in message[:300]:
        message = message.split("failed:", 1)[1]
    if message.startswith("/onnxruntime_src/"):  # the source location and function signature
        message = message.split(") ", 1)[-1]
    return message if len(message) <= limit else message[:limit - 3] + "..."


# ---------------------------------------------------------------------------------------------- probing the ceiling

def probe(runtime, folder):
    """The newest ai.onnx opset (at IR 7) and IR version (at opset 7) the runtime loads, on a model of one Relu."""
    os.makedirs(folder, exist_ok=True)
    jobs, keys = [], []
    for opset, ir in [(o, 7) for o in range(7, 27)] + [(7, i) for i in range(3, 13)]:
        graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                                  [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
                                  [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])])
        path = os.path.join(folder, f"relu_opset{opset}_ir{ir}.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir), path)
        jobs.append({"model": path, "inputs": [], "out_dir": None})
        keys.append((opset, ir))
    loaded = {key: a["loaded"] for key, a in zip(keys, runtime.run(jobs))}
    max_opset = max((o for (o, i), ok in loaded.items() if ok and i == 7), default=None)
    max_ir = max((i for (o, i), ok in loaded.items() if ok and o == 7), default=None)
    return max_opset, max_ir


# ---------------------------------------------------------------------------------------------- inputs, outputs

def seeded_inputs(model_path, folder):
    model = onnx.load(model_path, load_external_data=False)
    rng = np.random.default_rng(len(os.path.splitext(os.path.basename(model_path))[0]))
    overrides = INPUT_OVERRIDES.get(os.path.basename(model_path), {})
    initializers = {t.name for t in model.graph.initializer}
    os.makedirs(folder, exist_ok=True)
    inputs = []
    for k, value in enumerate(v for v in model.graph.input if v.name not in initializers):
        tensor_type = value.type.tensor_type
        if not value.type.HasField("tensor_type") or tensor_type.elem_type not in JS_TYPES:
            raise ValueError(f"input '{value.name}' is not a tensor of a numeric type: no seeded input")
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in tensor_type.shape.dim]
        dims, fill = overrides.get(value.name, (dims, None))
        kind = JS_TYPES[tensor_type.elem_type]
        array = (np.full(dims, fill) if fill is not None else rng.random(dims) * 255).astype(NP_OF_JS[kind])
        path = os.path.join(folder, f"input_{k}.bin")
        array.tofile(path)
        inputs.append({"name": value.name, "type": kind, "dims": dims, "file": path})
    return inputs


def out_dir(folder, name):
    path = os.path.join(folder, name)
    os.makedirs(path, exist_ok=True)
    return path


def read_outputs(answer):
    return [(o["name"], np.fromfile(o["file"], NP_OF_JS[o["type"]]).reshape(o["dims"])) for o in answer["outputs"]]


def differences(got, want):
    """None when two runs' outputs are the same names, types, shapes and bits; else the first difference."""
    if [n for n, _ in got] != [n for n, _ in want]:
        return f"outputs {[n for n, _ in got]} vs {[n for n, _ in want]}"
    for (name, g), (_, w) in zip(got, want):
        if g.dtype != w.dtype or g.shape != w.shape:
            return f"'{name}': {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        gb, wb = g.view(np.uint8).reshape(-1, g.itemsize), w.view(np.uint8).reshape(-1, w.itemsize)
        bad = np.flatnonzero((gb != wb).any(axis=1))
        if bad.size:
            k = int(bad[0])
            text = f"'{name}': {bad.size} of {g.size} differ, first at {k}: {g.flat[k]!r} vs {w.flat[k]!r}"
            if g.dtype.kind == "f":
                with np.errstate(invalid="ignore", over="ignore"):
                    d = np.abs(g.astype(np.float64) - w.astype(np.float64))
                    rel = d / np.maximum(np.abs(w.astype(np.float64)), np.finfo(g.dtype).tiny)
                text += f"; max |diff| {np.nanmax(d):.3g}, max rel {np.nanmax(rel):.3g}"
            return text
    return None


# ---------------------------------------------------------------------------------------------- the gate

def run_gate(cli, folder, max_opset, min_opset, runtime, report):
    cmd = [cli, "--check", f"--max-opset={max_opset}", "--format=json", f"--report={report}", folder]
    if min_opset is not None:
        cmd.insert(3, f"--min-opset={min_opset}")
    if runtime is not None:
        cmd.insert(2, f"--runtime={runtime}")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    with open(report) as f:
        document = json.load(f)
    by_file = {}
    for finding in document["findings"]:
        by_file.setdefault(os.path.realpath(finding["file"]), []).append(finding)
    for error in document["errors"]:
        by_file.setdefault(os.path.realpath(error["file"]), []).append(
            {"rule": "error:" + error["code"], "fixable": False, "reason": error["message"]})
    return " ".join(cmd), document["files_checked"], by_file


def fixable_by_moving_down(findings):
    return any(f["rule"] == "opset-out-of-range" and f["fixable"] for f in findings) and \
        all(f["fixable"] for f in findings)


# Rules that hold a model to onnx's schemas, which ONNX Runtime does not: it keeps kernels of ops onnx removed
# (ImageScaler, DynamicSlice, ThresholdedRelu before 10, MeanVarianceNormalization-1, ...) and reads what the first
# exporters wrote. A finding of these on a model ORT loads is the gate doing its other job, not a wrong ceiling.
SCHEMA_RULES = {"removed-experimental-op", "removed-op-attributes", "op-newer-than-opset", "legacy-era",
                "deprecated-op", "schema-mismatch", "no-schema"}
# ORT's documented floor: it guarantees opsets from 7 on (older op versions load only where a kernel is left).
ORT_FLOOR_OPSET = 7


def default_opset(path):
    model = onnx.load(path, load_external_data=False)
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=None)


def ceiling_refusal(answer, opset, max_opset):
    """Whether the runtime refused the model for its default opset. ORT's native builds say so ("Opset N is under
    development", model_load_utils' ValidateOpsetForDomain); its WebAssembly builds throw a bare number, so there the
    refusal of a model above the probed ceiling is taken to be that. None: refused before the opset was looked at."""
    if answer["loaded"]:
        return False
    error = answer["error"] or ""
    if "IR version" in error:
        return None  # ORT checks the IR version first: whether it takes the opset is not known
    if "is under development" in error or "ValidateOpsetForDomain" in error:
        return True
    return error.strip().isdigit() and opset is not None and opset > max_opset


def why_they_part(row, answer, path):
    """A disagreement of the whole verdict, put in a category; 'unexplained' is left for a person to judge."""
    error, opset = answer["error"] or "", default_opset(path)
    if row["gate"] == "blocks" and answer["loaded"]:
        if set(row["rules"]) <= SCHEMA_RULES:
            return "schema finding, not a load blocker: ORT still carries kernels/readers for it"
        if set(row["rules"]) <= SCHEMA_RULES | {"opset-out-of-range"} and opset is not None and \
                opset < ORT_FLOOR_OPSET:
            return f"below --min-opset (opset {opset}): ORT guarantees opsets from {ORT_FLOOR_OPSET} only, but loads " \
                "this one (a kernel is left for each of its ops)"
        return "unexplained: the gate blocks a model the runtime loads"
    if "Unsupported model IR version" in error or "IR version" in error:
        return "the runtime's IR ceiling: --max-opset does not look at the IR version (--runtime and " \
            "--max-ir-version do)"
    if "Could not find an implementation" in error and opset is not None and opset < ORT_FLOOR_OPSET:
        return f"below ORT's floor (opset {opset} < {ORT_FLOOR_OPSET}): no kernel left for that op version"
    return "unexplained: the gate passes a model the runtime refuses"


# ---------------------------------------------------------------------------------------------- one model

def check_model(path, findings, args, old, ref, scratch):
    """A dict of what was seen for one model: verdicts, agreement, and for a move its outcome."""
    row = {"file": os.path.relpath(path, args.models), "gate": "blocks" if findings else "passes",
           "rules": sorted({f["rule"] for f in findings})}
    folder = os.path.join(scratch, os.path.splitext(row["file"])[0].replace(os.sep, "__"))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    try:
        inputs = seeded_inputs(path, os.path.join(folder, "inputs"))
    except Exception as e:  # noqa: BLE001 - the model cannot be fed: loading is still judged
        inputs, row["inputs"] = None, f"no seeded inputs: {e}"
    run = inputs is not None
    job = {"model": path, "inputs": inputs or [], "out_dir": out_dir(folder, "original_old") if run else None}
    answer = old.run([job])[0]
    row["runtime"] = "loads" if answer["loaded"] else "refuses"
    row["runtime_error"] = short(answer["error"]) if answer["error"] else ""
    # The ceiling: does the gate say "above N" exactly when the runtime refuses the model's opset?
    gate_ceiling = any(f["rule"] == "no-form-at-max-opset" or
                       (f["rule"] == "opset-out-of-range" and f.get("opset", 0) > args.max_opset) for f in findings)
    runtime_ceiling = ceiling_refusal(answer, default_opset(path), args.max_opset)
    row["ceiling"] = "n/a" if runtime_ceiling is None else "agree" if gate_ceiling == runtime_ceiling else "DISAGREE"
    row["ceiling_text"] = f"gate {'above' if gate_ceiling else 'within'} {args.max_opset}, runtime " + \
        {None: "refused the IR version before looking at the opset", True: "refuses the opset",
         False: "takes the opset"}[runtime_ceiling]
    # The whole verdict: any finding vs loading, and why they part where they do.
    row["agree"] = (row["gate"] == "passes") == answer["loaded"]
    row["why"] = "" if row["agree"] else why_they_part(row, answer, path)

    reference = None
    if run:
        ref_answer = ref.run([{"model": path, "inputs": inputs, "out_dir": out_dir(folder, "original_ref")}])[0]
        if ref_answer["loaded"] and not ref_answer["error"]:
            reference = read_outputs(ref_answer)
        else:
            row["oracle"] = "ORT 1.31 does not run the original on the seeded inputs: " + short(ref_answer["error"])
    if answer["loaded"] and reference is not None and not answer["error"]:
        row["drift"] = differences(read_outputs(answer), reference) or "identical"

    if findings and fixable_by_moving_down(findings):
        row["move"] = move_down(path, inputs, reference, args, old, ref, folder)
    return row


def move_down(path, inputs, reference, args, old, ref, folder):
    """Moves the model to the ceiling and runs it in the old runtime: 'ok ...' or what went wrong."""
    out = os.path.join(folder, "moved.onnx")
    p = subprocess.run([args.cli, f"--target-opset={args.max_opset}", path, out], capture_output=True, text=True,
                       timeout=TIMEOUT)
    with open(os.path.join(folder, "cli.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    if p.returncode != 0 or not os.path.exists(out):
        return f"FAIL: the gate said fixable, --target-opset={args.max_opset} exits {p.returncode}: " + \
            short(p.stderr, 240)
    moved = onnx.load(out, load_external_data=False)
    stamp = f"opset {max(o.version for o in moved.opset_import if o.domain in ('', 'ai.onnx'))}, IR {moved.ir_version}"
    run = inputs is not None
    job = {"model": out, "inputs": inputs or [], "out_dir": out_dir(folder, "moved_old") if run else None}
    answer = old.run([job])[0]
    if not answer["loaded"]:
        return f"FAIL: the gate said fixable; moved ({stamp}), but the old runtime refuses it: " \
            f"{short(answer['error'])}"
    if answer["error"]:
        return f"FAIL: moved ({stamp}), loads, but does not run: {short(answer['error'])}"
    if reference is None:
        return f"loads ({stamp}); outputs not compared: no oracle"
    got = read_outputs(answer)
    diff = differences(got, reference)
    if diff is None:
        return f"ok ({stamp}): loads, outputs identical to ORT 1.31's of the original"
    # Where does the difference come from: the move (ORT 1.31 on both forms) or the releases (both on the moved one)?
    ref_moved = ref.run([{"model": out, "inputs": inputs, "out_dir": out_dir(folder, "moved_ref")}])[0]
    if not ref_moved["loaded"] or ref_moved["error"]:
        return f"DIFFERS ({stamp}): {diff}; ORT 1.31 does not run the moved model: {short(ref_moved['error'])}"
    within_ref = differences(read_outputs(ref_moved), reference)
    across = differences(got, read_outputs(ref_moved))
    if within_ref is None and across == diff:
        # ORT 1.31 computes both forms to the bit, and the old release computes the moved form exactly as far
        # from ORT 1.31 as from the original: the difference is the two releases' kernels, not the move.
        return f"releases differ ({stamp}): ORT 1.31 gives the moved model the original's bits; the old " \
            f"release's kernels give other ones: {diff}"
    return (f"DIFFERS ({stamp}): {diff}; ORT 1.31 moved vs original: {within_ref or 'identical'}; "
            f"old vs ORT 1.31 on the moved model: {across or 'identical'}")


# ---------------------------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli")
    parser.add_argument("models")
    parser.add_argument("scratch")
    parser.add_argument("--max-opset", type=int, required=True)
    parser.add_argument("--min-opset", type=int)
    parser.add_argument("--old-runtime", required=True, help="node:DIR or python:EXE")
    parser.add_argument("--runtime", help="the gate's --runtime profile of the old runtime (its opset range and IR "
                        "ceiling; --max-opset and --min-opset, when given, override it)")
    parser.add_argument("--optimizations", choices=("disabled", "all"), default="disabled")
    parser.add_argument("--only", nargs="*", help="file names to check (the gate still runs on the whole folder)")
    args = parser.parse_args()
    import onnxruntime
    if onnxruntime.__version__ != "1.31.1" or onnx.__version__ != "1.23.2":
        sys.exit(f"the reference must be onnx 1.23.2 + onnxruntime 1.31.1, not {onnx.__version__} + "
                 f"{onnxruntime.__version__}: run this with scripts/install-python-env.sh's venv")
    kind, _, where = args.old_runtime.partition(":")
    if kind == "node" and not os.path.isdir(os.path.join(where, "node_modules")):
        print(f"skipped: {where}/node_modules is not installed (tests/ort/install.sh installs it)")
        return 77
    args.cli, args.models = os.path.abspath(args.cli), os.path.abspath(args.models)
    scratch = os.path.abspath(args.scratch)
    os.makedirs(scratch, exist_ok=True)
    old = Runtime(args.old_runtime, args.optimizations, "old", scratch)
    ref = Runtime("python:" + sys.executable, args.optimizations, "ref", scratch)

    max_opset, max_ir = probe(old, os.path.join(scratch, "probe"))
    print(f"old runtime: {old.version()} ({args.old_runtime}); loads ai.onnx opsets up to {max_opset} (at IR 7), "
          f"IR versions up to {max_ir} (at opset 7); graph optimizations {args.optimizations}")
    if max_opset != args.max_opset:
        sys.exit(f"the old runtime's ceiling is opset {max_opset}, not --max-opset={args.max_opset}")

    command, checked, by_file = run_gate(args.cli, args.models, args.max_opset, args.min_opset, args.runtime,
                                         os.path.join(scratch, "gate.json"))
    print(f"gate: {command} ({checked} files)")
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.models) for f in fs if f.endswith(".onnx"))
    if args.only:
        paths = [p for p in paths if os.path.basename(p) in args.only]

    rows = []
    for path in paths:
        row = check_model(path, by_file.get(os.path.realpath(path), []), args, old, ref, scratch)
        rows.append(row)
        line = f"{'AGREE   ' if row['agree'] else 'DISAGREE'} {row['file']}: gate {row['gate']}"
        line += f" ({', '.join(row['rules'])})" if row["rules"] else ""
        line += f"; runtime {row['runtime']}" + (f" ({row['runtime_error']})" if row["runtime_error"] else "")
        line += f"\n           ceiling: {row['ceiling']} ({row['ceiling_text']})"
        for key in ("why", "inputs", "oracle", "drift", "move"):
            if row.get(key):
                line += f"\n           {key}: {row[key]}"
        print(line, flush=True)

    ceiling_bad = [r["file"] for r in rows if r["ceiling"] == "DISAGREE"]
    ceiling_na = sum(r["ceiling"] == "n/a" for r in rows)
    unexplained = [r["file"] for r in rows if r["why"].startswith("unexplained")]
    moves = [r["move"] for r in rows if "move" in r]
    counts = {kind: sum(m.startswith(kind) for m in moves) for kind in ("ok", "releases differ", "loads", "FAIL",
                                                                          "DIFFERS")}
    drift = sum(r.get("drift") not in (None, "identical") for r in rows)
    print(f"\n{len(rows)} models, ceiling {args.max_opset} ({old.version()}):")
    print(f"  ceiling verdict (gate's 'above {args.max_opset}' vs the runtime refusing the opset): "
          f"{len(rows) - len(ceiling_bad) - ceiling_na} agree, {len(ceiling_bad)} disagree, {ceiling_na} not known "
          f"(refused for the IR version first)")
    print(f"  whole verdict (any finding vs loading): {sum(r['agree'] for r in rows)} agree, "
          f"{sum(not r['agree'] for r in rows)} disagree ({len(unexplained)} unexplained)")
    print(f"  moved to {args.max_opset} (the gate said fixable): {len(moves)}: {counts['ok']} identical to ORT 1.31's "
          f"outputs of the original, {counts['releases differ']} differ by the releases' kernels only, "
          f"{counts['loads']} load without an oracle, {counts['FAIL']} fail, {counts['DIFFERS']} differ otherwise")
    print(f"  models the old runtime loads as they are: {drift} compute other bits than ORT 1.31 (drift)")
    bad = ceiling_bad + unexplained + [m for m in moves if m.startswith(("FAIL", "DIFFERS"))]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
