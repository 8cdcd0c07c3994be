#include "eval/kernels/broadcast.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"

namespace onnx_legalize {
namespace {

// The binary ops' numpy broadcasting starts at opset 7 (Add-7, And-7, Equal-7, ...).
constexpr int64_t kNumpyBroadcastOpset = 7;

std::string StrCatLegacy(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::optional<int64_t> axis) {
  return absl::StrCat("B ", DimsString(b), " is not a run of A's dims ", DimsString(a),
                      axis ? absl::StrCat(" at axis ", *axis) : std::string(" ending at its last"),
                      " (legacy broadcast=1 before opset 7)");
}

// Legacy broadcasting (opset < 7): B's dims padded to A's rank, placed at `axis` or at the end.
absl::StatusOr<std::vector<int64_t>> LegacyOperandDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                                       std::optional<int64_t> axis) {
  const auto a_rank = static_cast<int64_t>(a.size());
  const auto b_rank = static_cast<int64_t>(b.size());
  bool one = true;
  for (const int64_t dim : b) one = one && dim == 1;
  if (one) return std::vector<int64_t>(a.size(), 1);  // a one-element B (a scalar included) applies to all
  const int64_t start = axis.value_or(a_rank - b_rank);
  if (b_rank > a_rank || start < 0 || start + b_rank > a_rank) {
    return absl::InvalidArgumentError(StrCatLegacy(a, b, axis));
  }
  std::vector<int64_t> padded(a.size(), 1);
  for (int64_t k = 0; k < b_rank; ++k) {
    if (b[k] != a[start + k] && b[k] != 1) return absl::InvalidArgumentError(StrCatLegacy(a, b, axis));
    padded[start + k] = b[k];
  }
  return padded;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> BroadcastDims(const std::vector<std::vector<int64_t>>& operands) {
  size_t rank = 0;
  for (const auto& dims : operands) rank = std::max(rank, dims.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& dims : operands) {
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t& o = out[rank - dims.size() + k];
      if (dims[k] == o || dims[k] == 1) continue;
      if (o != 1) {
        std::vector<std::string> shapes;
        shapes.reserve(operands.size());
        for (const auto& each : operands) shapes.push_back(DimsString(each));
        return absl::InvalidArgumentError(
            absl::StrCat("shapes ", absl::StrJoin(shapes, ", "), " do not broadcast (numpy's rule)"));
      }
      o = dims[k];
    }
  }
  return out;
}

bool BroadcastsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  for (size_t k = 0; k < from.size(); ++k) {
    const int64_t target = to[to.size() - from.size() + k];
    if (from[k] != target && from[k] != 1) return false;
  }
  return true;
}

absl::StatusOr<BinaryShapes> BinaryOperandShapes(const KernelContext& ctx, const std::vector<int64_t>& a,
                                                 const std::vector<int64_t>& b) {
  if (ctx.OpsetAtLeast(kNumpyBroadcastOpset)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "broadcast", "does not have (numpy broadcasting from opset 7)"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "axis", "does not have (numpy broadcasting from opset 7)"));
    ASSIGN_OR_RETURN(std::vector<int64_t> out, BroadcastDims({a, b}));
    return BinaryShapes{out, a, b};
  }
  ASSIGN_OR_RETURN(const int64_t broadcast, IntAttributeOr(ctx.node, "broadcast", 0));
  ASSIGN_OR_RETURN(const std::optional<int64_t> axis, IntAttribute(ctx.node, "axis"));
  if (broadcast == 0) {
    if (a != b) {
      return absl::InvalidArgumentError(absl::StrCat("A is ", DimsString(a), " and B is ", DimsString(b), "; ",
                                                     ctx.node.op_type(), " at opset ", ctx.opset(),
                                                     " without broadcast=1 needs equal shapes"));
    }
    return BinaryShapes{a, a, b};
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> padded, LegacyOperandDims(a, b, axis));
  return BinaryShapes{a, a, padded};
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t k = in.size(); k-- > 0;) {
    const size_t d = out.size() - in.size() + k;
    strides[d] = in[k] == 1 ? 0 : stride;
    stride *= in[k];
  }
  return strides;
}

}  // namespace onnx_legalize
