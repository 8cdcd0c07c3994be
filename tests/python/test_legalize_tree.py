"""onnx_legalize.legalize_tree: a tree of models from Python, on threads or on any concurrent.futures
Executor (a dask.distributed cluster among them), with the CLI's semantics and the CLI's report objects; and
the CLI's tree mode interrupted by Ctrl-C."""

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest

import onnx_legalize

ROOT = pathlib.Path(__file__).resolve().parents[2]
LEGACY = pathlib.Path(os.environ.get("ONNX_LEGALIZE_TESTDATA", ROOT / "testdata" / "legacy"))
CLI = os.environ.get("ONNX_LEGALIZE_CLI", str(ROOT / "build" / "bin" / "onnx-legalize"))

# Legacy models that legalize (folds, rewrites, opset moves), one per folder level.
MODELS = ["dynamic_slice.onnx", "chain_opset9.onnx", "subgraph_if_opset9.onnx", "fold_only_opset9.onnx"]


def timeless(report):
    """A report or result with the opset move proof's seconds, a wall time that differs from run to run, left
    out (a refused file's result has no proof)."""
    report = dict(report)
    if "opset_move_proof" in report:
        report["opset_move_proof"] = {k: v for k, v in report["opset_move_proof"].items() if k != "seconds"}
    return report


def files_below(folder):
    """{relative path: bytes} of every file below folder but the manifest (it records output times)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".onnx-legalize" not in p.parts}


@pytest.fixture(name="tree")
def fixture_tree(tmp_path):
    tree = tmp_path / "models"
    (tree / "a" / "b").mkdir(parents=True)
    shutil.copy(LEGACY / MODELS[0], tree / MODELS[0])
    shutil.copy(LEGACY / MODELS[1], tree / "a" / MODELS[1])
    shutil.copy(LEGACY / MODELS[2], tree / "a" / "b" / MODELS[2])
    shutil.copy(LEGACY / MODELS[3], tree / "a" / "b" / MODELS[3])
    (tree / "a" / "garbage.onnx").write_bytes(b"not a model")
    return tree


def test_the_tree_is_mirrored_and_each_output_is_what_legalize_file_writes(tree, tmp_path):
    results = onnx_legalize.legalize_tree(tree, tmp_path / "out")
    assert [r["path"] for r in results] == [str(tree / p) for p in
                                            ["a/b/" + MODELS[3], "a/b/" + MODELS[2], "a/" + MODELS[1],
                                             "a/garbage.onnx", MODELS[0]]]
    assert [r["result"] for r in results] == ["legalized"] * 3 + ["refused", "legalized"]
    garbage = results[3]
    assert garbage["error_kind"] == "invalid_model" and "garbage.onnx" in garbage["error"]
    assert not (tmp_path / "out" / "a" / "garbage.onnx").exists()
    for result in results:
        if result["result"] != "legalized":
            continue
        single = tmp_path / "single.onnx"
        report = onnx_legalize.legalize_file(result["path"], single)
        assert pathlib.Path(result["output"]).read_bytes() == single.read_bytes()
        assert timeless({k: v for k, v in result.items() if k not in ("path", "output", "result")}) == \
            timeless(report)


def test_results_are_the_same_whatever_the_jobs(tree, tmp_path):
    one = onnx_legalize.legalize_tree(tree, tmp_path / "j1", jobs=1)
    three = onnx_legalize.legalize_tree(tree, tmp_path / "j3", jobs=3)
    assert files_below(tmp_path / "j1") == files_below(tmp_path / "j3")
    assert [json.dumps(timeless(r)).replace("/j3/", "/j1/") for r in three] == \
        [json.dumps(timeless(r)) for r in one]


def test_results_are_the_cli_report_lines(tree, tmp_path):
    results = onnx_legalize.legalize_tree([tree], tmp_path / "py")
    report = tmp_path / "cli.jsonl"
    cli = subprocess.run([CLI, str(tree), "-o", str(tmp_path / "cli"), f"--report={report}"],
                         capture_output=True, check=False)
    assert cli.returncode == 3, cli.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert [json.dumps(timeless(r)).replace("/py/", "/cli/") for r in results] == \
        [json.dumps(timeless(r)) for r in lines]
    assert files_below(tmp_path / "py") == files_below(tmp_path / "cli")


def test_a_rerun_skips_what_was_written(tree, tmp_path):
    first = onnx_legalize.legalize_tree(tree, tmp_path / "out")
    again = onnx_legalize.legalize_tree(tree, tmp_path / "out")
    assert [r["result"] for r in again] == ["up_to_date"] * 3 + ["refused", "up_to_date"]
    # The earlier run's report comes back with it.
    assert [r["nodes"] for r in again if "nodes" in r] == [r["nodes"] for r in first if "nodes" in r]
    other = onnx_legalize.legalize_tree(tree, tmp_path / "out", target_opset=13)
    assert [r["result"] for r in other].count("legalized") == 4


def test_in_place_writes_only_what_it_legalizes(tree):
    legal = tree / "legal.onnx"
    onnx_legalize.legalize_file(tree / MODELS[0], legal)
    stat = legal.stat()
    results = onnx_legalize.legalize_tree(tree, jobs=2)
    assert [r["result"] for r in results][-2:] == ["legalized", "already_legal"]
    assert all(r["output"] == r["path"] for r in results)
    assert legal.stat().st_mtime_ns == stat.st_mtime_ns
    assert onnx_legalize.check(tree / MODELS[0]) == []
    assert not (tree / ".onnx-legalize").exists()


@pytest.mark.parametrize("make_args, message", [
    (lambda t, o: (t / "missing", o), "does not exist"),
    (lambda t, o: (t, t / "a" / "out"), "is inside the source folder"),
    (lambda t, o: (t, t / MODELS[0]), "is a file"),
    (lambda t, o: ([t / MODELS[0], t.parent / "other" / MODELS[0]], o), "would both be written to"),
    (lambda t, o: ([t / "a", t / "a" / MODELS[1]], o), "is given twice"),
])
def test_usage_errors_raise_before_any_file_is_read(tree, tmp_path, make_args, message):
    (tmp_path / "other").mkdir()
    shutil.copy(LEGACY / MODELS[0], tmp_path / "other" / MODELS[0])
    src, dst = make_args(tree, tmp_path / "out")
    with pytest.raises(onnx_legalize.LegalizeError, match=message) as error:
        onnx_legalize.legalize_tree(src, dst)
    assert error.value.kind == "invalid_request"
    assert not (tmp_path / "out").exists()


def test_argument_errors(tree, tmp_path):
    with pytest.raises(TypeError, match="jobs or executor"):
        onnx_legalize.legalize_tree(tree, tmp_path / "out", jobs=2, executor=object())
    with pytest.raises(onnx_legalize.LegalizeError, match="jobs is 0"):
        onnx_legalize.legalize_tree(tree, tmp_path / "out", jobs=0)
    with pytest.raises(TypeError, match="src must be a path"):
        onnx_legalize.legalize_tree(42, tmp_path / "out")


def test_any_executor_gives_the_same_files_and_results(tree, tmp_path):
    from concurrent.futures import ProcessPoolExecutor  # pylint: disable=import-outside-toplevel

    local = onnx_legalize.legalize_tree(tree, tmp_path / "local")
    with ProcessPoolExecutor(max_workers=2) as pool:
        remote = onnx_legalize.legalize_tree(tree, tmp_path / "remote", executor=pool)
    assert files_below(tmp_path / "local") == files_below(tmp_path / "remote")
    assert [json.dumps(timeless(r)).replace("/remote/", "/local/") for r in remote] == \
        [json.dumps(timeless(r)) for r in local]


def test_a_dask_cluster_gives_the_same_files_and_results(tree, tmp_path):
    distributed = pytest.importorskip("distributed")
    local = onnx_legalize.legalize_tree(tree, tmp_path / "local")
    # Worker processes, as a cluster's: they import onnx_legalize themselves (PYTHONPATH is inherited).
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        remote = onnx_legalize.legalize_tree(tree, tmp_path / "cluster", executor=client.get_executor())
        worker_pids = set(client.run(os.getpid).values())
    assert os.getpid() not in worker_pids
    assert files_below(tmp_path / "local") == files_below(tmp_path / "cluster")
    assert [json.dumps(timeless(r)).replace("/cluster/", "/local/") for r in remote] == \
        [json.dumps(timeless(r)) for r in local]


def test_ctrl_c_leaves_no_partial_file_and_says_what_was_done(tmp_path):
    tree = tmp_path / "many"
    tree.mkdir()
    for i in range(400):
        shutil.copy(LEGACY / MODELS[1], tree / f"m{i:03}.onnx")
    out = tmp_path / "out"
    process = subprocess.Popen([CLI, str(tree), "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Once a few outputs exist, Ctrl-C.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(out.glob("*.onnx"))) < 3:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    written = sorted(out.glob("*"))
    if process.returncode == 0:
        pytest.skip("every file was done before the interrupt arrived")
    assert process.returncode == 130, stderr
    assert b"interrupted after" in stderr and b"run the same command again" in stderr
    assert b"of 400 files" in stdout
    # Every file there is a complete output; no temporary is left.
    expected = tmp_path / "expected.onnx"
    onnx_legalize.legalize_file(tree / "m000.onnx", expected)
    models = [p for p in written if p.is_file()]
    assert 3 <= len(models) < 400
    assert all(p.read_bytes() == expected.read_bytes() for p in models), [p.name for p in models]
    # The rerun goes on where it stopped.
    rerun = subprocess.run([CLI, str(tree), "-o", str(out)], capture_output=True, check=False)
    assert rerun.returncode == 0, rerun.stderr
    assert f"up to date {len(models):>13}".encode() in rerun.stdout or b"up to date" in rerun.stdout
    assert len(list(out.glob("*.onnx"))) == 400


def test_the_pre_commit_hook_legalizes_the_staged_models_in_place(tree):
    yaml = pytest.importorskip("yaml")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    hook = hooks["onnx-legalize"]
    assert hook["entry"].split()[0] == "onnx-legalize" and hook["language"] == "system"
    # pre-commit passes the staged files its pattern matches, after the entry.
    staged = [p for p in sorted(tree.rglob("*")) if p.is_file() and re.search(hook["files"], str(p))]
    legal = tree / "legal.onnx"
    onnx_legalize.legalize_file(tree / MODELS[0], legal)
    staged.append(legal)
    stat = legal.stat()
    run = subprocess.run([CLI, *hook["entry"].split()[1:], *map(str, staged)], capture_output=True, check=False)
    # garbage.onnx fails the hook, with its reason; every other model is legalized, the legal one not written.
    assert run.returncode == 3
    assert b"garbage.onnx" in run.stdout
    assert legal.stat().st_mtime_ns == stat.st_mtime_ns
    assert all(onnx_legalize.check(p) == [] for p in staged if p.name != "garbage.onnx")
    (tree / "a" / "garbage.onnx").unlink()
    staged.remove(tree / "a" / "garbage.onnx")
    again = subprocess.run([CLI, *hook["entry"].split()[1:], *map(str, staged)], capture_output=True, check=False)
    assert again.returncode == 0, again.stdout
    assert b"legalized                   0" in again.stdout
