// Resize 10->11 (src/upgrade/fixes/resize_10_11.cc): the repaired adapter, through MoveDefaultOpset.
#include "upgrade/opset_upgrade.h"

#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::ElementsAre;

TEST(OpsetUpgradeTest, Resize10GetsResize10CoordinatesAtOpset11) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,2,2] x, float[4] s) => (float y) { y = Resize<mode="linear">(x, s) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 11).ok());
  const NodeProto* resize = FindNode(model.graph(), "node_y");
  ASSERT_EQ(resize->input_size(), 3);
  EXPECT_EQ(resize->input(2), "s");
  EXPECT_THAT(ConstFloats(model.graph(), resize->input(1)), ElementsAre(0, 0, 0, 0, 1, 1, 1, 1));
  const AttributeProto* mode = FindAttr(*resize, "coordinate_transformation_mode");
  ASSERT_NE(mode, nullptr);  // onnx's 10->11 adapter writes none: Resize-11's default is half_pixel
  EXPECT_EQ(mode->s(), "asymmetric");
  EXPECT_EQ(FindAttr(*resize, "nearest_mode"), nullptr);  // linear mode rounds nothing
}

// ONNX Runtime's Resize-10 takes the nearest pixel's floor on an axis it grows and its ceiling on one it shrinks.
TEST(OpsetUpgradeTest, NearestResize10TakesTheFloorGrowingAndTheCeilingShrinking) {
  for (const auto& [scales, rounding] : {std::pair<const char*, const char*>{"{1, 1, 2, 3}", "floor"},
                                         {"{1, 1, 0.5, 0.6}", "ceil"},
                                         {"{1, 1, 1, 1}", "floor"}}) {
    ModelProto model = ParseModelNamingNodes((std::string(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,4,4] x) => (float y) <float[4] s = )ONNX") +
                                              scales + R"ONNX(> { y = Resize<mode="nearest">(x, s) }
)ONNX")
                                                 .c_str());
    ASSERT_TRUE(MoveDefaultOpset(model, 11).ok()) << scales;
    const AttributeProto* nearest = FindAttr(*FindNode(model.graph(), "node_y"), "nearest_mode");
    ASSERT_NE(nearest, nullptr) << scales;
    EXPECT_EQ(nearest->s(), rounding) << scales;
  }
}

}  // namespace
}  // namespace onnx_legalize::testing
