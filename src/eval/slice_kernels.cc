// The two slicing evaluators of eval/slice_kernels.h.
//
// They live in separate namespaces and share no code of this file: each reads its own index tensors,
// checks its own inputs, normalizes its own indices and copies with its own loop, so that a bug in one
// shows up as a disagreement with the other instead of hiding in a common helper. Only the Tensor type
// (and its overflow-checked element count) is common to both.
#include "eval/slice_kernels.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "onnx/onnx_pb.h"

// Index tensors and data hold little-endian bytes (core/tensor.h); both kernels read them with memcpy.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "onnx-legalize assumes a little-endian host");

namespace onnx_legalize {

// ---------------------------------------------------------------------------------------------------------
// Slice-10/11/13
// ---------------------------------------------------------------------------------------------------------
namespace slice_kernel {
namespace {

using onnx::TensorProto;

std::string Bracketed(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

// The values of index input `name`, which Slice-10 types as a 1-D tensor of Tind = int32 | int64.
absl::StatusOr<std::vector<int64_t>> ReadIndexInput(const Tensor& tensor, const char* name) {
  if (tensor.type() != TensorProto::INT32 && tensor.type() != TensorProto::INT64) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must hold int32 or int64 values, but holds ", DataTypeName(tensor.type())));
  }
  if (tensor.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a 1-D tensor, but has shape ", Bracketed(tensor.dims())));
  }
  std::vector<int64_t> values(tensor.element_count());
  const char* bytes = tensor.bytes().data();
  for (size_t i = 0; i < values.size(); ++i) {
    if (tensor.type() == TensorProto::INT64) {
      std::memcpy(&values[i], bytes + i * sizeof(int64_t), sizeof(int64_t));
    } else {
      int32_t value;
      std::memcpy(&value, bytes + i * sizeof(int32_t), sizeof(int32_t));
      values[i] = value;
    }
  }
  return values;
}

// Where one output axis comes from: `count` input indices, the first `start`, each next one `step` further.
struct AxisRange {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

// Slice's data must have rank >= 1 and no negative dim.
absl::Status CheckDataDims(const std::vector<int64_t>& dims) {
  if (dims.empty()) return absl::InvalidArgumentError("data is a scalar (rank 0): Slice needs data of rank >= 1");
  for (size_t a = 0; a < dims.size(); ++a) {
    if (dims[a] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("data dim ", a, " of ", Bracketed(dims), " is negative (", dims[a], ")"));
    }
  }
  return absl::OkStatus();
}

// Slice's index inputs as values, one of each per sliced axis; axes as given (negative ones not yet
// normalized), or [0, ..., n-1] when omitted.
struct SliceIndices {
  std::vector<int64_t> starts, ends, axes, steps;
};

absl::StatusOr<SliceIndices> ReadSliceIndices(const Tensor& starts_t, const Tensor& ends_t, const Tensor* axes_t,
                                              const Tensor* steps_t, int64_t rank) {
  SliceIndices indices;
  ASSIGN_OR_RETURN(indices.starts, ReadIndexInput(starts_t, "starts"));
  ASSIGN_OR_RETURN(indices.ends, ReadIndexInput(ends_t, "ends"));
  indices.steps.assign(indices.starts.size(), 1);
  if (axes_t != nullptr) {
    ASSIGN_OR_RETURN(indices.axes, ReadIndexInput(*axes_t, "axes"));
  }
  if (steps_t != nullptr) {
    ASSIGN_OR_RETURN(indices.steps, ReadIndexInput(*steps_t, "steps"));
  }
  // Slice-10: starts, ends, axes and steps are all of the one type Tind.
  for (const auto& [name, tensor] :
       {std::pair<const char*, const Tensor*>{"ends", &ends_t}, {"axes", axes_t}, {"steps", steps_t}}) {
    if (tensor != nullptr && tensor->type() != starts_t.type()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " is ", DataTypeName(tensor->type()), " but starts is ", DataTypeName(starts_t.type()),
                       ": starts, ends, axes and steps must share one index type (Tind)"));
    }
  }
  // Slice-10: one start, end, axis and step per sliced axis.
  const auto n = static_cast<int64_t>(indices.starts.size());
  const auto check_length = [n](const std::vector<int64_t>& values, const char* name) -> absl::Status {
    if (static_cast<int64_t>(values.size()) == n) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("starts has ", n, " values but ", name, " has ", values.size()));
  };
  RETURN_IF_ERROR(check_length(indices.ends, "ends"));
  if (axes_t != nullptr) RETURN_IF_ERROR(check_length(indices.axes, "axes"));
  RETURN_IF_ERROR(check_length(indices.steps, "steps"));
  if (axes_t == nullptr) {
    // Omitted axes are [0, ..., len(starts)-1] in every runtime (Slice-13's text says [0, ..., r-1],
    // which only differs in requiring len(starts) == r).
    if (n > rank) {
      return absl::InvalidArgumentError(absl::StrCat("starts has ", n,
                                                     " values, so the omitted axes would be [0, ..., ", n - 1,
                                                     "], but data rank is ", rank, " (axes omitted)"));
    }
    for (int64_t i = 0; i < n; ++i) indices.axes.push_back(i);
  }
  return indices;
}

// Slice-11: an axis lies in [-r, r-1]; a negative one counts from the back. Each axis at most once.
absl::StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
  const auto n = static_cast<int64_t>(axes.size());
  std::vector<int64_t> normalized_axes(n);
  std::vector<int64_t> original_at(rank, -1);  // per normalized axis: the position in `axes` naming it
  for (int64_t i = 0; i < n; ++i) {
    const int64_t axis = axes[i];
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("axes holds ", axis, ", outside [", -rank, ", ", rank - 1,
                                                     "] for data rank ", rank, " (axes ", Bracketed(axes), ")"));
    }
    const int64_t normalized = axis < 0 ? axis + rank : axis;
    if (original_at[normalized] >= 0) {
      const int64_t first = axes[original_at[normalized]];
      return absl::InvalidArgumentError(
          first == axis ? absl::StrCat("axes holds ", axis, " twice (axes ", Bracketed(axes), ", data rank ", rank, ")")
                        : absl::StrCat("axes holds ", first, " and ", axis, ", which both name axis ", normalized,
                                       " (axes ", Bracketed(axes), ", data rank ", rank, ")"));
    }
    original_at[normalized] = i;
    normalized_axes[i] = normalized;
  }
  return normalized_axes;
}

// The input indices one sliced axis of `dim` elements takes, for a start, end and (non-zero) step as given.
AxisRange ClampedRange(int64_t start, int64_t end, int64_t step, int64_t dim) {
  // A negative index counts from the back. Adding dim to a negative value cannot overflow.
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  int64_t count = 0;
  if (step > 0) {
    // Slice-13: the adjusted start "is clamped into the range [0, dims[axes[i]]] for positive
    // stepping", and end "is clamped to [0, dims[axes[i]]]".
    start = std::min(std::max(start, int64_t{0}), dim);
    end = std::min(std::max(end, int64_t{0}), dim);
    // ceil((end - start) / step) without forming end - start + step - 1, which could overflow.
    if (end > start) count = (end - start - 1) / step + 1;
  } else {
    // Slice-13: start is clamped into "[0, dims[axes[i]]-1] for negative stepping", and end "to
    // [-1, dims[axes[i]]-1]" (end -1 means: through element 0, as INT_MIN does).
    // For dim 0 both ranges are empty; clamping to the upper bound last leaves start = end = -1 there,
    // which gives the empty axis numpy gives.
    start = std::min(std::max(start, int64_t{0}), dim - 1);
    end = std::min(std::max(end, int64_t{-1}), dim - 1);
    // ceil((start - end) / -step); (start - end - 1) / step truncates toward zero, so it is the negated
    // floor, and -step is never formed (it overflows for INT64_MIN).
    if (start > end) count = 1 - (start - end - 1) / step;
  }
  return {start, step, count};
}

// The whole of Slice's index semantics: validation, axis normalization and clamping. Allocates nothing
// that grows with the data, so SliceOutputDims can answer for shapes too big to materialize.
absl::StatusOr<std::vector<AxisRange>> ResolveRanges(const std::vector<int64_t>& dims, const Tensor& starts_t,
                                                     const Tensor& ends_t, const Tensor* axes_t,
                                                     const Tensor* steps_t) {
  RETURN_IF_ERROR(CheckDataDims(dims));
  const int64_t rank = static_cast<int64_t>(dims.size());
  ASSIGN_OR_RETURN(const SliceIndices indices, ReadSliceIndices(starts_t, ends_t, axes_t, steps_t, rank));
  ASSIGN_OR_RETURN(const std::vector<int64_t> normalized_axes, NormalizeAxes(indices.axes, rank));
  std::vector<AxisRange> ranges(rank);
  for (int64_t a = 0; a < rank; ++a) ranges[a] = {0, 1, dims[a]};  // an axis not named is taken whole
  for (size_t i = 0; i < indices.starts.size(); ++i) {
    const int64_t step = indices.steps[i];
    if (step == 0) {
      return absl::InvalidArgumentError(absl::StrCat("steps holds 0 at position ", i, " (steps ",
                                                     Bracketed(indices.steps), "); a step must not be 0"));
    }
    ranges[normalized_axes[i]] = ClampedRange(indices.starts[i], indices.ends[i], step, dims[normalized_axes[i]]);
  }
  return ranges;
}

// Calls copy(offset, run) for each contiguous run of the input that the output takes, in output order:
// `run` elements from input element `offset`. `out_count` (the output's element count) is > 0, so every
// input dim is >= 1, and the strides are bounded by the input's element count, which fits int64.
template <typename Copy>
void ForEachRun(const std::vector<int64_t>& dims, const std::vector<AxisRange>& ranges, int64_t out_count,
                const Copy& copy) {
  const auto rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> stride(rank, 1);  // in elements
  for (int64_t a = rank - 2; a >= 0; --a) stride[a] = stride[a + 1] * dims[a + 1];

  // The innermost contiguous run: trailing axes taken whole are contiguous with the axis before them,
  // and that axis joins the run too when its step is 1. The axes before the run are walked one index at
  // a time by an odometer.
  int64_t last_sliced = rank - 1;
  while (last_sliced >= 0 && ranges[last_sliced].start == 0 && ranges[last_sliced].step == 1 &&
         ranges[last_sliced].count == dims[last_sliced]) {
    --last_sliced;
  }
  int64_t run = out_count;  // no axis sliced: the whole tensor is one run
  int64_t walked_rank = 0;
  if (last_sliced >= 0) {
    const bool joins_run = ranges[last_sliced].step == 1;
    run = stride[last_sliced] * (joins_run ? ranges[last_sliced].count : 1);
    walked_rank = joins_run ? last_sliced : last_sliced + 1;
  }

  // offset: the input element of the current run's first element. delta: how far one step along an axis
  // moves it. (count - 1) * |step| < dim, so neither delta nor a full rewind overflows; for a single-index
  // axis delta is never used and is left 0, as step * stride could overflow there (steps up to INT64_MAX).
  int64_t offset = 0;
  std::vector<int64_t> delta(rank, 0);
  for (int64_t a = 0; a < rank; ++a) {
    offset += ranges[a].start * stride[a];
    if (ranges[a].count > 1) delta[a] = ranges[a].step * stride[a];
  }
  std::vector<int64_t> index(walked_rank, 0);
  while (true) {
    copy(offset, run);
    int64_t a = walked_rank - 1;
    for (; a >= 0; --a) {
      if (++index[a] < ranges[a].count) {
        offset += delta[a];
        break;
      }
      index[a] = 0;
      offset -= (ranges[a].count - 1) * delta[a];
    }
    if (a < 0) break;
  }
}

// Restricts `ranges` (the whole output) to `part`: InvalidArgument when the part does not lie inside.
absl::Status TakePart(const OutputPart& part, std::vector<AxisRange>& ranges) {
  bool inside = part.offset.size() == ranges.size() && part.size.size() == ranges.size();
  for (size_t a = 0; inside && a < ranges.size(); ++a) {
    inside = part.offset[a] >= 0 && part.size[a] >= 0 && part.offset[a] <= ranges[a].count &&
             part.size[a] <= ranges[a].count - part.offset[a];
  }
  if (!inside) {
    std::vector<int64_t> dims;
    dims.reserve(ranges.size());
    for (const AxisRange& range : ranges) dims.push_back(range.count);
    return absl::InvalidArgumentError(absl::StrCat("the part at ", Bracketed(part.offset), " of size ",
                                                   Bracketed(part.size), " is not inside the Slice output ",
                                                   Bracketed(dims)));
  }
  for (size_t a = 0; a < ranges.size(); ++a) {
    ranges[a].start += part.offset[a] * ranges[a].step;  // inside the axis: no overflow
    ranges[a].count = part.size[a];
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace slice_kernel

absl::StatusOr<std::vector<int64_t>> SliceOutputDims(const std::vector<int64_t>& data_dims, const Tensor& starts,
                                                     const Tensor& ends, const Tensor* axes, const Tensor* steps) {
  ASSIGN_OR_RETURN(const std::vector<slice_kernel::AxisRange> ranges,
                   slice_kernel::ResolveRanges(data_dims, starts, ends, axes, steps));
  std::vector<int64_t> out_dims;
  out_dims.reserve(ranges.size());
  for (const slice_kernel::AxisRange& range : ranges) out_dims.push_back(range.count);
  return out_dims;
}

absl::StatusOr<Tensor> Slice(const Tensor& data, const Tensor& starts, const Tensor& ends, const Tensor* axes,
                             const Tensor* steps, const OutputPart* part, std::string storage) {
  using slice_kernel::AxisRange;
  // SliceOutputDims' own resolution, so the dims a caller checked before calling are the dims produced.
  ASSIGN_OR_RETURN(std::vector<AxisRange> ranges, slice_kernel::ResolveRanges(data.dims(), starts, ends, axes, steps));
  if (part != nullptr) RETURN_IF_ERROR(slice_kernel::TakePart(*part, ranges));
  if (!IsSupportedDataType(data.type())) {
    return absl::InvalidArgumentError(
        absl::StrCat("data has element type ", DataTypeName(data.type()), ", which Slice does not take"));
  }
  std::vector<int64_t> out_dims;
  out_dims.reserve(ranges.size());
  for (const AxisRange& range : ranges) out_dims.push_back(range.count);
  // Never larger than the input, but checked all the same before anything is reserved.
  ASSIGN_OR_RETURN(const int64_t out_count, CheckedElementCount(out_dims, "Slice output"));
  const int64_t element_size = ElementSize(data.type());
  int64_t out_bytes = 0;
  if (__builtin_mul_overflow(out_count, element_size, &out_bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("Slice output ", slice_kernel::Bracketed(out_dims), " of ",
                                                   DataTypeName(data.type()), " overflows int64 bytes"));
  }
  std::string bytes = std::move(storage);
  bytes.clear();
  std::vector<std::string> strings;
  const auto finish = [&]() -> absl::StatusOr<Tensor> {
    if (data.is_string()) return Tensor::FromStrings(out_dims, std::move(strings));
    return Tensor::FromBytes(data.type(), out_dims, std::move(bytes));
  };
  if (out_count == 0) return finish();

  if (data.is_string()) {
    strings.reserve(out_count);
  } else {
    bytes.reserve(out_bytes);
  }
  slice_kernel::ForEachRun(data.dims(), ranges, out_count, [&](int64_t offset, int64_t run) {
    if (data.is_string()) {
      // Strings are separate objects: a run is copied element by element.
      strings.insert(strings.end(), data.strings().begin() + offset, data.strings().begin() + offset + run);
    } else {
      bytes.append(data.bytes().data() + offset * element_size, run * element_size);
    }
  });
  return finish();
}

// ---------------------------------------------------------------------------------------------------------
// DynamicSlice-1, literally
// ---------------------------------------------------------------------------------------------------------
namespace dynamic_slice_reference {
namespace {

using onnx::TensorProto;

std::string ListOf(const std::vector<int64_t>& values) { return absl::StrCat("[", absl::StrJoin(values, ", "), "]"); }

// DynamicSlice-1: starts, ends and axes are "1-D tensor"s of Tind, which is int32 or int64.
absl::Status CheckIndexTensor(const Tensor& tensor, const char* name) {
  if (tensor.type() != TensorProto::INT64 && tensor.type() != TensorProto::INT32) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be int32 or int64, but is ", DataTypeName(tensor.type())));
  }
  if (tensor.dims().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be 1-D, but has shape ", ListOf(tensor.dims())));
  }
  return absl::OkStatus();
}

int64_t IndexAt(const Tensor& tensor, int64_t i) {
  if (tensor.type() == TensorProto::INT32) {
    int32_t value;
    std::memcpy(&value, tensor.bytes().data() + 4 * i, 4);
    return value;
  }
  int64_t value;
  std::memcpy(&value, tensor.bytes().data() + 8 * i, 8);
  return value;
}

std::vector<int64_t> IndexValues(const Tensor& tensor) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < tensor.dims()[0]; ++i) values.push_back(IndexAt(tensor, i));
  return values;
}

// DynamicSlice-1: "If a negative value is passed for any of the start or end indices, it represent number
// of elements before the end of that dimension. If the value passed to start or end is larger than the n
// (the number of elements in this dimension), it represents n." Values still negative after that (below
// -n) are not covered by the text; the reference runtimes clamp them to 0.
int64_t ClampIndex(int64_t index, int64_t n) {
  if (index < 0) index += n;
  if (index < 0) return 0;
  if (index > n) return n;
  return index;
}

// DynamicSlice-1's inputs checked: data of rank >= 1 and a type it takes; starts, ends and axes 1-D tensors of
// the one type Tind, of one length. Returns the three as values, axes [0, ..., len(starts)-1] when omitted.
struct Indices {
  std::vector<int64_t> starts, ends, axes;
};

absl::StatusOr<Indices> CheckedIndices(const Tensor& data, const Tensor& starts, const Tensor& ends,
                                       const Tensor* axes) {
  if (data.rank() == 0) {
    return absl::InvalidArgumentError("data is a scalar (rank 0): DynamicSlice needs data of rank >= 1");
  }
  if (!IsSupportedDataType(data.type())) {
    return absl::InvalidArgumentError(
        absl::StrCat("data has element type ", DataTypeName(data.type()), ", which DynamicSlice does not take"));
  }
  RETURN_IF_ERROR(CheckIndexTensor(starts, "starts"));
  RETURN_IF_ERROR(CheckIndexTensor(ends, "ends"));
  if (axes != nullptr) RETURN_IF_ERROR(CheckIndexTensor(*axes, "axes"));
  // DynamicSlice-1 types starts, ends and axes with the one type parameter Tind.
  if (ends.type() != starts.type()) {
    return absl::InvalidArgumentError(absl::StrCat("starts is ", DataTypeName(starts.type()), " but ends is ",
                                                   DataTypeName(ends.type()), "; they must share one type (Tind)"));
  }
  if (axes != nullptr && axes->type() != starts.type()) {
    return absl::InvalidArgumentError(absl::StrCat("starts is ", DataTypeName(starts.type()), " but axes is ",
                                                   DataTypeName(axes->type()), "; they must share one type (Tind)"));
  }
  Indices indices{IndexValues(starts), IndexValues(ends), {}};
  if (indices.ends.size() != indices.starts.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("starts has ", indices.starts.size(), " values but ends has ", indices.ends.size()));
  }
  if (axes != nullptr) {
    indices.axes = IndexValues(*axes);
    if (indices.axes.size() != indices.starts.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("starts has ", indices.starts.size(), " values but axes has ", indices.axes.size()));
    }
  } else {
    // The documentation says "[0, ..., ndim-1]"; runtimes use one axis per start: [0, ..., len(starts)-1].
    for (size_t i = 0; i < indices.starts.size(); ++i) indices.axes.push_back(static_cast<int64_t>(i));
  }
  return indices;
}

// Where the result lies in `dims`: the first index and the size of every axis; an axis not in `axes` is kept
// whole. `axes_omitted` only words the messages.
struct Window {
  std::vector<int64_t> begin, size;
};

absl::StatusOr<Window> WindowOf(const std::vector<int64_t>& dims, const Indices& indices, bool axes_omitted) {
  const auto rank = static_cast<int64_t>(dims.size());
  const std::vector<int64_t>& axis_values = indices.axes;
  Window window{std::vector<int64_t>(rank, 0), dims};
  std::vector<int64_t> named_by(rank, -1);  // per axis: the position in axis_values that named it
  for (size_t i = 0; i < axis_values.size(); ++i) {
    // Negative axes are not in DynamicSlice-1's text; ONNX Runtime accepts [-rank, rank-1], as Slice-11 does.
    int64_t axis = axis_values[i];
    if (axis < -rank || axis > rank - 1) {
      return absl::InvalidArgumentError(absl::StrCat("axes holds ", axis_values[i], ", outside [", -rank, ", ",
                                                     rank - 1, "] for data rank ", rank, " (axes ",
                                                     axes_omitted ? "omitted, so " : "", ListOf(axis_values), ")"));
    }
    if (axis < 0) axis += rank;
    if (named_by[axis] >= 0) {
      const int64_t earlier = axis_values[named_by[axis]];
      return absl::InvalidArgumentError(
          earlier == axis_values[i]
              ? absl::StrCat("axes holds ", earlier, " twice (axes ", ListOf(axis_values), ", data rank ", rank, ")")
              : absl::StrCat("axes holds ", earlier, " and ", axis_values[i], ", which both name axis ", axis,
                             " (axes ", ListOf(axis_values), ", data rank ", rank, ")"));
    }
    named_by[axis] = static_cast<int64_t>(i);
    const int64_t first = ClampIndex(indices.starts[i], dims[axis]);
    const int64_t last = ClampIndex(indices.ends[i], dims[axis]);  // exclusive
    window.begin[axis] = first;
    window.size[axis] = last > first ? last - first : 0;  // start >= end: an empty axis, as runtimes give
  }
  return window;
}

// Narrows `window` (the whole result) to `part` of it: InvalidArgument when the part does not lie inside.
absl::Status NarrowToPart(const OutputPart& part, Window& window) {
  const size_t rank = window.size.size();
  bool inside = part.offset.size() == rank && part.size.size() == rank;
  for (size_t a = 0; inside && a < rank; ++a) {
    inside = part.offset[a] >= 0 && part.size[a] >= 0 && part.offset[a] <= window.size[a] &&
             part.size[a] <= window.size[a] - part.offset[a];
  }
  if (!inside) {
    return absl::InvalidArgumentError(absl::StrCat("the part at ", ListOf(part.offset), " of size ", ListOf(part.size),
                                                   " is not inside the DynamicSlice output ", ListOf(window.size)));
  }
  for (size_t a = 0; a < rank; ++a) {
    window.begin[a] += part.offset[a];
    window.size[a] = part.size[a];
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace dynamic_slice_reference

absl::StatusOr<std::vector<int64_t>> DynamicSliceReferenceDims(const Tensor& data, const Tensor& starts,
                                                               const Tensor& ends, const Tensor* axes) {
  ASSIGN_OR_RETURN(const dynamic_slice_reference::Indices indices,
                   dynamic_slice_reference::CheckedIndices(data, starts, ends, axes));
  ASSIGN_OR_RETURN(dynamic_slice_reference::Window window,
                   dynamic_slice_reference::WindowOf(data.dims(), indices, axes == nullptr));
  return std::move(window.size);
}

absl::StatusOr<Tensor> DynamicSliceReference(const Tensor& data, const Tensor& starts, const Tensor& ends,
                                             const Tensor* axes, const OutputPart* part, std::string storage) {
  using dynamic_slice_reference::ListOf;
  const std::vector<int64_t>& dims = data.dims();
  const int64_t rank = data.rank();
  ASSIGN_OR_RETURN(const dynamic_slice_reference::Indices indices,
                   dynamic_slice_reference::CheckedIndices(data, starts, ends, axes));
  ASSIGN_OR_RETURN(dynamic_slice_reference::Window window,
                   dynamic_slice_reference::WindowOf(dims, indices, axes == nullptr));
  if (part != nullptr) RETURN_IF_ERROR(dynamic_slice_reference::NarrowToPart(*part, window));
  const std::vector<int64_t>& begin = window.begin;
  const std::vector<int64_t>& size = window.size;

  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(size, "DynamicSlice output"));
  const int64_t element_size = ElementSize(data.type());
  int64_t byte_count = 0;
  if (__builtin_mul_overflow(count, element_size, &byte_count)) {
    return absl::InvalidArgumentError(absl::StrCat("DynamicSlice output ", ListOf(size), " of ",
                                                   DataTypeName(data.type()), " overflows int64 bytes"));
  }
  std::string out_bytes = std::move(storage);
  out_bytes.clear();
  std::vector<std::string> out_strings;
  if (count > 0) {
    // Input elements per step along each axis (row-major). count > 0 makes every dim >= 1, so these stay
    // below the input's element count.
    std::vector<int64_t> pitch(rank, 1);
    for (int64_t a = rank - 1; a > 0; --a) pitch[a - 1] = pitch[a] * dims[a];
    // Axes kept whole at the back are contiguous with the innermost cut axis: together one run.
    int64_t cut = rank - 1;
    while (cut >= 0 && size[cut] == dims[cut]) --cut;
    const int64_t run = cut < 0 ? count : size[cut] * pitch[cut];
    if (data.is_string()) {
      out_strings.reserve(count);
    } else {
      out_bytes.reserve(byte_count);
    }
    // Run r starts at the output index whose axes after `cut` are 0 and whose axes before it spell r in
    // the mixed radix of the output sizes.
    for (int64_t r = 0; r < count / run; ++r) {
      int64_t source = cut < 0 ? 0 : begin[cut] * pitch[cut];
      int64_t rest = r;
      for (int64_t a = cut - 1; a >= 0; --a) {
        source += (begin[a] + rest % size[a]) * pitch[a];
        rest /= size[a];
      }
      if (data.is_string()) {
        for (int64_t e = 0; e < run; ++e) out_strings.push_back(data.strings()[source + e]);
      } else {
        out_bytes.append(data.bytes(), source * element_size, run * element_size);
      }
    }
  }
  if (data.is_string()) return Tensor::FromStrings(size, std::move(out_strings));
  return Tensor::FromBytes(data.type(), size, std::move(out_bytes));
}

}  // namespace onnx_legalize
