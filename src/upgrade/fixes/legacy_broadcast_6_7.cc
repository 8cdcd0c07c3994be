// Add, Sub, Mul, Div and Pow 6->7: legacy broadcasting.
//
// What onnx 1.23 (as 1.12) gets wrong: legacy broadcasting (opset <= 6, broadcast=1, axis=a) aligns B with A
// starting at axis a, so B needs rank(A) - a - rank(B) trailing ones to broadcast numpy-style. onnx's 6->7
// adapter unsqueezes B at [rank(B) .. rank(A)-1], rank(A) - rank(B) of them whatever a is: a too many. Where the
// ranks are known and B so padded does not broadcast with A, the adapter then stops at its own broadcast check.
// (legacy_broadcast_6_7_test: LegacyBroadcastAlignsTheSecondInputAtItsAxis fails without FixLegacyBroadcast;
// ALegacyBroadcastAtAMiddleAxisIsAlignedBeforeTheConverter and
// RefusesALegacyBroadcastWhoseBDoesNotFitInANamingItsDims fail without AlignLegacyBroadcasts.)
//
// The fix: before the converter, AlignLegacyBroadcasts gives B of a legacy broadcast the adapter would stop at
// (B of rank 2 or more at a middle axis: Caffe2's and CNTK's exports, B [2,4] at axis 1 of A [1,2,4,3]) the
// trailing ones it needs, by an Unsqueeze-1 of B placed before the node in the caller's model: B then ends at
// A's last axis, where the adapter leaves it, and numpy broadcasting computes what the legacy one did. After
// the converter, FixLegacyBroadcast drops the last a axes of the adapter's Unsqueeze, where it made one.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/labels.h"
#include "graph/names.h"
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

absl::StatusOr<std::optional<google::protobuf::RepeatedPtrField<NodeProto>>> AlignLegacyBroadcasts(
    const Skeleton& skeleton, const Move& move, ModelProto& model) {
  std::optional<google::protobuf::RepeatedPtrField<NodeProto>> before;
  if (move.from >= 7 || !move.Crosses(7)) return before;
  FreshNames fresh;
  // The Unsqueezes to add, by the node they go before (its index in the caller's main graph).
  std::map<int, NodeProto> unsqueezes;
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
    const std::string label = InGraph(NodeLabel(node), record.path);
    if (record.owner != &model.graph() || *axis < 0 || *axis + b_rank > a_rank) {
      return absl::FailedPreconditionError(absl::StrCat(
          label, ": its legacy broadcast puts B '", node.input(1), "' (dims ", DimsText(b_dims), ") at axis ", *axis,
          " of A '", node.input(0), "' (dims ", DimsText(a_dims), "), which ",
          record.owner != &model.graph() ? "onnx-legalize aligns only in the main graph" : "does not fit in A",
          ", so it cannot be moved to opset ", move.to));
    }
    if (unsqueezes.empty()) fresh.ReserveAll(model.graph());
    int index = 0;
    while (&model.graph().node(index) != &node) ++index;
    NodeProto unsqueeze;
    unsqueeze.set_op_type("Unsqueeze");
    unsqueeze.set_name(fresh.Make(absl::StrCat(node.name().empty() ? node.op_type() : node.name(), "_align_b")));
    unsqueeze.add_input(node.input(1));
    unsqueeze.add_output(fresh.Make(absl::StrCat(node.input(1), "_at_axis_", *axis)));
    AttributeProto* axes = unsqueeze.add_attribute();
    axes->set_name("axes");
    axes->set_type(AttributeProto::INTS);
    for (int64_t d = b_rank; d < a_rank - *axis; ++d) axes->add_ints(d);
    unsqueezes.emplace(index, std::move(unsqueeze));
  }
  if (unsqueezes.empty()) return before;
  before = model.graph().node();
  google::protobuf::RepeatedPtrField<NodeProto> aligned;
  for (int i = 0; i < model.graph().node_size(); ++i) {
    auto unsqueeze = unsqueezes.find(i);
    if (unsqueeze != unsqueezes.end()) *aligned.Add() = unsqueeze->second;
    NodeProto* node = aligned.Add();
    *node = model.graph().node(i);
    if (unsqueeze != unsqueezes.end()) node->set_input(1, unsqueeze->second.output(0));
  }
  model.mutable_graph()->mutable_node()->Swap(&aligned);
  return before;
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
