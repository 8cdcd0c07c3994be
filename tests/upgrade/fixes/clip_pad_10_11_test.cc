// Pad and Clip 10->11 (src/upgrade/fixes/clip_pad_10_11.cc): the repaired adapters, through MoveDefaultOpset.
#include "upgrade/opset_upgrade.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::ElementsAre;

TEST(OpsetUpgradeTest, PadWithoutValueAttributePadsWithZero) {
  // Pad-2's `value` defaults to 0; onnx 1.12's adapter threw without it, 1.23's reads it as 0 (no fix here).
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,2] x) => (float[4,2] y) { y = Pad<pads=[1,0,1,0]>(x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 11).ok());
  const NodeProto* pad = FindNode(model.graph(), "node_y");
  ASSERT_EQ(pad->input_size(), 3);
  EXPECT_THAT(ConstInts(model.graph(), pad->input(1)), ElementsAre(1, 0, 1, 0));
  EXPECT_THAT(ConstFloats(model.graph(), pad->input(2)), ElementsAre(0.0f));
  EXPECT_EQ(pad->attribute_size(), 0);
}

TEST(OpsetUpgradeTest, ClipBoundsTakeTheDataType) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (double[3] x, float16[3] h) => (double[3] y, float16[3] z) {
  y = Clip<min=-1.5, max=2.0>(x)
  z = Clip<max=0.5>(h)
}
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 11).ok());
  const GraphProto& g = model.graph();
  const NodeProto* clip = FindNode(g, "node_y");
  ASSERT_EQ(clip->input_size(), 3);
  const TensorProto* lo = ConstantTensor(g, clip->input(1));
  const TensorProto* hi = ConstantTensor(g, clip->input(2));
  ASSERT_TRUE(lo && hi);
  EXPECT_EQ(lo->data_type(), TensorProto::DOUBLE);
  EXPECT_THAT(lo->double_data(), ElementsAre(-1.5));
  EXPECT_THAT(hi->double_data(), ElementsAre(2.0));
  const NodeProto* half_clip = FindNode(g, "node_z");
  ASSERT_EQ(half_clip->input_size(), 3);
  const TensorProto* half_hi = ConstantTensor(g, half_clip->input(2));
  ASSERT_NE(half_hi, nullptr);
  EXPECT_EQ(half_hi->data_type(), TensorProto::FLOAT16);
  EXPECT_THAT(half_hi->int32_data(), ElementsAre(0x3800));  // 0.5 in IEEE half
  const TensorProto* half_lo = ConstantTensor(g, half_clip->input(1));
  EXPECT_THAT(half_lo->int32_data(), ElementsAre(0xfc00));  // lowest float rounds to -inf in half
}

TEST(OpsetUpgradeTest, PadValueTakesTheDataType) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (double[2,2] x, float16[2,2] h) => (double[4,2] y, float16[2,4] z) {
  y = Pad<pads=[1,0,1,0], value=1.5>(x)
  z = Pad<pads=[0,1,0,1], value=-2.0>(h)
}
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 11).ok());
  const GraphProto& g = model.graph();
  const NodeProto* pad = FindNode(g, "node_y");
  ASSERT_EQ(pad->input_size(), 3);
  const TensorProto* value = ConstantTensor(g, pad->input(2));
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->data_type(), TensorProto::DOUBLE);
  EXPECT_THAT(value->double_data(), ElementsAre(1.5));
  const NodeProto* half_pad = FindNode(g, "node_z");
  ASSERT_EQ(half_pad->input_size(), 3);
  const TensorProto* half_value = ConstantTensor(g, half_pad->input(2));
  ASSERT_NE(half_value, nullptr);
  EXPECT_EQ(half_value->data_type(), TensorProto::FLOAT16);
  EXPECT_THAT(half_value->int32_data(), ElementsAre(0xc000));  // -2.0 in IEEE half
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

}  // namespace
}  // namespace onnx_legalize::testing
