// Add, Sub, Mul, Div and Pow 6->7: legacy broadcasting.
//
// What onnx 1.12 gets wrong: legacy broadcasting (opset <= 6, broadcast=1, axis=a) aligns B with A starting at
// axis a, so B needs rank(A) - a - rank(B) trailing ones to broadcast numpy-style. onnx 1.12's 6->7 adapter
// unsqueezes B at [rank(B) .. rank(A)-1], rank(A) - rank(B) of them whatever a is: a too many. Where the ranks
// are known and B so padded does not broadcast with A, the adapter then stops at its own broadcast check.
//
// The fix: before the converter, CheckLegacyBroadcastsConvert refuses, naming the node and the dims, a legacy
// broadcast the adapter would stop at (rather than the converter's assertion); after it, FixLegacyBroadcast
// drops the last a axes of the adapter's Unsqueeze.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {
namespace {

bool TakesLegacyBroadcast(const std::string& op_type) {
  return op_type == "Add" || op_type == "Sub" || op_type == "Mul" || op_type == "Div" || op_type == "Pow";
}

// The axes of the converter-made Unsqueeze `unsqueeze`: its attribute (before opset 13) or the int64 data
// of the Constant it reads (from 13), that Constant's dims already shortened by `axis`; null if neither.
google::protobuf::RepeatedField<int64_t>* UnsqueezeAxes(const SplicedNodes& g, int unsqueeze, int64_t axis) {
  NodeProto* u = g.nodes->Mutable(unsqueeze);
  google::protobuf::RepeatedField<int64_t>* axes = nullptr;
  for (auto& a : *u->mutable_attribute()) {
    if (a.name() == "axes") axes = a.mutable_ints();
  }
  if (axes == nullptr && u->input_size() == 2) {
    const int c = g.MadeProducer(u->input(1), kConstantOp);
    if (c >= 0) {
      for (auto& a : *g.nodes->Mutable(c)->mutable_attribute()) {
        if (a.name() == "value" && a.has_t() && a.t().raw_data().empty() && a.t().dims_size() == 1 &&
            a.t().int64_data_size() > axis) {
          axes = a.mutable_t()->mutable_int64_data();
          a.mutable_t()->set_dims(0, a.t().int64_data_size() - axis);
        }
      }
    }
  }
  return axes;
}

// Whether two shapes broadcast numpy-style (from the last axis); an unknown dim (-1) broadcasts with any.
bool NumpyBroadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t k = 1; k <= std::min(a.size(), b.size()); ++k) {
    const int64_t x = a[a.size() - k], y = b[b.size() - k];
    if (x >= 0 && y >= 0 && x != y && x != 1 && y != 1) return false;
  }
  return true;
}

}  // namespace

absl::Status CheckLegacyBroadcastsConvert(const Skeleton& skeleton, const Move& move) {
  if (move.from >= 7 || !move.Crosses(7)) return absl::OkStatus();
  for (const NodeRecord& record : skeleton.records) {
    const NodeProto& node = *record.original;
    if (record.opaque || node.input_size() != 2 || !TakesLegacyBroadcast(node.op_type())) continue;
    std::optional<int64_t> axis;
    bool legacy = false;
    for (const auto& a : node.attribute()) {
      if (a.name() == "axis") axis = a.i();
      if (a.name() == "broadcast") legacy = a.i() != 0;
    }
    const std::vector<int64_t>* a_dims = KnownDims(skeleton.types, skeleton.codec.Encoded(node.input(0)));
    const std::vector<int64_t>* b_dims = KnownDims(skeleton.types, skeleton.codec.Encoded(node.input(1)));
    if (!legacy || !axis.has_value() || a_dims == nullptr || b_dims == nullptr) continue;
    const auto a_rank = static_cast<int64_t>(a_dims->size()), b_rank = static_cast<int64_t>(b_dims->size());
    if (*axis == a_rank - b_rank) continue;  // the adapter leaves B as it is
    std::vector<int64_t> adapted = *b_dims;  // what the adapter makes of B
    adapted.resize(static_cast<size_t>(std::max(a_rank, b_rank)), 1);
    if (NumpyBroadcastable(*a_dims, adapted)) continue;  // converted, then put right by FixLegacyBroadcast
    return absl::FailedPreconditionError(
        absl::StrCat(InGraph(NodeLabel(node), record.path), ": its legacy broadcast puts B '", node.input(1),
                     "' (dims ", DimsText(b_dims), ") at axis ", *axis, " of A '", node.input(0), "' (dims ",
                     DimsText(a_dims), "); onnx 1.12's 6->7 adapter gives B trailing ones (dims ", DimsText(&adapted),
                     "), which do not broadcast with A, so it cannot be moved to opset ", move.to));
  }
  return absl::OkStatus();
}

absl::Status FixLegacyBroadcast(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx) {
  const NodeProto& node = g.nodes->Get(i);
  if (!ctx.move.Crosses(7) || ctx.move.from >= 7 || node.input_size() != 2 || !TakesLegacyBroadcast(orig.op_type())) {
    return absl::OkStatus();
  }
  int64_t axis = 0;
  bool legacy = false;
  for (const auto& a : orig.attribute()) {
    if (a.name() == "axis") axis = a.i();
    if (a.name() == "broadcast") legacy = a.i() != 0;
  }
  const int unsqueeze = g.MadeProducer(node.input(1), "Unsqueeze");
  if (!legacy || axis <= 0 || unsqueeze < 0) return absl::OkStatus();
  google::protobuf::RepeatedField<int64_t>* axes = UnsqueezeAxes(g, unsqueeze, axis);
  if (axes == nullptr || axes->size() <= axis) {
    return absl::FailedPreconditionError(
        absl::StrCat(InGraph(NodeLabel(orig), g.where), ": cannot express its legacy broadcast at axis ", axis));
  }
  axes->Truncate(static_cast<int>(axes->size() - axis));
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
