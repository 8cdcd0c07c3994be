"""The Python module onnx_legalize, held to what the CLI does for the same models.

Run by ctest (python_module test) with PYTHONPATH=build/python and ONNX_LEGALIZE_CLI naming the built
binary; by hand: PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python
"""

import json
import os
import pathlib
import random
import subprocess
import sys
import threading
import time

import numpy
import pytest

import onnx
import onnx_legalize
from onnx_legalize import _api

ROOT = pathlib.Path(__file__).resolve().parents[2]
LEGACY = pathlib.Path(os.environ.get("ONNX_LEGALIZE_TESTDATA", ROOT / "testdata" / "legacy"))
CLI = os.environ.get("ONNX_LEGALIZE_CLI", str(ROOT / "build" / "bin" / "onnx-legalize"))
MODELS = sorted(p.name for p in LEGACY.glob("*.onnx"))

# Small models of each kind, by what legalizing does to them.
REWRITE = "pytorch_dynamic_ends.onnx"  # ends computed at run time: rewritten, opset raised
FOLD_ONLY = "fold_only_opset9.onnx"  # every DynamicSlice folds; opset kept
OPSET11 = "onnxmltools_crop_opset11.onnx"  # already at opset 11
MOVE_CHANGES = "mixed_ops_opset9.onnx"  # the opset move gives some of its nodes new versions, which its proof runs


def load(name):
    return onnx.load(str(LEGACY / name))


def run_cli(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=False)


def timeless(report):
    """The report with the opset move proof's seconds, a wall time that differs from run to run, left out."""
    report = dict(report)
    report["opset_move_proof"] = {k: v for k, v in report["opset_move_proof"].items() if k != "seconds"}
    return report


def dynamic_slices(model):
    found = []

    def walk(graph):
        for node in graph.node:
            if node.op_type == "DynamicSlice":
                found.append(node.name)
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH:
                    walk(attribute.g)
                for g in attribute.graphs:
                    walk(g)

    walk(model.graph)
    return found


def test_has_a_version_equal_to_the_cli_s():
    cli = run_cli("--version")
    assert cli.returncode == 0
    assert cli.stdout.split()[1] == onnx_legalize.__version__
    assert onnx_legalize.__version__.count(".") == 2


@pytest.mark.parametrize("name", MODELS)
def test_legalize_gives_the_model_and_report_the_cli_writes(name, tmp_path):
    model = load(name)
    before = model.SerializeToString()
    legalized, report = onnx_legalize.legalize(model)

    out, report_path = tmp_path / "out.onnx", tmp_path / "report.json"
    cli = run_cli(LEGACY / name, out, f"--report={report_path}")
    assert cli.returncode == 0, cli.stderr
    assert timeless(report) == timeless(json.loads(report_path.read_text(encoding="utf-8")))
    assert legalized == onnx.load(str(out))
    assert model.SerializeToString() == before, "the argument is never changed"
    assert isinstance(legalized, onnx.ModelProto)
    assert dynamic_slices(legalized) == []
    assert report["changed"] == bool(dynamic_slices(model))


def test_legalized_model_passes_onnx_checker_and_strict_shape_inference():
    legalized, report = onnx_legalize.legalize(load(REWRITE))
    assert report["changed"] and report["opset_after"] >= 10
    onnx.checker.check_model(legalized, full_check=True)
    onnx.shape_inference.infer_shapes(legalized, check_type=True, strict_mode=True)


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview])
def test_legalize_takes_serialized_bytes(wrap):
    model = load(REWRITE)
    from_bytes, report = onnx_legalize.legalize(wrap(model.SerializeToString()))
    from_proto, report_of_proto = onnx_legalize.legalize(model)
    assert from_bytes == from_proto
    assert timeless(report) == timeless(report_of_proto)


def test_options_reach_the_library():
    _, report = onnx_legalize.legalize(load(REWRITE), target_opset=13)
    assert report["opset_after"] == 13
    _, report = onnx_legalize.legalize(load(REWRITE), target_opset=numpy.int64(12))  # any integer type
    assert report["opset_after"] == 12

    kept, report = onnx_legalize.legalize(load(FOLD_ONLY), keep_opset=True)
    assert report["opset_after"] == report["opset_before"] == 9
    assert {node["action"] for node in report["nodes"]} == {"folded"}

    _, report = onnx_legalize.legalize(load(FOLD_ONLY), max_fold_bytes=0)
    assert {node["action"] for node in report["nodes"]} == {"rewritten"}
    _, report = onnx_legalize.legalize(load(FOLD_ONLY), max_total_fold_bytes=0)
    assert {node["action"] for node in report["nodes"]} == {"rewritten"}

    _, report = onnx_legalize.legalize(load(MOVE_CHANGES), proof_budget=1)
    proof = report["opset_move_proof"]
    assert report["opset_move"] == "not executed: " + proof["why_not"]
    assert not proof["executed"] and proof["input_sets"] == 0
    assert "past the proof budget (1 element operations)" in proof["why_not"]
    _, report = onnx_legalize.legalize(load(MOVE_CHANGES))
    proof = report["opset_move_proof"]
    assert proof["executed"] and proof["input_sets"] >= 1 and proof["why_not"] == ""
    assert 0 < proof["work"] <= onnx_legalize.DEFAULT_PROOF_BUDGET and proof["seconds"] >= 0

    _, report = onnx_legalize.legalize(load(REWRITE), verify=False)
    assert report["nodes"][0]["verification"] == "skipped (verification off)"
    _, report = onnx_legalize.legalize(load(REWRITE), verify_trials=3, verify_seed=2**64 - 1)
    assert "3 identical results" in report["nodes"][0]["verification"]

    # Without helper threads: the same model and report.
    threaded, threaded_report = onnx_legalize.legalize(load(REWRITE))
    alone, alone_report = onnx_legalize.legalize(load(REWRITE), use_threads=False)
    assert alone.SerializeToString() == threaded.SerializeToString()
    assert timeless(alone_report) == timeless(threaded_report)


def test_malformed_model_raises_legalize_error_with_its_code():
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize(b"\xff\xff\xff not a model")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.kind == "invalid_model"
    assert isinstance(raised.value, ValueError)
    assert not isinstance(raised.value, onnx_legalize.VerificationError)
    assert "not a valid ModelProto" in str(raised.value)


def test_model_that_cannot_keep_its_opset_raises_failed_precondition():
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize(load(REWRITE), keep_opset=True)
    assert raised.value.code == "FAILED_PRECONDITION"
    assert raised.value.kind == "not_legalizable"
    assert "DynamicSlice" in str(raised.value)


def _model_at(opset, op_type):
    node = onnx.helper.make_node(op_type, ["x"], ["y"], name="the_node")
    graph = onnx.helper.make_graph(
        [node], "g", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])])
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)], ir_version=8)


def test_a_target_below_the_model_s_opset_moves_the_model_down():
    legalized, report = onnx_legalize.legalize(_model_at(14, "Relu"), target_opset=11)
    assert [o.version for o in legalized.opset_import if o.domain in ("", "ai.onnx")] == [11]
    assert report["opset_before"] == 14 and report["opset_after"] == 11
    assert report["opset_move"].startswith("executed in the model runner at opset 14 and 11")
    onnx.checker.check_model(legalized, full_check=True)


def test_a_node_with_no_form_at_a_lower_target_is_refused_by_its_kind():
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize(_model_at(14, "Trilu"), target_opset=13)
    assert raised.value.code == "FAILED_PRECONDITION"
    assert raised.value.kind == "no_form_at_opset"
    assert "Trilu 'the_node' (graph main) has no form at opset 13" in str(raised.value)


def test_a_target_below_10_refuses_a_dynamic_slice_rewrite_naming_it():
    # Any opset from the model's own up is a target; a DynamicSlice computed at run time needs Slice-10.
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize(load(REWRITE), target_opset=9)
    assert raised.value.code == "FAILED_PRECONDITION"
    assert "target opset 9 cannot express the rewrite of DynamicSlice" in str(raised.value)


@pytest.mark.parametrize("options", [
    {"target_opset": 0}, {"target_opset": 29}, {"verify_trials": 0}, {"verify_trials": 2**31},
    {"verify_seed": -1}, {"verify_seed": 2**64}, {"max_fold_bytes": -1}, {"max_total_fold_bytes": 2**63},
    {"proof_budget": -1}, {"proof_budget": 2**63},
    {"keep_opset": True, "target_opset": 11},
])
def test_bad_option_values_raise_invalid_argument(options):
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize(load(REWRITE), **options)
    assert raised.value.code == "INVALID_ARGUMENT"
    # The library's ValidateOptions refuses what the binding passes on; the binding refuses what cannot
    # be passed (out of the C++ types' range) with the same kind.
    assert raised.value.kind == "invalid_request", str(raised.value)


@pytest.mark.parametrize("options", [
    {"target_opset": "11"}, {"target_opset": 11.0}, {"keep_opset": 1}, {"verify": None},
    {"max_fold_bytes": True}, {"verify_trials": 2.5}, {"use_threads": 0}, {"proof_budget": 1.5},
])
def test_bad_option_types_raise_type_error(options):
    with pytest.raises(TypeError):
        onnx_legalize.legalize(load(REWRITE), **options)


@pytest.mark.parametrize("model", ["model.onnx", pathlib.Path("model.onnx"), 42, None])
def test_legalize_refuses_what_is_not_a_model(model):
    with pytest.raises(TypeError):
        onnx_legalize.legalize(model)


@pytest.mark.parametrize("location, why", [
    ("../canary.bin", "leaves the model's folder"),
    ("/dev/zero", "is absolute"),
    ("x\0.bin", "NUL byte"),
])
def test_legalize_refuses_external_data_locations_the_cli_refuses(location, why):
    # Issue 42: legalize() passed these through unread.
    model = load(REWRITE)
    weight = onnx.helper.make_tensor("never_read", onnx.TensorProto.FLOAT, [4], [0.0] * 4)
    weight.ClearField("float_data")
    weight.data_location = onnx.TensorProto.EXTERNAL
    entry = weight.external_data.add()
    entry.key, entry.value = "location", location
    model.graph.initializer.append(weight)
    with pytest.raises(onnx_legalize.LegalizeError, match=why):
        onnx_legalize.legalize(model)


def test_verification_failures_raise_verification_error():
    # The library is not expected to produce one on a real model; the mapping from its typed status is
    # what the wrapper owns (the C++ side is tested by verify_test: MarksOnlyVerificationFailuresAsSuch).
    status = onnx_legalize._onnx_legalize.StatusError("INTERNAL", "verification failed: node 'x'", "verification_failed")
    with pytest.raises(onnx_legalize.VerificationError) as raised:
        _api._raise_from_status(status)
    assert raised.value.code == "INTERNAL"
    assert isinstance(raised.value, onnx_legalize.LegalizeError)
    assert isinstance(raised.value, ValueError)
    # An Internal error that is not marked as a verification failure stays a plain LegalizeError.
    status = onnx_legalize._onnx_legalize.StatusError("INTERNAL", "verification failed: said only", "internal")
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        _api._raise_from_status(status)
    assert type(raised.value) is onnx_legalize.LegalizeError


def test_every_prefix_of_a_model_raises_or_legalizes_never_crashes():
    data = (LEGACY / "subgraph_if_opset9.onnx").read_bytes()
    for end in range(0, len(data), 3):
        for call in (onnx_legalize.legalize, onnx_legalize.check):
            try:
                call(data[:end])
            except onnx_legalize.LegalizeError as error:
                assert error.code in ("INVALID_ARGUMENT", "FAILED_PRECONDITION"), (end, error)


def test_mutated_models_raise_legalize_error_or_legalize():
    # The Python door's share of the fuzzing: seeded byte mutations of real models, through both calls.
    # A crash would take the interpreter down; anything but LegalizeError fails the test.
    rng = random.Random(20261202)
    sources = [(LEGACY / name).read_bytes()
               for name in ("subgraph_loop_opset9.onnx", "chain_opset9.onnx", REWRITE, "dtypes_opset9.onnx")]
    outcomes = {"legalized": 0, "refused": 0}
    for _ in range(1500):
        data = bytearray(rng.choice(sources))
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        for call in (lambda m: onnx_legalize.legalize(m, verify_trials=2), onnx_legalize.check):
            try:
                call(bytes(data))
                outcomes["legalized"] += 1
            except onnx_legalize.LegalizeError:
                outcomes["refused"] += 1
    assert outcomes["legalized"] > 0 and outcomes["refused"] > 0, outcomes


# ---------------------------------------------------------------------------------------------------
# legalize_file


@pytest.mark.parametrize("name", [REWRITE, FOLD_ONLY, "subgraph_loop_opset9.onnx"])
def test_legalize_file_writes_what_the_cli_writes(name, tmp_path):
    out_py, out_cli, report_path = tmp_path / "py.onnx", tmp_path / "cli.onnx", tmp_path / "r.json"
    report = onnx_legalize.legalize_file(LEGACY / name, out_py)
    cli = run_cli(LEGACY / name, out_cli, f"--report={report_path}")
    assert cli.returncode == 0, cli.stderr
    assert timeless(report) == timeless(json.loads(report_path.read_text(encoding="utf-8")))
    assert out_py.read_bytes() == out_cli.read_bytes()


def test_legalize_file_refuses_to_overwrite_its_input_unless_in_place(tmp_path):
    src = tmp_path / "m.onnx"
    original = (LEGACY / REWRITE).read_bytes()
    src.write_bytes(original)
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize_file(src, str(src))
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.kind == "invalid_request"
    assert src.read_bytes() == original

    report = onnx_legalize.legalize_file(os.fsencode(src), src, in_place=True)
    assert report["changed"]
    assert dynamic_slices(onnx.load(str(src))) == []


def test_legalize_file_errors_name_the_file_and_write_nothing(tmp_path):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize_file(missing, tmp_path / "out.onnx")
    assert raised.value.code == "NOT_FOUND"
    assert str(missing) in str(raised.value)

    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize_file(LEGACY / REWRITE, tmp_path / "out.onnx", keep_opset=True)
    assert raised.value.code == "FAILED_PRECONDITION"
    assert list(tmp_path.iterdir()) == []


def test_legalize_file_writes_external_data_when_asked(tmp_path):
    out = tmp_path / "out.onnx"
    onnx_legalize.legalize_file(LEGACY / REWRITE, out, external_data="weights.bin", external_data_threshold=0)
    assert (tmp_path / "weights.bin").stat().st_size > 0
    model = onnx.load(str(out), load_external_data=False)
    locations = {entry.value for tensor in model.graph.initializer for entry in tensor.external_data
                 if entry.key == "location"}
    assert locations == {"weights.bin"}
    onnx.checker.check_model(str(out))


@pytest.mark.parametrize("name", ["", "..", "sub/w.bin"])
def test_legalize_file_refuses_an_external_data_name_that_is_not_a_file_name(name, tmp_path):
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.legalize_file(LEGACY / REWRITE, tmp_path / "out.onnx", external_data=name)
    assert raised.value.code == "INVALID_ARGUMENT"


# ---------------------------------------------------------------------------------------------------
# check


def cli_check_findings(path):
    cli = run_cli("--check", "--format=json", path)
    assert cli.returncode in (0, 1), cli.stderr
    return json.loads(cli.stdout)["findings"]


@pytest.mark.parametrize("name", MODELS)
def test_check_finds_what_the_cli_finds(name):
    path = LEGACY / name
    findings = onnx_legalize.check(path)
    assert findings == cli_check_findings(path)
    assert findings, "every legacy model holds a DynamicSlice"
    # A ModelProto or its bytes give the same findings, with no file.
    no_file = [{**f, "file": None} for f in findings]
    assert onnx_legalize.check(load(name)) == no_file
    assert onnx_legalize.check(path.read_bytes()) == no_file


def test_check_of_a_legalized_model_finds_nothing():
    legalized, _ = onnx_legalize.legalize(load("subgraph_loop_opset9.onnx"))
    assert onnx_legalize.check(legalized) == []


def test_check_findings_have_the_documented_fields():
    (finding,) = onnx_legalize.check(LEGACY / REWRITE)
    # At least these (the JSON format may grow fields, e.g. whether legalizing fixes the finding).
    assert {"file", "rule", "graph_path", "node_name", "op_type", "domain", "opset", "reason"} <= set(finding)
    assert finding["rule"] == "removed-experimental-op"
    assert finding["op_type"] == "DynamicSlice"
    assert finding["opset"] == 9


def test_check_errors(tmp_path):
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.check(tmp_path / "missing.onnx")
    assert raised.value.code == "NOT_FOUND"
    with pytest.raises(onnx_legalize.LegalizeError) as raised:
        onnx_legalize.check(b"\x08")
    assert raised.value.code == "INVALID_ARGUMENT"


def test_check_escapes_names_that_are_not_utf8():
    model = load(REWRITE)
    model.graph.node[-1].op_type = "Removed_OP"
    data = model.SerializeToString().replace(b"Removed_OP", b"Removed\xff\xfeP")
    findings = onnx_legalize.check(data)
    assert [f["op_type"] for f in findings if f["op_type"].startswith("Removed")] == ["Removed\\xFF\\xFEP"]


# ---------------------------------------------------------------------------------------------------
# One process with onnx, and threads


IMPORT_ORDER_SCRIPT = """
import sys
first, second = sys.argv[1:3]
__import__(first)
__import__(second)
import onnx, onnx_legalize
legacy = onnx.load(sys.argv[3])
onnx.checker.check_model(onnx.load(sys.argv[4]))  # onnx works before the module is used
legal, report = onnx_legalize.legalize(legacy)
onnx.checker.check_model(legal, full_check=True)
onnx.shape_inference.infer_shapes(legal, check_type=True, strict_mode=True)
onnx.checker.check_model(onnx.helper.make_model(onnx.helper.make_graph([], "g", [], [])))
print(report["opset_after"])
"""


@pytest.mark.parametrize("order", [("onnx", "onnx_legalize"), ("onnx_legalize", "onnx"),
                                   ("onnx.onnx_cpp2py_export", "onnx_legalize"),
                                   ("onnx_legalize", "onnx.shape_inference")])
def test_works_in_one_process_with_onnx_whichever_is_imported_first(order, tmp_path):
    legalized = tmp_path / "legal.onnx"
    assert run_cli(LEGACY / REWRITE, legalized).returncode == 0
    result = subprocess.run([sys.executable, "-c", IMPORT_ORDER_SCRIPT, *order, str(LEGACY / REWRITE),
                             str(legalized)], capture_output=True, text=True, check=False, env=os.environ)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "10"


def test_importing_onnx_legalize_does_not_import_onnx():
    result = subprocess.run([sys.executable, "-c", "import sys, onnx_legalize; print('onnx' in sys.modules)"],
                            capture_output=True, text=True, check=False, env=os.environ)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_threads_legalize_concurrently_with_the_sequential_results():
    models = [load(name) for name in MODELS]
    sequential = [onnx_legalize.legalize(model) for model in models]
    results = [None] * len(models)

    def work(i):
        results[i] = onnx_legalize.legalize(models[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(models))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [(model, timeless(report)) for model, report in results] == \
        [(model, timeless(report)) for model, report in sequential]


def test_the_gil_is_released_while_the_library_works():
    # A rewrite verified with many trials keeps the library busy for a while. Were the GIL held, a
    # Python thread spinning meanwhile would stall for all of that time; released, it keeps running.
    model = load(REWRITE).SerializeToString()
    trials = 4000
    start = time.monotonic()
    onnx_legalize.legalize(model, verify_trials=trials)
    busy = time.monotonic() - start
    while busy < 0.3:
        trials *= 2
        start = time.monotonic()
        onnx_legalize.legalize(model, verify_trials=trials)
        busy = time.monotonic() - start

    stop = threading.Event()
    longest_gap = [0.0]

    def spin():
        last = time.monotonic()
        while not stop.is_set():
            now = time.monotonic()
            longest_gap[0] = max(longest_gap[0], now - last)
            last = now

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.05)
        start = time.monotonic()
        onnx_legalize.legalize(model, verify_trials=trials)
        busy = time.monotonic() - start
    finally:
        stop.set()
        spinner.join()
    assert longest_gap[0] < busy / 2, (longest_gap[0], busy)
