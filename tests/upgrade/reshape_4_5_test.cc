// Reshape 4->5: the shape Constant onnx's adapter makes of Reshape-1's `shape` attribute has its one dim,
// through MoveDefaultOpset. onnx 1.12's adapter wrote it without dims (a scalar holding several values) and a
// fix here gave it its dim; onnx 1.23's writes the dim itself, and these tests hold it to that.
#include "upgrade/opset_upgrade.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::ElementsAre;

constexpr char kReshape1[] = R"ONNX(
<ir_version: 3, opset_import: ["" : 4]>
g (float[1,3,5,5] x) => (float[1,75] y) { y = Reshape<shape = [1, -1]>(x) }
)ONNX";

// onnx 1.12's adapter writes the shape as a Constant without dims: a "scalar" of two values, which no runtime
// reads. From opset 9 on, the Constant stays, 1-D.
TEST(OpsetUpgradeTest, Reshape1ShapeBecomesA1DConstant) {
  ModelProto model = ParseModelNamingNodes(kReshape1);
  ASSERT_TRUE(MoveDefaultOpset(model, 9).ok());
  const NodeProto* reshape = FindNode(model.graph(), "node_y");
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->op_type(), "Reshape");
  EXPECT_EQ(reshape->attribute_size(), 0);
  ASSERT_EQ(reshape->input_size(), 2);
  const NodeProto* constant = Producer(model.graph(), reshape->input(1));
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(constant->op_type(), "Constant");
  const TensorProto* shape = ConstantTensor(model.graph(), reshape->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_THAT(shape->dims(), ElementsAre(2));
  EXPECT_THAT(ConstInts(model.graph(), reshape->input(1)), ElementsAre(1, -1));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
  ExpectStrictShapeInferenceAccepts(model);
}

// Below opset 9 Constant takes no int64 (upgrade/constants_below_nine.cc): the 1-D shape is an initializer.
TEST(OpsetUpgradeTest, Reshape1ShapeBelowOpset9IsA1DInitializer) {
  ModelProto model = ParseModelNamingNodes(kReshape1);
  ASSERT_TRUE(MoveDefaultOpset(model, 5).ok());
  const NodeProto* reshape = FindNode(model.graph(), "node_y");
  ASSERT_NE(reshape, nullptr);
  ASSERT_EQ(reshape->input_size(), 2);
  EXPECT_EQ(Producer(model.graph(), reshape->input(1)), nullptr);
  const TensorProto* shape = ConstantTensor(model.graph(), reshape->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_THAT(shape->dims(), ElementsAre(2));
  EXPECT_THAT(ConstInts(model.graph(), reshape->input(1)), ElementsAre(1, -1));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

}  // namespace
}  // namespace onnx_legalize::testing
