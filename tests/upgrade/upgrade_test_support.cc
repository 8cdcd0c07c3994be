#include "upgrade/upgrade_test_support.h"

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"
#include "test_models.h"
#include "upgrade/opset_upgrade.h"

namespace onnx_legalize::testing {

using ::testing::HasSubstr;

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

namespace {
// The values of `t`, from its typed field `typed` or its raw data; {none} when there is no `t` or it is not of
// `type`.
template <typename T>
std::vector<T> ValuesOf(const TensorProto* t, int32_t type, T none,
                        const google::protobuf::RepeatedField<T>& (TensorProto::*typed)() const) {
  if (t == nullptr || t->data_type() != type) return {none};
  std::vector<T> out((t->*typed)().begin(), (t->*typed)().end());
  if (!t->raw_data().empty()) {
    out.resize(t->raw_data().size() / sizeof(T));
    std::memcpy(out.data(), t->raw_data().data(), t->raw_data().size());
  }
  return out;
}
}  // namespace

std::vector<int64_t> ConstInts(const GraphProto& graph, const std::string& value) {
  return ValuesOf<int64_t>(ConstantTensor(graph, value), TensorProto::INT64, -999, &TensorProto::int64_data);
}

std::vector<float> ConstFloats(const GraphProto& graph, const std::string& value) {
  return ValuesOf<float>(ConstantTensor(graph, value), TensorProto::FLOAT, -999.0f, &TensorProto::float_data);
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

void ExpectRejectedUnchanged(ModelProto model, int64_t target, absl::StatusCode code, const std::string& text) {
  const std::string before = model.SerializeAsString();
  const absl::Status status = MoveDefaultOpset(model, target);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(text));
  EXPECT_EQ(model.SerializeAsString(), before);
}

void ExpectStrictShapeInferenceAccepts(ModelProto model) {
  const onnx::ShapeInferenceOptions strict{/*check_type=*/true, /*error_mode=*/1, /*enable_data_propagation=*/false};
  EXPECT_NO_THROW(onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), strict));
}

namespace {

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

}  // namespace

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
  big->set_raw_data(std::string(size_t{4096} * 4, '\x01'));
  model.add_training_info()->mutable_algorithm()->set_name("training step");
  return model;
}

}  // namespace onnx_legalize::testing
