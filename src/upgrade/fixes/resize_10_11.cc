// Resize 10->11 (and Upsample, which the converter turns into Resize-10 on its way).
//
// What onnx 1.23 (as 1.12) gets wrong: Resize-10 (and Upsample) scale with asymmetric coordinates and take the
// floor for nearest; Resize-11 defaults to half_pixel coordinates and round_prefer_floor, and the 10->11 adapter
// does not say otherwise, so the image would be sampled elsewhere (resize_10_11_test:
// Resize10GetsResize10CoordinatesAtOpset11 fails without this fix).
//
// The fix: the splice writes Resize-10's coordinate_transformation_mode (asymmetric) and, for nearest, its
// nearest_mode (floor) on the Resize where the converted node does not say them.
#include <string>

#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {

void KeepResize10Coordinates(const NodeProto& orig, const Move& move, NodeProto* node) {
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
    a->set_s("floor");
  }
}

}  // namespace onnx_legalize::opset_upgrade
