// Two independent evaluators of slicing. Verification compares one against the other, so neither calls
// the other, and they share nothing but the Tensor type.
//
// - Slice: the semantics of Slice-10/11/13 (starts, ends, optional axes, optional steps, negative steps
//   and negative axes), with clamping as Slice-13's text states it.
// - DynamicSliceReference: written literally from DynamicSlice-1's documentation and what the reference
//   runtimes do where it is silent (see shared/spec/DYNAMIC_SLICE.md): no steps; negative axes accepted;
//   starts/ends below -dim clamp to 0 and above dim to dim; start >= end gives an empty dimension.
//
// Both reject with InvalidArgument: scalar data, index tensors that are not 1-D or not int32/int64, index
// tensors of mixed types, starts/ends/axes(/steps) of different lengths, duplicate axes (also when only
// normalization makes them equal, as 1 and -2 on rank 3), an axis outside [-rank, rank-1], more starts
// than data axes when axes are omitted (and, for Slice, a zero step). Messages name the input and the
// values, e.g. "axes holds 3 twice (axes [0, 3, 3], data rank 4)", and carry no node context: the caller
// prefixes which node and graph it was.
//
// Shared conventions, each kernel implementing them on its own:
// - Omitted axes are [0, ..., len(starts)-1], what every runtime does (the op texts say [0, ..., r-1]).
// - INT32/INT64 min and max are ordinary values that clamping handles; there is no "to the end" special
//   case. For Slice with a negative step, an end of INT_MAX therefore clamps to dim-1 and gives an empty
//   axis, as Slice-13's text, numpy and onnx's reference implementation say. ONNX Runtime's Slice-10 kernel
//   reads an end of exactly INT32_MAX or INT64_MAX as "to the far end" instead: "to the front" for a
//   negative step (Slice-13 recommends INT_MIN for that), and the whole axis even when it is longer than
//   INT32_MAX.
// - Every element type but UNDEFINED is sliced, bfloat16 included: which types an op version admits is
//   the legalizer's decision, not the evaluator's.
// - The result is never larger than `data`; its element count and byte size are checked all the same, and
//   it is built by appending the innermost contiguous runs (memcpy, per element for strings) without a
//   zero-filled intermediate.
#ifndef ONNX_LEGALIZE_SRC_EVAL_SLICE_KERNELS_H_
#define ONNX_LEGALIZE_SRC_EVAL_SLICE_KERNELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace onnx_legalize {

// A part of a slice's output: per output axis, the first index taken and how many. A large result computed
// part by part never takes more memory than a part (LegalizeFile writes large folds so). Each kernel places
// the part in the output it computes itself, and rejects (InvalidArgument) a part that does not lie inside.
struct OutputPart {
  std::vector<int64_t> offset, size;
};

// Output dims of Slice(data of `data_dims`, starts, ends, axes, steps) without computing any element, so a
// caller can check the size of a result before it is allocated. `axes` and `steps` may be null (omitted).
absl::StatusOr<std::vector<int64_t>> SliceOutputDims(const std::vector<int64_t>& data_dims, const Tensor& starts,
                                                     const Tensor& ends, const Tensor* axes, const Tensor* steps);

// Slice-10/11/13. `axes` and `steps` may be null (omitted); with `part`, only that part of the output.
// `storage`: bytes the result's may be built in (cleared first; their capacity kept), so that a caller computing
// a large result part after part hands each part's bytes back for the next and allocates once.
absl::StatusOr<Tensor> Slice(const Tensor& data, const Tensor& starts, const Tensor& ends, const Tensor* axes,
                             const Tensor* steps, const OutputPart* part = nullptr, std::string storage = {});

// Output dims of DynamicSliceReference(data, starts, ends, axes), by its own reading of the indices, without
// computing any element.
absl::StatusOr<std::vector<int64_t>> DynamicSliceReferenceDims(const Tensor& data, const Tensor& starts,
                                                               const Tensor& ends, const Tensor* axes);

// DynamicSlice-1. `axes` may be null (omitted: [0, ..., len(starts)-1]); with `part`, only that part of the
// output.
// `storage` as for Slice.
absl::StatusOr<Tensor> DynamicSliceReference(const Tensor& data, const Tensor& starts, const Tensor& ends,
                                             const Tensor* axes, const OutputPart* part = nullptr,
                                             std::string storage = {});

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_SLICE_KERNELS_H_
