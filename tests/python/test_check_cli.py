"""onnx-legalize --check as a CI gate: folders, -j, --format, the opset policy, exit codes, UTF-8.

The formats' exact text is tested in tests/report/check_report_test.cc; here the CLI runs on real files, and its
JSON and SARIF documents are parsed.
"""

import json
import os
import pathlib
import shutil
import subprocess

import onnx
import pytest
from onnx import TensorProto, helper

ROOT = pathlib.Path(__file__).resolve().parents[2]
LEGACY = pathlib.Path(os.environ.get("ONNX_LEGALIZE_TESTDATA", ROOT / "testdata" / "legacy"))
CLI = os.environ.get("ONNX_LEGALIZE_CLI", str(ROOT / "build" / "bin" / "onnx-legalize"))

DIRTY = "dynamic_slice.onnx"  # one DynamicSlice, opset 9
FORMATS = ["text", "json", "sarif", "github"]


def run(*args, cwd=None):
    result = subprocess.run([CLI, *map(os.fsencode, args)], capture_output=True, check=False, cwd=cwd)
    # Whatever the models and paths hold, everything the gate writes is UTF-8.
    return result.returncode, result.stdout.decode("utf-8"), result.stderr.decode("utf-8")


@pytest.fixture(name="repo")
def fixture_repo(tmp_path):
    """A model repository: two dirty models (one nested), a clean one, and files that are not models."""
    repo = tmp_path / "repo"
    (repo / "b" / "deep").mkdir(parents=True)
    shutil.copy(LEGACY / DIRTY, repo / "z.onnx")
    shutil.copy(LEGACY / "chain_opset9.onnx", repo / "b" / "deep" / "chain.onnx")
    code, _, err = run(LEGACY / DIRTY, repo / "a_clean.onnx")
    assert code == 0, err
    (repo / "notes.txt").write_text("not a model")
    (repo / "b" / "weights.bin").write_bytes(b"\0" * 16)
    return repo


def json_findings(*args):
    code, out, err = run("--check", "--format=json", *args)
    return code, json.loads(out), err


def test_a_folder_is_every_onnx_file_below_it_sorted(repo):
    code, doc, _ = json_findings(repo)
    assert code == 1
    assert doc["files_checked"] == 3
    files = [f["file"] for f in doc["findings"]]
    assert files == sorted(files)
    assert set(files) == {str(repo / "b" / "deep" / "chain.onnx"), str(repo / "z.onnx")}
    assert doc["errors"] == []


def test_files_and_folders_mix_in_the_order_given(repo):
    code, doc, _ = json_findings(repo / "z.onnx", repo / "b")
    assert code == 1
    assert doc["files_checked"] == 2
    assert [f["file"] for f in doc["findings"]][0] == str(repo / "z.onnx")


def test_symbolic_links_are_not_followed_out_of_the_tree(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(LEGACY / DIRTY, outside / "secret.onnx")
    (repo / "out_link.onnx").symlink_to(outside / "secret.onnx")
    (repo / "out_dir").symlink_to(outside, target_is_directory=True)
    (repo / "loop").symlink_to(repo, target_is_directory=True)  # a cycle, were links followed
    (repo / "in_link.onnx").symlink_to(repo / "z.onnx")  # inside the tree: checked
    code, doc, _ = json_findings(repo)
    assert code == 1
    assert doc["files_checked"] == 4
    assert "secret" not in json.dumps(doc)
    assert str(repo / "in_link.onnx") in [f["file"] for f in doc["findings"]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_parallel_output_is_identical_to_sequential(fmt):
    sequential = run("--check", f"--format={fmt}", "-j", "1", LEGACY)
    for jobs in ("2", "7"):
        assert run("--check", f"--format={fmt}", "-j", jobs, LEGACY) == sequential


def test_exit_0_when_clean_1_with_findings(repo):
    assert run("--check", repo / "a_clean.onnx")[0] == 0
    assert run("--check", repo / "z.onnx")[0] == 1


def test_an_unreadable_file_exits_3_after_every_other_file_is_reported(repo):
    (repo / "b" / "broken.onnx").write_bytes(b"garbage")
    for fmt in FORMATS:
        code, out, err = run("--check", f"--format={fmt}", repo, repo / "missing.onnx")
        assert code == 3, fmt
        assert "broken.onnx" in err and "missing.onnx" in err
        assert "DynamicSlice" in out, fmt
    code, doc, _ = json_findings(repo, repo / "missing.onnx")
    assert code == 3
    assert [(e["file"], e["code"]) for e in doc["errors"]] == [
        (str(repo / "b" / "broken.onnx"), "INVALID_ARGUMENT"), (str(repo / "missing.onnx"), "NOT_FOUND")]
    assert len(doc["findings"]) == 1 + 4  # z.onnx's one and chain.onnx's four


def test_sarif_is_a_sarif_2_1_0_log_with_a_rule_per_kind(repo):
    code, out, _ = run("--check", "--format=sarif", "--min-opset=11", repo)
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "onnx-legalize"
    rules = [rule["id"] for rule in driver["rules"]]
    assert len(rules) == len(set(rules))
    for result in sarif_run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")
    kinds = {result["ruleId"] for result in sarif_run["results"]}
    assert kinds == {"removed-experimental-op", "opset-out-of-range"}
    assert sarif_run["invocations"][0]["executionSuccessful"] is True


def test_github_format_annotates_each_file(repo):
    code, out, _ = run("--check", "--format=github", "z.onnx", cwd=repo)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("::error file=z.onnx,title=onnx-legalize%3A removed-experimental-op::main: node ")
    assert lines[-1] == "1 finding in 1 of 1 file"


def slice_with_bounds_fed_at_run_time(path):
    """A Slice-10 whose starts and ends are graph inputs: no Slice before opset 10 takes them."""
    graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "starts", "ends"], ["y"], name="cut")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5]),
         helper.make_tensor_value_info("starts", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("ends", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    model.ir_version = 5
    onnx.save(model, path)
    return path


def test_opset_policy(repo):
    code, doc, _ = json_findings("--min-opset=10", repo / "a_clean.onnx")
    assert code == 0, "the legalized model is at opset 10"
    # The Slice-10 its DynamicSlice became takes constant bounds, which Slice-1 holds as attributes.
    code, doc, _ = json_findings("--max-opset=9", repo / "a_clean.onnx")
    assert code == 1
    assert [f["rule"] for f in doc["findings"]] == ["opset-out-of-range"]
    assert doc["findings"][0]["graph_path"] == "" and doc["findings"][0]["opset"] == 10
    assert doc["findings"][0]["fixable"] is True
    assert doc["findings"][0]["fix"].startswith("--target-opset=9 moves it down")
    # The model, and the node that keeps it from moving down to 9.
    dynamic = slice_with_bounds_fed_at_run_time(repo / "dynamic_bounds.onnx")
    code, doc, _ = json_findings("--max-opset=9", dynamic)
    assert [f["rule"] for f in doc["findings"]] == ["opset-out-of-range", "no-form-at-max-opset"]
    assert doc["findings"][0]["fixable"] is False
    assert doc["findings"][1]["op_type"] == "Slice" and doc["findings"][1]["node_name"] == "cut"
    assert doc["findings"][1]["reason"].endswith("the lowest opset it can go to is 10")
    code, doc, _ = json_findings("--min-opset=7", "--max-opset=9", repo / "z.onnx")
    assert [f["rule"] for f in doc["findings"]] == ["removed-experimental-op"]


def test_runtime_profile(repo):
    at17 = repo / "at17.onnx"
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10
    onnx.save(model, at17)
    # ONNX Runtime 1.10: opsets 7 to 15, IR versions to 8; the move down to 15 writes IR 8.
    code, doc, _ = json_findings("--runtime=onnxruntime-1.10", at17)
    assert code == 1
    assert [f["rule"] for f in doc["findings"]] == ["opset-out-of-range"]
    assert doc["findings"][0]["fix"].endswith("to IR version 8")
    # An explicit bound overrides the profile's: at opset 17 the model is within, its IR 10 above 8.
    code, doc, _ = json_findings("--runtime=onnxruntime-1.10", "--max-opset=17", at17)
    assert [f["rule"] for f in doc["findings"]] == ["ir-version-out-of-range"]
    assert run("--check", "--runtime=onnxruntime-1.12", "--max-ir-version=10", at17)[0] == 0
    code, _, err = run("--check", "--runtime=onnxruntime-0.1", at17)
    assert code == 2 and "--runtime=onnxruntime-0.1 is not one of onnxruntime-1.10, " in err


def test_report_writes_the_format_to_a_file_and_the_summary_to_stdout(repo, tmp_path):
    report = tmp_path / "check.sarif"
    code, out, _ = run("--check", "--format=sarif", f"--report={report}", repo)
    assert code == 1
    assert json.loads(report.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert out == "5 findings in 2 of 3 files\n"


def test_report_to_stdout_is_the_document_alone(repo):
    code, out, _ = run("--check", "--format=json", "--report=-", repo)
    assert code == 1
    assert json.loads(out)["files_checked"] == 3


def test_names_and_paths_that_are_not_utf8_are_escaped(repo):
    model = (repo / "z.onnx").read_bytes()
    odd = repo / os.fsdecode(b"odd\xff.onnx")
    # Same length, so the protobuf framing holds: the node's name "node" becomes bytes that are not UTF-8.
    assert model.count(b"\x1a\x04node") == 1  # NodeProto.name, field 3
    odd.write_bytes(model.replace(b"\x1a\x04node", b"\x1a\x04n\xfe\nd"))
    outputs = {}
    for fmt in FORMATS:
        code, outputs[fmt], _ = run("--check", f"--format={fmt}", odd)  # run() decodes as UTF-8, strictly
        assert code == 1
    assert "odd\\xFF.onnx: main: node 'n\\xFE\\x0Ad' op DynamicSlice" in outputs["text"]
    assert "odd\\xFF.onnx,title=" in outputs["github"] and "node 'n\\xFE\\x0Ad'" in outputs["github"]
    (finding,) = json.loads(outputs["json"])["findings"]
    assert finding["file"].endswith("odd\\xFF.onnx") and finding["node_name"] == "n\\xFE\nd"
    (result,) = json.loads(outputs["sarif"])["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("odd%FF.onnx")


@pytest.mark.parametrize("args, message", [
    (["--format=xml"], "--format=xml"),
    (["-j", "0"], "-j 0"),
    (["--min-opset=12", "--max-opset=11"], "--min-opset=12 is above"),
    (["--min-opset=0"], "below 1"),
    (["-o", "out.onnx"], "-o"),
])
def test_usage_errors_exit_2(args, message):
    code, _, err = run("--check", *args, LEGACY / DIRTY)
    assert code == 2
    assert message in err


@pytest.mark.parametrize("flag, message", [
    ("--format=json", "only go with --check"),
    ("--min-opset=10", "only go with --check"),
    ("--max-opset=10", "only go with --check"),
])
def test_check_flags_only_go_with_check(flag, message, tmp_path):
    code, _, err = run(LEGACY / DIRTY, tmp_path / "out.onnx", flag)
    assert code == 2
    assert message in err
    assert not (tmp_path / "out.onnx").exists()
