// PRelu 6->7.
//
// What onnx 1.23 (as 1.12) gets wrong: PRelu-6 and before apply a slope of shape [C] per channel, along axis 1
// of X (Caffe2's and PyTorch's PRelu); PRelu-7 broadcasts the slope numpy-style, from the last axis, and onnx
// registers 6->7 as compatible, so the slope would be applied along the last axis (prelu_6_7_test:
// PReluSlopePerChannelBecomesChannelShaped and PReluSlopeOfUnknownMeaningIsRefusedNamingTheNodeAndDims fail
// without this fix).
//
// The fix: a 1-D slope that is not a single value becomes [C, 1, ..., 1] (rank(X) - 1 dims) through an
// Unsqueeze at axes 1..rank(X)-2, wherever X has rank 3 or more; for X of rank 1 or 2 both readings agree. A
// slope of rank 2 or more already lines up the same way under both; one of a single value broadcasts
// anywhere, and an Unsqueeze keeps it correct. Where the ranks are unknown the node is refused.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/labels.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// The axes 1..rank-2 for an Unsqueeze of the slope.
void AddUnsqueezeAxes(int64_t x_rank, const std::string& slope, SpliceContext& ctx, NodeProto* unsqueeze,
                      std::vector<NodeProto>* before) {
  std::vector<int64_t> axes;
  for (int64_t k = 1; k + 1 < x_rank; ++k) axes.push_back(k);
  AddAxes(axes, slope + "_channel_axes", ctx, unsqueeze, before);
}

}  // namespace

absl::Status KeepPReluSlopePerChannel(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx) {
  NodeProto* node = g.nodes->Mutable(i);
  if (orig.op_type() != kPRelu || ctx.move.from >= 7 || !ctx.move.Crosses(7) || node->input_size() != 2) {
    return absl::OkStatus();
  }
  const std::vector<int64_t>* x_dims = KnownDims(ctx.skeleton.types, g.SkeletonInput(i, 0));
  const std::vector<int64_t>* slope_dims = KnownDims(ctx.skeleton.types, g.SkeletonInput(i, 1));
  const bool x_rank_known = x_dims != nullptr;
  if (x_rank_known && x_dims->size() <= 2) return absl::OkStatus();
  if (slope_dims != nullptr && (slope_dims->size() != 1 || (*slope_dims)[0] == 1)) return absl::OkStatus();
  if (!x_rank_known || slope_dims == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(InGraph(NodeLabel(orig), g.where), ": PRelu-", ctx.move.from,
                     " applies its slope per channel (axis 1 of X), PRelu-7 from the last axis; with X of dims ",
                     DimsText(x_dims), " and a slope of dims ", DimsText(slope_dims),
                     " the slope cannot be reshaped to keep its meaning (the ranks must be known)"));
  }
  const std::string slope = node->input(1);
  NodeProto unsqueeze;
  unsqueeze.set_op_type(kUnsqueeze);
  unsqueeze.add_input(slope);
  std::vector<NodeProto>& before = (*g.insert_before)[i];
  AddUnsqueezeAxes(static_cast<int64_t>(x_dims->size()), slope, ctx, &unsqueeze, &before);
  unsqueeze.add_output(ctx.fresh.Make(slope + "_per_channel"));
  node->set_input(1, unsqueeze.output(0));
  before.push_back(std::move(unsqueeze));
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
