// Softmax and Hardmax 12->13 (src/upgrade/fixes/softmax_12_13.cc): the repaired adapter, through
// MoveDefaultOpset.
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

TEST(OpsetUpgradeTest, SoftmaxOverSymbolicDimsReshapesToTheRuntimeShape) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[N,C,4] x) => (float[N,C,4] y) { y = LogSoftmax<axis=1>(x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  const GraphProto& g = model.graph();
  const NodeProto* reshape = Producer(g, "y");
  ASSERT_NE(reshape, nullptr);
  ASSERT_EQ(reshape->op_type(), "Reshape");
  const NodeProto* shape = Producer(g, reshape->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  EXPECT_THAT(shape->input(), ElementsAre("x"));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

// PyTorch 1.x's face detectors (opset 9): a Softmax over the last axis of a Reshape to [batch, -1, 2], a shape
// computed at run time. onnx 1.12 inferred no rank for the Reshape's output, and Softmax's adapter stopped ("input
// shape is unknown"); the shape's length is known, and so the rank.
TEST(OpsetUpgradeTest, SoftmaxAfterAReshapeToARunTimeShapeOfKnownLengthMoves) {
  for (int64_t target : {13, 17}) {
    ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,4,6] x) => (float[1,12,2] y) {
  shape = Shape(x)
  zero = Constant<value = int64 {0}>()
  batch = Gather<axis = 0>(shape, zero)
  batch1 = Unsqueeze<axes = [0]>(batch)
  rest = Constant<value = int64[2] {-1, 2}>()
  target = Concat<axis = 0>(batch1, rest)
  r = Reshape(x, target)
  y = Softmax<axis = 2>(r)
}
)ONNX");
    const absl::Status moved = MoveDefaultOpset(model, target);
    ASSERT_TRUE(moved.ok()) << target << ": " << moved;
    const NodeProto* softmax = Producer(model.graph(), "y");
    ASSERT_NE(softmax, nullptr);
    EXPECT_EQ(softmax->op_type(), "Softmax") << "over the last axis, Softmax-13 computes what Softmax-1 did";
    EXPECT_NO_THROW(onnx::checker::check_model(model));
    ExpectStrictShapeInferenceAccepts(model);
  }
}

// The same with nothing declaring d: the converter sees DynamicSlice as a stand-in whose output keeps its
// data's element type and rank, which is all the adapter needs. (Without it the adapter stopped: "input
// shape is unknown".)
constexpr char kSoftmaxAfterUndeclaredDynamicSlice[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,2,4,5] x, int64[2] s, int64[2] e) => (float[1,2,?,?] y) {
  d = DynamicSlice(x, s, e)
  y = Softmax<axis=2>(d)
}
)ONNX";

TEST(OpsetUpgradeTest, SoftmaxOverUnknownDimsReshapesToTheRuntimeShapeAllowingZerosFrom14) {
  for (const char* text : {kSoftmaxOverUnknownDims, kSoftmaxAfterUndeclaredDynamicSlice}) {
    for (int64_t target : {14, 17}) {
      SCOPED_TRACE(text);
      ModelProto model = ParseModelNamingNodes(text);
      const int declared = model.graph().value_info_size();
      ASSERT_TRUE(MoveDefaultOpset(model, target).ok()) << target;
      EXPECT_EQ(model.graph().value_info_size(), declared) << "the stand-in's inferred type stays in the skeleton";
      const GraphProto& g = model.graph();
      EXPECT_THAT(OpTypes(g), ElementsAre("DynamicSlice", "Shape", "Flatten", "Softmax", "Reshape"));
      const NodeProto* softmax = FindNode(g, "node_y");
      ASSERT_NE(softmax, nullptr);
      const NodeProto* flatten = Producer(g, softmax->input(0));
      ASSERT_NE(flatten, nullptr);
      EXPECT_THAT(flatten->input(), ElementsAre("d"));
      EXPECT_EQ(FindAttr(*flatten, "axis")->i(), 2);
      const NodeProto* reshape = Producer(g, "y");
      ASSERT_NE(reshape, nullptr);
      ASSERT_EQ(reshape->op_type(), "Reshape");
      EXPECT_EQ(reshape->input(0), softmax->output(0));
      const NodeProto* shape = Producer(g, reshape->input(1));
      ASSERT_NE(shape, nullptr);
      EXPECT_EQ(shape->op_type(), "Shape");
      EXPECT_THAT(shape->input(), ElementsAre("d"));
      // An empty d ([1,2,0,5]) has a 0 that is a size, not "copy dim 2 of the 2-D Softmax output".
      const AttributeProto* allowzero = FindAttr(*reshape, "allowzero");
      ASSERT_NE(allowzero, nullptr);
      EXPECT_EQ(allowzero->i(), 1);
      EXPECT_NO_THROW(onnx::checker::check_model(model));
      ExpectStrictShapeInferenceAccepts(model);
    }
  }
}

TEST(OpsetUpgradeTest, SoftmaxOverUnknownDimsAtOpset13PassesAnEmptyInputThrough) {
  // Reshape-13 has no allowzero: for an empty d ([1,2,0,5]) the 0 at index 2 would be copied from the 2-D
  // Softmax output, which has no dim 2 (ONNX Runtime fails). The Reshape runs only when d has elements;
  // an empty d is its own Softmax.
  ModelProto model = ParseModelNamingNodes(kSoftmaxOverUnknownDims);
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  const GraphProto& g = model.graph();
  EXPECT_THAT(OpTypes(g), ElementsAre("DynamicSlice", "Shape", "Flatten", "Softmax", "Size", "Cast", "If"));
  const NodeProto* softmax = FindNode(g, "node_y");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(FindAttr(*softmax, "axis")->i(), -1);
  const NodeProto* guard = Producer(g, "y");
  ASSERT_NE(guard, nullptr);
  ASSERT_EQ(guard->op_type(), "If");
  const NodeProto* cast = Producer(g, guard->input(0));
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->op_type(), "Cast");
  EXPECT_EQ(FindAttr(*cast, "to")->i(), TensorProto::BOOL);
  const NodeProto* size = Producer(g, cast->input(0));
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->op_type(), "Size");
  EXPECT_THAT(size->input(), ElementsAre("d"));

  const AttributeProto* then_branch = FindAttr(*guard, "then_branch");
  ASSERT_NE(then_branch, nullptr);
  const GraphProto& then_g = then_branch->g();
  ASSERT_EQ(then_g.node_size(), 1);
  const NodeProto& reshape = then_g.node(0);
  EXPECT_EQ(reshape.op_type(), "Reshape");
  EXPECT_EQ(FindAttr(reshape, "allowzero"), nullptr);
  ASSERT_EQ(reshape.input_size(), 2);
  EXPECT_EQ(reshape.input(0), softmax->output(0));
  const NodeProto* shape = Producer(g, reshape.input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  EXPECT_THAT(shape->input(), ElementsAre("d"));
  ASSERT_EQ(then_g.output_size(), 1);
  EXPECT_EQ(then_g.output(0).name(), reshape.output(0));
  EXPECT_EQ(then_g.output(0).type().tensor_type().elem_type(), TensorProto::FLOAT);

  const AttributeProto* else_branch = FindAttr(*guard, "else_branch");
  ASSERT_NE(else_branch, nullptr);
  const GraphProto& else_g = else_branch->g();
  ASSERT_EQ(else_g.node_size(), 1);
  EXPECT_EQ(else_g.node(0).op_type(), "Identity");
  EXPECT_THAT(else_g.node(0).input(), ElementsAre("d"));
  ASSERT_EQ(else_g.output_size(), 1);
  EXPECT_EQ(else_g.output(0).name(), else_g.node(0).output(0));

  ExpectWellFormed(model);
  EXPECT_NO_THROW(onnx::checker::check_model(model));
  ExpectStrictShapeInferenceAccepts(model);
}

TEST(OpsetUpgradeTest, SoftmaxAtOpset13NeedsNoGuardWhereReshapeCopiesAZeroRightly) {
  // Flatten at axis 1 gives [n, c*4]: a 0 in n or c is copied from there rightly, and 4 is no 0.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[?,?,4] x) => (float[?,?,4] y) { y = Softmax<axis=1>(x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  const GraphProto& g = model.graph();
  EXPECT_THAT(OpTypes(g), ElementsAre("Shape", "Flatten", "Softmax", "Reshape"));
  const NodeProto* shape = Producer(g, Producer(g, "y")->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  EXPECT_THAT(shape->input(), ElementsAre("x"));
}

TEST(OpsetUpgradeTest, SoftmaxTrustsNoShapeOfANameTwoBranchesDefine) {
  // Both branches define t, [2,3] in one and [?,3] in the other: what one branch declares of its t says
  // nothing of the other's.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (bool b, float[2,3] x, float[4,3] w, int64[1] s, int64[1] e) => (float[?,3] y) {
  y = If (b) <
    then_branch = g1 () => (float[2,3] yt) <float[2,3] t> { t = Relu(x)  yt = Softmax<axis=0>(t) },
    else_branch = g2 () => (float[?,3] ye) <float[?,3] t> { t = DynamicSlice(w, s, e)  ye = Softmax<axis=0>(t) }
  >
}
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 17).ok());
  const NodeProto* guard = FindNode(model.graph(), "node_y");
  ASSERT_NE(guard, nullptr);
  const GraphProto& else_g = FindAttr(*guard, "else_branch")->g();
  const NodeProto* reshape = Producer(else_g, "ye");
  ASSERT_NE(reshape, nullptr);
  ASSERT_EQ(reshape->op_type(), "Reshape");
  const NodeProto* shape = Producer(else_g, reshape->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  EXPECT_THAT(shape->input(), ElementsAre("t"));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

TEST(OpsetUpgradeTest, HardmaxKeepsItsTwoDimensionalMeaningAtOpset13) {
  // onnx registers Hardmax 12->13 as compatible although its axis semantics changed like Softmax's. Every dim
  // declared non-zero: no guard at 13.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3,4] x) => (float[2,3,4] y) { y = Hardmax<axis=1>(x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  const GraphProto& g = model.graph();
  EXPECT_THAT(OpTypes(g), ElementsAre("Shape", "Flatten", "Hardmax", "Reshape"));
  const NodeProto* hardmax = FindNode(g, "node_y");
  EXPECT_EQ(FindAttr(*hardmax, "axis")->i(), -1);
  const NodeProto* shape = Producer(g, Producer(g, "y")->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  EXPECT_THAT(shape->input(), ElementsAre("x"));
}

// A symbolic batch seen as 1 by the 6->7 adapters must not reach the Reshape that Softmax's 12->13 adapter bakes
// its input's dims into: the Reshape takes the shape at run time.
TEST(OpsetUpgradeTest, ASymbolicBatchIsNotBakedIntoSoftmax13sReshape) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[N,3,4] x, float[4] b) => (float[N,3,4] y) {
  a = Add<broadcast=1, axis=2>(x, b)
  y = Softmax<axis=1>(a)
}
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  const NodeProto* reshape = Producer(model.graph(), "y");
  ASSERT_NE(reshape, nullptr);
  ASSERT_EQ(reshape->op_type(), "Reshape");
  const NodeProto* shape = Producer(model.graph(), reshape->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  ExpectStrictShapeInferenceAccepts(model);
}

}  // namespace
}  // namespace onnx_legalize::testing
