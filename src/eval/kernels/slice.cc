// Slice and DynamicSlice, evaluated with eval/slice_kernels.h, the kernels verification trusts; this file
// only wires them up by version.
#include <optional>
#include <vector>

#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/registry.h"
#include "eval/slice_kernels.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

absl::StatusOr<Outputs> RunSlice(const KernelContext& ctx) {
  if (!ctx.OpsetAtLeast(10)) {
    // Slice-1: starts, ends and the optional axes are attributes.
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> starts, IntsAttribute(ctx.node, "starts"));
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> ends, IntsAttribute(ctx.node, "ends"));
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes, IntsAttribute(ctx.node, "axes"));
    if (!starts || !ends) return absl::InvalidArgumentError("Slice-1 needs attributes 'starts' and 'ends'");
    std::optional<Tensor> axes_tensor;
    if (axes) axes_tensor = Tensor::FromInt64s(*axes);
    const Tensor* axes_ptr = axes_tensor ? &*axes_tensor : nullptr;
    return Single(Slice(*data, Tensor::FromInt64s(*starts), Tensor::FromInt64s(*ends), axes_ptr, nullptr));
  }
  RETURN_IF_ERROR(RejectAttribute(ctx, "starts", "takes as input 1 instead"));
  RETURN_IF_ERROR(RejectAttribute(ctx, "ends", "takes as input 2 instead"));
  RETURN_IF_ERROR(RejectAttribute(ctx, "axes", "takes as input 3 instead"));
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 5));
  ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const Tensor* starts, RequiredInput(ctx, 1, "starts"));
  ASSIGN_OR_RETURN(const Tensor* ends, RequiredInput(ctx, 2, "ends"));
  return Single(Slice(*data, *starts, *ends, ctx.Input(3), ctx.Input(4)));
}

absl::StatusOr<Outputs> RunDynamicSlice(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 4));
  ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const Tensor* starts, RequiredInput(ctx, 1, "starts"));
  ASSIGN_OR_RETURN(const Tensor* ends, RequiredInput(ctx, 2, "ends"));
  return Single(DynamicSliceReference(*data, *starts, *ends, ctx.Input(3)));
}

}  // namespace

void AddSliceKernels(KernelTable& table) {
  table[kSliceOp] = RunSlice;
  table[kDynamicSliceOp] = RunDynamicSlice;
}

}  // namespace onnx_legalize
