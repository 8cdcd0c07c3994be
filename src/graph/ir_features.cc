#include "graph/ir_features.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>

#include "graph/opsets.h"

namespace onnx_legalize {
namespace {

using onnx::TensorProto;

// The IR version that introduced element type `type` (IR 3 for those it had).
int64_t IrOfElementType(int32_t type) {
  switch (type) {
    case TensorProto::BFLOAT16: return 4;
    case TensorProto::FLOAT8E4M3FN:
    case TensorProto::FLOAT8E4M3FNUZ:
    case TensorProto::FLOAT8E5M2:
    case TensorProto::FLOAT8E5M2FNUZ: return 9;
    case TensorProto::UINT4:
    case TensorProto::INT4: return 10;
    case TensorProto::FLOAT4E2M1: return 11;
    case TensorProto::FLOAT8E8M0: return 12;
    case TensorProto::UINT2:
    case TensorProto::INT2: return 13;
    default: return type > TensorProto::INT2 ? 14 : 3;  // later types: the IR onnx 1.23 writes
  }
}

// What a model's parts need, raised as they are walked.
class NeededIr {
 public:
  int64_t value() const { return value_; }

  void Model(const onnx::ModelProto& model) {
    if (model.training_info_size() > 0) Raise(7);
    if (model.functions_size() > 0) Raise(8);
    if (model.configuration_size() > 0) Raise(11);
    Graph(model.graph());
    for (const onnx::TrainingInfoProto& training : model.training_info()) {
      Graph(training.initialization());
      Graph(training.algorithm());
    }
    for (const onnx::FunctionProto& function : model.functions()) Function(function);
  }

 private:
  void Raise(int64_t version) { value_ = std::max(value_, version); }

  void Graph(const onnx::GraphProto& graph) {
    // IR 3 listed every initializer among its graph's inputs (where a caller may feed another value, as since).
    std::unordered_set<std::string> inputs;
    for (const onnx::ValueInfoProto& input : graph.input()) inputs.insert(input.name());
    for (const TensorProto& initializer : graph.initializer()) {
      if (inputs.count(initializer.name()) == 0) Raise(4);
    }
    if (graph.quantization_annotation_size() > 0) Raise(5);
    if (graph.sparse_initializer_size() > 0) Raise(6);
    if (graph.metadata_props_size() > 0) Raise(10);
    for (const TensorProto& initializer : graph.initializer()) Tensor(initializer);
    for (const onnx::SparseTensorProto& sparse : graph.sparse_initializer()) Tensor(sparse.values());
    for (const auto* values : {&graph.input(), &graph.output(), &graph.value_info()}) {
      for (const onnx::ValueInfoProto& value : *values) ValueInfo(value);
    }
    for (const onnx::NodeProto& node : graph.node()) Node(node);
  }

  void Function(const onnx::FunctionProto& function) {
    if (function.attribute_proto_size() > 0) Raise(9);
    if (!function.overload().empty() || function.value_info_size() > 0 || function.metadata_props_size() > 0) {
      Raise(10);
    }
    for (const onnx::ValueInfoProto& value : function.value_info()) ValueInfo(value);
    for (const onnx::NodeProto& node : function.node()) Node(node);
  }

  void Node(const onnx::NodeProto& node) {
    if (!node.overload().empty() || node.metadata_props_size() > 0) Raise(10);
    if (node.device_configurations_size() > 0) Raise(11);
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_sparse_tensor() || attribute.sparse_tensors_size() > 0) Raise(6);
      if (attribute.has_t()) Tensor(attribute.t());
      for (const TensorProto& tensor : attribute.tensors()) Tensor(tensor);
      if (attribute.has_sparse_tensor()) Tensor(attribute.sparse_tensor().values());
      if (attribute.has_tp()) Type(attribute.tp());
      for (const onnx::TypeProto& type : attribute.type_protos()) Type(type);
      if (attribute.has_g()) Graph(attribute.g());
      for (const onnx::GraphProto& graph : attribute.graphs()) Graph(graph);
    }
  }

  void Tensor(const TensorProto& tensor) {
    Raise(IrOfElementType(tensor.data_type()));
    if (tensor.metadata_props_size() > 0) Raise(10);
  }

  void ValueInfo(const onnx::ValueInfoProto& value) {
    if (value.metadata_props_size() > 0) Raise(10);
    if (value.has_type()) Type(value.type());
  }

  void Type(const onnx::TypeProto& type) {
    switch (type.value_case()) {
      case onnx::TypeProto::kTensorType: Raise(IrOfElementType(type.tensor_type().elem_type())); break;
      case onnx::TypeProto::kSequenceType: Type(type.sequence_type().elem_type()); break;
      case onnx::TypeProto::kMapType:
        Raise(IrOfElementType(type.map_type().key_type()));
        Type(type.map_type().value_type());
        break;
      case onnx::TypeProto::kOptionalType:
        Raise(8);
        Type(type.optional_type().elem_type());
        break;
      case onnx::TypeProto::kSparseTensorType:
        Raise(8);
        Raise(IrOfElementType(type.sparse_tensor_type().elem_type()));
        break;
      case onnx::TypeProto::VALUE_NOT_SET: break;
      default: Raise(14); break;  // Opaque outside ONNX-ML, or a later kind
    }
  }

  int64_t value_ = 3;
};

}  // namespace

int64_t IrVersionItsContentsNeed(const onnx::ModelProto& model) {
  NeededIr needed;
  needed.Model(model);
  return needed.value();
}

int64_t IrVersionAfterMovingDown(const onnx::ModelProto& model, int64_t target) {
  const int64_t era = std::max(MinIrVersionForOpset(target), IrVersionItsContentsNeed(model));
  return std::min<int64_t>(model.ir_version(), era);
}

}  // namespace onnx_legalize
