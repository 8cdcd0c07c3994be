// How a new constant value enters a graph, for the passes that write folds and the constants of
// replacements: an initializer, except in IR 3 subgraphs. IR 3 requires every initializer to be a graph
// input too, and the inputs of an If branch or a Loop/Scan body are fixed by their owner, so there the value
// becomes a Constant node instead, placed before the node that reads it.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_CONSTANT_WRITER_H_
#define ONNX_LEGALIZE_SRC_GRAPH_CONSTANT_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "graph/op_names.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

class ConstantWriter {
 public:
  explicit ConstantWriter(int64_t ir_version) : ir3_(ir_version < 4) {}

  bool WritesConstantNode(bool is_main_graph) const { return ir3_ && !is_main_graph; }

  // A Constant node defining `name`; the value moves into it.
  onnx::NodeProto ConstantNode(const std::string& name, Tensor&& value) const {
    onnx::NodeProto constant;
    constant.set_op_type(kConstantOp);
    constant.add_output(name);
    onnx::AttributeProto* attribute = constant.add_attribute();
    attribute->set_name("value");
    attribute->set_type(onnx::AttributeProto::TENSOR);
    *attribute->mutable_t() = TensorToProto(std::move(value), name);
    return constant;
  }
  onnx::NodeProto ConstantNode(const std::string& name, const Tensor& value) const {
    return ConstantNode(name, value.Clone());
  }

  // An initializer `name` holding `value` (moved in), declared as a graph input too in IR 3.
  void DefineInitializer(onnx::GraphProto& graph, const std::string& name, Tensor&& value) const {
    DeclareInputInIr3(graph, name, value.type(), value.dims());
    *graph.add_initializer() = TensorToProto(std::move(value), name);
  }
  // The same for a copy of `value`; with `stub`, only its name, type and dims, marked as external data, for
  // a value filled in later.
  void DefineInitializer(onnx::GraphProto& graph, const std::string& name, const Tensor& value,
                         bool stub = false) const {
    if (!stub) return DefineInitializer(graph, name, value.Clone());
    DefineStub(graph, name, value.type(), value.dims());
  }
  // The stub alone: an initializer `name` with a type and dims, marked as external data without a location
  // (eval/deferred_tensor.h), declared as a graph input too in IR 3.
  void DefineStub(onnx::GraphProto& graph, const std::string& name, DataType type,
                  const std::vector<int64_t>& dims) const {
    onnx::TensorProto* initializer = graph.add_initializer();
    initializer->set_name(name);
    initializer->set_data_type(type);
    for (int64_t dim : dims) initializer->add_dims(dim);
    initializer->set_data_location(onnx::TensorProto::EXTERNAL);
    DeclareInputInIr3(graph, name, type, dims);
  }

 private:
  void DeclareInputInIr3(onnx::GraphProto& graph, const std::string& name, DataType type,
                         const std::vector<int64_t>& dims) const {
    if (!ir3_) return;
    onnx::ValueInfoProto* input = graph.add_input();
    input->set_name(name);
    auto* tensor_type = input->mutable_type()->mutable_tensor_type();
    tensor_type->set_elem_type(type);
    auto* shape = tensor_type->mutable_shape();
    for (int64_t dim : dims) shape->add_dim()->set_dim_value(dim);
  }

  bool ir3_;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_CONSTANT_WRITER_H_
