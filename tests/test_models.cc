#include "test_models.h"

#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "eval/model_runner.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/graph_scope.h"
#include "gtest/gtest.h"
#include "onnx/defs/parser.h"

namespace onnx_legalize::testing {

onnx::ModelProto ParseModel(const char* text) {
  onnx::ModelProto model;
  onnx::OnnxParser parser(text);
  auto status = parser.Parse(model);
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage() << "\n" << text;
  return model;
}

void MakeInitializerConstant(onnx::ModelProto& model, const std::string& name) {
  auto* inputs = model.mutable_graph()->mutable_input();
  for (int i = 0; i < inputs->size(); ++i) {
    if (inputs->Get(i).name() == name) {
      inputs->erase(inputs->begin() + i);
      return;
    }
  }
  ADD_FAILURE() << "no graph input named " << name;
}

namespace {
// Names every unnamed node of `graph` and of the graphs below it prefix + first output + suffix.
void NameNodesIn(onnx::GraphProto& graph, const std::string& prefix, const std::string& suffix) {
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    if (node.name().empty() && node.output_size() > 0) node.set_name(absl::StrCat(prefix, node.output(0), suffix));
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) NameNodesIn(*attribute.mutable_g(), prefix, suffix);
    }
  }
}
}  // namespace

void NameNodesAsOutputNode(onnx::ModelProto& model) { NameNodesIn(*model.mutable_graph(), "", "_node"); }

void NameNodesAsNodeOutput(onnx::ModelProto& model) { NameNodesIn(*model.mutable_graph(), "node_", ""); }

bool SameModel(const onnx::ModelProto& a, const onnx::ModelProto& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

std::string Serialize(const onnx::ModelProto& model) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  model.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

namespace {
int CountOpsIn(const onnx::GraphProto& graph, const std::string& op_type) {
  int count = 0;
  for (const auto& node : graph.node()) {
    if (node.op_type() == op_type) ++count;
    ForEachSubgraph(
        node, [&](const std::string&, const onnx::GraphProto& subgraph) { count += CountOpsIn(subgraph, op_type); });
  }
  return count;
}
}  // namespace

int CountOps(const onnx::ModelProto& model, const std::string& op_type) { return CountOpsIn(model.graph(), op_type); }

int64_t DefaultOpset(const onnx::ModelProto& model) {
  for (const auto& import : model.opset_import()) {
    if (import.domain().empty() || import.domain() == "ai.onnx") return import.version();
  }
  return -1;
}

void ExpectSameOutputs(const onnx::ModelProto& original, const onnx::ModelProto& legalized,
                       const std::map<std::string, const Tensor*>& inputs) {
  std::map<std::string, Tensor> feed_original, feed_legalized;
  for (const auto& [name, tensor] : inputs) {
    feed_original.emplace(name, tensor->Clone());
    feed_legalized.emplace(name, tensor->Clone());
  }
  auto before = RunModel(original, feed_original);
  ASSERT_TRUE(before.ok()) << "original model: " << before.status();
  auto after = RunModel(legalized, feed_legalized);
  ASSERT_TRUE(after.ok()) << "legalized model: " << after.status();
  for (const auto& output : original.graph().output()) {
    auto expected = before->find(output.name());
    auto actual = after->find(output.name());
    ASSERT_NE(expected, before->end()) << output.name();
    ASSERT_NE(actual, after->end()) << "legalized model lacks output " << output.name();
    EXPECT_TRUE(expected->second.BitwiseEquals(actual->second)) << "output " << output.name() << " differs";
  }
}

onnx::ModelProto LegalizedCopy(const onnx::ModelProto& model, const Options& options, Report* report) {
  onnx::ModelProto copy = model;
  absl::StatusOr<Report> result = Legalize(copy, options);
  EXPECT_TRUE(result.ok()) << result.status();
  if (report != nullptr && result.ok()) *report = *result;
  return copy;
}

const NodeReport& NodeFor(const Report& report, const std::string& output) {
  for (const NodeReport& node : report.nodes) {
    if (node.output == output) return node;
  }
  ADD_FAILURE() << "no report for " << output;
  static NodeReport none;
  return none;
}

std::string WithoutProofSeconds(const std::string& json) {
  // Pretty ("seconds": 0.012) and compact ("seconds":0.012) alike. A string holding that text (a node name) has
  // its quotes escaped, so it never matches.
  static const std::regex kSeconds(R"re(("seconds": ?)[0-9.]+)re");
  return std::regex_replace(json, kSeconds, "$010");
}

void ExpectRejected(const onnx::ModelProto& model, absl::StatusCode code, const std::string& message,
                    const Options& options) {
  onnx::ModelProto copy = model;
  absl::StatusOr<Report> result = Legalize(copy, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_NE(std::string(result.status().message()).find(message), std::string::npos)
      << "'" << result.status().message() << "' does not say '" << message << "'";
  EXPECT_EQ(Serialize(copy), Serialize(model)) << "a failed Legalize changed the model";
}

}  // namespace onnx_legalize::testing
