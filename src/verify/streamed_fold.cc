#include "verify/streamed_fold.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "eval/slice_kernels.h"
#include "graph/labels.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

std::string Bracketed(const std::vector<int64_t>& values) { return absl::StrCat("[", absl::StrJoin(values, ","), "]"); }

}  // namespace

StreamedFold::StreamedFold(const DynamicSliceChange& change, std::vector<int64_t> dims, bool verify)
    : data_(*change.data_constant),
      starts_(*change.starts.constant),
      ends_(*change.ends.constant),
      axes_(change.axes.constant),
      dims_(std::move(dims)),
      verify_(verify),
      label_(InGraph(NodeLabel(kDynamicSliceOp, change.node_name, change.output), change.graph_path)) {}

absl::Status StreamedFold::WriteTo(const ByteSink& sink) const {
  // Both kernels must see the result the plan declared, each by its own reading of the indices: the parts
  // below tile the declared dims, and each kernel only checks that a part lies inside its own result.
  absl::StatusOr<std::vector<int64_t>> folded_dims = DynamicSliceReferenceDims(data_, starts_, ends_, axes_);
  if (!folded_dims.ok() || *folded_dims != dims_) {
    return VerificationFailure(
        label_, absl::StrCat(label_, ": its fold was planned as ", DataTypeName(type()), Bracketed(dims_),
                             " but DynamicSlice gives ",
                             folded_dims.ok() ? Bracketed(*folded_dims) : std::string(folded_dims.status().message())));
  }
  if (verify_) {
    absl::StatusOr<std::vector<int64_t>> sliced_dims = SliceOutputDims(data_.dims(), starts_, ends_, axes_, nullptr);
    if (!sliced_dims.ok() || *sliced_dims != dims_) {
      return VerificationFailure(
          label_,
          absl::StrCat(label_, ": its fold is ", DataTypeName(type()), Bracketed(dims_), " but Slice gives ",
                       sliced_dims.ok() ? Bracketed(*sliced_dims) : std::string(sliced_dims.status().message())));
    }
  }
  PartStorage storage;
  return ForEachRowMajorPart(dims_, ElementSize(type()), kStreamedPartBytes,
                             [&](const std::vector<int64_t>& offset, const std::vector<int64_t>& size) {
                               return WritePart(offset, size, sink, storage);
                             });
}

absl::Status StreamedFold::WritePart(const std::vector<int64_t>& offset, const std::vector<int64_t>& size,
                                     const ByteSink& sink, PartStorage& storage) const {
  const OutputPart part{offset, size};
  const std::string where = absl::StrCat(label_, ": the part at ", Bracketed(offset), " of size ", Bracketed(size),
                                         " of its fold ", DataTypeName(type()), Bracketed(dims_));
  absl::StatusOr<Tensor> folded = DynamicSliceReference(data_, starts_, ends_, axes_, &part, std::move(storage.folded));
  if (!folded.ok()) {
    return VerificationFailure(label_,
                               absl::StrCat(where, ": DynamicSlice rejects it (", folded.status().message(), ")"));
  }
  if (folded->dims() != size) {
    return VerificationFailure(label_, absl::StrCat(where, ": DynamicSlice gives ", Bracketed(folded->dims())));
  }
  if (verify_) {
    absl::StatusOr<Tensor> recomputed =
        Slice(data_, starts_, ends_, axes_, nullptr, &part, std::move(storage.recomputed));
    if (!recomputed.ok()) {
      return VerificationFailure(label_,
                                 absl::StrCat(where, ": Slice rejects it (", recomputed.status().message(), ")"));
    }
    if (!recomputed->BitwiseEquals(*folded)) {
      return VerificationFailure(label_, absl::StrCat(where, ": DynamicSlice and Slice give different bytes"));
    }
    storage.recomputed = recomputed->release_bytes();
  }
  const std::string_view bytes = folded->bytes();
  RETURN_IF_ERROR(sink(absl::string_view(bytes.data(), bytes.size())));
  storage.folded = folded->release_bytes();
  return absl::OkStatus();
}

}  // namespace onnx_legalize
