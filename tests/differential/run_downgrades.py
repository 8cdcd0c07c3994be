#!/usr/bin/python3
"""Differential test of moving models down: onnx's node tests, each at the opset of its op's newest version, moved to
lower opsets by the onnx-legalize CLI and run in ONNX Runtime beside the original.

Usage:
    "$PY" tests/differential/run_downgrades.py CLI NODE_DIR SCRATCH_DIR [--targets 9 11 13] [--only NAME ...]

NODE_DIR is make_node_test_data.py's OUT/node folder (onnx 1.23.2's node tests: a model.onnx and test_data_set_0 per
test). A test is taken when ONNX Runtime runs its model (default opset 7..26), on its first data set; its outputs
there are what every moved form must give. For each target below the model's opset:
  - `CLI IN OUT --target-opset=T` exits 0: OUT imports opset T, passes onnx's full check, and ONNX Runtime's outputs
    of it equal the original's bit for bit (a NaN matches a NaN): "moved";
  - or it exits 3 and writes nothing, saying why: "refused" (a node with no form at T, named, or one of onnx's
    down-adapters that cannot take the node);
  - or it exits 4 and writes nothing: the move's proof found that a down-adapter changes what the model computes,
    "caught" (nothing wrong is written; the line names it for the team);
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

from run_differential import compare_dirs, compare_dirs_tolerant, default_opset, run_ort

# Where ONNX Runtime 1.31 computes an op's versions with different kernels, a moved model's outputs may differ from
# the original's in the last bits though both forms mean the same (the model runner's proof of the move computes them
# alike): the node tests of these ops are compared within the bounds given, (ULP, absolute), with the reason.
ORT_KERNEL_ALLOWANCES = {
    # AveragePool-19 and later (dilations) run ORT's own pooling loop; AveragePool-1..11 run MLAS's, which sums a
    # window in another order. The tests' windows hold up to 27 values of magnitude up to about 4: a different order
    # of float sums is off by up to 27 * 2^-24 * 4, about 6.4e-6.
    "test_averagepool_": (2, 1e-5),
}
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


def check_moved(name, out_path, data_dir, want_dir, scratch, target):
    """Problems with a moved model: empty when it is right."""
    model = onnx.load(out_path)
    if default_opset(model) != target:
        return [f"imports opset {default_opset(model)}, not {target}"]
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001
        return [f"onnx's full check refuses it: {str(e).splitlines()[0]}"]
    got_dir = os.path.join(scratch, "got")
    code, err = run_ort(out_path, data_dir, got_dir)
    if code != 0:
        return [f"ONNX Runtime does not run it: {err.splitlines()[-1] if err else code}"]
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
    counts = {t: {"moved": 0, "refused": 0, "caught": 0, "failed": 0} for t in args.targets}
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
        if opset is None or not ORT_MIN_OPSET <= opset <= ORT_MAX_OPSET:
            continue  # another domain's test, or one ONNX Runtime cannot run to compare with
        targets = [t for t in args.targets if t < opset]
        if not targets:
            continue
        work = os.path.join(args.scratch, name)
        os.makedirs(work, exist_ok=True)
        want_dir = ort_outputs(in_path, data_dir, os.path.join(work, "want"))
        if want_dir is None:
            shutil.rmtree(work, ignore_errors=True)
            continue
        for target in targets:
            out_path = os.path.join(work, f"moved_{target}.onnx")
            code, err = move(args.cli, in_path, out_path, target)
            if code == 0:
                problems = check_moved(name, out_path, data_dir, want_dir, work, target)
                outcome = "failed" if problems else "moved"
                detail = "; ".join(problems)
            elif code in (EXIT_REFUSED, EXIT_VERIFICATION_FAILED) and not os.path.exists(out_path):
                outcome = "caught" if code == EXIT_VERIFICATION_FAILED else "refused"
                detail = err.splitlines()[0] if err else ""
                if outcome == "refused":
                    reasons[refusal_reason(detail)] += 1
            else:
                outcome = "failed"
                detail = f"exit {code}{', output written' if os.path.exists(out_path) else ''}: " + (
                    err.splitlines()[0] if err else "")
            counts[target][outcome] += 1
            if outcome in ("failed", "caught"):
                print(f"{outcome.upper()} {name} -> {target}: {detail}", flush=True)
            failures += outcome == "failed"
        shutil.rmtree(work, ignore_errors=True)
    for target, c in counts.items():
        print(f"to opset {target}: {c['moved']} moved, {c['refused']} refused, {c['caught']} caught by the proof, "
              f"{c['failed']} failed")
    print("refusals by reason, the most frequent first:")
    for reason, count in reasons.most_common(25):
        print(f"  {count:5d}  {reason}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
