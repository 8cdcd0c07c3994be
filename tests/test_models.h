// Helpers for tests that build models from ONNX text and compare the outputs of two models. Includes
// test_tensors.h, the tensor builders.
#ifndef ONNX_LEGALIZE_TESTS_TEST_MODELS_H_
#define ONNX_LEGALIZE_TESTS_TEST_MODELS_H_

#include <map>
#include <string>

#include "core/tensor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"
#include "test_tensors.h"

namespace onnx_legalize::testing {

// Parses a model written in ONNX's text syntax; fails the test on a syntax error. Inputs declared with a
// value (`int64[2] s = {0, 1}`) become initializers that are also inputs, as the 1.12 parser writes them.
onnx::ModelProto ParseModel(const char* text);

// Makes initializer `name` a constant in IR >= 4 by removing it from the graph's inputs.
void MakeInitializerConstant(onnx::ModelProto& model, const std::string& name);

// Names every unnamed node of every graph (main graph and If/Loop/Scan bodies) after its first output,
// "<output>_node", as exporters do: output y's node becomes "y_node".
void NameNodesAsOutputNode(onnx::ModelProto& model);

// The same with the opposite spelling, "node_<output>": output y's node becomes "node_y". The upgrade tests
// name the nodes they look for this way.
void NameNodesAsNodeOutput(onnx::ModelProto& model);

// Deterministic serialization, for byte-for-byte comparisons of whole models.
std::string Serialize(const onnx::ModelProto& model);

// Whether two models hold the same fields and values (protobuf's MessageDifferencer).
bool SameModel(const onnx::ModelProto& a, const onnx::ModelProto& b);

// Counts the nodes of `op_type` in every graph of the model.
int CountOps(const onnx::ModelProto& model, const std::string& op_type);

// The default-domain opset the model imports.
int64_t DefaultOpset(const onnx::ModelProto& model);

// Runs both models on the same inputs with the library's model runner and expects every graph output of
// `original` to be produced by `legalized` with identical type, dims and bytes.
void ExpectSameOutputs(const onnx::ModelProto& original, const onnx::ModelProto& legalized,
                       const std::map<std::string, const Tensor*>& inputs);

// Expects Legalize to fail with `code` and a message containing `message`, leaving the model untouched.
void ExpectRejected(const onnx::ModelProto& model, absl::StatusCode code, const std::string& message,
                    const Options& options = {});

// Legalizes a copy of `model` with `options`, expecting success; fills `report` when given.
onnx::ModelProto LegalizedCopy(const onnx::ModelProto& model, const Options& options = {}, Report* report = nullptr);

// The report of the change that produced `output` (a test failure, and an empty report, when none did).
const NodeReport& NodeFor(const Report& report, const std::string& output);

// `json`, a report (ReportToJson's document, or the JSON lines of a tree run), with the opset-move proof's
// "seconds", a wall time and the one value that varies from run to run, written as 0: for tests that compare
// the reports of two runs.
std::string WithoutProofSeconds(const std::string& json);

// A PyTorch-era export at opset 13, for the moves down (tests/upgrade/opset_downgrade_test.cc,
// tests/driver/legalize_down_test.cc): MatMul, Relu and Softmax changed at 13 (their types widened), Unsqueeze and
// ReduceSum take their axes as an input (one Constant for both), Softmax along the last axis.
inline constexpr char kPyTorchExportAt13[] = R"ONNX(
<ir_version: 7, opset_import: ["" : 13], producer_name: "pytorch", producer_version: "1.8">
export (float[2, 3] x, float[3, 4] w) => (float[2, 1, 4] y, float[2, 1] total, float[2, 3] probs) {
  axes = Constant <value = int64[1] {1}> ()
  mm = MatMul (x, w)
  act = Relu (mm)
  y = Unsqueeze (act, axes)
  total = ReduceSum <keepdims = 1> (x, axes)
  probs = Softmax (x)
}
)ONNX";

}  // namespace onnx_legalize::testing

#endif  // ONNX_LEGALIZE_TESTS_TEST_MODELS_H_
