// PRelu 6->7 (src/upgrade/fixes/prelu_6_7.cc): the slope's meaning kept, through MoveDefaultOpset.
#include "upgrade/opset_upgrade.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::ElementsAre;

// PRelu-6 applies a slope [C] per channel (axis 1 of X); PRelu-7 broadcasts it from the last axis, so the
// slope must become [C, 1, ..., 1]. onnx 1.12 registers PRelu 6->7 as compatible and does nothing.
TEST(OpsetUpgradeTest, PReluSlopePerChannelBecomesChannelShaped) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] x, float[3] slope) => (float[2,3,4,5] y) { y = PRelu(x, slope) }
)ONNX");
  ModelProto at13 = model;
  ASSERT_TRUE(MoveDefaultOpset(model, 7).ok());
  const NodeProto* prelu = FindNode(model.graph(), "node_y");
  EXPECT_EQ(prelu->input(0), "x");
  const NodeProto* unsqueeze = Producer(model.graph(), prelu->input(1));
  ASSERT_NE(unsqueeze, nullptr);
  EXPECT_EQ(unsqueeze->op_type(), "Unsqueeze");
  EXPECT_THAT(unsqueeze->input(), ElementsAre("slope"));
  EXPECT_THAT(FindAttr(*unsqueeze, "axes")->ints(), ElementsAre(1, 2));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
  ExpectStrictShapeInferenceAccepts(model);

  ASSERT_TRUE(MoveDefaultOpset(at13, 13).ok());
  const NodeProto* unsqueeze13 = Producer(at13.graph(), FindNode(at13.graph(), "node_y")->input(1));
  ASSERT_NE(unsqueeze13, nullptr);
  EXPECT_EQ(unsqueeze13->op_type(), "Unsqueeze");
  EXPECT_THAT(ConstInts(at13.graph(), unsqueeze13->input(1)), ElementsAre(1, 2));
  EXPECT_NO_THROW(onnx::checker::check_model(at13));
  ExpectStrictShapeInferenceAccepts(at13);
}

TEST(OpsetUpgradeTest, PReluSlopeThatMeansTheSameUnderBothReadingsIsLeftAlone) {
  // One slope value broadcasts anywhere; over a 2-D X, [C] is the channel axis from either end; a slope of
  // rank 2 or more is already written out.
  for (const char* text : {R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] x, float[1] slope) => (float[2,3,4,5] y) { y = PRelu(x, slope) }
)ONNX",
                           R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3] x, float[3] slope) => (float[2,3] y) { y = PRelu(x, slope) }
)ONNX",
                           R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4] x, float[3,1] slope) => (float[2,3,4] y) { y = PRelu(x, slope) }
)ONNX"}) {
    ModelProto model = ParseModelNamingNodes(text);
    ASSERT_TRUE(MoveDefaultOpset(model, 9).ok()) << text;
    EXPECT_THAT(OpTypes(model.graph()), ElementsAre("PRelu")) << text;
    EXPECT_THAT(FindNode(model.graph(), "node_y")->input(), ElementsAre("x", "slope")) << text;
  }
}

// A model whose graph input `index` has a tensor type of unknown rank (the text format writes a scalar).
ModelProto WithInputOfUnknownRank(ModelProto model, int index) {
  model.mutable_graph()->mutable_input(index)->mutable_type()->mutable_tensor_type()->clear_shape();
  return model;
}

TEST(OpsetUpgradeTest, PReluSlopeOfUnknownMeaningIsRefusedNamingTheNodeAndDims) {
  // X's rank unknown: [3] could be meant for axis 1 of a 4-D X (then [3,1,1]) or for a 1-D one.
  ExpectRejectedUnchanged(WithInputOfUnknownRank(ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1] x, float[3] slope) => (float y) { y = PRelu(x, slope) }
)ONNX"),
                                                 0),
                          13, absl::StatusCode::kFailedPrecondition,
                          "PRelu 'node_y' (graph main): PRelu-6 applies its slope per channel (axis 1 of X), "
                          "PRelu-7 from the last axis; with X of dims unknown and a slope of dims [3]");
  ExpectRejectedUnchanged(WithInputOfUnknownRank(ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4] x, float[1] slope) => (float[2,3,4] y) { y = PRelu(x, slope) }
)ONNX"),
                                                 1),
                          7, absl::StatusCode::kFailedPrecondition, "X of dims [2,3,4] and a slope of dims unknown");
}

}  // namespace
}  // namespace onnx_legalize::testing
