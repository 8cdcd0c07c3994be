// The node onnx's verdict names, read once where onnx is called (driver/onnx_check.h).
#include "driver/onnx_check.h"

#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

TEST(OnnxCheckTest, ReadsTheOpAndNodeShapeInferenceNames) {
  NodeNamedByOnnx node = ReadNodeNamedByOnnx(
      "[ShapeInferenceError] (op_type:Constant, node name: labels): output has unsupported type tensor(string)");
  EXPECT_EQ(node.op_type, "Constant");
  EXPECT_EQ(node.name, "labels");

  node = ReadNodeNamedByOnnx(
      "[ShapeInferenceError] Shape inference error(s): (op_type:Slice): [TypeInferenceError] Input 0 expected to "
      "have type but instead is null");
  EXPECT_EQ(node.op_type, "Slice");
  EXPECT_EQ(node.name, "") << "an unnamed node";
}

TEST(OnnxCheckTest, ReadsNothingWhereOnnxNamesNoNodeOnTheFirstLine) {
  NodeNamedByOnnx node = ReadNodeNamedByOnnx("Field 'shape' of 'type' is required but missing.");
  EXPECT_EQ(node.op_type, "");
  EXPECT_EQ(node.name, "");
  node = ReadNodeNamedByOnnx("Bad node spec\n(op_type:Relu, node name: r): in the context, not the verdict");
  EXPECT_EQ(node.op_type, "");
  EXPECT_EQ(node.name, "");
}

TEST(OnnxCheckTest, TheVerdictOnAModelCarriesTheNodeOnnxFailed) {
  onnx::ModelProto model = testing::ParseModel(R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3] x) => (float[2,3] y, string[2] names) {
  y = Relu(x)
  names = Constant<value = string[2] {"a", "b"}>()
}
)");
  model.mutable_graph()->mutable_node(1)->set_name("labels");
  const OnnxVerdict verdict = CheckWithOnnx(model);
  EXPECT_EQ(verdict.status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(verdict.node.op_type, "Constant");
  EXPECT_EQ(verdict.node.name, "labels");

  model.mutable_opset_import(0)->set_version(9);
  const OnnxVerdict accepted = CheckWithOnnx(model);
  EXPECT_TRUE(accepted.status.ok()) << accepted.status;
  EXPECT_EQ(accepted.node.op_type, "");
}

}  // namespace
}  // namespace onnx_legalize
