// How deeply a model's messages nest (graph/message_depth.h): the measure of whether onnx and ONNX Runtime can
// parse a result at all.
#include "graph/message_depth.h"

#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {
namespace {

// A type of `sequences` sequence types around a float tensor type without a shape.
onnx::TypeProto NestedSequenceType(int sequences) {
  onnx::TypeProto type;
  type.mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int i = 0; i < sequences; ++i) {
    onnx::TypeProto outer;
    *outer.mutable_sequence_type()->mutable_elem_type() = type;
    type = outer;
  }
  return type;
}

TEST(MessageDepthTest, AMessageOfScalarsAloneIsOneLevel) {
  onnx::TensorProto tensor;
  tensor.add_dims(3);
  tensor.set_raw_data(std::string(12, '\0'));
  EXPECT_EQ(MessageDepth(tensor), 1);
  EXPECT_EQ(MessageDepth(onnx::ModelProto()), 1);
}

// The deepest branch counts, whichever field or element of a repeated field holds it.
TEST(MessageDepthTest, TheDeepestBranchCounts) {
  onnx::ModelProto model;
  model.mutable_graph()->add_node()->set_op_type("Relu");                       // model, graph, node: 3
  *model.mutable_graph()->add_input()->mutable_type() = NestedSequenceType(0);  // + value_info, type, tensor: 5
  EXPECT_EQ(MessageDepth(model), 5);
  *model.mutable_graph()->add_output()->mutable_type() = NestedSequenceType(3);  // + 3 x (type, sequence): 11
  EXPECT_EQ(MessageDepth(model), 11);
}

// Measured against onnx 1.23's onnx.load (upb) and ONNX Runtime 1.31: a model of 101 levels loads, of 102 not
// (protobuf's recursion limit of 100 below the model's own message).
TEST(MessageDepthTest, OnnxParsesUpToTheDocumentedDepth) {
  onnx::ModelProto model;
  *model.mutable_graph()->add_input()->mutable_type() = NestedSequenceType(48);
  EXPECT_EQ(MessageDepth(model), kMaxParsedMessageDepth);
  EXPECT_EQ(kMaxParsedMessageDepth, 101);
}

}  // namespace
}  // namespace onnx_legalize
