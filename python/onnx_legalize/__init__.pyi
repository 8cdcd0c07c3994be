# Type stub of the onnx_legalize package (the implementation lives in _api.py and the C++ extension).
import os
from concurrent.futures import Executor
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import onnx

__version__: str

MIN_TARGET_OPSET: int
MAX_TARGET_OPSET: int
DEFAULT_MAX_FOLD_BYTES: int
DEFAULT_MAX_TOTAL_FOLD_BYTES: int
DEFAULT_PROOF_BUDGET: int
DEFAULT_VERIFY_TRIALS: int
DEFAULT_VERIFY_SEED: int
DEFAULT_EXTERNAL_DATA_THRESHOLD: int

_Model = Union[onnx.ModelProto, bytes, bytearray, memoryview]
_Path = Union[str, bytes, os.PathLike]

class LegalizeError(ValueError):
    code: str
    kind: str
    message: str
    def __init__(self, message: str, code: str = ..., kind: str = ...) -> None: ...

class VerificationError(LegalizeError): ...

def legalize(
    model: _Model,
    *,
    target_opset: Optional[int] = ...,
    keep_opset: bool = ...,
    verify: bool = ...,
    max_fold_bytes: int = ...,
    max_total_fold_bytes: int = ...,
    proof_budget: int = ...,
    verify_trials: int = ...,
    verify_seed: int = ...,
    use_threads: bool = ...,
) -> Tuple[onnx.ModelProto, Dict[str, Any]]: ...
def legalize_file(
    src: _Path,
    dst: _Path,
    *,
    target_opset: Optional[int] = ...,
    keep_opset: bool = ...,
    verify: bool = ...,
    max_fold_bytes: int = ...,
    max_total_fold_bytes: int = ...,
    proof_budget: int = ...,
    verify_trials: int = ...,
    verify_seed: int = ...,
    use_threads: bool = ...,
    external_data: Optional[str] = ...,
    external_data_threshold: int = ...,
    in_place: bool = ...,
) -> Dict[str, Any]: ...
def legalize_tree(
    src: Union[_Path, Sequence[_Path]],
    dst: Optional[_Path] = ...,
    *,
    jobs: Optional[int] = ...,
    executor: Optional[Executor] = ...,
    target_opset: Optional[int] = ...,
    keep_opset: bool = ...,
    verify: bool = ...,
    max_fold_bytes: int = ...,
    max_total_fold_bytes: int = ...,
    proof_budget: int = ...,
    verify_trials: int = ...,
    verify_seed: int = ...,
    use_threads: Optional[bool] = ...,
    external_data_threshold: int = ...,
) -> List[Dict[str, Any]]: ...
def check(model: Union[_Model, str, os.PathLike]) -> List[Dict[str, Any]]: ...
