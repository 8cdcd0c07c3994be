// Clip and Pad 10->11.
//
// What onnx 1.23 (as 1.12) gets wrong: both adapters turn the float attributes (Clip's min and max, Pad's
// value) into float Constant inputs, where Clip-11 and Pad-11 want them of the data's type: invalid for double
// and float16 data (clip_pad_10_11_test: ClipBoundsTakeTheDataType, PadValueTakesTheDataType).
//
// The fix: after the converter, RetypeClipPadInputs rewrites the adapter's float Constants to double or float16
// when the data is. (onnx 1.12's Pad adapter also threw on Pad-2 without `value`; 1.23's reads it as 0.)
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
