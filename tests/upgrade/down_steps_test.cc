// The library's own down-adapters (upgrade/down_steps.cc) held to onnx's schemas: each undoes a change onnx has no
// down-adapter for, and where it takes every node as it is, the change was to the op's types alone.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "onnx/defs/schema.h"
#include "onnx/version_converter/adapters/no_previous_version.h"
#include "onnx/version_converter/convert.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// onnx's converter alone, to ask which down-adapters are its own (but the one below an op's first version, which
// only throws).
class OnnxConverter : public onnx::version_conversion::DefaultVersionConverter {
 public:
  bool HasDownAdapter(const std::string& op_type, int64_t version) const {
    auto op = adapters.find(op_type);
    if (op == adapters.end()) return false;
    auto from = op->second.find(onnx::OpSetID(version).toString());
    if (from == op->second.end()) return false;
    auto to = from->second.find(onnx::OpSetID(version - 1).toString());
    return to != from->second.end() &&
           dynamic_cast<const onnx::version_conversion::NoPreviousVersionAdapter*>(to->second.get()) == nullptr;
  }
};

// What a schema's inputs, outputs and attributes are, but the types they take.
std::string Signature(const onnx::OpSchema& schema) {
  std::string text;
  for (const auto& input : schema.inputs()) text += "in " + input.GetName() + std::to_string(input.GetOption()) + ";";
  for (const auto& output : schema.outputs()) {
    text += "out " + output.GetName() + std::to_string(output.GetOption()) + ";";
  }
  std::map<std::string, std::string> attributes;  // in name order: the schema's map has none
  for (const auto& [name, attribute] : schema.attributes()) {
    attributes[name] = std::to_string(static_cast<int>(attribute.type)) + (attribute.required ? "!" : "") +
                       attribute.default_value.SerializeAsString();
  }
  for (const auto& [name, attribute] : attributes) text += "attr " + name + attribute + ";";
  return text;
}

TEST(DownStepsTest, EachUndoesAChangeOnnxHasNoDownAdapterForOrOneItGetsWrong) {
  const OnnxConverter onnx;
  for (const OwnDownStep& step : OwnDownSteps()) {
    const std::string label = step.op_type + "-" + std::to_string(step.version);
    const onnx::OpSchema* newer = onnx::OpSchemaRegistry::Schema(step.op_type, static_cast<int>(step.version), "");
    ASSERT_NE(newer, nullptr) << label;
    EXPECT_EQ(newer->since_version(), step.version) << label << ": the op changed at that version";
    if (!step.writes_other_ops) {
      EXPECT_NE(onnx::OpSchemaRegistry::Schema(step.op_type, static_cast<int>(step.version - 1), ""), nullptr)
          << label << ": the op exists at the older opset";
    }
    EXPECT_EQ(onnx.HasDownAdapter(step.op_type, step.version), step.replaces_onnx)
        << label << (step.replaces_onnx ? ": onnx has none to replace" : ": onnx has its own");
  }
}

// The types a node holds are held to the older version's by onnx's full check of the result (strict shape inference
// checks each input's type against the schema's constraints): Erf-13, say, takes fewer types than Erf-9.
TEST(DownStepsTest, ThoseThatTakeEveryNodeChangedNothingButTheOpsTypes) {
  for (const OwnDownStep& step : OwnDownSteps()) {
    if (!step.unconditional) continue;
    const std::string label = step.op_type + "-" + std::to_string(step.version);
    const onnx::OpSchema* newer = onnx::OpSchemaRegistry::Schema(step.op_type, static_cast<int>(step.version), "");
    const onnx::OpSchema* older = onnx::OpSchemaRegistry::Schema(step.op_type, static_cast<int>(step.version - 1), "");
    ASSERT_NE(newer, nullptr) << label;
    ASSERT_NE(older, nullptr) << label;
    EXPECT_EQ(Signature(*newer), Signature(*older)) << label;
  }
}

}  // namespace
}  // namespace onnx_legalize::opset_upgrade
