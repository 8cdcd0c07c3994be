// MoveDefaultOpset to an opset below the model's own: onnx's down-adapters and the library's own
// (upgrade/down_steps.cc), and a refusal of kind kNoFormAtOpset, naming the node and the lowest opset it can go to,
// for what has no form at the target. The proof that the moved model computes what the original did is the
// driver's (tests/driver/legalize_down_test.cc and the ONNX Runtime differential).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/opsets.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/error_kind.h"
#include "test_models.h"
#include "test_tensors.h"
#include "upgrade/opset_upgrade.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

int64_t Opset(const ModelProto& model) { return ::onnx_legalize::DefaultOpset(model).value(); }

TEST(OpsetDowngradeTest, MovesAnExportFrom13To11WithItsAxesAsAttributes) {
  ModelProto model = ParseModelNamingNodes(kPyTorchExportAt13);
  const absl::Status moved = MoveDefaultOpset(model, 11);
  ASSERT_TRUE(moved.ok()) << moved;
  EXPECT_EQ(Opset(model), 11);
  EXPECT_EQ(model.ir_version(), 6) << "onnx 1.6's, opset 11's, as the model holds nothing later IRs added";
  ExpectWellFormed(model);
  ExpectStrictShapeInferenceAccepts(model);
  const NodeProto* unsqueeze = Producer(model.graph(), "y");
  ASSERT_NE(unsqueeze, nullptr);
  ASSERT_EQ(unsqueeze->input_size(), 1) << "Unsqueeze-11 takes its axes as an attribute";
  const AttributeProto* axes = FindAttr(*unsqueeze, "axes");
  ASSERT_NE(axes, nullptr);
  EXPECT_THAT(axes->ints(), ElementsAre(1));
  const NodeProto* reduce = Producer(model.graph(), "total");
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->input_size(), 1);
  EXPECT_NE(FindAttr(*reduce, "axes"), nullptr);
  const NodeProto* softmax = Producer(model.graph(), "probs");
  ASSERT_NE(softmax, nullptr);
  ASSERT_NE(FindAttr(*softmax, "axis"), nullptr) << "Softmax-11's default axis is 1, 13's is -1";
  EXPECT_EQ(FindAttr(*softmax, "axis")->i(), -1);
}

TEST(OpsetDowngradeTest, GivesHardmaxThatNamesNoAxisTheLastOne) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2, 3, 4] x) => (float[2, 3, 4] y) { y = Hardmax (x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 12).ok());
  const AttributeProto* axis = FindAttr(*Producer(model.graph(), "y"), "axis");
  ASSERT_NE(axis, nullptr) << "Hardmax-11's default axis is 1, 13's is -1";
  EXPECT_EQ(axis->i(), -1);
}

// Before 13 these ops flatten the input at their axis and compute along every axis from it: along another axis than
// the last, the node is moved between two Transposes that take its axis last and back, and computes as before.
TEST(OpsetDowngradeTest, MovesSoftmaxAlongAnotherAxisThanTheLastBetweenTwoTransposes) {
  const char* text = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2, 3, 4] x) => (float[2, 3, 4] s, float[2, 3, 4] l) {
  s = Softmax <axis = 1> (x)
  l = LogSoftmax <axis = -3> (x)
}
)ONNX";
  const ModelProto original = ParseModelNamingNodes(text);
  ModelProto model = original;
  ASSERT_TRUE(MoveDefaultOpset(model, 12).ok());
  ExpectStrictShapeInferenceAccepts(model);
  const NodeProto* after = Producer(model.graph(), "s");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->op_type(), "Transpose");
  EXPECT_THAT(FindAttr(*after, "perm")->ints(), ElementsAre(0, 2, 1));
  const NodeProto* softmax = Producer(model.graph(), after->input(0));
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(softmax->op_type(), "Softmax");
  EXPECT_EQ(softmax->name(), "node_s") << "the caller's node, between the two";
  EXPECT_EQ(FindAttr(*softmax, "axis")->i(), -1);
  const NodeProto* before = Producer(model.graph(), softmax->input(0));
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(before->op_type(), "Transpose");
  EXPECT_THAT(FindAttr(*before, "perm")->ints(), ElementsAre(0, 2, 1));
  std::vector<float> values(24);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) * 0.75f - 2.0f;
  const Tensor x = Floats({2, 3, 4}, values);
  ExpectSameOutputs(original, model, {{"x", &x}});

  // Hardmax alike (the model runner has no Hardmax kernel: ONNX Runtime compares it, run_downgrades.py).
  ModelProto hardmax = ParseModelNamingNodes(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2, 3, 4] x) => (float[2, 3, 4] y) { y = Hardmax <axis = 0> (x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(hardmax, 12).ok());
  ExpectStrictShapeInferenceAccepts(hardmax);
  const NodeProto* back = Producer(hardmax.graph(), "y");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->op_type(), "Transpose");
  EXPECT_THAT(FindAttr(*back, "perm")->ints(), ElementsAre(2, 0, 1));
}

TEST(OpsetDowngradeTest, RefusesSoftmaxAlongAnotherAxisOfAnInputOfUnknownRank) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2, 3] x, int64[N] shape) => (float y) { r = Reshape (x, shape)  y = Softmax <axis = 1> (r) }
)ONNX");
  const absl::Status moved = MoveDefaultOpset(model, 12);
  EXPECT_EQ(ErrorKindOf(moved), ErrorKind::kNoFormAtOpset) << moved;
  EXPECT_THAT(std::string(moved.message()), HasSubstr("without the rank, the axis cannot be moved last"));
}

TEST(OpsetDowngradeTest, WritesConstant12sShorthandsAsTheValueTensor) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 7, opset_import: ["" : 12]>
g (float x) => (float y, int64[2] shape) {
  scale = Constant <value_float = 2.5> ()
  y = Mul (x, scale)
  shape = Constant <value_ints = [3, 4]> ()
}
)ONNX");
  const absl::Status moved = MoveDefaultOpset(model, 11);
  ASSERT_TRUE(moved.ok()) << moved;
  ExpectStrictShapeInferenceAccepts(model);
  const NodeProto* scale = Producer(model.graph(), "scale");
  ASSERT_NE(scale, nullptr);
  ASSERT_EQ(scale->attribute_size(), 1);
  EXPECT_EQ(scale->attribute(0).name(), "value");
  EXPECT_EQ(scale->attribute(0).t().data_type(), TensorProto::FLOAT);
  EXPECT_EQ(scale->attribute(0).t().dims_size(), 0) << "a scalar";
  EXPECT_THAT(ConstFloats(model.graph(), "scale"), ElementsAre(2.5f));
  EXPECT_THAT(ConstInts(model.graph(), "shape"), ElementsAre(3, 4));
}

// An attribute only the newer version has, at the value that is the older version's behaviour, is taken off: the
// older schema has no such attribute.
TEST(OpsetDowngradeTest, TakesOffAttributesAtTheOlderVersionsBehaviour) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 8, opset_import: ["" : 14]>
g (float[1, 1, 4, 4] x, int64[2] shape) => (float[?, ?] y, float[1, 1, 2, 2] pooled, float[1, 1, 1, 4] s) {
  axes = Constant <value = int64[1] {2}> ()
  pooled = MaxPool <kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 0, dilations = [1, 1]> (x)
  y = Reshape <allowzero = 0> (pooled, shape)
  s = ReduceSum <noop_with_empty_axes = 0, keepdims = 1> (x, axes)
}
)ONNX");
  const absl::Status moved = MoveDefaultOpset(model, 8);
  ASSERT_TRUE(moved.ok()) << moved;
  EXPECT_EQ(FindAttr(*Producer(model.graph(), "pooled"), "ceil_mode"), nullptr);
  EXPECT_EQ(FindAttr(*Producer(model.graph(), "pooled"), "dilations"), nullptr);
  EXPECT_EQ(FindAttr(*Producer(model.graph(), "y"), "allowzero"), nullptr);
  EXPECT_EQ(FindAttr(*Producer(model.graph(), "s"), "noop_with_empty_axes"), nullptr);
}

// Before opset 11 an axis counts from the front only: one that counts from the back is written as the one it counts
// to, by the rank shape inference finds (Unsqueeze's axes count in its output).
TEST(OpsetDowngradeTest, WritesAnAxisThatCountsFromTheBackAsTheOneItCountsTo) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[2, 3, 4] x) => (float[6, 4] f, float[2, 3, 4, 1] u, float[2, 3, 1] m) {
  f = Flatten <axis = -1> (x)
  u = Unsqueeze <axes = [-1]> (x)
  m = ReduceMean <axes = [-1]> (x)
}
)ONNX");
  const absl::Status moved = MoveDefaultOpset(model, 10);
  ASSERT_TRUE(moved.ok()) << moved;
  ExpectStrictShapeInferenceAccepts(model);
  EXPECT_EQ(FindAttr(*Producer(model.graph(), "f"), "axis")->i(), 2);
  EXPECT_THAT(FindAttr(*Producer(model.graph(), "u"), "axes")->ints(), ElementsAre(3));
  EXPECT_THAT(FindAttr(*Producer(model.graph(), "m"), "axes")->ints(), ElementsAre(2));
}

// Expects the move to `target` refused as kNoFormAtOpset with `text`, the model as it was.
void ExpectNoFormAt(const char* text_model, int64_t target, const std::string& text) {
  ModelProto model = ParseModelNamingNodes(text_model);
  const ModelProto before = model;
  const absl::Status moved = MoveDefaultOpset(model, target);
  EXPECT_EQ(ErrorKindOf(moved), ErrorKind::kNoFormAtOpset) << moved;
  EXPECT_EQ(moved.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(moved.message()), HasSubstr(text));
  EXPECT_EQ(model.SerializeAsString(), before.SerializeAsString());
}

TEST(OpsetDowngradeTest, RefusesAnOpThatDidNotExistYetNamingTheNodeAndTheLowestOpset) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2, 3] x) => (float[2, 3] y) { h = Relu (x)  y = Trilu (h) }
)ONNX",
                 13,
                 "Trilu 'node_y' (graph main) has no form at opset 13: Trilu exists only from opset 14; the "
                 "lowest opset it can be moved to is 14");
}

TEST(OpsetDowngradeTest, RefusesAChangeOnnxHasNoWayBackFrom) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[4] x) => (float[2] y, int64[2] i) <int64[1] k = {2}> { y, i = TopK (x, k) }
)ONNX",
                 10,
                 "TopK 'node_y' (graph main) has no form at opset 10: onnx 1.23.2's version converter has no way to "
                 "move TopK-11 back to opset 10; the lowest opset it can be moved to is 11");
}

// onnx's own down-adapters assert what the older version cannot hold, naming no node: the refusal names it.
TEST(OpsetDowngradeTest, NamesTheNodeOnnxsOwnAdapterRefuses) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 9, opset_import: ["" : 19]>
g (string[2] a, string[2] b) => (bool[2] y) { y = Equal (a, b) }
)ONNX",
                 18,
                 "Equal 'node_y' (graph main) has no form at opset 18: onnx 1.23.2's down-adapter of Equal-19 refuses "
                 "it: DataType (8) of Input or Output of operator 'Equal' is unallowed for Opset Version 18.; the "
                 "lowest opset it can be moved to is 19");
}

TEST(OpsetDowngradeTest, RefusesWhatOnlyTheNewerVersionTakes) {
  ExpectNoFormAt(
      R"ONNX(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2, 3] x, int64[2] shape) => (float[?, ?] y) { y = Reshape <allowzero = 1> (x, shape) }
)ONNX",
      13, "its allowzero (1) is the newer version's alone (Reshape-14); the lowest opset it can be moved to is 14");
  ExpectNoFormAt(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[2, 3] x, int64[1] i) => (float[2, 1] y) { y = Gather <axis = 1> (x, i) }
)ONNX",
                 10, "its indices are computed at run time, and may count from the back");
}

TEST(OpsetDowngradeTest, RefusesAnAxisThatCountsFromTheBackOfAnInputOfUnknownRank) {
  ExpectNoFormAt(
      R"ONNX(
<ir_version: 6, opset_import: ["" : 11, "custom" : 1]>
g (float[2, 3] x) => (float[?, ?] y) { h = custom.Foo (x)  y = Flatten <axis = -1> (h) }
)ONNX",
      10,
      "Flatten 'node_y' (graph main) has no form at opset 10: its axis counts from the back, and the rank of "
      "its input is not known");
}

TEST(OpsetDowngradeTest, NamesANodeInsideABranchByItsGraph) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 14]>
g (bool c, float[2] x) => (float[2] y) {
  y = If (c) <then_branch = then_g () => (float[2] t) { t = Trilu (x) },
              else_branch = else_g () => (float[2] e) { e = Identity (x) }>
}
)ONNX",
                 13, "Trilu 'node_t' (graph main/then_g) has no form at opset 13");
}

}  // namespace
}  // namespace onnx_legalize::testing
