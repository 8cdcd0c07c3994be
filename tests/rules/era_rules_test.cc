// FC and com.microsoft's LegacyPadding, the two ops of ONNX's first era that Custom Vision's 2018 classifiers
// hold: each is folded when its inputs are constants and rewritten otherwise (Flatten + Gemm, Pad), and every
// rewrite is verified against the op's reference kernel by Legalize itself.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::CountOps;
using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::NodeFor;
using ::onnx_legalize::testing::ParseModel;
using ::testing::HasSubstr;

const onnx::TensorProto* Initializer(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& initializer : model.graph().initializer()) {
    if (initializer.name() == name) return &initializer;
  }
  return nullptr;
}

TEST(FullyConnected, ComputedAtRunTimeBecomesFlattenAndGemmAtOpset1) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[2,3,1,1] x) => (float[2,2] y) {
  w = Constant<value = float[2,3] {1, 2, 3, 4, 5, 6}>()
  b = Constant<value = float[2] {0.5, -0.5}>()
  y = FC<axis = 1, axis_w = 1>(x, w, b)
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 1);
  EXPECT_EQ(CountOps(legalized, "FC"), 0);
  EXPECT_EQ(CountOps(legalized, "Gemm"), 1);
  EXPECT_EQ(NodeFor(report, "y").became, "Flatten + Gemm");
  EXPECT_THAT(NodeFor(report, "y").verification, HasSubstr("bit for bit"));
}

TEST(FullyConnected, AtEveryAxisCombinationTheRewriteMatchesTheReference) {
  // axis 2 keeps X's first two dims; W [2, 3, 2] at axis_w 1 is N = 2 rows of K = 6.
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[2,4,3,2] x, float[2,3,2] w, float[2] b) => (float[2,4,2] y) {
  y = FC<axis = 2, axis_w = 1>(x, w, b)
}
)");
  for (int64_t target : {9, 13, 17}) {
    Options options;
    options.target_opset = target;
    Report report;
    const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
    EXPECT_EQ(NodeFor(report, "y").became, "Flatten + Flatten + Gemm + Reshape") << target;
    EXPECT_THAT(NodeFor(report, "y").verification, HasSubstr("bit for bit")) << target;
  }
}

// CoreML's gesture classifiers (opset 1): a GRU-1, whose outputs onnx 1.12 types none of, then an FC reading
// its last hidden state. Every output of a recurrent op of the first opsets has X's element type, and its dims
// follow from X's and hidden_size.
TEST(FullyConnected, AfterARecurrentOpOfOpset1KnowsItsInputsType) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[5,1,4] x, float[1,9,4] w, float[1,9,3] r) => (float[1,2] y) {
  seq, h = GRU<hidden_size = 3>(x, w, r)
  fc_w = Constant<value = float[2,3] {1, 2, 3, 4, 5, 6}>()
  fc_b = Constant<value = float[2] {0.5, -0.5}>()
  y = FC<axis = 1, axis_w = 1>(h, fc_w, fc_b)
}
)");
  // Not at 1: onnx 1.12's strict inference types nothing after a GRU-1, and the default target goes past it.
  for (int64_t target : {0, 7, 13, 17}) {
    Options options;
    if (target > 0) options.target_opset = target;
    Report report;
    const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
    EXPECT_EQ(CountOps(legalized, "FC"), 0) << target;
    EXPECT_EQ(NodeFor(report, "y").became, "Flatten + Gemm") << target;
    EXPECT_THAT(NodeFor(report, "y").verification, HasSubstr("bit for bit")) << target;
  }
}

TEST(FullyConnected, OfConstantsIsFolded) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g () => (float[1,2] y) {
  x = Constant<value = float[1,3] {1, 1, 2}>()
  w = Constant<value = float[2,3] {1, 2, 3, 4, 5, 6}>()
  b = Constant<value = float[2] {0.5, -0.5}>()
  y = FC(x, w, b)
}
)");
  const onnx::ModelProto legalized = LegalizedCopy(model);
  const onnx::TensorProto* y = Initializer(legalized, "y");
  ASSERT_NE(y, nullptr);
  // [1 + 2 + 6 + 0.5, 4 + 5 + 12 - 0.5]
  const float* values = reinterpret_cast<const float*>(y->raw_data().data());
  ASSERT_EQ(y->raw_data().size(), 2 * sizeof(float));
  EXPECT_EQ(values[0], 9.5f);
  EXPECT_EQ(values[1], 20.5f);
}

TEST(FullyConnected, WhoseOutputShapeCannotBeWrittenIsRefused) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[N,M,6] x, float[2,6] w, float[2] b) => (float[N,M,2] y) {
  y = FC<axis = 2>(x, w, b)
}
)");
  onnx::ModelProto copy = model;
  const absl::StatusOr<Report> report = Legalize(copy, {});
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(report.status().message(), HasSubstr("FC"));
}

// A VALID MaxPool behind LegacyPadding, as WinMLTools 0.1 wrote CoreML's includeLastPixel pooling.
constexpr char kLegacyPadding[] = R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,2,56,57] x) => (float[1,2,28,28] y) {
  padded = com.microsoft.LegacyPadding<kernel_shape = [3, 3], strides = [2, 2], pads = [0, 0], value = -3.4e38>(x)
  y = MaxPool<kernel_shape = [3, 3], strides = [2, 2], auto_pad = "VALID">(padded)
}
)";

TEST(LegacyPadding, BecomesThePadCoreMLsIncludeLastPixelMeant) {
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(ParseModel(kLegacyPadding), {}, &report);
  EXPECT_EQ(CountOps(legalized, "LegacyPadding"), 0);
  ASSERT_EQ(CountOps(legalized, "Pad"), 1);
  // The model's own opset, 1: Pad-1, which calls its pads `paddings`.
  EXPECT_EQ(NodeFor(report, "padded").became, "Pad-1");
  EXPECT_THAT(NodeFor(report, "padded").verification, HasSubstr("bit for bit"));
  // H 56: T = 53, CoreML's ceil(53 / 2) + 1 = 28 windows where VALID has 27: one row more at the end.
  // W 57: T = 54, 28 windows either way: none.
  int paddings_read = 0;
  for (const auto& node : legalized.graph().node()) {
    if (node.op_type() != "Pad") continue;
    for (const auto& attribute : node.attribute()) {
      if (attribute.name() != "paddings") continue;
      EXPECT_THAT(attribute.ints(), ::testing::ElementsAre(0, 0, 0, 0, 0, 0, 1, 0));
      ++paddings_read;
    }
  }
  EXPECT_EQ(paddings_read, 1);
}

TEST(LegacyPadding, AtOpset11TakesItsPadsAsInputs) {
  Options options;
  options.target_opset = 11;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(ParseModel(kLegacyPadding), options, &report);
  EXPECT_EQ(NodeFor(report, "padded").became, "Pad-11");
}

TEST(LegacyPadding, OfUnknownHeightIsRefusedNamingWhy) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7, "com.microsoft" : 1]>
g (float[1,2,H,W] x) => (float[1,2,H,W] y) {
  y = com.microsoft.LegacyPadding<kernel_shape = [3, 3], strides = [2, 2], pads = [0, 0], value = 0.0>(x)
}
)");
  const absl::StatusOr<Report> report = Legalize(model, {});
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(report.status().message(), HasSubstr("height and width"));
}

}  // namespace
}  // namespace onnx_legalize
