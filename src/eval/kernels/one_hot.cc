// OneHot (9, 11): the output has the indices' dims with `depth` inserted at `axis`; along it, an element is
// values[1] (on) where its position is the index there, values[0] (off) elsewhere.
//
// An index in [-depth, -1] counts from the back at both versions. OneHot-11's text says so; OneHot-9's says an index
// outside [0, depth) is off everywhere, but ONNX Runtime reads OneHot-9 as 11 (one kernel for both), and so does
// onnx's converter, which moves 10 -> 11 unchanged: the runner reads it as they do. The form that moves OneHot-11 down
// (upgrade/down_replacements.cc) hands OneHot-10 no negative index, so it is exact in either reading. An index
// outside [-depth, depth - 1] is off everywhere, and so is a floating index that is not a whole number (ONNX Runtime
// compares each index with the positions in its own type).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using absl::StrCat;

// The one element of `tensor` (a scalar or one element of a numeric type) as an int64, or why not.
absl::StatusOr<int64_t> Depth(const Tensor& depth) {
  if (depth.element_count() != 1) return absl::InvalidArgumentError(StrCat("depth is ", Describe(depth)));
  return VisitNumeric(depth.type(), "depth", [&](auto zero) -> absl::StatusOr<int64_t> {
    using T = decltype(zero);
    const T value = ReadAs<T>(depth)[0];
    if constexpr (std::is_floating_point_v<T>) {
      if (!(value >= 1 && value < 9.2e18)) return absl::InvalidArgumentError(StrCat("depth is ", value));
    }
    return static_cast<int64_t>(value);
  });
}

// The position along the new axis that each index sets, counted from the front, or -1 for none.
absl::StatusOr<std::vector<int64_t>> Positions(const Tensor& indices, int64_t depth) {
  return VisitNumeric(indices.type(), "indices", [&](auto zero) -> absl::StatusOr<std::vector<int64_t>> {
    using T = decltype(zero);
    std::vector<int64_t> positions;
    positions.reserve(static_cast<size_t>(indices.element_count()));
    for (const T value : ReadAs<T>(indices)) {
      int64_t index = -1;
      if constexpr (std::is_floating_point_v<T>) {
        // A fraction, not finite, or past int64: no position.
        const bool whole = std::isfinite(value) && std::abs(value) < 9.2e18 && std::trunc(value) == value;
        index = whole ? static_cast<int64_t>(value) : std::numeric_limits<int64_t>::min();
      } else if constexpr (std::is_unsigned_v<T>) {
        index = value > static_cast<uint64_t>(depth) ? depth : static_cast<int64_t>(value);
      } else {
        // NOLINTNEXTLINE(bugprone-signed-char-misuse): int8 indices are numbers, widened as such
        index = static_cast<int64_t>(value);
      }
      if (index < 0 && index >= -depth) index += depth;
      positions.push_back(index >= 0 && index < depth ? index : -1);
    }
    return positions;
  });
}

absl::StatusOr<Outputs> RunOneHot(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 3));
  ASSIGN_OR_RETURN(const Tensor* indices, RequiredInput(ctx, 0, "indices"));
  ASSIGN_OR_RETURN(const Tensor* depth_tensor, RequiredInput(ctx, 1, "depth"));
  ASSIGN_OR_RETURN(const Tensor* values, RequiredInput(ctx, 2, "values"));
  if (values->rank() != 1 || values->element_count() != 2) {
    return absl::InvalidArgumentError(StrCat("values is ", Describe(*values), "; OneHot takes [off, on]"));
  }
  ASSIGN_OR_RETURN(const int64_t depth, Depth(*depth_tensor));
  if (depth < 1) return absl::InvalidArgumentError(StrCat("depth is ", depth, "; OneHot needs at least 1"));
  ASSIGN_OR_RETURN(const int64_t axis_attribute, IntAttributeOr(ctx.node, "axis", -1));
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_attribute, indices->rank() + 1, "axis"));
  std::vector<int64_t> out_dims = indices->dims();
  out_dims.insert(out_dims.begin() + axis, depth);
  ASSIGN_OR_RETURN(const int64_t out_count, CheckedOutputCount(out_dims, "OneHot's output"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> positions, Positions(*indices, depth));
  const int64_t outer = DimsProduct(indices->dims(), 0, static_cast<size_t>(axis));
  const int64_t inner = DimsProduct(indices->dims(), static_cast<size_t>(axis), indices->dims().size());
  // Whether output element [o, d, i] (outer, position along the new axis, inner) is on.
  auto is_on = [&](int64_t o, int64_t d, int64_t i) { return positions[static_cast<size_t>(o * inner + i)] == d; };
  if (values->is_string()) {
    std::vector<std::string> strings;
    strings.reserve(static_cast<size_t>(out_count));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t d = 0; d < depth; ++d) {
        for (int64_t i = 0; i < inner; ++i) strings.push_back(values->strings()[is_on(o, d, i) ? 1 : 0]);
      }
    }
    return Single(Tensor::FromStrings(std::move(out_dims), std::move(strings)));
  }
  const auto size = static_cast<size_t>(ElementSize(values->type()));
  const std::string_view off = values->bytes().substr(0, size), on = values->bytes().substr(size, size);
  std::string bytes;
  bytes.reserve(static_cast<size_t>(out_count) * size);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t i = 0; i < inner; ++i) bytes.append(is_on(o, d, i) ? on : off);
    }
  }
  return Single(Tensor::FromBytes(values->type(), std::move(out_dims), std::move(bytes)));
}

}  // namespace

void AddOneHotKernels(KernelTable& table) { table["OneHot"] = RunOneHot; }

}  // namespace onnx_legalize
