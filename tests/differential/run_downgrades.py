#!/usr/bin/python3
"""Differential test of moving models down: onnx's node tests, each at the opset of its op's newest version, moved to
lower opsets by the onnx-legalize CLI and run in ONNX Runtime beside the original.

Usage:
    "$PY" tests/differential/run_downgrades.py CLI NODE_DIR SCRATCH_DIR [--targets 9 11 13] [--only NAME ...]

NODE_DIR is make_node_test_data.py's OUT/node folder (onnx 1.23.2's node tests: a model.onnx and test_data_set_0 per
test). A test is taken when ONNX Runtime runs its model (default opset 7..26), on its first data set; its outputs
there are what every moved form must give. A test above ONNX Runtime's ceiling (opsets 27 and 28, the newest the tool
targets) is taken too, and also moved to 26, the ceiling: ONNX Runtime runs no form of it at 27 or 28, so each result
it runs is compared with onnx's own outputs of the test (its reference implementation's, under the rules of onnx's
backend tests: run_node_tests.compare), and a result at 27 only passes onnx's full check (the CLI's proof executes
both forms in the model runner where it has their kernels). For each target below the model's opset:
  - `CLI IN OUT --target-opset=T` exits 0: OUT imports opset T, passes onnx's full check, and ONNX Runtime's outputs
    of it equal the original's bit for bit (a NaN matches a NaN): "moved";
  - or it exits 3 and writes nothing, saying why: "refused" (a node with no form at T, named, or one of onnx's
    down-adapters that cannot take the node);
  - or it exits 4 and writes nothing: the move's proof found that a down-adapter changes what the model computes,
    "caught" (nothing wrong is written; the line names it for the team);
  - of a test above ONNX Runtime's ceiling, it exits 0 but ONNX Runtime lacks the element types or op version the
    result is made of (ORT_LACKS): "not run in ORT", counted by reason;
  - a failure KNOWN_FAILURES lists (with why) is printed as KNOWN and does not fail the test;
  - anything else fails the test: a moved model that differs, fails the check or does not load, output written
    beside a refusal, a crash.
One line per failure, per target the counts, and the most frequent reasons for refusing; the exit status is non-zero
when anything failed.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

import onnx
from onnx import numpy_helper

from run_differential import compare_dirs, compare_dirs_tolerant, default_opset, output_files, run_ort
from run_node_tests import compare as compare_with_onnx

# Where ONNX Runtime 1.31 computes an op's versions with different kernels, a moved model's outputs may differ from
# the original's in the last bits though both forms mean the same (the model runner's proof of the move computes them
# alike): the node tests of these ops are compared within the bounds given, (ULP, absolute), with the reason.
ORT_KERNEL_ALLOWANCES = {
    # AveragePool-19 and later (dilations) run ORT's own pooling loop; AveragePool-1..11 run MLAS's, which sums a
    # window in another order. The tests' windows hold up to 27 values of magnitude up to about 4: a different order
    # of float sums is off by up to 27 * 2^-24 * 4, about 6.4e-6.
    "test_averagepool_": (2, 1e-5),
}
# Failures the team knows of and has not fixed yet, each with why ("prefix": ({targets}, "why")): printed as KNOWN and
# counted, not failing the run. None today.
KNOWN_FAILURES = {}
ORT_MIN_OPSET = 7
ORT_MAX_OPSET = 26
CLI_TIMEOUT = 120
EXIT_REFUSED = 3
EXIT_VERIFICATION_FAILED = 4


def ort_outputs(model_path, data_dir, out_dir):
    """ORT's outputs of the model on the data set, in out_dir; None when ORT does not run it."""
    code, _ = run_ort(model_path, data_dir, out_dir)
    return out_dir if code == 0 else None


def move(cli, in_path, out_path, target):
    if os.path.exists(out_path):
        os.remove(out_path)
    try:
        p = subprocess.run([cli, in_path, out_path, f"--target-opset={target}"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=CLI_TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, "timed out"
    return p.returncode, p.stderr.strip()


def refusal_reason(message):
    """A refusal's reason without the node it names, to count refusals by reason."""
    reason = message.split(" has no form at opset ", 1)[-1]
    reason = reason.split(": ", 1)[-1] if " has no form at opset " in message else reason
    reason = reason.split("; the lowest opset", 1)[0]
    reason = re.sub(r"'[^']*'", "'...'", reason)
    return reason.replace("onnx-legalize: ", "")[:140]


def allowance(name):
    for prefix, bounds in ORT_KERNEL_ALLOWANCES.items():
        if name.startswith(prefix):
            return bounds
    return None


# ONNX Runtime 1.31 lacks what some tests above its ceiling are made of: element types (bfloat16, float8, int4, int2,
# float4 of Cast, QuantizeLinear, ...) and op versions (Swish-24, BitShift of uint16). Their results, which pass onnx's
# full check, cannot be compared in it; run_model.js exits 2 on an input file of a type it cannot feed (int4, an
# optional), and onnxruntime-node aborts reading an int4 output ("process out of memory").
ORT_LACKS = re.compile(r"Unsupported data type|Could not find an implementation for|Failed to find kernel for|"
                       r"process out of memory")


# ONNX Runtime's Scan kernel needs the body's output shapes, which at opsets 11 and 13 its inference of onnx's
# expanded LinearAttention-27 body (which declares no types) finds only with its graph optimizations on: such a
# result is run as ORT runs it by default (constant folding and all), and compared as any other.
ORT_SCAN_NEEDS_ITS_OPTIMIZER = "Subgraph must have the shape set for all outputs"


class NotRunInOrt(Exception):
    """ONNX Runtime runs no form of a test above its ceiling: not compared."""


def ort_lacks(code, err):
    return code == 2 or bool(ORT_LACKS.search(err or ""))


def compare_with_reference(got_dir, data_dir):
    """Problems of ONNX Runtime's outputs against onnx's own outputs of the test, under its backend tests' rules."""
    got, want = output_files(got_dir), output_files(data_dir)
    if got != want:
        return [f"outputs: files {got} vs onnx's {want}"]
    problems = []
    for f in got:
        ours = numpy_helper.to_array(onnx.load_tensor(os.path.join(got_dir, f)))
        expected = numpy_helper.to_array(onnx.load_tensor(os.path.join(data_dir, f)))
        why = compare_with_onnx(ours, expected)
        if why:
            problems.append(f"outputs: {f} against onnx's: {why}")
    return problems


def check_moved(name, out_path, data_dir, want_dir, scratch, target):
    """Problems with a moved model: empty when it is right. want_dir None: a test above ONNX Runtime's ceiling,
    compared with onnx's own outputs where ONNX Runtime runs the result."""
    model = onnx.load(out_path)
    if default_opset(model) != target:
        return [f"imports opset {default_opset(model)}, not {target}"]
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001
        return [f"onnx's full check refuses it: {str(e).splitlines()[0]}"]
    if want_dir is None and target > ORT_MAX_OPSET:
        return []
    got_dir = os.path.join(scratch, "got")
    code, err = run_ort(out_path, data_dir, got_dir)
    if code != 0 and ORT_SCAN_NEEDS_ITS_OPTIMIZER in (err or ""):
        code, err = run_ort(out_path, data_dir, got_dir, optimization="all")
    if code != 0 and want_dir is None and ort_lacks(code, err):
        raise NotRunInOrt(err.splitlines()[-1] if err else "")
    if code != 0:
        return [f"ONNX Runtime does not run it: {err.splitlines()[-1] if err else code}"]
    if want_dir is None:
        return compare_with_reference(got_dir, data_dir)
    bounds = allowance(name)
    if bounds:
        return compare_dirs_tolerant(got_dir, want_dir, "outputs", *bounds)
    return compare_dirs(got_dir, want_dir, "outputs")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("node_dir")
    parser.add_argument("scratch")
    parser.add_argument("--targets", type=int, nargs="+", default=[9, 11, 13])
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()

    os.makedirs(args.scratch, exist_ok=True)
    counts = collections.defaultdict(
        lambda: {"moved": 0, "refused": 0, "caught": 0, "failed": 0, "known": 0, "not run in ORT": 0})
    unrun = collections.Counter()
    failures = 0
    reasons = collections.Counter()
    for name in sorted(os.listdir(args.node_dir)):
        if args.only and name not in args.only:
            continue
        folder = os.path.join(args.node_dir, name)
        in_path = os.path.join(folder, "model.onnx")
        data_dir = os.path.join(folder, "test_data_set_0")
        if not os.path.isfile(in_path) or not os.path.isdir(data_dir):
            continue
        opset = default_opset(onnx.load(in_path, load_external_data=False))
        if opset is None or opset < ORT_MIN_OPSET:
            continue  # another domain's test, or one ONNX Runtime runs in no form
        above_ort = opset > ORT_MAX_OPSET
        targets = sorted({t for t in args.targets if t < opset} | ({ORT_MAX_OPSET} if above_ort else set()))
        if not targets:
            continue
        work = os.path.join(args.scratch, name)
        os.makedirs(work, exist_ok=True)
        want_dir = None
        if not above_ort:
            want_dir = ort_outputs(in_path, data_dir, os.path.join(work, "want"))
            if want_dir is None:
                shutil.rmtree(work, ignore_errors=True)
                continue
        for target in targets:
            out_path = os.path.join(work, f"moved_{target}.onnx")
            code, err = move(args.cli, in_path, out_path, target)
            if code == 0:
                try:
                    problems = check_moved(name, out_path, data_dir, want_dir, work, target)
                    outcome = "failed" if problems else "moved"
                    detail = "; ".join(problems)
                except NotRunInOrt as e:
                    outcome, detail = "not run in ORT", str(e)
                    unrun[re.sub(r"/\S*", "", detail)[:140]] += 1
            elif code in (EXIT_REFUSED, EXIT_VERIFICATION_FAILED) and not os.path.exists(out_path):
                outcome = "caught" if code == EXIT_VERIFICATION_FAILED else "refused"
                detail = err.splitlines()[0] if err else ""
                if outcome == "refused":
                    reasons[refusal_reason(detail)] += 1
            else:
                outcome = "failed"
                detail = f"exit {code}{', output written' if os.path.exists(out_path) else ''}: " + (
                    err.splitlines()[0] if err else "")
            known = next((why for prefix, (at, why) in KNOWN_FAILURES.items()
                          if name.startswith(prefix) and target in at), None)
            if outcome == "failed" and known:
                outcome, detail = "known", f"{detail} ({known})"
            counts[target][outcome] += 1
            if outcome in ("failed", "caught", "known"):
                print(f"{outcome.upper()} {name} -> {target}: {detail}", flush=True)
            failures += outcome == "failed"
        shutil.rmtree(work, ignore_errors=True)
    for target, c in sorted(counts.items()):
        print(f"to opset {target}: {c['moved']} moved, {c['refused']} refused, {c['caught']} caught by the proof, "
              f"{c['failed']} failed ({c['known']} known), {c['not run in ORT']} not run in ORT (above its ceiling, of "
              "what it lacks)")
    if unrun:
        print("not run in ONNX Runtime, by its reason:")
        for reason, count in unrun.most_common(10):
            print(f"  {count:5d}  {reason}")
    print("refusals by reason, the most frequent first:")
    for reason, count in reasons.most_common(25):
        print(f"  {count:5d}  {reason}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
