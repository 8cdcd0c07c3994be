// The opset upgrade as a sub-library: this binary links its floor and the floors below it (graph, core) and
// nothing else of onnx-legalize (tests/CMakeLists.txt), so it builds only while the upgrade uses no other
// stage (no rule, pass, verification or file). What it converts is tested at length in opset_upgrade_test.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/defs/parser.h"
#include "upgrade/opset_upgrade.h"

namespace onnx_legalize {
namespace {

using ::testing::HasSubstr;

// test_models.h's ParseModel lives in the test support, which links the whole library; this binary must not.
onnx::ModelProto Parse(const char* text) {
  onnx::ModelProto model;
  const onnx::Common::Status status = onnx::OnnxParser::Parse(model, text);
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  return model;
}

TEST(UpgradeAloneTest, MovesAModelOnItsOwnAndTheResultPassesOnnxsChecker) {
  onnx::ModelProto model = Parse(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[3,1] x) => (float[3] y) {
  y = Squeeze<axes=[1]>(x)
}
)ONNX");
  ASSERT_TRUE(MoveDefaultOpset(model, 13).ok());
  EXPECT_EQ(model.opset_import(0).version(), 13);
  EXPECT_EQ(model.graph().node(model.graph().node_size() - 1).input_size(), 2);  // Squeeze-13 takes axes as an input
  EXPECT_NO_THROW(onnx::checker::check_model(model));
}

TEST(UpgradeAloneTest, PassesThroughWhatItIsTold) {
  onnx::ModelProto model = Parse(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,3,2,2] x) => (float[1,3,2,2] y) { y = ImageScaler<scale=2.0, bias=[1.0, 2.0, 3.0]>(x) }
)ONNX");
  onnx::ModelProto refused = model;
  const absl::Status status = MoveDefaultOpset(refused, 10);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("ImageScaler"));
  PassThroughOps pass_through;
  pass_through.passes_through = [](const onnx::NodeProto& node, int64_t) { return node.op_type() == "ImageScaler"; };
  EXPECT_TRUE(MoveDefaultOpset(model, 10, pass_through).ok());
}

}  // namespace
}  // namespace onnx_legalize
