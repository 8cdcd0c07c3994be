"""The public functions of onnx_legalize, over the C++ extension _onnx_legalize.

This layer checks argument types and ranges (so that the extension only ever sees values its C++ types
hold), converts ModelProtos to serialized bytes and back, and turns the extension's StatusError into
LegalizeError / VerificationError. onnx itself is imported only when a ModelProto is made, so importing
onnx_legalize does not import onnx.
"""

import json
import operator
import os

from . import _onnx_legalize as _ext

MIN_TARGET_OPSET = _ext.MIN_TARGET_OPSET
MAX_TARGET_OPSET = _ext.MAX_TARGET_OPSET
DEFAULT_MAX_FOLD_BYTES = _ext.DEFAULT_MAX_FOLD_BYTES
DEFAULT_MAX_TOTAL_FOLD_BYTES = _ext.DEFAULT_MAX_TOTAL_FOLD_BYTES
DEFAULT_PROOF_BUDGET = _ext.DEFAULT_PROOF_BUDGET
DEFAULT_VERIFY_TRIALS = _ext.DEFAULT_VERIFY_TRIALS
DEFAULT_VERIFY_SEED = _ext.DEFAULT_VERIFY_SEED
DEFAULT_EXTERNAL_DATA_THRESHOLD = _ext.DEFAULT_EXTERNAL_DATA_THRESHOLD

_INT64_MAX = 2**63 - 1
_INT32_MAX = 2**31 - 1
_UINT64_MAX = 2**64 - 1


class LegalizeError(ValueError):
    """The model could not be legalized or checked, or an argument is invalid.

    ``code`` is the name of the library's status code: "INVALID_ARGUMENT" (a malformed model or a bad
    option), "FAILED_PRECONDITION" (the model cannot be expressed as asked, e.g. keep_opset with a
    dynamic DynamicSlice), "NOT_FOUND" (a file or external data), "RESOURCE_EXHAUSTED" (a size limit),
    "INTERNAL" (a broken invariant, or VerificationError), ... The message names what and where.

    ``kind`` says what failed, as the library's ErrorKind: "invalid_request" (an option out of range or
    contradicting another, an output that is the input file), "invalid_model", "not_legalizable",
    "no_form_at_opset" (a node cannot be expressed at the target opset asked for, below the model's own),
    "verification_failed", "resource_limit", "file_system" or "internal".
    """

    def __init__(self, message, code="UNKNOWN", kind="internal"):
        super().__init__(message)
        self.code = code
        self.kind = kind
        self.message = message


class VerificationError(LegalizeError):
    """A legalized node did not compute what the original did (code "INTERNAL"); nothing was changed."""


def _raise_from_status(error):
    code, message, kind = error.args
    exception_type = VerificationError if kind == "verification_failed" else LegalizeError
    raise exception_type(message, code, kind) from None


def _invalid(message):
    return LegalizeError(message, "INVALID_ARGUMENT", "invalid_request")


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
    return value


def _check_int(name, value, low, high):
    # bool is an int in Python; True as a byte count is a mistake, not a 1. operator.index accepts what
    # is an integer (numpy's too) and refuses floats and strings.
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not low <= value <= high:
        raise _invalid(f"{name} is {value}; it must be in [{low}, {high}]")
    return value


def _options(target_opset, keep_opset, verify, max_fold_bytes, max_total_fold_bytes, proof_budget,
             verify_trials, verify_seed, use_threads):
    if target_opset is not None:
        target_opset = _check_int("target_opset", target_opset, MIN_TARGET_OPSET, MAX_TARGET_OPSET)
    return (
        target_opset,
        _check_bool("keep_opset", keep_opset),
        _check_bool("verify", verify),
        _check_int("max_fold_bytes", max_fold_bytes, 0, _INT64_MAX),
        _check_int("max_total_fold_bytes", max_total_fold_bytes, 0, _INT64_MAX),
        _check_int("proof_budget", proof_budget, 0, _INT64_MAX),
        _check_int("verify_trials", verify_trials, 1, _INT32_MAX),
        _check_int("verify_seed", verify_seed, 0, _UINT64_MAX),
        _check_bool("use_threads", use_threads),
    )


def _model_bytes(model, function):
    if isinstance(model, bytes):
        return model
    if isinstance(model, (bytearray, memoryview)):
        return bytes(model)
    if isinstance(model, (str, os.PathLike)):
        raise TypeError(f"{function}() takes a ModelProto or its serialized bytes, not a path; "
                        "use legalize_file() for files")
    serialize = getattr(model, "SerializeToString", None)
    if serialize is None:
        raise TypeError(f"{function}() takes an onnx.ModelProto or bytes, not {type(model).__name__}")
    return serialize()


def _path(name, value):
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a path (str, bytes or os.PathLike), not {type(value).__name__}")
    # Bytes to C++: any name the filesystem holds, whatever its encoding.
    return os.fsencode(value)


def legalize(model, *, target_opset=None, keep_opset=False, verify=True,
             max_fold_bytes=DEFAULT_MAX_FOLD_BYTES, max_total_fold_bytes=DEFAULT_MAX_TOTAL_FOLD_BYTES,
             proof_budget=DEFAULT_PROOF_BUDGET,
             verify_trials=DEFAULT_VERIFY_TRIALS, verify_seed=DEFAULT_VERIFY_SEED, use_threads=True):
    """Legalizes a model in memory: every removed op folded into a constant or rewritten into standard ops.

    ``model`` is an ``onnx.ModelProto`` or its serialized bytes; it is never changed. Returns
    ``(legalized, report)``: a new ``onnx.ModelProto`` and the report as a dict, the same document
    ``onnx-legalize --report`` writes (keys ``changed``, ``opset_before``, ``opset_after``,
    ``ir_version_before``, ``ir_version_after``, ``onnx_check``, ``opset_move``, ``opset_move_proof``,
    ``opset_move_changes``, ``legacy_repairs``, ``interface_changes``, ``targets_passed_over``, ``nodes``).
    ``opset_move_changes`` says what the opset move did to the nodes, by op: ``op_type``, ``version_before``,
    ``op_type_after`` (the op that stands for it after the move), ``version_after``, ``how`` ("version",
    "rewritten", "replaced by <op>", "added", "removed"), ``nodes``
    (how many) and ``first`` (the first of them, with its graph). ``interface_changes`` lists
    each graph output whose declared type was written anew (``value``, ``before``, ``after``, ``why``): read the
    output by its new type. ``opset_move_proof`` counts what the opset move's
    proof ran: ``executed``, ``input_sets``, ``nodes_executed``, ``nodes_shared`` (of those, nodes the move left
    as they were, computed once for both forms), ``nodes_skipped`` (nodes the move left as they were that nothing
    it changed reads: the same in both forms by construction, executed in neither), ``work`` (element operations), ``seconds``
    (wall time, the one value that differs from run to run) and ``why_not``.

    Options, as the CLI's flags: ``target_opset`` (1..28; below the model's own, the model moves down; default:
    the lowest that works),
    ``keep_opset`` (keep the model's opset: only removed ops whose replacement exists there),
    ``verify`` (execute both forms of every change and compare them bit for bit),
    ``max_fold_bytes`` / ``max_total_fold_bytes`` (larger constant results are rewritten instead),
    ``proof_budget`` (the opset move's proof stops past this many element operations, and the report says
    "not executed" and why), ``verify_trials`` and ``verify_seed`` (the seeded trials per rewritten node). ``use_threads``: the
    library may run its proofs on up to three helper threads (False: all on the calling thread; the result
    is the same).

    Weights stored as external data are not read (the removed ops that read them are rewritten, not folded): load
    the model with its external data, or use :func:`legalize_file`. A model past protobuf's 2 GiB limit
    needs :func:`legalize_file` too.

    Raises LegalizeError (a ValueError; ``.code`` names the status code) when the model is malformed or
    cannot be legalized as asked, VerificationError when a change fails verification, TypeError for an
    argument of the wrong type. The GIL is released while the library works.
    """
    options = _options(target_opset, keep_opset, verify, max_fold_bytes, max_total_fold_bytes,
                       proof_budget, verify_trials, verify_seed, use_threads)
    data = _model_bytes(model, "legalize")
    try:
        legalized_bytes, report_json = _ext.legalize(data, *options)
    except _ext.StatusError as error:
        _raise_from_status(error)
    import onnx  # pylint: disable=import-outside-toplevel

    return onnx.ModelProto.FromString(legalized_bytes), json.loads(report_json)


def legalize_file(src, dst, *, target_opset=None, keep_opset=False, verify=True,
                  max_fold_bytes=DEFAULT_MAX_FOLD_BYTES, max_total_fold_bytes=DEFAULT_MAX_TOTAL_FOLD_BYTES,
                  proof_budget=DEFAULT_PROOF_BUDGET,
                  verify_trials=DEFAULT_VERIFY_TRIALS, verify_seed=DEFAULT_VERIFY_SEED, use_threads=True,
                  external_data=None, external_data_threshold=DEFAULT_EXTERNAL_DATA_THRESHOLD, in_place=False):
    """Legalizes the model file ``src`` into ``dst``, as ``onnx-legalize SRC DST`` does; returns the report.

    The path-to-path entry point: external data is read from ``src``'s folder only where a fold needs it,
    and models past protobuf's 2 GiB limit are written with their weights in ``DST.data``. ``dst`` is
    written atomically and only when everything succeeded; ``src`` is never changed unless ``in_place``
    (then ``dst`` must name ``src``; without it, ``dst`` naming ``src`` is an error).

    ``external_data``: a file name beside ``dst`` that receives every initializer of at least
    ``external_data_threshold`` bytes and every tensor already stored externally (None: only past 2 GiB).
    The other options are :func:`legalize`'s. Returns the report dict; raises as :func:`legalize` does.
    """
    options = _options(target_opset, keep_opset, verify, max_fold_bytes, max_total_fold_bytes,
                       proof_budget, verify_trials, verify_seed, use_threads)
    src_path = _path("src", src)
    dst_path = _path("dst", dst)
    if external_data is None:
        external_data = ""
    elif not isinstance(external_data, str):
        raise TypeError(f"external_data must be a file name (str) or None, not {type(external_data).__name__}")
    elif external_data in ("", ".", "..") or "/" in external_data:
        raise _invalid(f"external_data={external_data!r} must be a file name: the data file is written "
                       "beside dst")
    threshold = _check_int("external_data_threshold", external_data_threshold, 0, _INT64_MAX)
    _check_bool("in_place", in_place)
    try:
        report_json = _ext.legalize_file(src_path, dst_path, *options, external_data, threshold, in_place)
    except _ext.StatusError as error:
        _raise_from_status(error)
    return json.loads(report_json)


def check(model):
    """Lists every node whose op has no schema at the opset its model imports (what ``--check`` finds).

    ``model`` is a path (str or os.PathLike), an ``onnx.ModelProto`` or its serialized bytes; a file's
    external data is never read. Returns one dict per finding, in graph order, with the fields of
    ``onnx-legalize --check --format=json``: ``file`` (the path as given, or None), ``rule`` (the kind of
    finding: "removed-experimental-op", "unknown-op", "op-newer-than-opset", "deprecated-op",
    "domain-not-imported"), ``graph_path``, ``node_name``, ``op_type``, ``domain``, ``opset``
    (imported for the node's domain; 0 when none) and ``reason``. Bytes of names that are not UTF-8
    are written as ``\\xNN``. An empty list means the model needs no legalizing.
    Raises LegalizeError when the model cannot be read or its opset imports are malformed.
    """
    file = None
    try:
        if isinstance(model, (str, os.PathLike)):
            file = os.fspath(model)
            document = _ext.check_file(os.fsencode(model))
        else:
            document = _ext.check_model(_model_bytes(model, "check"))
    except _ext.StatusError as error:
        _raise_from_status(error)
    # The document's "file" is the path's bytes, escaped; the path as given reads better from Python.
    return [{**finding, "file": file} for finding in json.loads(document)["findings"]]


def _legalize_tree_file(entry, dest, options, threshold):
    """One file of legalize_tree's plan; runs wherever the executor runs it (a thread, a dask worker)."""
    src, dst, relative = entry
    return _ext.legalize_tree_file(src, dst, relative, dest, *options, threshold)


def legalize_tree(src, dst=None, *, jobs=None, executor=None, target_opset=None, keep_opset=False, verify=True,
                  max_fold_bytes=DEFAULT_MAX_FOLD_BYTES, max_total_fold_bytes=DEFAULT_MAX_TOTAL_FOLD_BYTES,
                  proof_budget=DEFAULT_PROOF_BUDGET,
                  verify_trials=DEFAULT_VERIFY_TRIALS, verify_seed=DEFAULT_VERIFY_SEED, use_threads=None,
                  external_data_threshold=DEFAULT_EXTERNAL_DATA_THRESHOLD):
    """Legalizes every model below ``src`` into ``dst``, as ``onnx-legalize SRC... -o DST`` does.

    ``src`` is a path or a list of paths, each a model file or a folder (every ``*.onnx`` below it, sorted;
    symbolic links are not followed out of it). A folder's models go below ``dst`` at their paths relative to
    it, a file's by its name; external data files are carried along. ``dst=None`` legalizes in place.
    Each output is byte for byte what :func:`legalize_file` writes; a model with nothing to legalize is
    copied unchanged (in place: never written); a refused one is not written. A rerun skips outputs written
    from the same input bytes with the same options (``dst/.onnx-legalize/`` records them).

    ``jobs``: files legalized at once on threads of this process (default 1). ``executor``: any
    ``concurrent.futures.Executor`` instead, e.g. a dask.distributed client's ``client.get_executor()``,
    whose workers must see ``src`` and ``dst`` at the same paths (shared storage) and import onnx_legalize.
    The other options are :func:`legalize_file`'s (``use_threads`` defaults to True for one job, else False).

    Returns one dict per file, in path order: ``path``, ``output``, ``result`` ("legalized",
    "already_legal", "up_to_date", "refused" or "verification_failed"), then the report's keys (those of
    :func:`legalize`'s report), or for a failure ``error_kind`` and ``error``; the objects the CLI's
    ``--report`` writes, one per line. Usage errors (a source that does not exist, ``dst`` inside a source
    folder or a file, two models bound for one output) raise LegalizeError before any file is read.
    Interrupted (KeyboardInterrupt), the files not started are cancelled; every file written is complete.
    """
    if isinstance(src, (str, bytes, os.PathLike)):
        sources = [src]
    else:
        try:
            sources = list(src)
        except TypeError:
            raise TypeError(f"src must be a path or a list of paths, not {type(src).__name__}") from None
    sources = [_path("src", source) for source in sources]
    dest = b"" if dst is None else _path("dst", dst)
    if dst is not None and dest == b"":
        raise _invalid("dst is empty; give a folder, or None to legalize in place")
    if jobs is not None and executor is not None:
        raise TypeError("give jobs or executor, not both")
    jobs = 1 if jobs is None else _check_int("jobs", jobs, 1, 256)
    if use_threads is None:
        use_threads = executor is None and jobs == 1
    options = _options(target_opset, keep_opset, verify, max_fold_bytes, max_total_fold_bytes,
                       proof_budget, verify_trials, verify_seed, use_threads)
    threshold = _check_int("external_data_threshold", external_data_threshold, 0, _INT64_MAX)
    try:
        plan = _ext.plan_tree(sources, dest)
    except _ext.StatusError as error:
        _raise_from_status(error)

    own_pool = None
    if executor is None:
        from concurrent.futures import ThreadPoolExecutor  # pylint: disable=import-outside-toplevel

        own_pool = executor = ThreadPoolExecutor(max_workers=jobs)
    futures = []
    try:
        for source, output, relative, failure in plan:
            futures.append(failure if failure is not None else
                           executor.submit(_legalize_tree_file, (source, output, relative), dest, options, threshold))
        lines = [f if isinstance(f, str) else f.result() for f in futures]
    except BaseException:
        for future in futures:
            if not isinstance(future, str):
                future.cancel()
        raise
    finally:
        if own_pool is not None:
            own_pool.shutdown(wait=True)
    return [json.loads(line) for line in lines]
