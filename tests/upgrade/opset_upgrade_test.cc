// Tests for UpgradeDefaultOpset: onnx 1.12's version converter behind a transactional, lossless wrapper.
#include "upgrade/opset_upgrade.h"

#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/message_differencer.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph_locator.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::ModelProto;
using onnx::NodeProto;
using onnx::TensorProto;
using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::NameNodesAsNodeOutput;
using ::onnx_legalize::testing::ParseModel;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Pair;

// ---- helpers ------------------------------------------------------------------------------------------

void ForEachGraph(GraphProto* graph, const std::function<void(GraphProto*)>& fn) {
  fn(graph);
  for (auto& node : *graph->mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) ForEachGraph(attr.mutable_g(), fn);
    }
  }
}

// The model `text` describes, every unnamed node named "node_<first output>" in every graph, so that tests can
// find nodes.
ModelProto ParseModelNamingNodes(const char* text) {
  ModelProto model = ParseModel(text);
  NameNodesAsNodeOutput(model);
  return model;
}

const NodeProto* FindNode(const GraphProto& graph, const std::string& name) {
  for (const auto& node : graph.node()) {
    if (node.name() == name) return &node;
  }
  return nullptr;
}

const NodeProto* Producer(const GraphProto& graph, const std::string& value) {
  for (const auto& node : graph.node()) {
    for (const auto& o : node.output()) {
      if (o == value) return &node;
    }
  }
  return nullptr;
}

const AttributeProto* FindAttr(const NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

const TensorProto* ConstantTensor(const GraphProto& graph, const std::string& value) {
  const NodeProto* p = Producer(graph, value);
  if (p != nullptr && p->op_type() == "Constant") {
    const AttributeProto* a = FindAttr(*p, "value");
    return a != nullptr && a->has_t() ? &a->t() : nullptr;
  }
  for (const auto& t : graph.initializer()) {
    if (t.name() == value) return &t;
  }
  return nullptr;
}

// The int64 values of the Constant node (or initializer) behind `value`; {-999} when there is none.
std::vector<int64_t> ConstInts(const GraphProto& graph, const std::string& value) {
  const TensorProto* t = ConstantTensor(graph, value);
  if (t == nullptr || t->data_type() != TensorProto::INT64) return {-999};
  std::vector<int64_t> out(t->int64_data().begin(), t->int64_data().end());
  if (!t->raw_data().empty()) {
    out.resize(t->raw_data().size() / 8);
    std::memcpy(out.data(), t->raw_data().data(), t->raw_data().size());
  }
  return out;
}

std::vector<float> ConstFloats(const GraphProto& graph, const std::string& value) {
  const TensorProto* t = ConstantTensor(graph, value);
  if (t == nullptr || t->data_type() != TensorProto::FLOAT) return {-999.0f};
  std::vector<float> out(t->float_data().begin(), t->float_data().end());
  if (!t->raw_data().empty()) {
    out.resize(t->raw_data().size() / 4);
    std::memcpy(out.data(), t->raw_data().data(), t->raw_data().size());
  }
  return out;
}

std::vector<std::string> OpTypes(const GraphProto& graph) {
  std::vector<std::string> ops;
  for (const auto& node : graph.node()) ops.push_back(node.op_type());
  return ops;
}

// The names of `graph`'s nodes that also occur in `names`, in order.
std::vector<std::string> NodeNamesAmong(const GraphProto& graph, const std::set<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& node : graph.node()) {
    if (names.count(node.name()) > 0) out.push_back(node.name());
  }
  return out;
}

std::set<std::string> NodeNames(const GraphProto& graph) {
  std::set<std::string> names;
  for (const auto& node : graph.node()) names.insert(node.name());
  return names;
}

// Every value is defined once in the whole model, and every reference resolves in its scope.
void ExpectWellFormed(const ModelProto& model) {
  std::set<std::string> all;
  std::function<void(const GraphProto&, std::vector<std::set<std::string>>&)> check =
      [&](const GraphProto& g, std::vector<std::set<std::string>>& scopes) {
        std::set<std::string> local;
        auto define = [&](const std::string& name) {
          EXPECT_TRUE(all.insert(name).second) << "value '" << name << "' is defined twice";
          local.insert(name);
        };
        for (const auto& v : g.input()) define(v.name());
        for (const auto& t : g.initializer()) {
          if (local.count(t.name()) == 0) define(t.name());
        }
        for (const auto& n : g.node()) {
          for (const auto& o : n.output()) {
            if (!o.empty()) define(o);
          }
        }
        scopes.push_back(local);
        auto visible = [&](const std::string& name) {
          for (const auto& s : scopes) {
            if (s.count(name) > 0) return true;
          }
          return false;
        };
        for (const auto& n : g.node()) {
          for (const auto& i : n.input()) {
            EXPECT_TRUE(i.empty() || visible(i)) << "node '" << n.name() << "' reads undefined '" << i << "'";
          }
          for (const auto& a : n.attribute()) {
            if (a.has_g()) check(a.g(), scopes);
          }
        }
        for (const auto& o : g.output()) EXPECT_TRUE(visible(o.name())) << "output '" << o.name() << "' undefined";
        scopes.pop_back();
      };
  std::vector<std::set<std::string>> scopes;
  check(model.graph(), scopes);
}

// ---- the legacy model -----------------------------------------------------------------------------------

// An opset-9 model with one node of every kind whose meaning moves between 9 and 17, and a DynamicSlice.
constexpr char kLegacyModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9, "ai.onnx.ml" : 1], producer_name: "legacy", producer_version: "0.4">
legacy (float[1,3,8,8] x, int64[2] starts, int64[2] ends)
  => (float[1,3,6,8] sliced, float[1,3,16,16] up, float[1,3,8,2] topv, int64[1,3,8,2] topi,
      float[1,3,8,8] clipped, float[1,3,10,10] padded, float[3,8,8] squeezed, float[1,1,3,8,8] unsq,
      float[1,3,8,8] soft, float[1,1,8,8] split0, float[1,2,8,8] split1, float[1,1,8,8] rsum, float dyn)
<float[4] scales = {1.0, 1.0, 2.0, 2.0}>
{
  sliced = Slice<starts=[0,1], ends=[1,7], axes=[0,2]>(x)
  up = Upsample<mode="nearest">(x, scales)
  topv, topi = TopK<k=2, axis=-1>(x)
  clipped = Clip<min=0.0, max=6.0>(x)
  padded = Pad<pads=[0,0,1,1,0,0,1,1], mode="constant", value=0.5>(x)
  squeezed = Squeeze<axes=[0]>(x)
  dyn = DynamicSlice(x, starts, ends)
  unsq = Unsqueeze<axes=[0]>(x)
  soft = Softmax<axis=1>(x)
  split0, split1 = Split<axis=1, split=[1,2]>(x)
  rsum = ReduceSum<axes=[1], keepdims=1>(x)
}
)ONNX";

class LegacyModelTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(LegacyModelTest, ConvertsEveryNodeAndKeepsDynamicSlice) {
  const int64_t target = GetParam();
  const ModelProto original = ParseModelNamingNodes(kLegacyModel);
  ModelProto model = original;
  ASSERT_TRUE(UpgradeDefaultOpset(model, target).ok());
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
    EXPECT_THAT(ConstInts(g, reshape->input(1)), ElementsAre(1, 3, 8, 8));
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

constexpr char kLoopModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
looped (int64 trip, bool cond, float[4,6] x0, int64[1] s, int64[1] e) => (float[4,6] xf, float[4,6] last)
{
  xf, scans = Loop(trip, cond, x0) <body = body (int64 i, bool c, float[4,6] x) => (bool c_out, float[4,6] x_out, float[4,6] x_scan) {
      c_out = Identity(c)
      u = Unsqueeze<axes=[0]>(x)
      d = DynamicSlice(u, s, e)
      x_out = Squeeze<axes=[0]>(d)
      x_scan = Slice<starts=[0], ends=[4], axes=[0]>(x)
  }>
  last = Squeeze<axes=[0]>(x0)
}
)ONNX";

TEST(OpsetUpgradeTest, ConvertsLoopBodyAroundDynamicSlice) {
  ModelProto original = ParseModelNamingNodes(kLoopModel);
  // The outer Squeeze is shape-incorrect for x0 but fine for the converter; make it an Identity.
  original.mutable_graph()->mutable_node(1)->set_op_type("Identity");
  original.mutable_graph()->mutable_node(1)->clear_attribute();
  ModelProto model = original;
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
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

constexpr char kIfModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
branched (bool b, float[2,5] x, int64[1] s, int64[1] e) => (float[2,5] y)
{
  y = If (b) <
    then_branch = then_g () => (float[2,5] y_then) {
      t = TopK<k=1, axis=1>(x)
      y_then = DynamicSlice(x, s, e)
    },
    else_branch = else_g () => (float[2,5] y_else) {
      y_else = Softmax<axis=0>(x)
    }
  >
}
)ONNX";

TEST(OpsetUpgradeTest, ConvertsIfBranchesAroundDynamicSlice) {
  ModelProto original = ParseModelNamingNodes(kIfModel);
  // TopK has two outputs; the parser gave it one. Add the indices.
  NodeProto* topk = original.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0);
  topk->add_output("t_idx");
  ModelProto model = original;
  const absl::Status status = UpgradeDefaultOpset(model, 13);
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
  EXPECT_THAT(ConstInts(else_g, reshape->input(1)), ElementsAre(2, 5));
  EXPECT_EQ(FindAttr(*Producer(else_g, soft->input(0)), "axis")->i(), 0);
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

// ---- what the converter would lose --------------------------------------------------------------------

constexpr char kRichModel[] = R"ONNX(
<
  ir_version: 7,
  opset_import: ["" : 9, "ai.onnx.ml" : 2, "local" : 1],
  producer_name: "rich-exporter",
  producer_version: "3.1",
  domain: "com.example",
  model_version: 42,
  doc_string: "A model with every field set.",
  metadata_props: ["author" : "someone", "license" : "MIT"]
>
rich (float[2,4] x, int64[1] s, int64[1] e) => (float[2,4] y, float[2,4] z, float[2,4] w, float[1,4] d)
<float[4] bias = {1.0, 2.0, 3.0, 4.0}, float[4,4] weight = {1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0}, float[2,4] h>
{
  h = MatMul(x, weight)
  y = Add(h, bias)
  z = ai.onnx.ml.Normalizer<norm="MAX">(y)
  w = local.twice(y)
  d = DynamicSlice(y, s, e)
}

<
  opset_import: ["" : 9],
  domain: "local",
  doc_string: "A model-local function."
>
twice (a) => (b) {
  b = Add(a, a)
}
)ONNX";

ModelProto RichModel() {
  ModelProto model = ParseModelNamingNodes(kRichModel);
  GraphProto* g = model.mutable_graph();
  g->set_doc_string("the main graph");
  for (auto& node : *g->mutable_node()) node.set_doc_string("doc of " + node.name());
  g->mutable_input(0)->set_doc_string("input doc");
  g->mutable_value_info(0)->set_doc_string("value_info doc");
  // A value_info of a non-tensor type, which onnx's IR cannot hold.
  auto* seq = g->add_value_info();
  seq->set_name("unused_sequence");
  seq->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::FLOAT);
  // An initializer whose data lives in an external file, and a sparse initializer.
  TensorProto* ext = g->add_initializer();
  ext->set_name("external_weight");
  ext->set_data_type(TensorProto::FLOAT);
  ext->add_dims(1000);
  ext->set_data_location(TensorProto::EXTERNAL);
  auto* entry = ext->add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  auto* sparse = g->add_sparse_initializer();
  sparse->add_dims(4);
  sparse->mutable_values()->set_name("sparse_bias");
  sparse->mutable_values()->set_data_type(TensorProto::FLOAT);
  sparse->mutable_values()->add_dims(1);
  sparse->mutable_values()->add_float_data(5.0f);
  sparse->mutable_indices()->set_data_type(TensorProto::INT64);
  sparse->mutable_indices()->add_dims(1);
  sparse->mutable_indices()->add_int64_data(2);
  // A large initializer (over the skeleton's inline limit).
  TensorProto* big = g->add_initializer();
  big->set_name("big");
  big->set_data_type(TensorProto::FLOAT);
  big->add_dims(4096);
  big->set_raw_data(std::string(4096 * 4, '\x01'));
  model.add_training_info()->mutable_algorithm()->set_name("training step");
  return model;
}

TEST(OpsetUpgradeTest, PreservesEverythingButTheConvertedNodes) {
  const ModelProto original = RichModel();
  ModelProto model = original;
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());

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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
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
  const absl::Status status = UpgradeDefaultOpset(model, 13);
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 10).ok());
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
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
  ASSERT_TRUE(UpgradeDefaultOpset(a, 17).ok());
  ASSERT_TRUE(UpgradeDefaultOpset(b, 17).ok());
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
}

TEST(OpsetUpgradeTest, IsIdempotent) {
  ModelProto model = ParseModelNamingNodes(kLegacyModel);
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  const std::string once = model.SerializeAsString();
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  EXPECT_EQ(model.SerializeAsString(), once);
}

TEST(OpsetUpgradeTest, RaisesIrVersionToFitTheTargetButNeverLowersIt) {
  ModelProto low = ParseModelNamingNodes(kLegacyModel);
  low.set_ir_version(3);
  ASSERT_TRUE(UpgradeDefaultOpset(low, 11).ok());
  EXPECT_EQ(low.ir_version(), 6);

  ModelProto high = ParseModelNamingNodes(kLegacyModel);
  high.set_ir_version(8);
  ASSERT_TRUE(UpgradeDefaultOpset(high, 10).ok());
  EXPECT_EQ(high.ir_version(), 8);

  ModelProto same = ParseModelNamingNodes(kLegacyModel);
  same.set_ir_version(3);
  ASSERT_TRUE(UpgradeDefaultOpset(same, 9).ok());
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
}

void ExpectRejectedUnchanged(ModelProto model, int64_t target, absl::StatusCode code, const std::string& text) {
  const std::string before = model.SerializeAsString();
  const absl::Status status = UpgradeDefaultOpset(model, target);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(text));
  EXPECT_EQ(model.SerializeAsString(), before);
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

TEST(OpsetUpgradeTest, RejectsTargetBelowCurrentOpset) {
  ExpectRejectedUnchanged(ParseModelNamingNodes(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[2] x) => (float[2] y) { y = Relu(x) }
)ONNX"),
                          10, absl::StatusCode::kInvalidArgument, "below");
}

TEST(OpsetUpgradeTest, RejectsTargetBeyondOnnx112) {
  ExpectRejectedUnchanged(ParseModelNamingNodes(kLegacyModel), 18, absl::StatusCode::kInvalidArgument, "18");
}

TEST(OpsetUpgradeTest, RejectsModelWithoutDefaultOpsetImport) {
  ExpectRejectedUnchanged(ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["com.acme" : 1]>
g (float[2] x) => (float[2] y) { y = com.acme.Op(x) }
)ONNX"),
                          13, absl::StatusCode::kInvalidArgument, "default");
}

TEST(OpsetUpgradeTest, FailsUnchangedWhenAnAdapterNeedsAnUnknownShape) {
  // Softmax 12->13 must know the input's rank; nothing here tells it.
  ExpectRejectedUnchanged(ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float x) => (float y) { y = Softmax(x) }
)ONNX"),
                          13, absl::StatusCode::kFailedPrecondition, "Softmax");
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
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
    ASSERT_TRUE(UpgradeDefaultOpset(model, 10, pass_through).ok());
    ASSERT_EQ(model.graph().node_size(), 1);
    EXPECT_TRUE(MessageDifferencer::Equals(model.graph().node(0), original.graph().node(0)));
  }
  // Asked at the opset the model comes from, where the ops are (or are not) the removed ones.
  EXPECT_THAT(asked, Contains(std::make_pair(std::string("ImageScaler"), int64_t{9})));
}

TEST(OpsetUpgradeTest, RefusesARemovedOpNoOneToldItOf) {
  ModelProto model = ParseModelNamingNodes(kRemovedOpModels[0]);
  const ModelProto original = model;
  const absl::Status status = UpgradeDefaultOpset(model, 10);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("ImageScaler"));
  EXPECT_TRUE(MessageDifferencer::Equals(model, original));
}

TEST(OpsetUpgradeTest, SameTargetChangesOnlyTheIrVersion) {
  ModelProto model = ParseModelNamingNodes(kLegacyModel);
  const ModelProto original = model;
  ASSERT_TRUE(UpgradeDefaultOpset(model, 9).ok());
  ModelProto expected = original;
  expected.set_ir_version(4);
  EXPECT_TRUE(MessageDifferencer::Equals(model, expected));
}

// ---- adapter defects the wrapper corrects -----------------------------------------------------------

TEST(OpsetUpgradeTest, PadWithoutValueAttributePadsWithZero) {
  // Pad-2's `value` defaults to 0; onnx 1.12's adapter throws without it.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,2] x) => (float[4,2] y) { y = Pad<pads=[1,0,1,0]>(x) }
)ONNX");
  ASSERT_TRUE(UpgradeDefaultOpset(model, 11).ok());
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 11).ok());
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

TEST(OpsetUpgradeTest, SoftmaxOverSymbolicDimsReshapesToTheRuntimeShape) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[N,C,4] x) => (float[N,C,4] y) { y = LogSoftmax<axis=1>(x) }
)ONNX");
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
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

// d is declared [1,2,?,?]. onnx 1.12's Softmax 12->13 adapter writes each dim's Dimension::dim into its
// Reshape constant, and an unknown dim's is uninitialized memory: this model once got [1,2,2,2], which
// ONNX Runtime cannot reshape a [2,8] Softmax output to. The shape has to come from d at run time.
constexpr char kSoftmaxOverUnknownDims[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,2,4,5] x, int64[2] s, int64[2] e) => (float[1,2,?,?] y) <float[1,2,?,?] d> {
  d = DynamicSlice(x, s, e)
  y = Softmax<axis=2>(d)
}
)ONNX";

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

void ExpectStrictShapeInferenceAccepts(ModelProto model) {
  const onnx::ShapeInferenceOptions strict{/*check_type=*/true, /*error_mode=*/1, /*enable_data_propagation=*/false};
  EXPECT_NO_THROW(onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), strict));
}

TEST(OpsetUpgradeTest, SoftmaxOverUnknownDimsReshapesToTheRuntimeShapeAllowingZerosFrom14) {
  for (const char* text : {kSoftmaxOverUnknownDims, kSoftmaxAfterUndeclaredDynamicSlice}) {
    for (int64_t target : {14, 17}) {
      SCOPED_TRACE(text);
      ModelProto model = ParseModelNamingNodes(text);
      const int declared = model.graph().value_info_size();
      ASSERT_TRUE(UpgradeDefaultOpset(model, target).ok()) << target;
      EXPECT_EQ(model.graph().value_info_size(), declared) << "the stand-in's inferred type stays in the skeleton";
      const GraphProto& g = model.graph();
      EXPECT_THAT(OpTypes(g), ElementsAre("DynamicSlice", "Flatten", "Shape", "Softmax", "Reshape"));
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  const GraphProto& g = model.graph();
  EXPECT_THAT(OpTypes(g), ElementsAre("DynamicSlice", "Flatten", "Shape", "Softmax", "Size", "Cast", "If"));
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  const GraphProto& g = model.graph();
  EXPECT_THAT(OpTypes(g), ElementsAre("Flatten", "Shape", "Softmax", "Reshape"));
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 17).ok());
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
  // onnx 1.12 registers Hardmax 12->13 as compatible although its axis semantics changed like Softmax's.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3,4] x) => (float[2,3,4] y) { y = Hardmax<axis=1>(x) }
)ONNX");
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  const GraphProto& g = model.graph();
  EXPECT_THAT(OpTypes(g), ElementsAre("Flatten", "Constant", "Hardmax", "Reshape"));
  const NodeProto* hardmax = FindNode(g, "node_y");
  EXPECT_EQ(FindAttr(*hardmax, "axis")->i(), -1);
  EXPECT_THAT(ConstInts(g, Producer(g, "y")->input(1)), ElementsAre(2, 3, 4));
}

TEST(OpsetUpgradeTest, LegacyBroadcastAlignsTheSecondInputAtItsAxis) {
  // B of shape [3] broadcast at axis 1 of a rank-4 A must become [3,1,1]; onnx 1.12 makes it [3,1,1,1].
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1,3,4,4] x, float[3] b) => (float[1,3,4,4] y) { y = Add<broadcast=1, axis=1>(x, b) }
)ONNX");
  ModelProto at13 = model;
  ASSERT_TRUE(UpgradeDefaultOpset(model, 7).ok());
  const NodeProto* unsqueeze = Producer(model.graph(), FindNode(model.graph(), "node_y")->input(1));
  ASSERT_NE(unsqueeze, nullptr);
  EXPECT_EQ(unsqueeze->op_type(), "Unsqueeze");
  EXPECT_THAT(FindAttr(*unsqueeze, "axes")->ints(), ElementsAre(1, 2));
  EXPECT_EQ(FindNode(model.graph(), "node_y")->attribute_size(), 0);

  ASSERT_TRUE(UpgradeDefaultOpset(at13, 13).ok());
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
    const absl::Status status = UpgradeDefaultOpset(moved, target);
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  const NodeProto* reshape = Producer(model.graph(), "y");
  ASSERT_NE(reshape, nullptr);
  ASSERT_EQ(reshape->op_type(), "Reshape");
  const NodeProto* shape = Producer(model.graph(), reshape->input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->op_type(), "Shape");
  ExpectStrictShapeInferenceAccepts(model);
}

// PRelu-6 applies a slope [C] per channel (axis 1 of X); PRelu-7 broadcasts it from the last axis, so the
// slope must become [C, 1, ..., 1]. onnx 1.12 registers PRelu 6->7 as compatible and does nothing.
TEST(OpsetUpgradeTest, PReluSlopePerChannelBecomesChannelShaped) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] x, float[3] slope) => (float[2,3,4,5] y) { y = PRelu(x, slope) }
)ONNX");
  ModelProto at13 = model;
  ASSERT_TRUE(UpgradeDefaultOpset(model, 7).ok());
  const NodeProto* prelu = FindNode(model.graph(), "node_y");
  EXPECT_EQ(prelu->input(0), "x");
  const NodeProto* unsqueeze = Producer(model.graph(), prelu->input(1));
  ASSERT_NE(unsqueeze, nullptr);
  EXPECT_EQ(unsqueeze->op_type(), "Unsqueeze");
  EXPECT_THAT(unsqueeze->input(), ElementsAre("slope"));
  EXPECT_THAT(FindAttr(*unsqueeze, "axes")->ints(), ElementsAre(1, 2));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
  ExpectStrictShapeInferenceAccepts(model);

  ASSERT_TRUE(UpgradeDefaultOpset(at13, 13).ok());
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
    ASSERT_TRUE(UpgradeDefaultOpset(model, 9).ok()) << text;
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

TEST(OpsetUpgradeTest, ScatterBecomesScatterElementsUnderItsOwnName) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[3,3] data, int64[1,2] idx, float[1,2] upd) => (float[3,3] y) {
  s = Scatter<axis=1>(data, idx, upd)
  y = Relu(s)
}
)ONNX");
  model.mutable_graph()->mutable_node(0)->set_doc_string("scatters");
  ASSERT_TRUE(UpgradeDefaultOpset(model, 11).ok());
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
  // The DynamicSlice is hidden from the converter, but its declared output type still gives Softmax its rank.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4,6] x, int64[1] s, int64[1] e) => (float[2,6] y) <float[2,6] d> {
  d = DynamicSlice(x, s, e)
  y = Softmax<axis=0>(d)
}
)ONNX");
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  EXPECT_THAT(OpTypes(model.graph()), ElementsAre("DynamicSlice", "Flatten", "Constant", "Softmax", "Reshape"));
  EXPECT_THAT(ConstInts(model.graph(), Producer(model.graph(), "y")->input(1)), ElementsAre(2, 6));
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
  big->set_raw_data(std::string(4096 * 4, '\x03'));
  const ModelProto original = model;
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
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
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  EXPECT_THAT(ConstInts(model.graph(), FindNode(model.graph(), "node_y")->input(1)), ElementsAre(0));
}

TEST(OpsetUpgradeTest, Resize10GetsResize10CoordinatesAtOpset11) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,2,2] x, float[4] s) => (float y) { y = Resize<mode="linear">(x, s) }
)ONNX");
  ASSERT_TRUE(UpgradeDefaultOpset(model, 11).ok());
  const NodeProto* resize = FindNode(model.graph(), "node_y");
  ASSERT_EQ(resize->input_size(), 3);
  EXPECT_EQ(resize->input(2), "s");
  EXPECT_THAT(ConstFloats(model.graph(), resize->input(1)), ElementsAre(0, 0, 0, 0, 1, 1, 1, 1));
  EXPECT_EQ(FindAttr(*resize, "coordinate_transformation_mode")->s(), "asymmetric");
  EXPECT_EQ(FindAttr(*resize, "nearest_mode"), nullptr);  // linear mode rounds nothing
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
  t->set_raw_data(std::string(2048 * 4, '\x02'));
  const NodeProto constant = model.graph().node(0);
  ASSERT_TRUE(UpgradeDefaultOpset(model, 13).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(*FindNode(model.graph(), "node_c"), constant));
  EXPECT_THAT(ConstInts(model.graph(), FindNode(model.graph(), "node_y")->input(1)), ElementsAre(0));
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

// ---- conversion in chunks -------------------------------------------------------------------------------

// Converting the main graph in chunks of any size gives, byte for byte, what converting it whole gives:
// the same model, or the same error.
void ExpectChunksConvertLikeTheWhole(const ModelProto& model, int64_t target) {
  ModelProto whole = model;
  const absl::Status whole_status = UpgradeDefaultOpsetInChunks(whole, target, 0);
  for (int64_t chunk_nodes : {1, 2, 3, 5, 64}) {
    ModelProto chunked = model;
    const absl::Status status = UpgradeDefaultOpsetInChunks(chunked, target, chunk_nodes);
    EXPECT_EQ(status, whole_status) << "target " << target << ", chunks of " << chunk_nodes;
    EXPECT_TRUE(testing::Serialize(chunked) == testing::Serialize(whole))
        << "target " << target << ", chunks of " << chunk_nodes << ":\n"
        << chunked.graph().DebugString() << "\nwhole:\n"
        << whole.graph().DebugString();
  }
}

// Values cross chunks in every way an adapter can see: the outputs of replaced nodes (Upsample, Scatter)
// and of restructured ones (Softmax, Hardmax) read far away, captured by a branch, symbolic and unknown
// shapes, converter-made initializers (Pad) and typed constants (Clip on double), untouched nodes
// (DynamicSlice, Relu) in between.
constexpr char kCrossingModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
crossing (float[N,3,4,4] x, double[3] dx, int64[1] s, int64[1] e, bool b, float[1,3,3] sd, int64[1,2] idx,
          float[1,2] upd)
  => (float[N,3,8,8] up, float[N,3,8,8] soft, float[N,3,10,10] padded, double[3] dclip, float[N,3,8,8] hard,
      float[N,3,8,8] both, float[1,3,3] scattered, float[N,3,8,8] branch, float l, float[N,3,8,8] last)
<float[4] scales = {1.0, 1.0, 2.0, 2.0}>
{
  r = Relu(x)
  up = Upsample<mode="nearest">(r, scales)
  u1 = Unsqueeze<axes=[0]>(up)
  d = DynamicSlice(up, s, e)
  soft = Softmax<axis=1>(up)
  sq = Squeeze<axes=[0]>(u1)
  padded = Pad<pads=[0,0,1,1,0,0,1,1]>(sq)
  dclip = Clip<min=-1.0, max=1.0>(dx)
  hard = Hardmax<axis=2>(soft)
  both = Add(hard, sq)
  scat = Scatter<axis=1>(sd, idx, upd)
  scattered = Relu(scat)
  branch = If (b) <
    then_branch = t () => (float[N,3,8,8] bt) { bt = Softmax<axis=1>(both) },
    else_branch = f () => (float[N,3,8,8] bf) { bf = Identity(up) }
  >
  l = ReduceSum<keepdims=0>(d)
  dd = DynamicSlice(both, s, e)
  last = LogSoftmax<axis=1>(both)
}
)ONNX";

class ChunkedConversionTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionAcrossChunkBoundaries) {
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kCrossingModel), GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionOfTheLegacyModels) {
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kLegacyModel), GetParam());
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kLoopModel), GetParam());
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kIfModel), GetParam());
  ExpectChunksConvertLikeTheWhole(RichModel(), GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionOverUnknownDims) {
  ExpectChunksConvertLikeTheWhole(ParseModelNamingNodes(kSoftmaxOverUnknownDims), GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionWhenABranchCapturesARestructuredValue) {
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3,4] x, bool b, int64[1] s, int64[1] e) => (float[2,3,4] y, float[2,3,4] z) {
  soft = Softmax<axis=1>(x)
  d1 = DynamicSlice(x, s, e)
  r = Relu(x)
  d2 = DynamicSlice(x, s, e)
  z = Relu(r)
  y = If (b) <
    then_branch = t () => (float[2,3,4] yt) { yt = Identity(soft) },
    else_branch = f () => (float[2,3,4] yf) { yf = Neg(soft) }
  >
}
)ONNX");
  ExpectChunksConvertLikeTheWhole(model, GetParam());
}

TEST_P(ChunkedConversionTest, EqualsWholeGraphConversionWhenAnAdapterFails) {
  // Softmax 12->13 needs its input's rank, which nothing gives here: the same error either way.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3] x, int64[1] s, int64[1] e) => (float[2,3] y, float z) {
  a = Relu(x)
  d = DynamicSlice(a, s, e)
  b = Relu(a)
  z = Softmax<axis=0>(d)
  y = Softmax<axis=0>(b)
}
)ONNX");
  ExpectChunksConvertLikeTheWhole(model, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Targets, ChunkedConversionTest, ::testing::Values(10, 11, 12, 13, 14, 15, 16, 17));

TEST(ChunkedConversionTest, EqualsWholeGraphConversionWhenNoNodeMeetsAnAdapter) {
  // From 9 to 10 none of these changes: the model keeps its nodes and moves its opset only. Then one that
  // does (Upsample) among them, and one whose op onnx 1.12 does not know.
  ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9, "custom" : 1]>
g (float[2,3] x, float[3,4] w, int64[1] s, int64[1] e) => (float[2,4] y, float z) {
  a = Relu(x)
  d = DynamicSlice(a, s, e)
  m = MatMul(a, w)
  c = custom.Op<alpha=1.0>(m)
  y = Identity(c)
  z = ReduceSum<keepdims=0>(d)
}
)ONNX");
  model.mutable_graph()->mutable_node(0)->set_doc_string("kept");
  ExpectChunksConvertLikeTheWhole(model, 10);
  ModelProto in_place = model;
  ASSERT_TRUE(UpgradeDefaultOpset(in_place, 10).ok());
  ASSERT_EQ(in_place.graph().node_size(), model.graph().node_size());
  for (int i = 0; i < model.graph().node_size(); ++i) {
    EXPECT_TRUE(MessageDifferencer::Equals(in_place.graph().node(i), model.graph().node(i)));
  }
  EXPECT_EQ(DefaultOpset(in_place), 10);
  EXPECT_EQ(in_place.ir_version(), 5);

  NodeProto* upsample = model.mutable_graph()->add_node();
  upsample->set_op_type("Upsample");
  upsample->add_input("x");
  upsample->add_input("scales");
  upsample->add_output("up");
  auto* scales = model.mutable_graph()->add_initializer();
  scales->set_name("scales");
  scales->set_data_type(TensorProto::FLOAT);
  scales->add_dims(2);
  scales->add_float_data(1.0f);
  scales->add_float_data(2.0f);
  ExpectChunksConvertLikeTheWhole(model, 10);

  ModelProto unknown = ParseModelNamingNodes(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3] x) => (float[2,3] y) {
  a = Relu(x)
  y = NoSuchOp(a)
}
)ONNX");
  ExpectChunksConvertLikeTheWhole(unknown, 10);
  ModelProto failing = unknown;
  EXPECT_EQ(UpgradeDefaultOpset(failing, 10).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ChunkedConversionTest, EqualsWholeGraphConversionFromOpsets6And8) {
  // Legacy broadcasting and Gemm (6 -> 7), Upsample (6 -> 7, 8 -> 9) and Scan-8, whose adapter changes the
  // sizes of the values the Scan reads, which other chunks read too.
  ModelProto opset6 = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1,3,4,4] x, float[3] bias, float[2,3] a, float[3,4] w, float[4] c) => (float[1,3,4,4] y, float[2,4] z, float[1,3,4,4] v) {
  r = Relu(x)
  y = Add<broadcast=1, axis=1>(r, bias)
  t = Relu(a)
  z = Gemm<broadcast=1>(t, w, c)
  v = Mul<broadcast=1, axis=1>(y, bias)
}
)ONNX");
  for (int64_t target : {7, 9, 11, 13}) ExpectChunksConvertLikeTheWhole(opset6, target);

  ModelProto opset8 = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (float[2,5,3] x, float[4] scales) => (float[2,5,3] soft, float[2,5,3] r2, float[?,?,?] up) {
  r = Relu(x)
  soft = Softmax<axis=1>(r)
  up = Upsample<mode="nearest">(r, scales)
  r2 = Relu(r)
}
)ONNX");
  for (int64_t target : {9, 11, 13}) ExpectChunksConvertLikeTheWhole(opset8, target);
}

// onnx 1.12's 6->7 adapter gives a legacy broadcast's B rank(A) - rank(B) trailing ones whatever its axis,
// then checks the shapes: at an axis other than 0 and rank(A) - rank(B) that check stops it. The refusal
// names the node and the dims instead of repeating the converter's assertion.
TEST(OpsetUpgradeTest, RefusesALegacyBroadcastTheConverterCannotMoveNamingItsDims) {
  const ModelProto model = ParseModelNamingNodes(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] a, float[3,4] b) => (float[2,3,4,5] y) {
  y = Add<broadcast=1, axis=1>(a, b)
}
)ONNX");
  for (int64_t target : {7, 13}) {
    ExpectRejectedUnchanged(model, target, absl::StatusCode::kFailedPrecondition,
                            absl::StrCat("Add 'node_y' (graph main): its legacy broadcast puts B 'b' (dims [3,4]) at "
                                         "axis 1 of A 'a' (dims [2,3,4,5]); onnx 1.12's 6->7 adapter gives B trailing "
                                         "ones (dims [3,4,1,1]), which do not broadcast with A, so it cannot be moved "
                                         "to opset ",
                                         target));
  }
}

// A Scan-8 accumulating rows of x; `batch` is the first dim of x and init ("N" for a symbolic one), and
// Scan-8's first input is the optional sequence_lens (`sequence_lens`, or "" for none).
ModelProto Scan8Model(const std::string& batch, const std::string& sequence_lens = "") {
  const std::string text =
      absl::StrCat(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (float[)ONNX",
                   batch, R"ONNX(,5,3] x, float[)ONNX", batch, R"ONNX(,3] init, int32[1] lens) => (float[)ONNX", batch,
                   R"ONNX(,3] final, float[)ONNX", batch, R"ONNX(,5,3] ys) {
  final, ys = Scan<num_scan_inputs=1, directions=[1], body = body (float[3] acc, float[3] xi) => (float[3] acc_out, float[3] y) {
    acc_out = Add(acc, xi)
    y = Identity(acc_out)
  }>(init, x)
}
)ONNX");
  ModelProto model = ParseModelNamingNodes(text.c_str());
  auto* scan_inputs = model.mutable_graph()->mutable_node(0)->mutable_input();
  *scan_inputs->Add() = sequence_lens;
  for (int k = scan_inputs->size() - 1; k > 0; --k) scan_inputs->SwapElements(k, k - 1);
  return model;
}

// Scan-8 scans batched tensors and Scan-9 has no batch axis; onnx 1.12's 8->9 adapter leaves the inputs
// batched. With a batch of one, the batch axis is squeezed away before the Scan and put back after it.
TEST(OpsetUpgradeTest, MovesAScan8WithABatchOfOneBySqueezingTheBatchAway) {
  for (int64_t target : {9, 13}) {
    SCOPED_TRACE(target);
    ModelProto model = Scan8Model("1");
    const GraphLocator body = GraphLocator().Into(model.graph().node(0), "body", 0);
    RenamedOutputs renamed;
    ASSERT_TRUE(UpgradeDefaultOpset(model, target, {}, &renamed).ok());
    // The Scan's outputs are renamed, and the move says so: a locator made before the move still finds the body.
    EXPECT_THAT(renamed, ::testing::UnorderedElementsAre(Pair("final", "final_unbatched"), Pair("ys", "ys_unbatched")));
    absl::StatusOr<GraphProto*> found = ResolveGraph(model, body, renamed);
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_EQ((*found)->name(), "body");
    EXPECT_EQ(ResolveGraph(model, body).status().code(), absl::StatusCode::kInternal);
    const GraphProto& g = model.graph();
    if (target < 13) {
      EXPECT_THAT(OpTypes(g), ElementsAre("Squeeze", "Squeeze", "Scan", "Unsqueeze", "Unsqueeze"));
    } else {  // the axes are a Constant input from opset 13
      EXPECT_THAT(OpTypes(g), ElementsAre("Constant", "Squeeze", "Constant", "Squeeze", "Scan", "Constant", "Unsqueeze",
                                          "Constant", "Unsqueeze"));
    }
    const NodeProto* scan = nullptr;
    for (const auto& node : g.node()) {
      if (node.op_type() == "Scan") scan = &node;
    }
    ASSERT_NE(scan, nullptr);
    EXPECT_THAT(scan->input(), ElementsAre("init_unbatched", "x_unbatched"));
    EXPECT_THAT(scan->output(), ElementsAre("final_unbatched", "ys_unbatched"));
    std::vector<std::string> attributes;
    for (const auto& a : scan->attribute()) attributes.push_back(a.name());
    EXPECT_THAT(attributes, ::testing::UnorderedElementsAre("body", "num_scan_inputs", "scan_input_directions"));
    EXPECT_EQ(g.node(g.node_size() - 1).output(0), "ys");
    ExpectWellFormed(model);
    EXPECT_NO_THROW(onnx::checker::check_model(model));
    ExpectStrictShapeInferenceAccepts(model);
  }
}

TEST(OpsetUpgradeTest, RefusesAScan8WhoseBatchIsNotOneOrUnknownOrThatTakesSequenceLens) {
  const char* kPrefix = "Scan 'node_final' (graph main): Scan-8 scans batched tensors and Scan-9 has no batch axis";
  for (int64_t target : {9, 10, 13}) {
    ExpectRejectedUnchanged(Scan8Model("2"), target, absl::StatusCode::kFailedPrecondition,
                            absl::StrCat(kPrefix,
                                         "; a batch of one is moved by squeezing it away, but the batch of "
                                         "input 'init' (dims [2,3]) is not 1, so it cannot be moved to opset 9 "
                                         "or later"));
    ExpectRejectedUnchanged(Scan8Model("N"), target, absl::StatusCode::kFailedPrecondition,
                            "the batch of input 'init' (dims [?,3]) is unknown");
    ExpectRejectedUnchanged(Scan8Model("1", "lens"), target, absl::StatusCode::kFailedPrecondition,
                            "it takes sequence_lens 'lens'");
  }
}

TEST(ChunkedConversionTest, LongChainsConvertLikeTheWhole) {
  // 300 converted nodes between untouched ones, each reading the one before: every boundary is crossed.
  std::string text = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3,4] x0, int64[1] s, int64[1] e) => (float[2,3,4] x300) {
)ONNX";
  for (int i = 0; i < 300; ++i) {
    const std::string in = "x" + std::to_string(i), out = "x" + std::to_string(i + 1);
    if (i % 3 == 0) {
      // Untouched nodes right before and after a node the adapter grows on both sides.
      text += "  d" + std::to_string(i) + " = DynamicSlice(" + in + ", s, e)\n";
      text += "  " + out + " = Softmax<axis=1>(" + in + ")\n";
      text += "  f" + std::to_string(i) + " = DynamicSlice(" + out + ", s, e)\n";
    } else if (i % 3 == 1) {
      text += "  u" + std::to_string(i) + " = Unsqueeze<axes=[0]>(" + in + ")\n";
      text += "  " + out + " = Squeeze<axes=[0]>(u" + std::to_string(i) + ")\n";
    } else {
      text += "  " + out + " = Clip<min=0.0, max=6.0>(" + in + ")\n";
    }
  }
  text += "}\n";
  const ModelProto model = ParseModelNamingNodes(text.c_str());
  for (int64_t target : {11, 13}) ExpectChunksConvertLikeTheWhole(model, target);
}

}  // namespace
}  // namespace onnx_legalize
