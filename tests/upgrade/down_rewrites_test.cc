// Moving down across changes that no onnx down-adapter undoes, by rewriting the node: attributes that became inputs
// go back to attributes where the inputs are constants (upgrade/down_inputs_to_attributes.cc), and Shape-15's range,
// CastLike, HardSwish and Resize's inputs and coordinates are written in ops of the older opset
// (upgrade/down_replacements.cc). What cannot be written so is refused as kNoFormAtOpset, naming the node and the
// lowest opset it can go to, and the model is left as it was. The proof that each result computes what the original
// did is the driver's (and the ONNX Runtime differential, tests/differential/run_downgrades.py).
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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

// The model `text` describes moved down to `target`, which must succeed and satisfy onnx's strict inference.
ModelProto MovedDown(const char* text, int64_t target) {
  ModelProto model = ParseModelNamingNodes(text);
  const absl::Status moved = MoveDefaultOpset(model, target);
  EXPECT_TRUE(moved.ok()) << moved;
  EXPECT_EQ(::onnx_legalize::DefaultOpset(model).value(), moved.ok() ? target : 0);
  ExpectWellFormed(model);
  ExpectStrictShapeInferenceAccepts(model);
  return model;
}

// Expects the move to `target` refused as kNoFormAtOpset with `text`, the model as it was.
void ExpectNoFormAt(const char* text_model, int64_t target, const std::string& text) {
  ModelProto model = ParseModelNamingNodes(text_model);
  const ModelProto before = model;
  const absl::Status moved = MoveDefaultOpset(model, target);
  EXPECT_EQ(ErrorKindOf(moved), ErrorKind::kNoFormAtOpset) << moved;
  EXPECT_THAT(std::string(moved.message()), HasSubstr(text));
  EXPECT_EQ(model.SerializeAsString(), before.SerializeAsString());
}

constexpr char kSliceAt13[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4, 6] x) => (float[?, ?] y) <int64[2] starts = {1, -4}, int64[2] ends = {100, -1}, int64[2] axes = {0, 1},
                                      int64[2] steps = {1, 1}> {
  y = Slice (x, starts, ends, axes, steps)
}
)ONNX";

TEST(DownRewritesTest, TakesSlicesConstantInputsBackIntoAttributesBelow10) {
  const ModelProto model = MovedDown(kSliceAt13, 9);
  const NodeProto* slice = Producer(model.graph(), "y");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->name(), "node_y") << "the caller's node, rewritten";
  EXPECT_THAT(slice->input(), ElementsAre("x"));
  EXPECT_THAT(FindAttr(*slice, "starts")->ints(), ElementsAre(1, -4));
  EXPECT_THAT(FindAttr(*slice, "ends")->ints(), ElementsAre(100, -1));
  EXPECT_THAT(FindAttr(*slice, "axes")->ints(), ElementsAre(0, 1));
  EXPECT_EQ(model.graph().initializer_size(), 0) << "the initializers the attributes took are read by nothing now";
}

// The constants a down-adapter stops reading go (ONNX Runtime would warn of each); one the model left unread before
// the move, and one a graph output reads, stay.
TEST(DownRewritesTest, RemovesOnlyTheConstantsTheMoveStoppedReading) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4, 6] x) => (float[?, ?] y, int64[1] e) <int64[1] s = {1}, int64[1] e = {3}, float[2] spare = {1, 2}> {
  k = Constant <value = int64[1] {0}> ()
  y = Slice (x, s, e, k)
}
)ONNX",
                                     9);
  std::vector<std::string> initializers;
  for (const TensorProto& initializer : model.graph().initializer()) initializers.push_back(initializer.name());
  EXPECT_THAT(initializers, ElementsAre("e", "spare"));
  ASSERT_EQ(model.graph().node_size(), 1) << "the Constant of the axes is gone";
  EXPECT_EQ(model.graph().node(0).op_type(), "Slice");
}

// ...in a subgraph too: the branch's own axes go, its unread spare stays, and the main graph's constant that the
// branch reads is read still.
TEST(DownRewritesTest, RemovesTheConstantsASubgraphStoppedReading) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 6] x, bool c) => (float[?] y) <float[1] k = {2}> {
  y = If (c) <
    then_branch = then_g () => (float[?] t) <int64[1] axes = {0}, float[1] spare = {1}> {
      s = Squeeze (x, axes)
      t = Mul (s, k)
    },
    else_branch = else_g () => (float[6] o) <int64[1] axes2 = {0}> { o = Squeeze (x, axes2) }
  >
}
)ONNX",
                                     12);
  auto initializers = [](const onnx::GraphProto& graph) {
    std::vector<std::string> names;
    for (const TensorProto& initializer : graph.initializer()) names.push_back(initializer.name());
    return names;
  };
  const NodeProto& if_node = model.graph().node(0);
  ASSERT_EQ(if_node.attribute_size(), 2);
  for (const onnx::AttributeProto& branch : if_node.attribute()) {
    for (const NodeProto& node : branch.g().node()) {
      if (node.op_type() == "Squeeze") EXPECT_EQ(node.input_size(), 1) << "the axes are an attribute at 12";
    }
    EXPECT_EQ(initializers(branch.g()),
              branch.g().name() == "then_g" ? std::vector<std::string>{"spare"} : std::vector<std::string>{});
  }
  EXPECT_THAT(initializers(model.graph()), ElementsAre("k"));
}

// PyTorch's F.pad(x, (1, 2)): the pads [1, 2] padded with zeros for the other dims, reshaped to pairs, the pairs
// reversed (a Slice with steps -1), transposed, flattened and cast, every step of constants.
constexpr char kPyTorchPad[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 5] x) => (float[1, 2, 8] y)
    <int64[2] p = {1, 2}, int64[1] four = {4}, int64[2] pairs = {-1, 2}, int64[1] last = {-1},
     int64[1] stop = {-9223372036854775807}, int64[1] axis0 = {0}, int64[1] back = {-1}, int64[1] flat = {-1}> {
  zeros = ConstantOfShape <value = int64[1] {0}> (four)
  padded = Concat <axis = 0> (p, zeros)
  paired = Reshape (padded, pairs)
  reversed = Slice (paired, last, stop, axis0, back)
  transposed = Transpose <perm = [1, 0]> (reversed)
  flattened = Reshape (transposed, flat)
  pads = Cast <to = 7> (flattened)
  y = Pad (x, pads)
}
)ONNX";

// Below 11 a Pad takes its pads as an attribute, and below 10 a Slice has no steps: a Pad whose pads the model
// computes from constants alone holds them as the constant they are (computed once by the model runner), and the
// nodes that computed them go, the Slice with steps -1 among them, with the constants only they read.
TEST(DownRewritesTest, ComputesPadsThatTheModelComputesFromConstantsAlone) {
  for (int64_t target : {10, 9, 7}) {
    const ModelProto model = MovedDown(kPyTorchPad, target);
    ASSERT_EQ(model.graph().node_size(), 1) << target;
    const NodeProto& pad = model.graph().node(0);
    EXPECT_EQ(pad.op_type(), "Pad");
    EXPECT_THAT(pad.input(), ElementsAre("x"));
    const onnx::AttributeProto* pads = nullptr;
    for (const onnx::AttributeProto& attribute : pad.attribute()) {
      if (attribute.name() == "pads") pads = &attribute;
    }
    ASSERT_NE(pads, nullptr);
    EXPECT_THAT(pads->ints(), ElementsAre(0, 0, 1, 0, 0, 2));
    EXPECT_EQ(model.graph().initializer_size(), 0) << "the chain's constants went with it";
  }
}

// The Shape of an input whose declaration fixes its dims is a constant (ONNX Runtime refuses other dims): pads
// computed from it are computed too. PyTorch writes F.pad so when the model was traced at a fixed input size.
TEST(DownRewritesTest, ComputesPadsFromTheShapeOfAnInputOfFixedDims) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 3] x) => (float[3, 6, 9] y) {
  shape = Shape (x)
  pads = Concat <axis = 0> (shape, shape)
  y = Pad (x, pads)
}
)ONNX",
                                     10);
  ASSERT_EQ(model.graph().node_size(), 1);
  EXPECT_THAT(model.graph().node(0).input(), ElementsAre("x"));
  EXPECT_THAT(model.graph().node(0).attribute(0).ints(), ElementsAre(1, 2, 3, 1, 2, 3));
}

// ...and so is the Shape of a value whose dims onnx's shape inference fixes from such inputs (PyTorch's F.pad inside a
// network traced at a fixed size).
TEST(DownRewritesTest, ComputesPadsFromTheShapeOfAValueOfFixedDims) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 3] x) => (float[3, 6, 9] y) {
  r = Relu (x)
  shape = Shape (r)
  pads = Concat <axis = 0> (shape, shape)
  y = Pad (r, pads)
}
)ONNX",
                                     10);
  ASSERT_EQ(model.graph().node_size(), 2);
  EXPECT_EQ(model.graph().node(1).op_type(), "Pad");
  EXPECT_THAT(model.graph().node(1).input(), ElementsAre("r"));
  EXPECT_THAT(model.graph().node(1).attribute(0).ints(), ElementsAre(1, 2, 3, 1, 2, 3));
}

// The second Pad's pads come from the first Pad's output dims, which inference fixes only once the first Pad's pads
// are a constant: the move writes in what it computed and looks again.
constexpr char kPadOfAPad[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 3] x) => (float[6, 9, 12] y) <int64[3] b = {0, 0, 1}, int64[3] e = {1, 1, 0}> {
  first_pads = Concat <axis = 0> (b, e)
  p = Pad (x, first_pads)
  shape = Shape (p)
  second_pads = Concat <axis = 0> (shape, shape)
  y = Pad (p, second_pads)
}
)ONNX";

TEST(DownRewritesTest, ComputesPadsFromDimsThatPadsComputedBeforeFix) {
  const ModelProto model = MovedDown(kPadOfAPad, 10);
  ASSERT_EQ(model.graph().node_size(), 2);
  EXPECT_THAT(model.graph().node(0).attribute(0).ints(), ElementsAre(0, 0, 1, 1, 1, 0));
  EXPECT_THAT(model.graph().node(1).attribute(0).ints(), ElementsAre(2, 3, 4, 2, 3, 4));
  absl::StatusOr<std::vector<NodeWithoutForm>> without_form = NodesWithoutFormAt(ParseModelNamingNodes(kPadOfAPad), 10);
  ASSERT_TRUE(without_form.ok()) << without_form.status();
  EXPECT_TRUE(without_form->empty()) << "the gate looks again too";
}

// A chain that reads what the caller feeds (here the shape of an x of any batch) computes no constant: that Pad still
// has no form at 10, and the model is left as it was.
TEST(DownRewritesTest, RefusesAPadWhosePadsDependOnTheInput) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N, 2, 5] x) => (float[?, ?, ?] y) <int64[1] at = {0}> {
  shape = Shape (x)
  pads = Concat <axis = 0> (shape, shape)
  y = Pad (x, pads)
}
)ONNX",
                 10, "its pads is computed at run time or fed by the caller");
}

// The move is transactional: a model whose pads chain would be computed, but which holds a node without a form at the
// target, is refused and left as it was (ExpectNoFormAt compares it byte for byte).
TEST(DownRewritesTest, LeavesTheChainAsItWasWhenAnotherNodeHasNoForm) {
  std::string text = kPyTorchPad;
  auto replace = [&text](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("\"\" : 13", "\"\" : 14");
  replace("  y = Pad (x, pads)", "  padded_x = Pad (x, pads)\n  y = Trilu (padded_x)");
  ExpectNoFormAt(text.c_str(), 10, "Trilu exists only from opset 14");
}

TEST(DownRewritesTest, LeavesSlicesInputsAsTheyAreAt10) {
  const ModelProto model = MovedDown(kSliceAt13, 10);
  EXPECT_EQ(Producer(model.graph(), "y")->input_size(), 5);
}

TEST(DownRewritesTest, RefusesASliceBelow10WhoseBoundsAreNotConstantsOrWhoseStepsAreNotOne) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[4, 5] x, int64[1] starts, int64[1] ends) => (float[?, 5] y) { y = Slice (x, starts, ends) }
)ONNX",
                 9,
                 "Slice 'node_y' (graph main) has no form at opset 9: its starts is computed at run time or fed by "
                 "the caller, where the older version takes a constant attribute (Slice-10); the lowest opset it can "
                 "be moved to is 10");
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4, 6] x) => (float[?, ?] y) <int64[1] starts = {0}, int64[1] ends = {6}, int64[1] axes = {1},
                                      int64[1] steps = {2}> {
  y = Slice (x, starts, ends, axes, steps)
}
)ONNX",
                 9,
                 "its steps (2) are the newer version's alone (Slice-10); the lowest opset it can be moved to is 10");
}

// From IR 4 on, an initializer that is also a graph input is a default the caller may feed.
TEST(DownRewritesTest, RefusesAnInitializerTheCallerMayFeedAsAConstant) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4, 6] x, int64[1] starts) => (float[?, ?] y) <int64[1] starts = {1}, int64[1] ends = {3}> {
  y = Slice (x, starts, ends)
}
)ONNX",
                 9, "its starts is computed at run time or fed by the caller");
}

TEST(DownRewritesTest, TakesPadsConstantInputsBackIntoAttributesBelow11) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x) => (float[?, ?] y) <int64[4] pads = {0, 1, 2, 3}, float value = {1.5}> {
  y = Pad <mode = "constant"> (x, pads, value)
}
)ONNX",
                                     10);
  const NodeProto* pad = Producer(model.graph(), "y");
  EXPECT_THAT(pad->input(), ElementsAre("x"));
  EXPECT_THAT(FindAttr(*pad, "pads")->ints(), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(FindAttr(*pad, "value")->f(), 1.5f);
  EXPECT_EQ(FindAttr(*pad, "mode")->s(), "constant");
}

TEST(DownRewritesTest, RefusesAPadValueNoFloatHolds) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (double[2, 3] x) => (double[?, ?] y) <int64[4] pads = {0, 1, 2, 3}, double value = {0.1}> {
  y = Pad (x, pads, value)
}
)ONNX",
                 10, "its constant_value (0.1) has no exact float, which the older version's attribute is (Pad-11)");
}

TEST(DownRewritesTest, TakesClipsBoundsBackIntoAttributesBelow11AndLeavesAMissingOneOutOnFloatData) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x) => (float[2, 3] y) <float high = {6}> { y = Clip (x, , high) }
)ONNX",
                                     10);
  const NodeProto* clip = Producer(model.graph(), "y");
  EXPECT_THAT(clip->input(), ElementsAre("x"));
  EXPECT_EQ(FindAttr(*clip, "min"), nullptr) << "the lowest float at 6 as at 11";
  EXPECT_EQ(FindAttr(*clip, "max")->f(), 6.0f);
}

TEST(DownRewritesTest, RefusesAClipWithoutABoundOnDataOtherThanFloat) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (double[2, 3] x) => (double[2, 3] y) <double high = {6}> { y = Clip (x, , high) }
)ONNX",
                 10,
                 "Clip 'node_y' (graph main) has no form at opset 10: Clip-11 without min or max clamps at the lowest "
                 "or highest value of its data's type");
}

TEST(DownRewritesTest, TakesDropoutsRatioBackIntoAnAttributeWhenItDoesNotTrain) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x) => (float[2, 3] y) <float ratio = {0.25}, bool training = {0}> {
  y = Dropout <seed = 7> (x, ratio, training)
}
)ONNX",
                                     11);
  const NodeProto* dropout = Producer(model.graph(), "y");
  EXPECT_THAT(dropout->input(), ElementsAre("x"));
  EXPECT_EQ(FindAttr(*dropout, "ratio")->f(), 0.25f);
  EXPECT_EQ(FindAttr(*dropout, "seed"), nullptr);
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x, bool training) => (float[2, 3] y) { y = Dropout (x, , training) }
)ONNX",
                 11, "its training_mode may be true, and only the newer version drops values in a run (Dropout-12)");
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x) => (float[2, 3] y, bool[2, 3] mask) { y, mask = Dropout (x) }
)ONNX",
                 11, "its mask output is read, which only the newer version defines where it does not train");
}

constexpr char kShapeRangeAt15[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 15]>
g (float[2, 3, 4] x) => (int64[2] dims) { dims = Shape <start = -2> (x) }
)ONNX";

TEST(DownRewritesTest, WritesShapesRangeAsASliceOfTheWholeShape) {
  const ModelProto model = MovedDown(kShapeRangeAt15, 14);
  const NodeProto* slice = Producer(model.graph(), "dims");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->op_type(), "Slice") << "the graph output keeps its name";
  const NodeProto* shape = Producer(model.graph(), slice->input(0));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  EXPECT_EQ(shape->name(), "node_dims") << "the caller's node";
  EXPECT_EQ(shape->attribute_size(), 0);
  EXPECT_THAT(ConstInts(model.graph(), slice->input(1)), ElementsAre(-2));
  EXPECT_THAT(ConstInts(model.graph(), slice->input(2)), ElementsAre(std::numeric_limits<int64_t>::max()));
  EXPECT_THAT(ConstInts(model.graph(), slice->input(3)), ElementsAre(0));
}

TEST(DownRewritesTest, WritesShapesRangeBelow10AsASliceWithAttributes) {
  const ModelProto model = MovedDown(kShapeRangeAt15, 9);
  const NodeProto* slice = Producer(model.graph(), "dims");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->input_size(), 1);
  EXPECT_THAT(FindAttr(*slice, "starts")->ints(), ElementsAre(-2));
  EXPECT_EQ(model.graph().node_size(), 2) << "the Constants made for the Slice's inputs are gone";
}

TEST(DownRewritesTest, WritesCastLikeAsACastToItsTargetsType) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 15]>
g (float[2] x, double[1] like) => (double[2] y) { y = CastLike (x, like) }
)ONNX",
                                     13);
  const NodeProto* cast = Producer(model.graph(), "y");
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->op_type(), "Cast");
  EXPECT_EQ(cast->name(), "node_y");
  EXPECT_THAT(cast->input(), ElementsAre("x"));
  EXPECT_EQ(FindAttr(*cast, "to")->i(), TensorProto::DOUBLE);
}

TEST(DownRewritesTest, RefusesCastLikeWhoseTargetsTypeIsNotKnown) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 15, "custom" : 1]>
g (float[2] x) => (float[2] y) {
  like = custom.Like (x)
  y = CastLike (x, like)
}
)ONNX",
                 13, "the element type of its target_type input is not known");
}

// Cast-19's saturate applies to the float8 types alone, which onnx's own adapter refuses below 19: on any other
// type it means nothing, and the older Cast has no such attribute.
TEST(DownRewritesTest, TakesOffCastsSaturateBelow19) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 9, opset_import: ["" : 19]>
g (double[3] x) => (float[3] y) { y = Cast <to = 1, saturate = 1> (x) }
)ONNX",
                                     13);
  const NodeProto* cast = Producer(model.graph(), "y");
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->op_type(), "Cast");
  EXPECT_EQ(FindAttr(*cast, "saturate"), nullptr);
  EXPECT_EQ(FindAttr(*cast, "to")->i(), TensorProto::FLOAT);
  ExpectNoFormAt(R"ONNX(
<ir_version: 9, opset_import: ["" : 19]>
g (float[3] x) => (float8e4m3fn[3] y) { y = Cast <to = 17, saturate = 0> (x) }
)ONNX",
                 18, "down-adapter of Cast-19 refuses it");
}

TEST(DownRewritesTest, WritesHardSwishAsItsFunctionBody) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2, 3] x) => (float[2, 3] y) { y = HardSwish (x) }
)ONNX",
                                     9);
  const NodeProto* mul = Producer(model.graph(), "y");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->op_type(), "Mul");
  EXPECT_EQ(mul->name(), "node_y") << "the caller's node, replaced";
  ASSERT_EQ(mul->input_size(), 2);
  EXPECT_EQ(mul->input(0), "x");
  const NodeProto* sigmoid = Producer(model.graph(), mul->input(1));
  ASSERT_NE(sigmoid, nullptr);
  EXPECT_EQ(sigmoid->op_type(), "HardSigmoid");
  EXPECT_EQ(FindAttr(*sigmoid, "alpha")->f(), 1.0f / 6.0f);
  EXPECT_EQ(FindAttr(*sigmoid, "beta")->f(), 0.5f);
}

TEST(DownRewritesTest, WritesMishOfFloatAsItsFunctionBody) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 18]>
g (float[2, 3] x) => (float[2, 3] y) { y = Mish (x) }
)ONNX",
                                     13);
  const NodeProto* mul = Producer(model.graph(), "y");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->op_type(), "Mul");
  EXPECT_EQ(mul->name(), "node_y") << "the caller's node, replaced";
  ASSERT_EQ(mul->input_size(), 2);
  EXPECT_EQ(mul->input(0), "x");
  const NodeProto* tanh = Producer(model.graph(), mul->input(1));
  ASSERT_NE(tanh, nullptr);
  EXPECT_EQ(tanh->op_type(), "Tanh");
  const NodeProto* softplus = Producer(model.graph(), tanh->input(0));
  ASSERT_NE(softplus, nullptr);
  EXPECT_EQ(softplus->op_type(), "Softplus");
  EXPECT_THAT(softplus->input(), ElementsAre("x"));
}

// ONNX Runtime computes Mish of float16 otherwise than its body, and has no Softplus of double.
TEST(DownRewritesTest, RefusesMishOfOtherTypesThanFloat) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 18]>
g (float16[2, 3] x) => (float16[2, 3] y) { y = Mish (x) }
)ONNX",
                 17, "its body is exact for float alone");
  ExpectNoFormAt(R"ONNX(
<ir_version: 8, opset_import: ["" : 18]>
g (double[2, 3] x) => (double[2, 3] y) { y = Mish (x) }
)ONNX",
                 17, "its body is exact for float alone");
}

// OneHot-11 counts an index in [-depth, -1] from the back; below 11 the indices are counted from the front first, and
// one below -depth becomes depth, off everywhere at every version. The model runner reads OneHot-10 as ONNX Runtime
// does (eval/kernels/one_hot.cc); the form hands it no negative index, so it is exact in the spec's reading too.
TEST(DownRewritesTest, WritesOneHotsIndicesCountedFromTheFrontBelow11) {
  for (const char* type : {"int64", "int32"}) {
    const std::string text =
        absl::StrCat(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g ()ONNX",
                     type, R"ONNX([2, 4] i, float[2] v) => (float[2, 4, 3] y, float[3, 1] c) <int64 d = {3}> {
  y = OneHot <axis = -1> (i, d, v)
  constant = Constant <value = )ONNX",
                     type, R"ONNX([1] {-2}> ()
  c = OneHot <axis = 0> (constant, d, v)
}
)ONNX");
    const ModelProto original = ParseModelNamingNodes(text.c_str());
    for (int64_t target : {10, 9}) {
      const ModelProto moved = MovedDown(text.c_str(), target);
      const NodeProto* one_hot = Producer(moved.graph(), "y");
      ASSERT_NE(one_hot, nullptr);
      EXPECT_EQ(one_hot->op_type(), "OneHot");
      const NodeProto* where = Producer(moved.graph(), one_hot->input(0));
      ASSERT_NE(where, nullptr);
      EXPECT_EQ(where->op_type(), "Where") << type;
      const Tensor indices = std::string(type) == "int64" ? Int64s({2, 4}, {0, -1, 2, 3, -3, -4, -7, 1})
                                                          : Int32s({2, 4}, {0, -1, 2, 3, -3, -4, -7, 1});
      const Tensor values = Floats({2}, {-0.5f, 2.0f});
      ExpectSameOutputs(original, moved, {{"i", &indices}, {"v", &values}});
    }
  }
}

// PyTorch writes x[..., 1:3] as a Slice along axis -1 and x[:, -1] as a Gather of index -1: below 11 the axes and the
// indices are counted from the front, by the rank and the size shape inference found.
TEST(DownRewritesTest, CountsSliceAxesAndGatherIndicesFromTheFrontBelow11) {
  const char* text = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2, 5] x) => (float[2, 2] s, float[2] last, float[2, 2] pair) <int64[1] b = {1}, int64[1] e = {3}, int64[1] back = {-1},
                                                                 int64 minus1 = {-1}, int32[2] two = {-5, 4}> {
  s = Slice (x, b, e, back)
  last = Gather <axis = -1> (x, minus1)
  pair = Gather <axis = 1> (x, two)
}
)ONNX";
  const ModelProto original = ParseModelNamingNodes(text);
  const Tensor x = Floats({2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  for (int64_t target : {10, 9}) {
    const ModelProto moved = MovedDown(text, target);
    ExpectSameOutputs(original, moved, {{"x", &x}});
    const NodeProto* last = Producer(moved.graph(), "last");
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(FindAttr(*last, "axis")->i(), 1);
  }
  const ModelProto at10 = MovedDown(text, 10);
  const NodeProto* slice = Producer(at10.graph(), "s");
  ASSERT_NE(slice, nullptr);
  const NodeProto* axes = Producer(at10.graph(), slice->input(3));
  ASSERT_NE(axes, nullptr) << "a Constant of the axes counted from the front";
  EXPECT_EQ(axes->op_type(), "Constant");
}

TEST(DownRewritesTest, RefusesNegativeIndicesWhereTheSizeAlongTheAxisIsNotKnown) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[N, M] x) => (float[N] last) <int64 minus1 = {-1}> { last = Gather <axis = 1> (x, minus1) }
)ONNX",
                 10, "its indices count from the back, and the size of its data along axis 1 is not known");
  ExpectNoFormAt(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2, 5] x, int64[1] i) => (float[2, 1] y) { y = Gather <axis = 1> (x, i) }
)ONNX",
                 10, "its indices are computed at run time, and may count from the back");
}

// If-11 reads as If-1: the same node moves to 10, and computes alike on either branch.
TEST(DownRewritesTest, MovesIfToOpset10) {
  const char* text = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (bool c, float[3] x) => (float[3] y) {
  y = If (c) <then_branch = t () => (float[3] a) { a = Relu (x) }, else_branch = e () => (float[3] b) { b = Neg (x) }>
}
)ONNX";
  const ModelProto original = ParseModelNamingNodes(text);
  const ModelProto moved = MovedDown(text, 10);
  const Tensor x = Floats({3}, {-1, 0.5f, 2});
  for (const bool condition : {true, false}) {
    const Tensor c = Bools({}, {static_cast<uint8_t>(condition)});
    ExpectSameOutputs(original, moved, {{"c", &c}, {"x", &x}});
  }
}

// PyTorch writes an If's branches reading the main graph's Constants: a branch's Gather of the main graph's index -1
// is counted from the front like any other (the converter hands the adapter the branch alone; the skeleton gives it a
// copy of the constant), and one of index 0 crosses as it is.
TEST(DownRewritesTest, ReadsTheConstantsASubgraphCapturesBelow11) {
  const char* text = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (bool c, float[2, 5] x) => (float[2] y) {
  first = Constant <value = int64 {0}> ()
  last = Constant <value = int64 {-1}> ()
  y = If (c) <then_branch = t () => (float[2] a) { a = Gather <axis = 1> (x, first) },
              else_branch = e () => (float[2] b) { b = Gather <axis = 1> (x, last) }>
}
)ONNX";
  const ModelProto original = ParseModelNamingNodes(text);
  const ModelProto moved = MovedDown(text, 10);
  const Tensor x = Floats({2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  for (const bool condition : {true, false}) {
    const Tensor c = Bools({}, {static_cast<uint8_t>(condition)});
    ExpectSameOutputs(original, moved, {{"c", &c}, {"x", &x}});
  }
  const GraphProto& then_branch = Producer(moved.graph(), "y")->attribute(0).g();
  EXPECT_EQ(then_branch.initializer_size(), 0) << "the skeleton's copy of the constant stays out of the result";
}

// x.unsqueeze(-1) of a value whose rank inference does not know has no axis counted from the front; below 11 it is a
// Reshape to the value's shape followed by a 1. Other axes counting from the back still need the rank.
TEST(DownRewritesTest, WritesAnUnsqueezeAtTheBackOfUnknownRankAsAReshapeBelow11) {
  const char* text = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[6] x, int64[N] s) => (float[?, ?, ?] y) <int64[2] back = {-2, -1}> {
  r = Reshape (x, s)
  y = Unsqueeze (r, back)
}
)ONNX";
  const ModelProto original = ParseModelNamingNodes(text);
  const Tensor x = Floats({6}, {1, 2, 3, 4, 5, 6});
  const Tensor s = Int64s({1}, {6});
  for (int64_t target : {10, 9}) {
    const ModelProto moved = MovedDown(text, target);
    const NodeProto* reshape = Producer(moved.graph(), "y");
    ASSERT_NE(reshape, nullptr);
    EXPECT_EQ(reshape->op_type(), "Reshape");
    ExpectSameOutputs(original, moved, {{"x", &x}, {"s", &s}});
  }
  ExpectNoFormAt(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[6] x, int64[N] s) => (float[?, ?] y) <int64[1] second = {-2}> {
  r = Reshape (x, s)
  y = Unsqueeze (r, second)
}
)ONNX",
                 10, "its axes counts from the back, and the rank of its input is not known");
}

// Unsigned indices count nothing from the back: the node crosses as it is.
TEST(DownRewritesTest, LeavesOneHotOfUnsignedIndicesAsItIsBelow11) {
  const ModelProto moved = MovedDown(R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (uint8[4] i, int64[1] d, float[2] v) => (float[4, ?] y) { y = OneHot (i, d, v) }
)ONNX",
                                     10);
  ASSERT_EQ(moved.graph().node_size(), 1);
  EXPECT_EQ(moved.graph().node(0).op_type(), "OneHot");
  EXPECT_EQ(moved.graph().node(0).input(0), "i");
}

TEST(DownRewritesTest, RefusesOneHotOfIndicesThatCannotBeCountedFromTheFrontBelow11) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (float[4] i, int64[1] d, float[2] v) => (float[4, ?] y) { y = OneHot (i, d, v) }
)ONNX",
                 10, "its indices are of a type in which an index that counts from the back");
  ExpectNoFormAt(R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (int16[4] i, int64[1] d, float[2] v) => (float[4, ?] y) { y = OneHot (i, d, v) }
)ONNX",
                 9, "the lowest opset it can be moved to is 11");
}

// Equal-7 compares bool, int32 and int64 alone. Below 11 the integers Equal-11 added are cast to int64 first, and
// floating values compared as neither less nor greater, where both are ordered: NaN equals nothing, -0 equals +0, and
// an infinity equals itself. Floating values hold down to opset 7, uint64 to 9 (Less and Greater take it from 9).
TEST(DownRewritesTest, ComparesTheTypesEqual11AddedInOtherOpsBelow11) {
  const char* text = R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (float[8] a, float[8] b, double[4] c, double[4] d, int8[3] e, int8[3] f, uint64[3] g, uint64[3] h)
  => (bool[8] floats, bool[4] doubles, bool[3] int8s, bool[3] uint64s, bool[8, 8] broadcast) {
  floats = Equal (a, b)
  same = Equal (c, d)
  doubles = Not (same)
  int8s = Equal (e, f)
  uint64s = Equal (g, h)
  column = Unsqueeze <axes = [1]> (a)
  broadcast = Equal (column, b)
}
)ONNX";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const double dnan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = Floats({8}, {1.5f, nan, nan, -0.0f, inf, -inf, inf, 2.0f});
  const Tensor b = Floats({8}, {1.5f, nan, 1.0f, 0.0f, inf, -inf, -inf, 2.0000002f});
  const Tensor c = Doubles({4}, {dnan, 0.1, -0.0, 1e308});
  const Tensor d = Doubles({4}, {dnan, 0.1, 0.0, -1e308});
  const Tensor e = Make<int8_t>(TensorProto::INT8, {3}, {-128, 5, 127});
  const Tensor f = Make<int8_t>(TensorProto::INT8, {3}, {-128, 6, 127});
  const Tensor g = Make<uint64_t>(TensorProto::UINT64, {3}, {~uint64_t{0}, 0, uint64_t{1} << 63});
  const Tensor h = Make<uint64_t>(TensorProto::UINT64, {3}, {~uint64_t{0}, 1, uint64_t{1} << 63});
  const ModelProto original = ParseModelNamingNodes(text);
  for (int64_t target : {10, 9}) {
    const ModelProto moved = MovedDown(text, target);
    const NodeProto* floats = Producer(moved.graph(), "floats");
    ASSERT_NE(floats, nullptr);
    EXPECT_EQ(floats->op_type(), "And") << "neither less nor greater, and both ordered";
    const NodeProto* int8s = Producer(moved.graph(), "int8s");
    ASSERT_NE(int8s, nullptr);
    EXPECT_EQ(int8s->op_type(), "Equal");
    EXPECT_EQ(Producer(moved.graph(), int8s->input(0))->op_type(), "Cast");
    ExpectSameOutputs(original, moved,
                      {{"a", &a}, {"b", &b}, {"c", &c}, {"d", &d}, {"e", &e}, {"f", &f}, {"g", &g}, {"h", &h}});
  }
}

TEST(DownRewritesTest, ComparesFloatsInOpsOfOpset7AndRefusesUint64Below9) {
  const char* floats = R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (float[4] a, float[4] b, float16[4] c, float16[4] d) => (bool[4] y, bool[4] z) {
  y = Equal (a, b)
  z = Equal (c, d)
}
)ONNX";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = Floats({4}, {nan, 1, -0.0f, 3});
  const Tensor b = Floats({4}, {1, 1, 0, nan});
  // float16 bits: NaN, +inf and +inf, -0 and +0, 1 and 1 + 2^-10
  const Tensor c = Make<uint16_t>(TensorProto::FLOAT16, {4}, {0x7E00, 0x7C00, 0x8000, 0x3C00});
  const Tensor d = Make<uint16_t>(TensorProto::FLOAT16, {4}, {0x7E00, 0x7C00, 0x0000, 0x3C01});
  ExpectSameOutputs(ParseModelNamingNodes(floats), MovedDown(floats, 7), {{"a", &a}, {"b", &b}, {"c", &c}, {"d", &d}});
  ExpectNoFormAt(R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (uint64[4] a, uint64[4] b) => (bool[4] y) { y = Equal (a, b) }
)ONNX",
                 8, "the lowest opset it can be moved to is 9");
}

TEST(DownRewritesTest, SpellsOutResizesLeftOutRoiAndScalesBelow13) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 4] y) <int64[4] sizes = {1, 1, 4, 4}> {
  y = Resize <mode = "nearest"> (x, , , sizes)
}
)ONNX",
                                     11);
  const NodeProto* resize = Producer(model.graph(), "y");
  ASSERT_EQ(resize->input_size(), 4);
  EXPECT_EQ(resize->input(3), "sizes");
  for (int index : {1, 2}) {
    const TensorProto* empty = ConstantTensor(model.graph(), resize->input(index));
    ASSERT_NE(empty, nullptr) << index;
    EXPECT_EQ(empty->data_type(), TensorProto::FLOAT);
    EXPECT_THAT(empty->dims(), ElementsAre(0));
  }
}

// PyTorch's nearest upsampling at opset 11 says what Resize-10 does: asymmetric coordinates, the floor.
TEST(DownRewritesTest, WritesAResizeThatSaysWhatResize10DoesAsResize10) {
  const ModelProto model = MovedDown(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 4] y) <float[0] roi = {}, float[4] scales = {1, 1, 2, 2}> {
  y = Resize <mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"> (x, roi, scales)
}
)ONNX",
                                     10);
  const NodeProto* resize = Producer(model.graph(), "y");
  EXPECT_THAT(resize->input(), ElementsAre("x", "scales"));
  ASSERT_EQ(resize->attribute_size(), 1);
  EXPECT_EQ(resize->attribute(0).name(), "mode");
}

TEST(DownRewritesTest, RefusesAResizeThatSamplesOtherwiseThanResize10) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[1, 1, 4, 4] x) => (float[1, 1, 2, 2] y) <float[0] roi = {}, float[4] scales = {1, 1, 0.5, 0.5}> {
  y = Resize <mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"> (x, roi, scales)
}
)ONNX",
                 10, "its scale 0.5 shrinks an axis, where Resize-10 takes the nearest pixel's ceiling (Resize-11)");
  ExpectNoFormAt(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 4] y) <float[0] roi = {}, float[4] scales = {1, 1, 2, 2}> {
  y = Resize <mode = "linear"> (x, roi, scales)
}
)ONNX",
                 10, "its coordinate_transformation_mode 'half_pixel' is the newer version's alone");
}

// Resize-10 was Upsample-9 renamed, but Upsample takes no scale below 1: a constant upsampling goes back to Upsample,
// and below 9 onnx's own adapter takes its scales into an attribute.
TEST(DownRewritesTest, WritesAnUpsamplingResize10AsUpsample) {
  constexpr char kUpsampling[] = R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 6] y) <float[4] scales = {1, 1, 2, 3}> {
  y = Resize <mode = "linear"> (x, scales)
}
)ONNX";
  ModelProto model = MovedDown(kUpsampling, 9);
  const NodeProto* upsample = Producer(model.graph(), "y");
  ASSERT_NE(upsample, nullptr);
  EXPECT_EQ(upsample->op_type(), "Upsample");
  EXPECT_EQ(upsample->name(), "node_y") << "the caller's node, replaced";
  EXPECT_THAT(upsample->input(), ElementsAre("x", "scales"));
  EXPECT_EQ(FindAttr(*upsample, "mode")->s(), "linear");

  model = MovedDown(kUpsampling, 8);
  upsample = Producer(model.graph(), "y");
  ASSERT_NE(upsample, nullptr);
  EXPECT_EQ(upsample->op_type(), "Upsample");
  EXPECT_THAT(upsample->input(), ElementsAre("x"));
  EXPECT_THAT(FindAttr(*upsample, "scales")->floats(), ElementsAre(1, 1, 2, 3));
}

// PyTorch's F.interpolate(scale_factor=2) at opset 13 is a Resize of (x, "", scales): its scales, the third input
// there, are the second of the Resize-10 it becomes at 10, and then Upsample's.
TEST(DownRewritesTest, WritesAnUpsamplingResize13AsUpsampleBelow10) {
  constexpr char kResize13[] = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[1, 1, 2, 3] x) => (float[1, 1, 4, 6] y) <float[4] scales = {1, 1, 2, 2}> {
  y = Resize <mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"> (x, , scales)
}
)ONNX";
  const ModelProto original = ParseModelNamingNodes(kResize13);
  const Tensor x = Floats({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  for (int64_t target : {9, 8}) {
    const ModelProto moved = MovedDown(kResize13, target);
    const NodeProto* upsample = Producer(moved.graph(), "y");
    ASSERT_NE(upsample, nullptr);
    EXPECT_EQ(upsample->op_type(), "Upsample");
    ExpectSameOutputs(original, moved, {{"x", &x}});
  }
}

// onnx's own Upsample 9 -> 8 would bake scales the caller may override (a graph input with a default, IR 4 on) into
// the attribute and drop the input.
TEST(DownRewritesTest, RefusesAnUpsampleWhoseScalesTheCallerMayOverrideBelow9) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1, 1, 2, 2] x, float[4] scales) => (float[1, 1, 4, 4] y) <float[4] scales = {1, 1, 2, 2}> {
  y = Upsample <mode = "nearest"> (x, scales)
}
)ONNX",
                 8, "its scales is computed at run time or fed by the caller");
}

TEST(DownRewritesTest, RefusesAResize10ThatShrinksOrWhoseScalesAreNotConstant) {
  ExpectNoFormAt(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1, 1, 4, 4] x) => (float[1, 1, 2, 8] y) <float[4] scales = {1, 1, 0.5, 2}> {
  y = Resize <mode = "nearest"> (x, scales)
}
)ONNX",
                 9, "its scale 0.5 shrinks an axis, which Upsample does not (Resize-10)");
  ExpectNoFormAt(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1, 1, 2, 2] x, float[4] scales) => (float[1, 1, 4, 4] y) {
  y = Resize <mode = "nearest"> (x, scales)
}
)ONNX",
                 9, "its scales are not a constant, and Upsample, which Resize-10 is written as, takes none below 1");
}

}  // namespace
}  // namespace onnx_legalize::testing
