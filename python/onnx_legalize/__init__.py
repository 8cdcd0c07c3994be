"""onnx_legalize: makes legacy ONNX models legal again, from Python.

ONNX 1.5 removed the experimental ops of 1.2-1.4 (DynamicSlice, ImageScaler, Crop, Affine, Scale, ScaledTanh,
ParametricSoftplus, ThresholdedRelu before opset 10, MeanVarianceNormalization-1, ConstantFill,
GivenTensorFill); models of that era still hold them, and today's converters, checkers and runtimes reject
them. This module folds each into a constant or rewrites it into standard ops (DynamicSlice into Slice-10+,
moving the model to the opset they need), and proves each change by executing both forms and comparing them
bit for bit. It binds the C++ library onnx-legalize.

    import onnx, onnx_legalize
    legal, report = onnx_legalize.legalize(onnx.load("legacy.onnx"))
    onnx_legalize.legalize_file("legacy.onnx", "legal.onnx")
    results = onnx_legalize.legalize_tree("models/", "legal/", jobs=2)   # one dict per model file
    findings = onnx_legalize.check("legacy.onnx")   # [] when nothing needs legalizing

Errors raise LegalizeError (a ValueError, with ``.code``), verification failures VerificationError.
"""

from ._api import (
    DEFAULT_EXTERNAL_DATA_THRESHOLD,
    DEFAULT_MAX_FOLD_BYTES,
    DEFAULT_MAX_TOTAL_FOLD_BYTES,
    DEFAULT_PROOF_BUDGET,
    DEFAULT_VERIFY_SEED,
    DEFAULT_VERIFY_TRIALS,
    MAX_TARGET_OPSET,
    MIN_TARGET_OPSET,
    LegalizeError,
    VerificationError,
    check,
    legalize,
    legalize_file,
    legalize_tree,
)
from ._onnx_legalize import __version__

__all__ = [
    "DEFAULT_EXTERNAL_DATA_THRESHOLD",
    "DEFAULT_MAX_FOLD_BYTES",
    "DEFAULT_MAX_TOTAL_FOLD_BYTES",
    "DEFAULT_PROOF_BUDGET",
    "DEFAULT_VERIFY_SEED",
    "DEFAULT_VERIFY_TRIALS",
    "MAX_TARGET_OPSET",
    "MIN_TARGET_OPSET",
    "LegalizeError",
    "VerificationError",
    "__version__",
    "check",
    "legalize",
    "legalize_file",
    "legalize_tree",
]
