// Clip and Pad 10->11.
//
// What onnx 1.12 gets wrong: the Pad 10->11 adapter reads Pad-2's `value` attribute unconditionally, and throws
// when it is absent (Pad-2 defaults it to 0). Both adapters turn the float attributes (Clip's min and max,
// Pad's value) into float Constant inputs, where Clip-11 and Pad-11 want them of the data's type: invalid for
// double and float16 data.
//
// The fix: the skeleton spells out Pad's default `value` (SpellOutPadValue, before the converter); after it,
// RetypeClipPadInputs rewrites the adapter's float Constants to double or float16 when the data is.
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "core/float16.h"
#include "graph/op_names.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// Rewrites a float scalar/vector tensor to `elem_type` (double or float16).
void RetypeFloatTensor(TensorProto* t, int32_t elem_type) {
  std::vector<float> values(t->float_data().begin(), t->float_data().end());
  if (t->raw_data().size() % sizeof(float) == 0 && !t->raw_data().empty()) {
    values.resize(t->raw_data().size() / sizeof(float));
    std::memcpy(values.data(), t->raw_data().data(), t->raw_data().size());
  }
  t->clear_float_data();
  t->clear_raw_data();
  t->set_data_type(elem_type);
  for (float v : values) {
    if (elem_type == TensorProto::DOUBLE) {
      t->add_double_data(static_cast<double>(v));
    } else {
      t->add_int32_data(FloatToFloat16(v));
    }
  }
}

}  // namespace

void SpellOutPadValue(const NodeProto& node, const Move& move, NodeProto* shown) {
  if (node.op_type() != kPad || !move.Crosses(11)) return;
  bool constant_mode = true, has_value = false;
  for (const auto& attr : node.attribute()) {
    if (attr.name() == "mode") constant_mode = attr.s() == "constant";
    if (attr.name() == "value") has_value = true;
  }
  if (constant_mode && !has_value) {
    AttributeProto* a = shown->add_attribute();
    a->set_name("value");
    a->set_type(AttributeProto::FLOAT);
    a->set_f(0.0f);
  }
}

absl::Status RetypeClipPadInputs(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx) {
  const NodeProto& node = g.nodes->Get(i);
  std::vector<int> typed_inputs;
  if (orig.op_type() == kClip && ctx.move.Crosses(11) && ctx.move.from < 11) typed_inputs = {1, 2};
  if (orig.op_type() == kPad && ctx.move.Crosses(11) && ctx.move.from < 11) typed_inputs = {2};
  if (typed_inputs.empty()) return absl::OkStatus();
  auto type_it = ctx.skeleton.types.elem_types.find(g.SkeletonInput(i, 0));
  const int32_t elem_type = type_it == ctx.skeleton.types.elem_types.end() ? TensorProto::UNDEFINED : type_it->second;
  if (elem_type != TensorProto::DOUBLE && elem_type != TensorProto::FLOAT16) return absl::OkStatus();
  for (int k : typed_inputs) {
    if (k >= node.input_size()) continue;
    const int c = g.MadeProducer(node.input(k), kConstantOp);
    if (c < 0) continue;
    NodeProto* constant = g.nodes->Mutable(c);
    for (auto& a : *constant->mutable_attribute()) {
      if (a.name() == "value" && a.has_t() && a.t().data_type() == TensorProto::FLOAT) {
        RetypeFloatTensor(a.mutable_t(), elem_type);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
