#!/usr/bin/python3
"""--check's SARIF output, validated by Microsoft's SARIF validator (Sarif.Multitool, the npm package
@microsoft/sarif-multitool-linux that tests/ort/install.sh installs), offline.

Usage:
    "$PY" tests/sarif/validate_sarif.py CLI SCRATCH_DIR

The CLI checks a repository that produces every kind of finding and failure --check has: testdata/legacy and
testdata/removed_ops (removed ops, MVN-1 attributes), plus models made here (an op that exists only at a later
opset, one onnx never defined, a deprecated op, a domain not imported, a node its schema rejects, a node name of
bytes that are not UTF-8, a file that is not a model) under --max-opset=12 (the policy's finding), and writes
SARIF. The validator checks it against the SARIF 2.1.0 JSON schema and its own rules. Passing means: no result
of level error, and no warning but those listed in ACCEPTED_WARNINGS (each with why). To show that the gate can
fail, the same SARIF with `runs[0].tool` removed must make the validator report an error.
"""

import json
import os
import shutil
import stat
import subprocess
import sys

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
ORT_DIR = os.path.join(ROOT, "tests", "ort")
VALIDATOR = os.path.join(ORT_DIR, "node_modules", "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")

# Warnings of the validator's own guidance rules that do not fit a checker of binary model files.
ACCEPTED_WARNINGS = {
    # "Express the location via a region (lines, characters or bytes)": a finding is about a node of a binary
    # protobuf file; its place is the logical location (graph path and node), and no line or byte range of
    # the file means anything to the reader.
    "SARIF2017",
    # "Provide informationUri": the tool has no public home page the log could point to.
    "SARIF2005",
}


def tiny_model(name, nodes, opset=13, inputs=None, outputs=None, domains=()):
    graph = helper.make_graph(nodes, name,
                              inputs or [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              outputs or [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 7
    return model


def write_repository(repo):
    """Models that give the kinds of findings testdata/ does not; returns the folder."""
    os.makedirs(repo, exist_ok=True)
    models = {
        "later_opset.onnx": tiny_model("later", [helper.make_node("Celu", ["x"], ["y"], name="celu")], opset=11),
        "never_defined.onnx": tiny_model("never", [helper.make_node("NoSuchOp", ["x"], ["y"], name="nosuch")]),
        "deprecated.onnx": tiny_model("deprecated", [helper.make_node("Upsample", ["x", "s"], ["y"], name="up")],
                                      opset=10, inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                                                        helper.make_tensor_value_info("s", TensorProto.FLOAT, [1])]),
        "domain_not_imported.onnx": tiny_model(
            "domain", [helper.make_node("Thing", ["x"], ["y"], name="thing", domain="com.example")]),
        "schema_mismatch.onnx": tiny_model("mismatch",
                                           [helper.make_node("Relu", ["x"], ["y"], name="relu", alpha=0.5)]),
        "not_utf8_name.onnx": tiny_model("bytes", [helper.make_node("DynamicSlice", ["x", "s", "e"], ["y"])], opset=9,
                                         inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                                                 helper.make_tensor_value_info("s", TensorProto.INT64, [1]),
                                                 helper.make_tensor_value_info("e", TensorProto.INT64, [1])]),
    }
    # A node name of bytes that are not UTF-8: written as "dyn\u00ffslice" (UTF-8 c3 bf), then those two bytes
    # become ff fe, which keeps every length prefix right.
    models["not_utf8_name.onnx"].graph.node[0].name = "dyn\u00ffslice"
    for file, model in models.items():
        data = model.SerializeToString()
        if file == "not_utf8_name.onnx":
            data = data.replace(b"dyn\xc3\xbfslice", b"dyn\xff\xfeslice")
        with open(os.path.join(repo, file), "wb") as f:
            f.write(data)
    with open(os.path.join(repo, "not_a_model.onnx"), "wb") as f:
        f.write(b"this is not a protobuf model \xff\x00")
    return repo


def validate(sarif_path, out_path):
    """Runs the validator; returns its results (the validator writes SARIF too)."""
    if os.path.exists(out_path):
        os.remove(out_path)
    env = dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="1", DOTNET_CLI_TELEMETRY_OPTOUT="1")
    p = subprocess.run([VALIDATOR, "validate", sarif_path, "-o", out_path, "-q"], env=env, capture_output=True,
                       text=True, timeout=300, stdin=subprocess.DEVNULL)
    if not os.path.isfile(out_path):
        sys.exit(f"validate_sarif: the validator wrote nothing (exit {p.returncode}): {p.stdout}{p.stderr}")
    with open(out_path) as f:
        log = json.load(f)
    return [r for run in log["runs"] for r in run.get("results", [])] + [
        {"ruleId": "tool-notification", "level": n.get("level", "warning"), "message": n.get("message", {})}
        for run in log["runs"] for inv in run.get("invocations", [])
        for n in inv.get("toolExecutionNotifications", []) if n.get("level") == "error"]


def describe(result):
    message = result.get("message", {})
    return f"{result.get('ruleId')} ({result.get('level', 'warning')}): {message.get('text') or message.get('arguments')}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: validate_sarif.py CLI SCRATCH_DIR")
    cli, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    subprocess.run(["bash", os.path.join(ORT_DIR, "install.sh")], check=True, stdin=subprocess.DEVNULL)
    if not os.path.isfile(VALIDATOR):
        sys.exit(f"validate_sarif: {VALIDATOR} is missing (tests/ort/install.sh installs it)")
    os.chmod(VALIDATOR, os.stat(VALIDATOR).st_mode | stat.S_IXUSR)  # npm ci --ignore-scripts skips its chmod
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    repo = write_repository(os.path.join(scratch, "repo"))
    sarif = os.path.join(scratch, "check.sarif")
    p = subprocess.run([cli, "--check", repo, os.path.join(ROOT, "testdata", "legacy"),
                        os.path.join(ROOT, "testdata", "removed_ops"), "--format=sarif", "--max-opset=12",
                        "--report=" + sarif], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if p.returncode != 3 or not os.path.isfile(sarif):
        sys.exit(f"validate_sarif: --check exited {p.returncode} (3 expected: one file is not a model): {p.stderr}")
    with open(sarif) as f:
        log = json.load(f)
    rules = {r["ruleId"] for r in log["runs"][0]["results"]}
    wanted = {"removed-experimental-op", "removed-op-attributes", "unknown-op", "op-newer-than-opset",
              "deprecated-op", "domain-not-imported", "schema-mismatch", "opset-out-of-range"}
    problems = [f"the SARIF holds no result of rule {r}" for r in sorted(wanted - rules)]

    results = validate(sarif, os.path.join(scratch, "validation.sarif"))
    errors = [r for r in results if r.get("level") == "error"]
    warnings = [r for r in results if r.get("level", "warning") == "warning" and r.get("ruleId") not in
                ACCEPTED_WARNINGS]
    problems += [describe(r) for r in errors + warnings]

    broken = os.path.join(scratch, "broken.sarif")
    del log["runs"][0]["tool"]
    with open(broken, "w") as f:
        json.dump(log, f)
    if not any(r.get("level") == "error" for r in validate(broken, os.path.join(scratch, "broken_validation.sarif"))):
        problems.append("the validator found no error in a SARIF without runs[0].tool: it does not validate")

    for problem in problems:
        print(f"FAIL {problem}")
    print(f"{len(log['runs'][0]['results'])} results of {len(rules)} rules; validator: {len(errors)} error(s), "
          f"{len(results) - len(errors)} warning(s) ({len(warnings)} not accepted)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
