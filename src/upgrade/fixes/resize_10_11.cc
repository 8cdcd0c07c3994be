// Resize 10->11 (and Upsample, which the converter turns into Resize-10 on its way).
//
// What onnx 1.23 (as 1.12) gets wrong: Resize-10 (and Upsample) scale with asymmetric coordinates and take the
// floor for nearest; Resize-11 defaults to half_pixel coordinates and round_prefer_floor, and the 10->11 adapter
// does not say otherwise, so the image would be sampled elsewhere (resize_10_11_test:
// Resize10GetsResize10CoordinatesAtOpset11 fails without this fix).
//
// The fix: the splice writes Resize-10's coordinate_transformation_mode (asymmetric) and, for nearest, its
// nearest_mode on the Resize where the converted node does not say them: the floor, but the ceiling where every
// scale is a constant of at most 1 and one shrinks: ONNX Runtime's Resize-10 (which defined the op for the models
// of its time) takes the nearest pixel's ceiling on an axis it shrinks (the model runner's "legacy" nearest mode,
// eval/kernels/resize.cc). Scales that grow one axis and shrink another have no one nearest_mode; the floor is
// written, and the move's proof refuses the result.
#include <optional>
#include <string>
#include <vector>

#include "graph/op_names.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {

namespace {

// Whether Resize-10's (or Upsample-9's) scales are a constant of `graph` (an initializer or a Constant's value) whose
// every value is at most 1, one below.
bool ShrinksOnly(const NodeProto& resize, const GraphProto& graph) {
  if (resize.input_size() < 2 || resize.input(1).empty()) return false;  // Upsample-7's scales (attribute) are >= 1
  const TensorProto* scales = ConstantsOf(graph, nullptr, /*initializers_are_overridable=*/false)(resize.input(1));
  const std::optional<std::vector<float>> values = scales == nullptr ? std::nullopt : FloatValues(*scales);
  if (!values.has_value() || values->empty()) return false;
  bool shrinks = false;
  for (float scale : *values) {
    if (!(scale <= 1)) return false;
    shrinks = shrinks || scale < 1;
  }
  return shrinks;
}

}  // namespace

void KeepResize10Coordinates(const NodeRecord& record, const Move& move, NodeProto* node) {
  const NodeProto& orig = *record.original;
  const bool resize10 = orig.op_type() == kUpsample || (orig.op_type() == kResize && move.from <= 10);
  if (!resize10 || node->op_type() != kResize || !move.Crosses(11)) return;
  bool has_ctm = false, has_nearest = false;
  std::string mode = "nearest";
  for (const auto& a : node->attribute()) {
    if (a.name() == "coordinate_transformation_mode") has_ctm = true;
    if (a.name() == "nearest_mode") has_nearest = true;
    if (a.name() == "mode") mode = a.s();
  }
  if (!has_ctm) {
    AttributeProto* a = node->add_attribute();
    a->set_name("coordinate_transformation_mode");
    a->set_type(AttributeProto::STRING);
    a->set_s("asymmetric");
  }
  if (mode == "nearest" && !has_nearest) {
    AttributeProto* a = node->add_attribute();
    a->set_name("nearest_mode");
    a->set_type(AttributeProto::STRING);
    a->set_s(record.owner != nullptr && ShrinksOnly(orig, *record.owner) ? "ceil" : "floor");
  }
}

}  // namespace onnx_legalize::opset_upgrade
