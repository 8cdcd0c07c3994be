// Ops that move elements without computing on them: Concat, Split, Gather, Transpose, Tile, DepthToSpace,
// SpaceToDepth. They copy bytes, so they take every fixed-size type (Concat and Gather strings too).
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/broadcast.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

absl::Status RejectStrings(const Tensor& x, absl::string_view op) {
  if (x.is_string()) return absl::UnimplementedError(StrCat(op, " of ", Describe(x), " (strings)"));
  return absl::OkStatus();
}

// `x`'s elements seen with dims `dims` (same count), transposed by `perm`.
absl::StatusOr<Tensor> Permute(const Tensor& x, const std::vector<int64_t>& dims, const std::vector<int64_t>& perm,
                               std::vector<int64_t> out_dims_as) {
  std::vector<int64_t> in_strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) in_strides[d - 1] = in_strides[d] * dims[d];
  std::vector<int64_t> out_dims(perm.size());
  std::array<std::vector<int64_t>, 1> strides = {std::vector<int64_t>(perm.size())};
  for (size_t d = 0; d < perm.size(); ++d) {
    out_dims[d] = dims[perm[d]];
    strides[0][d] = in_strides[perm[d]];
  }
  const auto size = static_cast<size_t>(ElementSize(x.type()));
  std::string bytes(static_cast<size_t>(x.element_count()) * size, '\0');
  const char* in = x.bytes().data();
  ForEachBroadcast(out_dims, strides, [&](int64_t i, const std::array<int64_t, 1>& at) {
    std::memcpy(bytes.data() + i * size, in + at[0] * size, size);
  });
  return Tensor::FromBytes(x.type(), std::move(out_dims_as), std::move(bytes));
}

// Concat-1's axis is optional (default 1); Concat-4 requires it; negative from Concat-11.
absl::StatusOr<Outputs> RunConcat(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, std::numeric_limits<int>::max()));
  ASSIGN_OR_RETURN(std::optional<int64_t> axis_attr, IntAttribute(ctx.node, "axis"));
  if (!axis_attr && !ctx.OpsetAtLeast(4)) axis_attr = 1;
  if (!axis_attr) return absl::InvalidArgumentError("attribute 'axis' is missing");
  std::vector<const Tensor*> parts;
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    ASSIGN_OR_RETURN(const Tensor* part, RequiredInput(ctx, i, "inputs"));
    parts.push_back(part);
  }
  const Tensor& first = *parts.front();
  if (first.rank() == 0) return absl::InvalidArgumentError("cannot concatenate scalars");
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(*axis_attr, first.rank(), "axis"));
  std::vector<int64_t> out_dims = first.dims();
  out_dims[axis] = 0;
  for (const Tensor* part : parts) {
    bool compatible = part->type() == first.type() && part->rank() == first.rank();
    for (int64_t d = 0; compatible && d < first.rank(); ++d) {
      compatible = d == axis || part->dims()[d] == first.dims()[d];
    }
    if (!compatible) {
      return absl::InvalidArgumentError(
          StrCat("cannot concatenate ", Describe(*part), " with ", Describe(first), " along axis ", axis));
    }
    out_dims[axis] += part->dims()[axis];
  }
  return Single(ConcatenateAlong(parts, axis, std::move(out_dims)));
}

constexpr int64_t kSplitNumOutputsOpset = 18;

// Split-18's num_outputs parts: equal, or when they cannot be, each ceil(dim / n) and the last what remains.
absl::StatusOr<std::vector<int64_t>> NumOutputsSizes(const KernelContext& ctx, int64_t num_outputs, int64_t dim) {
  if (num_outputs < 1 || num_outputs != ctx.node.output_size()) {
    return absl::InvalidArgumentError(
        StrCat("num_outputs ", num_outputs, " is not the node's ", ctx.node.output_size(), " outputs"));
  }
  const int64_t chunk = (dim + num_outputs - 1) / num_outputs;
  const int64_t last = dim - chunk * (num_outputs - 1);
  if (last < 0) {
    // 5 into 4: chunks of 2 leave -1 for the last; the text gives no other rule.
    return absl::InvalidArgumentError(StrCat("axis of size ", dim, " does not split into ", num_outputs, " parts of ",
                                             chunk, " and a smaller last one"));
  }
  std::vector<int64_t> sizes(static_cast<size_t>(num_outputs), chunk);
  sizes.back() = last;
  return sizes;
}

// The part sizes of Split: attribute `split` (Split-1, Split-2, Split-11), or input 1 (Split-1's optional
// input, Split-13); without either, equal parts, one per output, which must divide the axis. Split-18 asks for
// input 1 or attribute num_outputs, exactly one of them.
absl::StatusOr<std::vector<int64_t>> SplitSizes(const KernelContext& ctx, int64_t dim) {
  std::optional<std::vector<int64_t>> sizes;
  if (ctx.OpsetAtLeast(13)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "split", "takes as input 1 instead"));
  } else {
    ASSIGN_OR_RETURN(sizes, IntsAttribute(ctx.node, "split"));
  }
  if (const Tensor* input = ctx.Input(1)) {
    ASSIGN_OR_RETURN(sizes, input->ToInt64s("split"));
  }
  if (ctx.OpsetAtLeast(kSplitNumOutputsOpset)) {
    ASSIGN_OR_RETURN(const std::optional<int64_t> num_outputs, IntAttribute(ctx.node, "num_outputs"));
    if (sizes.has_value() == num_outputs.has_value()) {
      return absl::InvalidArgumentError("Split-18 takes exactly one of input 'split' and attribute 'num_outputs'");
    }
    if (num_outputs) return NumOutputsSizes(ctx, *num_outputs, dim);
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "num_outputs", "does not have (added at opset 18)"));
  }
  const int outputs = ctx.node.output_size();
  if (!sizes) {
    if (outputs == 0 || dim % outputs != 0) {
      return absl::InvalidArgumentError(StrCat("axis of size ", dim, " does not split into ", outputs, " equal parts"));
    }
    return std::vector<int64_t>(static_cast<size_t>(outputs), dim / outputs);
  }
  int64_t total = 0;
  for (const int64_t size : *sizes) {
    if (size < 0) return absl::InvalidArgumentError(StrCat("split has a negative size ", size));
    total += size;
  }
  if (total != dim || static_cast<int>(sizes->size()) != outputs) {
    return absl::InvalidArgumentError(StrCat("split ", DimsString(*sizes), " does not divide an axis of ", dim,
                                             " into the node's ", outputs, " outputs"));
  }
  return *sizes;
}

absl::StatusOr<Outputs> RunSplit(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, ctx.OpsetAtLeast(13) || !ctx.OpsetAtLeast(2) ? 2 : 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  RETURN_IF_ERROR(RejectStrings(*x, "Split"));
  ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttributeOr(ctx.node, "axis", 0));
  if (x->rank() == 0) return absl::InvalidArgumentError("cannot split a scalar");
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_attr, x->rank(), "axis"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> sizes, SplitSizes(ctx, x->dims()[axis]));
  const int64_t outer = DimsProduct(x->dims(), 0, static_cast<size_t>(axis));
  const int64_t inner = DimsProduct(x->dims(), static_cast<size_t>(axis) + 1, x->dims().size());
  const int64_t element_size = ElementSize(x->type());
  const int64_t row = x->dims()[axis] * inner * element_size;
  Outputs outputs;
  int64_t start = 0;
  for (const int64_t size : sizes) {
    std::vector<int64_t> dims = x->dims();
    dims[axis] = size;
    std::string bytes;
    bytes.reserve(static_cast<size_t>(outer * size * inner * element_size));
    for (int64_t o = 0; o < outer; ++o) {
      bytes.append(x->bytes(), o * row + start * inner * element_size, size * inner * element_size);
    }
    ASSIGN_OR_RETURN(Tensor part, Tensor::FromBytes(x->type(), std::move(dims), std::move(bytes)));
    outputs.push_back(Share(std::move(part)));
    start += size;
  }
  return outputs;
}

absl::StatusOr<std::vector<int64_t>> GatherIndices(const Tensor& indices, int64_t size) {
  std::vector<int64_t> values;
  if (indices.type() == TensorProto::INT64) {
    values = ElementsOf<int64_t>(indices);
  } else if (indices.type() == TensorProto::INT32) {
    const std::vector<int32_t> narrow = ElementsOf<int32_t>(indices);
    values.assign(narrow.begin(), narrow.end());
  } else {
    return absl::InvalidArgumentError(StrCat("indices must be int32 or int64, got ", Describe(indices)));
  }
  for (int64_t& index : values) {
    if (index < -size || index >= size) {
      return absl::InvalidArgumentError(StrCat("index ", index, " is outside [", -size, ", ", size - 1, "]"));
    }
    if (index < 0) index += size;
  }
  return values;
}

// Gather: out = data[:axis] + indices.dims + data[axis+1:]; each (outer, index) pair copies one run.
absl::StatusOr<Outputs> RunGather(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const Tensor* indices, RequiredInput(ctx, 1, "indices"));
  if (data->rank() < 1) return absl::InvalidArgumentError("data is a scalar; Gather needs rank >= 1");
  ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttributeOr(ctx.node, "axis", 0));
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_attr, data->rank(), "axis"));
  const int64_t size = data->dims()[axis];
  absl::StatusOr<std::vector<int64_t>> index_values = GatherIndices(*indices, size);
  if (!index_values.ok()) return Prefixed(index_values.status(), StrCat("data ", Describe(*data)));
  std::vector<int64_t> out_dims(data->dims().begin(), data->dims().begin() + axis);
  out_dims.insert(out_dims.end(), indices->dims().begin(), indices->dims().end());
  out_dims.insert(out_dims.end(), data->dims().begin() + axis + 1, data->dims().end());
  ASSIGN_OR_RETURN(const int64_t out_count, CheckedElementCount(out_dims, "Gather output"));
  RETURN_IF_ERROR(CheckValueSize(out_count, "Gather's output"));
  const int64_t outer = DimsProduct(data->dims(), 0, static_cast<size_t>(axis));
  const int64_t inner = DimsProduct(data->dims(), static_cast<size_t>(axis) + 1, data->dims().size());
  if (data->is_string()) {
    std::vector<std::string> strings;
    strings.reserve(out_count);
    for (int64_t o = 0; o < outer; ++o) {
      for (const int64_t index : *index_values) {
        const auto begin = data->strings().begin() + (o * size + index) * inner;
        strings.insert(strings.end(), begin, begin + inner);
      }
    }
    return Single(Tensor::FromStrings(std::move(out_dims), std::move(strings)));
  }
  const int64_t run = inner * ElementSize(data->type());
  std::string bytes;
  bytes.reserve(out_count * ElementSize(data->type()));
  for (int64_t o = 0; o < outer; ++o) {
    for (const int64_t index : *index_values) bytes.append(data->bytes(), (o * size + index) * run, run);
  }
  return Single(Tensor::FromBytes(data->type(), std::move(out_dims), std::move(bytes)));
}

// Transpose: perm defaults to the dims reversed.
absl::StatusOr<Outputs> RunTranspose(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  RETURN_IF_ERROR(RejectStrings(*x, "Transpose"));
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> perm, IntsAttribute(ctx.node, "perm"));
  if (!perm) {
    perm.emplace();
    for (int64_t d = x->rank(); d-- > 0;) perm->push_back(d);
  }
  std::vector<bool> seen(x->rank(), false);
  for (const int64_t axis : *perm) {
    if (static_cast<int64_t>(perm->size()) != x->rank() || axis < 0 || axis >= x->rank() || seen[axis]) {
      return absl::InvalidArgumentError(
          StrCat("perm ", DimsString(*perm), " is not a permutation of ", x->rank(), " axes of ", Describe(*x)));
    }
    seen[axis] = true;
  }
  std::vector<int64_t> out_dims;
  for (const int64_t axis : *perm) out_dims.push_back(x->dims()[axis]);
  return Single(Permute(*x, x->dims(), *perm, out_dims));
}

// The repeats of Tile: Tile-1's (tiles, axis) scalars repeat one axis; Tile-6's repeats input one per axis.
absl::StatusOr<std::vector<int64_t>> TileRepeats(const KernelContext& ctx, const Tensor& x) {
  if (!ctx.OpsetAtLeast(6)) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 3));
    ASSIGN_OR_RETURN(const Tensor* tiles, RequiredInput(ctx, 1, "tiles"));
    ASSIGN_OR_RETURN(const Tensor* axis, RequiredInput(ctx, 2, "axis"));
    ASSIGN_OR_RETURN(const std::vector<int64_t> count, tiles->ToInt64s("tiles"));
    ASSIGN_OR_RETURN(const std::vector<int64_t> along, axis->ToInt64s("axis"));
    if (count.size() != 1 || along.size() != 1 || along[0] < 0 || along[0] >= x.rank()) {
      return absl::InvalidArgumentError("Tile-1's tiles and axis must be one count and one axis of the input");
    }
    std::vector<int64_t> repeats(x.rank(), 1);
    repeats[along[0]] = count[0];
    return repeats;
  }
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* repeats_tensor, RequiredInput(ctx, 1, "repeats"));
  if (repeats_tensor->type() != TensorProto::INT64 || repeats_tensor->rank() != 1) {
    return absl::InvalidArgumentError(StrCat("repeats must be a 1-D int64 tensor, got ", Describe(*repeats_tensor)));
  }
  return repeats_tensor->ToInt64s("repeats");
}

absl::StatusOr<Outputs> RunTile(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  RETURN_IF_ERROR(RejectStrings(*x, "Tile"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> repeats, TileRepeats(ctx, *x));
  if (static_cast<int64_t>(repeats.size()) != x->rank()) {
    return absl::InvalidArgumentError(StrCat("repeats ", DimsString(repeats), " do not match ", Describe(*x)));
  }
  std::vector<int64_t> out_dims = x->dims();
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) return absl::InvalidArgumentError(StrCat("repeats ", DimsString(repeats), " is negative"));
    out_dims[d] *= repeats[d];
  }
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(out_dims, "Tile's output"));
  // The output seen as [r0, d0, r1, d1, ...]: input element (c0, c1, ...) at every (k0, c0, k1, c1, ...).
  std::vector<int64_t> split_dims;
  std::array<std::vector<int64_t>, 1> strides;
  int64_t stride = x->element_count();
  for (size_t d = 0; d < repeats.size(); ++d) {
    stride = x->dims()[d] == 0 ? 0 : stride / x->dims()[d];
    split_dims.insert(split_dims.end(), {repeats[d], x->dims()[d]});
    strides[0].insert(strides[0].end(), {0, stride});
  }
  const auto size = static_cast<size_t>(ElementSize(x->type()));
  std::string bytes(static_cast<size_t>(count) * size, '\0');
  const char* in = x->bytes().data();
  ForEachBroadcast(split_dims, strides, [&](int64_t i, const std::array<int64_t, 1>& at) {
    std::memcpy(bytes.data() + i * size, in + at[0] * size, size);
  });
  return Single(Tensor::FromBytes(x->type(), std::move(out_dims), std::move(bytes)));
}

absl::StatusOr<int64_t> BlockSize(const KernelContext& ctx, const Tensor& x) {
  ASSIGN_OR_RETURN(const std::optional<int64_t> block, IntAttribute(ctx.node, "blocksize"));
  if (!block || *block <= 0) return absl::InvalidArgumentError("attribute 'blocksize' must be a positive int");
  if (x.rank() != 4) return absl::InvalidArgumentError(StrCat("input is ", Describe(x), "; the op takes 4-D NCHW"));
  return *block;
}

// DepthToSpace: DCR (DepthToSpace-1, and mode DCR from 11) reads the depth as [b, b, C/b^2]; CRD (from 11)
// as [C/b^2, b, b].
absl::StatusOr<Outputs> RunDepthToSpace(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  RETURN_IF_ERROR(RejectStrings(*x, "DepthToSpace"));
  ASSIGN_OR_RETURN(const int64_t b, BlockSize(ctx, *x));
  std::string mode = "DCR";
  if (ctx.OpsetAtLeast(11)) {
    ASSIGN_OR_RETURN(mode, StringAttributeOr(ctx.node, "mode", "DCR"));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "mode", "does not have (DepthToSpace-11 added it)"));
  }
  const int64_t n = x->dims()[0], c = x->dims()[1], h = x->dims()[2], w = x->dims()[3];
  if (c % (b * b) != 0) return absl::InvalidArgumentError(StrCat("channels ", c, " are not a multiple of ", b * b));
  const std::vector<int64_t> out_dims = {n, c / (b * b), h * b, w * b};
  if (mode == "DCR") return Single(Permute(*x, {n, b, b, c / (b * b), h, w}, {0, 3, 4, 1, 5, 2}, out_dims));
  if (mode == "CRD") return Single(Permute(*x, {n, c / (b * b), b, b, h, w}, {0, 1, 4, 2, 5, 3}, out_dims));
  return absl::InvalidArgumentError(StrCat("mode '", mode, "' is neither DCR nor CRD"));
}

constexpr int64_t kSpaceToDepthModeOpset = 28;

// SpaceToDepth: each b x b block of a channel becomes b^2 channels. DCR (SpaceToDepth-1, and SpaceToDepth-28's
// default) writes the depth as [b, b, C], the order SpaceToDepth always had; CRD (from 28) as [C, b, b], the
// inverse of DepthToSpace's CRD.
absl::StatusOr<Outputs> RunSpaceToDepth(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  RETURN_IF_ERROR(RejectStrings(*x, "SpaceToDepth"));
  ASSIGN_OR_RETURN(const int64_t b, BlockSize(ctx, *x));
  std::string mode = "DCR";
  if (ctx.OpsetAtLeast(kSpaceToDepthModeOpset)) {
    ASSIGN_OR_RETURN(mode, StringAttributeOr(ctx.node, "mode", "DCR"));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "mode", "does not have (SpaceToDepth-28 added it)"));
  }
  const int64_t n = x->dims()[0], c = x->dims()[1], h = x->dims()[2], w = x->dims()[3];
  if (h % b != 0 || w % b != 0) {
    return absl::InvalidArgumentError(StrCat("spatial dims of ", Describe(*x), " are not multiples of ", b));
  }
  const std::vector<int64_t> blocks = {n, c, h / b, b, w / b, b};
  const std::vector<int64_t> out_dims = {n, c * b * b, h / b, w / b};
  if (mode == "DCR") return Single(Permute(*x, blocks, {0, 3, 5, 1, 2, 4}, out_dims));
  if (mode == "CRD") return Single(Permute(*x, blocks, {0, 1, 3, 5, 2, 4}, out_dims));
  return absl::InvalidArgumentError(StrCat("mode '", mode, "' is neither DCR nor CRD"));
}

}  // namespace

void AddDataMovementKernels(KernelTable& table) {
  table["Concat"] = RunConcat;
  table["Split"] = RunSplit;
  table["Gather"] = RunGather;
  table["Transpose"] = RunTranspose;
  table["Tile"] = RunTile;
  table["DepthToSpace"] = RunDepthToSpace;
  table["SpaceToDepth"] = RunSpaceToDepth;
}

}  // namespace onnx_legalize
