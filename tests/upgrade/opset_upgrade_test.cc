// Tests for MoveDefaultOpset: onnx 1.12's version converter behind a transactional, lossless wrapper.
// The repairs of single adapters are tested beside them in fixes/, the conversion in chunks in chunks_test.cc.
#include "upgrade/opset_upgrade.h"

#include <set>
#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/opsets.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---- the legacy model -----------------------------------------------------------------------------------

class LegacyModelTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(LegacyModelTest, ConvertsEveryNodeAndKeepsDynamicSlice) {
  const int64_t target = GetParam();
  const ModelProto original = ParseModelNamingNodes(kLegacyModel);
  ModelProto model = original;
  ASSERT_TRUE(MoveDefaultOpset(model, target).ok());
  const GraphProto& g = model.graph();

  EXPECT_EQ(DefaultOpset(model), target);
  EXPECT_EQ(model.ir_version(), MinIrVersionForOpset(target));
  ASSERT_EQ(model.opset_import_size(), 2);
  EXPECT_EQ(model.opset_import(1).domain(), "ai.onnx.ml");
  EXPECT_EQ(model.opset_import(1).version(), 1);
  ExpectWellFormed(model);

  // The DynamicSlice is the very same node, between the same neighbours.
  const NodeProto* dyn = FindNode(g, "node_dyn");
  ASSERT_NE(dyn, nullptr);
  EXPECT_TRUE(MessageDifferencer::Equals(*dyn, original.graph().node(6)));
  const std::set<std::string> original_names = NodeNames(original.graph());
  std::vector<std::string> expected_order;
  for (const auto& n : original.graph().node()) expected_order.push_back(n.name());
  // Upsample becomes a Resize that keeps the node's name.
  EXPECT_EQ(NodeNamesAmong(g, original_names), expected_order);

  // Slice-1's attributes became inputs holding the same values.
  const NodeProto* slice = FindNode(g, "node_sliced");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->attribute_size(), 0);
  ASSERT_EQ(slice->input_size(), 4);
  EXPECT_EQ(slice->input(0), "x");
  EXPECT_THAT(ConstInts(g, slice->input(1)), ElementsAre(0, 1));
  EXPECT_THAT(ConstInts(g, slice->input(2)), ElementsAre(1, 7));
  EXPECT_THAT(ConstInts(g, slice->input(3)), ElementsAre(0, 2));

  // TopK's k became an input; its axis stays.
  const NodeProto* topk = FindNode(g, "node_topv");
  ASSERT_NE(topk, nullptr);
  ASSERT_EQ(topk->input_size(), 2);
  EXPECT_THAT(ConstInts(g, topk->input(1)), ElementsAre(2));
  ASSERT_NE(FindAttr(*topk, "axis"), nullptr);
  EXPECT_EQ(FindAttr(*topk, "axis")->i(), -1);
  EXPECT_EQ(FindAttr(*topk, "k"), nullptr);

  // Upsample -> Resize, same name, same output.
  const NodeProto* up = FindNode(g, "node_up");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->op_type(), "Resize");
  EXPECT_THAT(up->output(), ElementsAre("up"));
  EXPECT_EQ(FindAttr(*up, "mode")->s(), "nearest");
  if (target == 10) {
    EXPECT_THAT(up->input(), ElementsAre("x", "scales"));
  } else {
    ASSERT_EQ(up->input_size(), 3);
    EXPECT_EQ(up->input(0), "x");
    EXPECT_EQ(up->input(2), "scales");
    // Resize-10 meant asymmetric coordinates and floor for nearest; Resize-11 must say so.
    ASSERT_NE(FindAttr(*up, "coordinate_transformation_mode"), nullptr);
    EXPECT_EQ(FindAttr(*up, "coordinate_transformation_mode")->s(), "asymmetric");
    ASSERT_NE(FindAttr(*up, "nearest_mode"), nullptr);
    EXPECT_EQ(FindAttr(*up, "nearest_mode")->s(), "floor");
  }

  const NodeProto* clip = FindNode(g, "node_clipped");
  const NodeProto* pad = FindNode(g, "node_padded");
  ASSERT_NE(clip, nullptr);
  ASSERT_NE(pad, nullptr);
  if (target >= 11) {
    // Clip's and Pad's attributes became inputs.
    EXPECT_EQ(clip->attribute_size(), 0);
    ASSERT_EQ(clip->input_size(), 3);
    EXPECT_THAT(ConstFloats(g, clip->input(1)), ElementsAre(0.0f));
    EXPECT_THAT(ConstFloats(g, clip->input(2)), ElementsAre(6.0f));
    ASSERT_EQ(pad->input_size(), 3);
    EXPECT_THAT(ConstInts(g, pad->input(1)), ElementsAre(0, 0, 1, 1, 0, 0, 1, 1));
    EXPECT_THAT(ConstFloats(g, pad->input(2)), ElementsAre(0.5f));
    EXPECT_EQ(FindAttr(*pad, "pads"), nullptr);
    EXPECT_EQ(FindAttr(*pad, "value"), nullptr);
    EXPECT_EQ(FindAttr(*pad, "mode")->s(), "constant");
    // The converter's pads initializer came back as a Constant node, not as an initializer.
    EXPECT_EQ(g.initializer_size(), 1);
  } else {
    EXPECT_TRUE(MessageDifferencer::Equals(*clip, original.graph().node(3)));
    EXPECT_TRUE(MessageDifferencer::Equals(*pad, original.graph().node(4)));
  }

  const NodeProto* squeeze = FindNode(g, "node_squeezed");
  const NodeProto* unsqueeze = FindNode(g, "node_unsq");
  const NodeProto* split = FindNode(g, "node_split0");
  const NodeProto* rsum = FindNode(g, "node_rsum");
  const NodeProto* soft = FindNode(g, "node_soft");
  ASSERT_TRUE(squeeze && unsqueeze && split && rsum && soft);
  if (target >= 13) {
    // axes and split moved from attributes to inputs holding the old attribute values.
    ASSERT_EQ(squeeze->input_size(), 2);
    EXPECT_THAT(ConstInts(g, squeeze->input(1)), ElementsAre(0));
    EXPECT_EQ(FindAttr(*squeeze, "axes"), nullptr);
    ASSERT_EQ(unsqueeze->input_size(), 2);
    EXPECT_THAT(ConstInts(g, unsqueeze->input(1)), ElementsAre(0));
    ASSERT_EQ(split->input_size(), 2);
    EXPECT_THAT(ConstInts(g, split->input(1)), ElementsAre(1, 2));
    EXPECT_EQ(FindAttr(*split, "axis")->i(), 1);
    EXPECT_THAT(split->output(), ElementsAre("split0", "split1"));
    ASSERT_EQ(rsum->input_size(), 2);
    EXPECT_THAT(ConstInts(g, rsum->input(1)), ElementsAre(1));
    EXPECT_EQ(FindAttr(*rsum, "keepdims")->i(), 1);
    // Softmax-1 coerced to 2-D at axis 1; Softmax-13 works on one axis: Flatten -> Softmax -> Reshape.
    EXPECT_EQ(FindAttr(*soft, "axis")->i(), -1);
    const NodeProto* flatten = Producer(g, soft->input(0));
    ASSERT_NE(flatten, nullptr);
    EXPECT_EQ(flatten->op_type(), "Flatten");
    EXPECT_THAT(flatten->input(), ElementsAre("x"));
    EXPECT_EQ(FindAttr(*flatten, "axis")->i(), 1);
    const NodeProto* reshape = Producer(g, "soft");
    ASSERT_NE(reshape, nullptr);
    EXPECT_EQ(reshape->op_type(), "Reshape");
    EXPECT_EQ(reshape->input(0), soft->output(0));
    const NodeProto* shape = Producer(g, reshape->input(1));  // the input's shape, taken at run time
    ASSERT_NE(shape, nullptr);
    EXPECT_EQ(shape->op_type(), "Shape");
    EXPECT_THAT(shape->input(), ElementsAre("x"));
  } else {
    EXPECT_TRUE(MessageDifferencer::Equals(*squeeze, original.graph().node(5)));
    EXPECT_TRUE(MessageDifferencer::Equals(*soft, original.graph().node(8)));
    EXPECT_TRUE(MessageDifferencer::Equals(*split, original.graph().node(9)));
  }

  // Graph inputs, outputs and initializers are the caller's.
  EXPECT_TRUE(MessageDifferencer::Equals(g.initializer(0), original.graph().initializer(0)));
  ASSERT_EQ(g.output_size(), original.graph().output_size());
  for (int i = 0; i < g.output_size(); ++i)
    EXPECT_TRUE(MessageDifferencer::Equals(g.output(i), original.graph().output(i)));
  ASSERT_EQ(g.input_size(), original.graph().input_size());

  // onnx's checker accepts the result at the new opset (DynamicSlice only draws its warning).
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

INSTANTIATE_TEST_SUITE_P(Targets, LegacyModelTest, ::testing::Values(10, 11, 13, 17));

// ---- subgraphs --------------------------------------------------------------------------------------

TEST(OpsetUpgradeTest, ConvertsLoopBodyAroundDynamicSlice) {
  ModelProto original = ParseModelNamingNodes(kLoopModel);
  // The outer Squeeze is shape-incorrect for x0 but fine for the converter; make it an Identity.
  original.mutable_graph()->mutable_node(1)->set_op_type("Identity");
  original.mutable_graph()->mutable_node(1)->clear_attribute();
  ModelProto model = original;
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  ExpectWellFormed(model);
  const NodeProto* loop = FindNode(model.graph(), "node_xf");
  ASSERT_NE(loop, nullptr);
  const GraphProto& body = loop->attribute(0).g();
  const GraphProto& original_body = original.graph().node(0).attribute(0).g();

  const NodeProto* dyn = FindNode(body, "node_d");
  ASSERT_NE(dyn, nullptr);
  EXPECT_TRUE(MessageDifferencer::Equals(*dyn, original_body.node(2)));
  EXPECT_THAT(NodeNamesAmong(body, NodeNames(original_body)),
              ElementsAre("node_c_out", "node_u", "node_d", "node_x_out", "node_x_scan"));

  const NodeProto* unsq = FindNode(body, "node_u");
  ASSERT_EQ(unsq->input_size(), 2);
  EXPECT_THAT(ConstInts(body, unsq->input(1)), ElementsAre(0));
  const NodeProto* squeeze = FindNode(body, "node_x_out");
  ASSERT_EQ(squeeze->input_size(), 2);
  EXPECT_EQ(squeeze->input(0), "d");
  EXPECT_THAT(ConstInts(body, squeeze->input(1)), ElementsAre(0));
  const NodeProto* slice = FindNode(body, "node_x_scan");
  ASSERT_EQ(slice->input_size(), 4);
  EXPECT_THAT(ConstInts(body, slice->input(1)), ElementsAre(0));

  // The body's signature is untouched (inputs are positional in a Loop body).
  ASSERT_EQ(body.input_size(), 3);
  ASSERT_EQ(body.output_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(MessageDifferencer::Equals(body.input(i), original_body.input(i)));
    EXPECT_TRUE(MessageDifferencer::Equals(body.output(i), original_body.output(i)));
  }
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

TEST(OpsetUpgradeTest, ConvertsIfBranchesAroundDynamicSlice) {
  ModelProto original = ParseModelNamingNodes(kIfModel);
  // TopK has two outputs; the parser gave it one. Add the indices.
  NodeProto* topk = original.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0);
  topk->add_output("t_idx");
  ModelProto model = original;
  const absl::Status status = MoveDefaultOpset(model, 13);
  ASSERT_TRUE(status.ok()) << status;
  ExpectWellFormed(model);
  const NodeProto& node = model.graph().node(0);
  const GraphProto& then_g = node.attribute(0).g();
  const GraphProto& else_g = node.attribute(1).g();

  const NodeProto* dyn = FindNode(then_g, "node_y_then");
  ASSERT_NE(dyn, nullptr);
  EXPECT_TRUE(MessageDifferencer::Equals(*dyn, original.graph().node(0).attribute(0).g().node(1)));
  const NodeProto* k = FindNode(then_g, "node_t");
  ASSERT_EQ(k->input_size(), 2);
  EXPECT_THAT(ConstInts(then_g, k->input(1)), ElementsAre(1));

  const NodeProto* soft = FindNode(else_g, "node_y_else");
  ASSERT_NE(soft, nullptr);
  const NodeProto* reshape = Producer(else_g, "y_else");
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->op_type(), "Reshape");
  const NodeProto* shape = Producer(else_g, reshape->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  EXPECT_EQ(FindAttr(*Producer(else_g, soft->input(0)), "axis")->i(), 0);
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

// ---- what the converter would lose --------------------------------------------------------------------

TEST(OpsetUpgradeTest, PreservesEverythingButTheConvertedNodes) {
  const ModelProto original = RichModel();
  ModelProto model = original;
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());

  // Apart from node list, default opset and IR version, the model is bit for bit the caller's.
  ModelProto expected = original;
  ModelProto actual = model;
  expected.mutable_graph()->clear_node();
  actual.mutable_graph()->clear_node();
  expected.mutable_opset_import(0)->set_version(13);
  EXPECT_EQ(actual.ir_version(), 7);  // already enough for opset 13
  EXPECT_TRUE(MessageDifferencer::Equals(actual, expected));

  // Every node: same names, same order; those whose ops did not change are identical protos.
  ASSERT_EQ(model.graph().node_size(), original.graph().node_size());
  for (int i = 0; i < original.graph().node_size(); ++i) {
    EXPECT_TRUE(MessageDifferencer::Equals(model.graph().node(i), original.graph().node(i)))
        << "node " << original.graph().node(i).name();
  }
}

TEST(OpsetUpgradeTest, ConvertedNodesKeepNameDocStringAndDomainSpelling) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["ai.onnx" : 9]>
g (float[3,1] x) => (float[3] y) {
  y = ai.onnx.Squeeze<axes=[1]>(x)
}
)ONNX");
  model.mutable_graph()->mutable_node(0)->set_doc_string("squeezes");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  EXPECT_EQ(model.opset_import(0).domain(), "ai.onnx");
  EXPECT_EQ(model.opset_import(0).version(), 13);
  const NodeProto* squeeze = FindNode(model.graph(), "node_y");
  ASSERT_NE(squeeze, nullptr);
  EXPECT_EQ(squeeze->doc_string(), "squeezes");
  EXPECT_EQ(squeeze->domain(), "ai.onnx");
  EXPECT_THAT(ConstInts(model.graph(), squeeze->input(1)), ElementsAre(1));
}

TEST(OpsetUpgradeTest, MovesBothSpellingsOfTheDefaultDomainWhenAModelImportsBoth) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9, "ai.onnx" : 9]>
g (float[3,1] x) => (float[3] y) {
  y = Squeeze<axes=[1]>(x)
}
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  ASSERT_EQ(model.opset_import_size(), 2);
  EXPECT_EQ(model.opset_import(0).version(), 13);
  EXPECT_EQ(model.opset_import(1).version(), 13);
}

TEST(OpsetUpgradeTest, RejectsAModelThatImportsTheDefaultDomainAtTwoVersions) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9, "ai.onnx" : 11]>
g (float[3,1] x) => (float[3] y) {
  y = Squeeze<axes=[1]>(x)
}
)ONNX");
  const ModelProto original = model;
  const absl::Status status = MoveDefaultOpset(model, 13);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("imports domain 'ai.onnx' twice, at opsets 9 and 11"));
  EXPECT_TRUE(MessageDifferencer::Equals(model, original));
}

TEST(OpsetUpgradeTest, LeavesNodesOfOtherDomainsAloneEvenWithDefaultOpNames) {
  const ModelProto original = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9, "com.acme" : 1]>
g (float[4] x) => (float[2] y, float[2] z) {
  y = com.acme.Slice<starts=[0], ends=[2]>(x)
  z = Slice<starts=[0], ends=[2]>(x)
}
)ONNX");
  ModelProto model = original;
  ASSERT_TRUE(MoveDefaultOpset(model, 10).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(*FindNode(model.graph(), "node_y"), original.graph().node(0)));
  EXPECT_EQ(FindNode(model.graph(), "node_z")->input_size(), 3);
}

// Old PyTorch exports name values "0", "1", ...: exactly the names onnx's IR gives the values it makes.
TEST(OpsetUpgradeTest, MadeNamesCollideWithNothingInAnyGraph) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,4] v0, bool v1) => (float[4] v2, float[1,1,4] v8) {
  v3 = Unsqueeze<axes=[0]>(v0)
  v4 = Squeeze<axes=[0]>(v3)
  v5 = Slice<starts=[0], ends=[1], axes=[0]>(v4)
  v8 = If (v1) <
    then_branch = t () => (float[1,1,4] v6) { v6 = Unsqueeze<axes=[0]>(v0) },
    else_branch = e () => (float[1,1,4] v7) { v7 = Unsqueeze<axes=[1]>(v0) }
  >
  v2 = Squeeze<axes=[0]>(v0)
}
)ONNX");
  // Rename every value "v<k>" to "<k>", and spread more numeric names around.
  ForEachGraph(model.mutable_graph(), [](GraphProto* g) {
    auto strip = [](std::string* s) {
      if (!s->empty() && (*s)[0] == 'v') *s = s->substr(1);
    };
    for (auto& v : *g->mutable_input()) strip(v.mutable_name());
    for (auto& v : *g->mutable_output()) strip(v.mutable_name());
    for (auto& n : *g->mutable_node()) {
      for (auto& i : *n.mutable_input()) strip(&i);
      for (auto& o : *n.mutable_output()) strip(&o);
    }
  });
  for (int k = 9; k < 40; ++k) {
    NodeProto* n = model.mutable_graph()->add_node();
    n->set_op_type("Identity");
    n->add_input("0");
    n->add_output(std::to_string(k));
  }
  const ModelProto original = model;
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  ExpectWellFormed(model);
  // Original nodes still read what they read.
  EXPECT_THAT(FindNode(model.graph(), "node_v4")->input(0), "3");
  EXPECT_THAT(FindNode(model.graph(), "node_v5")->input(0), "4");
  EXPECT_THAT(FindNode(model.graph(), "node_v2")->input(0), "0");
  EXPECT_EQ(FindNode(model.graph(), "node_v2")->input_size(), 2);
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

// ---- contract -------------------------------------------------------------------------------------------

TEST(OpsetUpgradeTest, IsDeterministic) {
  ModelProto a = ParseModelNamingNodes(kLegacyModel);
  ModelProto b = ParseModelNamingNodes(kLegacyModel);
  ASSERT_TRUE(MoveDefaultOpset(a, 17).ok());
  ASSERT_TRUE(MoveDefaultOpset(b, 17).ok());
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
}

TEST(OpsetUpgradeTest, IsIdempotent) {
  ModelProto model = ParseModelNamingNodes(kLegacyModel);
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  const std::string once = model.SerializeAsString();
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  EXPECT_EQ(model.SerializeAsString(), once);
}

TEST(OpsetUpgradeTest, RaisesIrVersionToFitTheTargetButNeverLowersIt) {
  ModelProto low = ParseModelNamingNodes(kLegacyModel);
  low.set_ir_version(3);
  ASSERT_TRUE(MoveDefaultOpset(low, 11).ok());
  EXPECT_EQ(low.ir_version(), 6);

  ModelProto high = ParseModelNamingNodes(kLegacyModel);
  high.set_ir_version(8);
  ASSERT_TRUE(MoveDefaultOpset(high, 10).ok());
  EXPECT_EQ(high.ir_version(), 8);

  ModelProto same = ParseModelNamingNodes(kLegacyModel);
  same.set_ir_version(3);
  ASSERT_TRUE(MoveDefaultOpset(same, 9).ok());
  EXPECT_EQ(same.ir_version(), 4);
}

TEST(OpsetUpgradeTest, MinIrVersionFollowsOnnxReleases) {
  EXPECT_EQ(MinIrVersionForOpset(1), 3);
  EXPECT_EQ(MinIrVersionForOpset(8), 3);
  EXPECT_EQ(MinIrVersionForOpset(9), 4);
  EXPECT_EQ(MinIrVersionForOpset(10), 5);
  EXPECT_EQ(MinIrVersionForOpset(11), 6);
  EXPECT_EQ(MinIrVersionForOpset(12), 7);
  EXPECT_EQ(MinIrVersionForOpset(14), 7);
  EXPECT_EQ(MinIrVersionForOpset(15), 8);
  EXPECT_EQ(MinIrVersionForOpset(17), 8);
  EXPECT_EQ(MinIrVersionForOpset(18), 8);
  EXPECT_EQ(MinIrVersionForOpset(19), 9);
  EXPECT_EQ(MinIrVersionForOpset(21), 10);
  EXPECT_EQ(MinIrVersionForOpset(22), 10);
  EXPECT_EQ(MinIrVersionForOpset(23), 11);
  EXPECT_EQ(MinIrVersionForOpset(24), 12);
  EXPECT_EQ(MinIrVersionForOpset(25), 13);
  EXPECT_EQ(MinIrVersionForOpset(26), 13);  // the newest ONNX Runtime 1.31 runs: opset 26, IR 13
  EXPECT_EQ(MinIrVersionForOpset(27), 13);
  EXPECT_EQ(MinIrVersionForOpset(28), 14);
}

TEST(OpsetUpgradeTest, RejectsUndefinedGraphOutputAndLeavesModelUnchanged) {
  // onnx's converter dies with SIGSEGV on this model.
  ExpectRejectedUnchanged(ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2] x) => (float[2] y, float[2] ghost) { y = Relu(x) }
)ONNX"),
                          13, absl::StatusCode::kInvalidArgument, "'ghost'");
}

TEST(OpsetUpgradeTest, RejectsUndefinedNodeInputInASubgraph) {
  ExpectRejectedUnchanged(ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (bool b, float[2] x) => (float[2] y) {
  y = If (b) <
    then_branch = t () => (float[2] yt) { yt = Relu(nowhere) },
    else_branch = e () => (float[2] ye) { ye = Relu(x) }
  >
}
)ONNX"),
                          13, absl::StatusCode::kInvalidArgument, "'nowhere'");
}

// A target below the model's opset moves it down (tests/upgrade/opset_downgrade_test.cc): here nothing changed
// between the two.
TEST(OpsetUpgradeTest, MovesDownToATargetBelowCurrentOpset) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[2] x) => (float[2] y) { y = Relu(x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 10).ok());
  EXPECT_EQ(DefaultOpset(model), 10);
  EXPECT_THAT(OpTypes(model.graph()), ElementsAre("Relu"));
}

TEST(OpsetUpgradeTest, RejectsTargetBeyondTheNewestOpsetOnnxKnows) {
  ExpectRejectedUnchanged(ParseModelNamingNodes(kLegacyModel), 29, absl::StatusCode::kInvalidArgument, "29");
}

TEST(OpsetUpgradeTest, RejectsModelWithoutDefaultOpsetImport) {
  ExpectRejectedUnchanged(ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["com.acme" : 1]>
g (float[2] x) => (float[2] y) { y = com.acme.Op(x) }
)ONNX"),
                          13, absl::StatusCode::kInvalidArgument, "default");
}

TEST(OpsetUpgradeTest, FailsUnchangedWhenTheConverterRefuses) {
  // onnx's Scan 8->9 adapter refuses a Scan-8 that takes sequence_lens (its first input).
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (int32[1] lens, float[1,5,3] x, float[1,3] init) => (float[1,3] final, float[1,5,3] ys) {
  final, ys = Scan<num_scan_inputs=1, body = body (float[3] acc, float[3] xi) => (float[3] acc_out, float[3] y) {
    acc_out = Add(acc, xi)
    y = Identity(acc_out)
  }>(lens, init, x)
}
)ONNX");
  ExpectRejectedUnchanged(model, 9, absl::StatusCode::kFailedPrecondition, "Unsupported conversion to opset 9");
}

// The upgrade may be called without the planner, which refuses such nodes: a DynamicSlice without inputs or
// with two outputs reaches the converter as the inert stand-in and comes back as it was.
TEST(OpsetUpgradeTest, CarriesAMalformedDynamicSliceThroughUnchanged) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,5] x, int64[1] s) => (float[?,?] a, float[?,?] b, float[?,?] c, float[4,5] y) {
  a, b = DynamicSlice(x, s, s)
  c = DynamicSlice()
  y = Softmax<axis=0>(x)
}
)ONNX");
  const ModelProto original = model;
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(model.graph().node(0), original.graph().node(0)));
  EXPECT_TRUE(MessageDifferencer::Equals(model.graph().node(1), original.graph().node(1)));
  EXPECT_EQ(DefaultOpset(model), 13);
}

TEST(OpsetUpgradeTest, FailsUnchangedOnOpsOnnx112DoesNotKnow) {
  ExpectRejectedUnchanged(ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,3,2,2] x) => (float[1,3,2,2] y) { y = NoSuchOp<scale=2.0>(x) }
)ONNX"),
                          10, absl::StatusCode::kFailedPrecondition, "NoSuchOp");
}

// The ops the caller names pass through untouched, as DynamicSlice does: the library's removed-op rules
// replace them after the upgrade (pass/removed_ops_pass.h, RemovedOpsPassThrough). ConstantFill would send
// onnx 1.12's converter into an endless loop; as a stand-in it never reaches it.
constexpr const char* kRemovedOpModels[] = {R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,3,2,2] x) => (float[1,3,2,2] y) { y = ImageScaler<scale=2.0, bias=[1.0, 2.0, 3.0]>(x) }
)ONNX",
                                            R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (int64[2] shape) => (float y) { y = ConstantFill<value=1.0, input_as_shape=1>(shape) }
)ONNX"};

TEST(OpsetUpgradeTest, PassesTheOpsItIsToldOfThroughUntouched) {
  std::vector<std::pair<std::string, int64_t>> asked;
  PassThroughOps pass_through;
  pass_through.passes_through = [&](const NodeProto& node, int64_t opset) {
    asked.emplace_back(node.op_type(), opset);
    return node.op_type() == "ImageScaler" || node.op_type() == "ConstantFill";
  };
  for (const char* text : kRemovedOpModels) {
    ModelProto model = ParseModelNamingNodes(text);
    const ModelProto original = model;
    ASSERT_TRUE(MoveDefaultOpset(model, 10, pass_through).ok());
    ASSERT_EQ(model.graph().node_size(), 1);
    EXPECT_TRUE(MessageDifferencer::Equals(model.graph().node(0), original.graph().node(0)));
  }
  // Asked at the opset the model comes from, where the ops are (or are not) the removed ones.
  EXPECT_THAT(asked, Contains(std::make_pair(std::string("ImageScaler"), int64_t{9})));
}

TEST(OpsetUpgradeTest, RefusesARemovedOpNoOneToldItOf) {
  ModelProto model = ParseModelNamingNodes(kRemovedOpModels[0]);
  const ModelProto original = model;
  const absl::Status status = MoveDefaultOpset(model, 10);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("ImageScaler"));
  EXPECT_TRUE(MessageDifferencer::Equals(model, original));
}

TEST(OpsetUpgradeTest, SameTargetChangesOnlyTheIrVersion) {
  ModelProto model = ParseModelNamingNodes(kLegacyModel);
  const ModelProto original = model;
  ASSERT_TRUE(MoveDefaultOpset(model, 9).ok());
  ModelProto expected = original;
  expected.set_ir_version(4);
  EXPECT_TRUE(MessageDifferencer::Equals(model, expected));
}

// ---- what the wrapper corrects beyond one adapter (each adapter's own repair: fixes/) ---------------

TEST(OpsetUpgradeTest, ScatterBecomesScatterElementsUnderItsOwnName) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[3,3] data, int64[1,2] idx, float[1,2] upd) => (float[3,3] y) {
  s = Scatter<axis=1>(data, idx, upd)
  y = Relu(s)
}
)ONNX");
  model.mutable_graph()->mutable_node(0)->set_doc_string("scatters");
  ASSERT_TRUE(MoveDefaultOpset(model, 11).ok());
  const NodeProto* scatter = FindNode(model.graph(), "node_s");
  ASSERT_NE(scatter, nullptr);
  EXPECT_EQ(scatter->op_type(), "ScatterElements");
  EXPECT_EQ(scatter->doc_string(), "scatters");
  EXPECT_THAT(scatter->input(), ElementsAre("data", "idx", "upd"));
  EXPECT_THAT(scatter->output(), ElementsAre("s"));
  EXPECT_EQ(FindAttr(*scatter, "axis")->i(), 1);
  EXPECT_THAT(FindNode(model.graph(), "node_y")->input(), ElementsAre("s"));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

TEST(OpsetUpgradeTest, TypesDeclaredForDynamicSliceOutputsReachTheAdapters) {
  // The DynamicSlice is hidden from the converter, but its declared output type still gives Softmax its rank:
  // at 13 every dim declared non-zero, the Reshape needs no guard against an empty input.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,6] x, int64[1] s, int64[1] e) => (float[2,6] y) <float[2,6] d> {
  d = DynamicSlice(x, s, e)
  y = Softmax<axis=0>(d)
}
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  EXPECT_THAT(OpTypes(model.graph()), ElementsAre("DynamicSlice", "Shape", "Flatten", "Softmax", "Reshape"));
  EXPECT_THAT(Producer(model.graph(), Producer(model.graph(), "y")->input(1))->input(), ElementsAre("d"));
}

TEST(OpsetUpgradeTest, SubgraphInitializersLargeAndSmallSurvive) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[1,4] x) => (float[4] y) {
  y = If (c) <
    then_branch = t () => (float[4] yt) <float[4] small = {1.0, 2.0, 3.0, 4.0}> { a = Squeeze<axes=[0]>(x)  yt = Add(a, small) },
    else_branch = e () => (float[4] ye) <float[4] big = {0.0, 0.0, 0.0, 0.0}> { b = Squeeze<axes=[0]>(x)  ye = Add(b, big) }
  >
}
)ONNX");
  TensorProto* big = model.mutable_graph()->mutable_node(0)->mutable_attribute(1)->mutable_g()->mutable_initializer(0);
  big->clear_float_data();
  big->add_dims(0);
  big->clear_dims();
  big->add_dims(4096);
  big->set_raw_data(std::string(size_t{4096} * 4, '\x03'));
  const ModelProto original = model;
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  ExpectWellFormed(model);
  for (int branch = 0; branch < 2; ++branch) {
    const GraphProto& g = model.graph().node(0).attribute(branch).g();
    const GraphProto& o = original.graph().node(0).attribute(branch).g();
    ASSERT_EQ(g.initializer_size(), 1);
    EXPECT_TRUE(MessageDifferencer::Equals(g.initializer(0), o.initializer(0)));
    EXPECT_THAT(ConstInts(g, g.node(1).input(1)), ElementsAre(0));
  }
}

TEST(OpsetUpgradeTest, ConvertsWhenDeclaredTypesContradictShapeInference) {
  // Shape inference throws on the wrong output type; conversion goes on without it where no adapter needs it.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,3] x) => (int64[3] y) { y = Squeeze<axes=[0]>(x) }
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  EXPECT_THAT(ConstInts(model.graph(), FindNode(model.graph(), "node_y")->input(1)), ElementsAre(0));
}

TEST(OpsetUpgradeTest, LargeConstantNodesPassThroughUnchanged) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,2048] x) => (float[2048] y) {
  c = Constant<value=float[1,2048] {0.0}>()
  s = Add(x, c)
  y = Squeeze<axes=[0]>(s)
}
)ONNX");
  // The parser fills one value; make it a genuinely large payload.
  TensorProto* t = model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t();
  t->clear_float_data();
  t->set_raw_data(std::string(size_t{2048} * 4, '\x02'));
  const NodeProto constant = model.graph().node(0);
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(*FindNode(model.graph(), "node_c"), constant));
  EXPECT_THAT(ConstInts(model.graph(), FindNode(model.graph(), "node_y")->input(1)), ElementsAre(0));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

}  // namespace
}  // namespace onnx_legalize::testing
