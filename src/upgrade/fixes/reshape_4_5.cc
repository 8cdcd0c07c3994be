// Reshape 4->5.
//
// What onnx 1.12 gets wrong: the adapter turns Reshape-1's `shape` attribute into a Constant input whose tensor
// has no dims: a scalar holding several values, which no runtime reads.
//
// The fix: the shape Constant becomes 1-D, its one dim the count of its values. (Below opset 9 a Constant of
// int64 is not legal either: upgrade/constants_below_nine.cc makes it an initializer.)
#include "absl/status/status.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {

absl::Status GiveReshape5ShapeItsDims(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx) {
  const NodeProto& node = g.nodes->Get(i);
  if (orig.op_type() != kReshape || !ctx.move.Crosses(5) || node.input_size() != 2) return absl::OkStatus();
  const int constant = g.MadeProducer(node.input(1), "Constant");
  if (constant < 0) return absl::OkStatus();
  for (auto& attribute : *g.nodes->Mutable(constant)->mutable_attribute()) {
    TensorProto* value = attribute.mutable_t();
    if (attribute.name() != "value" || value->dims_size() != 0 || value->int64_data_size() == 1) continue;
    value->add_dims(value->int64_data_size());
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
