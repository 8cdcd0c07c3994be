// Legacy broadcast 6->7 (src/upgrade/fixes/legacy_broadcast_6_7.cc): the repaired adapters, through
// MoveDefaultOpset.
#include "upgrade/opset_upgrade.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::ElementsAre;

TEST(OpsetUpgradeTest, LegacyBroadcastAlignsTheSecondInputAtItsAxis) {
  // B of shape [3] broadcast at axis 1 of a rank-4 A must become [3,1,1]; onnx 1.12 makes it [3,1,1,1].
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1,3,4,4] x, float[3] b) => (float[1,3,4,4] y) { y = Add<broadcast=1, axis=1>(x, b) }
)ONNX");
  ModelProto at13 = model;
  ASSERT_TRUE(MoveDefaultOpset(model, 7).ok());
  const NodeProto* unsqueeze = Producer(model.graph(), FindNode(model.graph(), "node_y")->input(1));
  ASSERT_NE(unsqueeze, nullptr);
  EXPECT_EQ(unsqueeze->op_type(), "Unsqueeze");
  EXPECT_THAT(FindAttr(*unsqueeze, "axes")->ints(), ElementsAre(1, 2));
  EXPECT_EQ(FindNode(model.graph(), "node_y")->attribute_size(), 0);

  ASSERT_TRUE(MoveDefaultOpset(at13, 13).ok());
  const NodeProto* unsqueeze13 = Producer(at13.graph(), FindNode(at13.graph(), "node_y")->input(1));
  ASSERT_NE(unsqueeze13, nullptr);
  EXPECT_THAT(ConstInts(at13.graph(), unsqueeze13->input(1)), ElementsAre(1, 2));
  EXPECT_EQ(ConstantTensor(at13.graph(), unsqueeze13->input(1))->dims(0), 2);
  EXPECT_NO_THROW(onnx::checker::check_model(at13));
}

// Exporters of the time wrote the batch as a symbolic dim; onnx 1.12's 6->7 adapters of the legacy broadcasts and
// of Gemm assert that every dim of their operands is a number (assertNotParams) though they read only ranks. The
// move goes through, and the graph's own declarations keep their symbolic dims.
TEST(OpsetUpgradeTest, MovesLegacyBroadcastsAndGemmOfASymbolicBatch) {
  const ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[N,3,4,4] x, float[3] b, float[5,48] w, float[5] c) => (float[N,3,4,4] y, float[N,5] z) {
  y = Add<broadcast=1, axis=1>(x, b)
  f = Flatten<axis=1>(y)
  z = Gemm<broadcast=1, transB=1>(f, w, c)
}
)ONNX");
  for (int64_t target : {7, 13, 17}) {
    SCOPED_TRACE(target);
    ModelProto moved = model;
    const absl::Status status = MoveDefaultOpset(moved, target);
    ASSERT_TRUE(status.ok()) << status;
    const NodeProto* unsqueeze = Producer(moved.graph(), FindNode(moved.graph(), "node_y")->input(1));
    ASSERT_NE(unsqueeze, nullptr);
    EXPECT_EQ(unsqueeze->op_type(), "Unsqueeze");
    EXPECT_EQ(FindNode(moved.graph(), "node_z")->attribute_size(), 1);  // transB; broadcast is gone
    EXPECT_EQ(moved.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), "N");
    EXPECT_EQ(moved.graph().output(1).type().tensor_type().shape().dim(0).dim_param(), "N");
    EXPECT_NO_THROW(onnx::checker::check_model(moved));
    ExpectStrictShapeInferenceAccepts(moved);
  }
}

// onnx 1.12's 6->7 adapter gives a legacy broadcast's B rank(A) - rank(B) trailing ones whatever its axis, then
// checks the shapes: at an axis other than 0 and rank(A) - rank(B) that check stopped it (Caffe2's and CNTK's
// exports: B [3,4] at axis 1 of A [2,3,4,5]). B is given the trailing ones it needs before the converter runs,
// by an Unsqueeze-1, and numpy broadcasting then computes what the legacy one did.
TEST(OpsetUpgradeTest, ALegacyBroadcastAtAMiddleAxisIsAlignedBeforeTheConverter) {
  const ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] a, float[3,4] b) => (float[2,3,4,5] y) {
  y = Add<broadcast=1, axis=1>(a, b)
}
)ONNX");
  const Tensor a = Iota({2, 3, 4, 5});
  const Tensor b = Iota({3, 4});
  for (int64_t target : {7, 13, 17}) {
    SCOPED_TRACE(target);
    ModelProto moved = model;
    const absl::Status status = MoveDefaultOpset(moved, target);
    ASSERT_TRUE(status.ok()) << status;
    const NodeProto* add = FindNode(moved.graph(), "node_y");
    ASSERT_NE(add, nullptr);
    const NodeProto* unsqueeze = Producer(moved.graph(), add->input(1));
    ASSERT_NE(unsqueeze, nullptr);
    EXPECT_EQ(unsqueeze->op_type(), "Unsqueeze");
    EXPECT_EQ(unsqueeze->input(0), "b");
    EXPECT_EQ(add->attribute_size(), 0);
    EXPECT_NO_THROW(onnx::checker::check_model(moved));
    ExpectStrictShapeInferenceAccepts(moved);
    ExpectSameOutputs(model, moved, {{"a", &a}, {"b", &b}});
  }
}

// A legacy broadcast whose B does not fit in A at its axis has no meaning to align: refused naming it.
TEST(OpsetUpgradeTest, RefusesALegacyBroadcastWhoseBDoesNotFitInANamingItsDims) {
  const ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] a, float[4,5] b) => (float[2,3,4,5] y) {
  y = Add<broadcast=1, axis=3>(a, b)
}
)ONNX");
  ExpectRejectedUnchanged(model, 7, absl::StatusCode::kFailedPrecondition,
                          "Add 'node_y' (graph main): its legacy broadcast puts B 'b' (dims [4,5]) at axis 3 of A 'a' "
                          "(dims [2,3,4,5]), which does not fit in A, so it cannot be moved to opset 7");
}

}  // namespace
}  // namespace onnx_legalize::testing
