#!/usr/bin/python3
"""How many of onnx's backend test models have their opset move executed (proved) by the model runner.

Usage:
    "$PY" tests/differential/measure_opset_move_proofs.py CLI SCRATCH_DIR [--testdata DIR]
        [--targets 13 17] [--suites pytorch-converted pytorch-operator simple] [--only NAME ...] [-j 2]
        [--min-share PERCENT]

The models are the running onnx's backend test data (onnx/backend/test/data of onnx 1.23.2's wheel, in the
environment scripts/install-python-env.sh makes), or DIR's (a folder of the same layout). For each model folder of the
suites and each target, `CLI SUITE/NAME/model.onnx SCRATCH/... --target-opset=N --report=R.json` runs, and the
report's `opset_move` says what became of the move's proof:
  executed      "executed in the model runner ...": both forms ran and every output was identical;
  not executed  "not executed: WHY": the proof could not run (an op without a kernel, inputs it cannot draw, ...);
  no move       "" with the CLI's exit 0: the model already is at the target (not counted as a move);
  failed        the CLI refused the model (exit 3), found a difference (exit 4) or broke: a move not proved.
One line per model and target that was not executed, then per target the counts and the reasons grouped (the op or
the first words of the message), and the share executed of the models that move. With --min-share the exit status
is non-zero when a target's share is below it. Nothing is compared against ONNX Runtime here: that is
run_backend_models.py's work; this measures the proof's reach (issue 24).
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

import onnx

CLI_TIMEOUT = 300
SUITES = ("pytorch-converted", "pytorch-operator", "simple")


def measure(cli, model_path, work, target):
    """(kind, detail) for one model at one target: kind is executed | not executed | no move | failed."""
    os.makedirs(work, exist_ok=True)
    out_path = os.path.join(work, f"legalized_{target}.onnx")
    report_path = os.path.join(work, f"report_{target}.json")
    for stale in (out_path, report_path):
        if os.path.exists(stale):
            os.remove(stale)
    try:
        p = subprocess.run([cli, model_path, out_path, f"--target-opset={target}", f"--report={report_path}"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CLI_TIMEOUT)
    except subprocess.TimeoutExpired:
        return "failed", f"CLI timed out after {CLI_TIMEOUT}s"
    with open(os.path.join(work, f"cli_{target}.log"), "w") as log:
        log.write(p.stdout + p.stderr)
    report = {}
    if os.path.exists(report_path):
        with open(report_path) as f:
            report = json.load(f)
    move = report.get("opset_move", "")
    if p.returncode != 0:
        text = (p.stderr or p.stdout).strip().splitlines()
        return "failed", f"exit {p.returncode}: " + (text[-1] if text else "(no output)")
    if move.startswith("executed"):
        return "executed", move
    if move.startswith("not executed"):
        return "not executed", move[len("not executed: "):]
    if move == "":
        return "no move", ""
    return "failed", f"unexpected opset_move: {move}"


def reason_group(kind, detail):
    """A short key that groups like reasons: the op without a kernel, or the message without names and numbers."""
    m = re.search(r"no kernel for (op \S+(?: of domain '[^']*')?)", detail)
    if m:
        return f"no kernel: {m.group(1)}"
    m = re.search(r"\): (op \S+ is not supported|domain '[^']*' is not supported)", detail)
    if m:
        return f"{kind}: {m.group(1)}"
    key = re.sub(r"'[^']*'", "'…'", detail)
    key = re.sub(r"\d+", "N", key)
    return f"{kind}: {key[:150]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cli")
    parser.add_argument("scratch")
    parser.add_argument("--testdata", default=os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data"),
                        help="onnx's backend test data (default: the running onnx's)")
    parser.add_argument("--targets", type=int, nargs="+", default=[13, 17])
    parser.add_argument("--suites", nargs="+", default=list(SUITES))
    parser.add_argument("--only", nargs="+", help="model folder names (test_...) to measure")
    parser.add_argument("-j", type=int, default=2, help="models measured at once (default 2)")
    parser.add_argument("--min-share", type=float, help="fail when a target's executed share is below this percent")
    args = parser.parse_args()

    models = []
    for suite in args.suites:
        folder = os.path.join(args.testdata, suite)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name, "model.onnx")
            if os.path.exists(path) and (not args.only or name in args.only):
                models.append((suite, name, path))
    if os.path.isdir(args.scratch):
        shutil.rmtree(args.scratch)
    jobs = [(suite, name, path, target) for suite, name, path in models for target in args.targets]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        results = list(pool.map(
            lambda job: measure(args.cli, job[2], os.path.join(args.scratch, job[0], job[1]), job[3]), jobs))

    failed_share = False
    by_target = collections.defaultdict(list)
    for (suite, name, _, target), (kind, detail) in zip(jobs, results):
        by_target[target].append((suite, name, kind, detail))
    for target in args.targets:
        rows = by_target[target]
        counts = collections.Counter(kind for _, _, kind, _ in rows)
        moved = len(rows) - counts["no move"]
        print(f"== target {target}")
        for suite, name, kind, detail in rows:
            if kind in ("not executed", "failed"):
                print(f"  {suite}/{name}: {kind}: {detail[:300]}")
        groups = collections.Counter(reason_group(kind, detail) for _, _, kind, detail in rows
                                     if kind in ("not executed", "failed"))
        for key, count in groups.most_common():
            print(f"  {count:3d}  {key}")
        share = 100.0 * counts["executed"] / moved if moved else 100.0
        print(f"target {target}: {len(rows)} models, {moved} move, executed {counts['executed']} ({share:.1f}%), "
              f"not executed {counts['not executed']}, failed {counts['failed']}, no move {counts['no move']}")
        if args.min_share is not None and share < args.min_share:
            failed_share = True
    return 1 if failed_share else 0


if __name__ == "__main__":
    sys.exit(main())
