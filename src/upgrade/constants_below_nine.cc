#include <utility>

#include "graph/op_names.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// Constant-1 (opsets 1-8) takes these; Constant-9 every tensor type.
constexpr int64_t kConstantOfAnyType = 9;

bool ConstantTakes(int32_t elem_type) {
  return elem_type == TensorProto::FLOAT || elem_type == TensorProto::DOUBLE || elem_type == TensorProto::FLOAT16;
}

// The tensor of a Constant node written as Constant-1 writes it (one `value` attribute), or null.
TensorProto* OnlyValue(NodeProto& node) {
  if (node.op_type() != kConstantOp || !IsDefaultDomain(node.domain()) || node.output_size() != 1 ||
      node.attribute_size() != 1 || node.attribute(0).name() != "value" || !node.attribute(0).has_t()) {
    return nullptr;
  }
  return node.mutable_attribute(0)->mutable_t();
}

}  // namespace

void ConstantsBelowNineAsInitializers(int64_t target, ModelProto& model) {
  if (target >= kConstantOfAnyType) return;
  GraphProto& graph = *model.mutable_graph();
  const bool listed_as_inputs = model.ir_version() < 4;
  google::protobuf::RepeatedPtrField<NodeProto> kept;
  kept.Reserve(graph.node_size());
  for (NodeProto& node : *graph.mutable_node()) {
    TensorProto* value = OnlyValue(node);
    if (value == nullptr || ConstantTakes(value->data_type())) {
      kept.Add()->Swap(&node);
      continue;
    }
    TensorProto* initializer = graph.add_initializer();
    initializer->Swap(value);
    initializer->set_name(node.output(0));
    if (listed_as_inputs) {
      ValueInfoProto* input = graph.add_input();
      input->set_name(node.output(0));
      onnx::TypeProto_Tensor* type = input->mutable_type()->mutable_tensor_type();
      type->set_elem_type(initializer->data_type());
      onnx::TensorShapeProto* shape = type->mutable_shape();
      for (int64_t dim : initializer->dims()) shape->add_dim()->set_dim_value(dim);
    }
  }
  graph.mutable_node()->Swap(&kept);
}

}  // namespace onnx_legalize::opset_upgrade
