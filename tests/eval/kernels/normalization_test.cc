// BatchNormalization, InstanceNormalization, LRN (src/eval/kernels/normalization.cc).
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

std::string AtOpset(const char* text, const std::string& opset) {
  std::string replaced = text;
  replaced.replace(replaced.find("OPSET"), 5, opset);
  return replaced;
}

// Y = (X - mean) / sqrt(var + epsilon) * scale + B per channel, the same at every version.
TEST(NormalizationKernelTest, BatchNormalizationNormalizesPerChannelAtEveryVersion) {
  constexpr char kModel[] = R"(
    <ir_version: 3, opset_import: ["" : OPSET]>
    g (float[1,2,1,2] x) => (float[1,2,1,2] y) {
      s = Constant <value = float[2] {2, 1}> ()
      b = Constant <value = float[2] {0, 1}> ()
      m = Constant <value = float[2] {1, 3}> ()
      v = Constant <value = float[2] {3, 0}> ()
      y = BatchNormalization <epsilon = 1.0> (x, s, b, m, v)
    })";
  for (const std::string opset : {"6", "7", "9", "14", "15"}) {
    const auto model = ParseModel(AtOpset(kModel, opset).c_str());
    EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 2, 1, 2}, {1, 2, 3, 4}))), "y",
                         Floats({1, 2, 1, 2}, {0, 1, 1, 2})))
        << "opset " << opset;
  }
}

// BatchNormalization-1/6/7's spatial = 0: one parameter per element of an item, [C, D1, ...].
TEST(NormalizationKernelTest, BatchNormalizationSpatial0NormalizesPerElement) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 7]>
    g (float[1,2,1,2] x) => (float[1,2,1,2] y) {
      s = Constant <value = float[2,1,2] {1, 1, 1, 1}> ()
      b = Constant <value = float[2,1,2] {0, 0, 0, 0}> ()
      m = Constant <value = float[2,1,2] {0, 1, 2, 3}> ()
      v = Constant <value = float[2,1,2] {0, 0, 0, 0}> ()
      y = BatchNormalization <spatial = 0, epsilon = 1.0> (x, s, b, m, v)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 2, 1, 2}, {1, 2, 3, 4}))), "y",
                       Floats({1, 2, 1, 2}, {1, 1, 1, 1})));
}

TEST(NormalizationKernelTest, RejectsSpatialFromOpset9) {
  const auto model = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[1,1,1,1] x, float[1] s) => (float[1,1,1,1] y) { y = BatchNormalization <spatial = 1> (x, s, s, s, s) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({1, 1, 1, 1}, {1}), "s", Floats({1}, {1}))),
                        StatusCode::kInvalidArgument, {"BatchNormalization producing 'y'", "spatial", "removed at 9"}));
}

TEST(NormalizationKernelTest, DoesNotRunTheTrainingFormBeforeOpset14) {
  const auto model = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[1,1,1,1] x, float[1] s) => (float[1,1,1,1] y, float[1] mean) {
      y, mean = BatchNormalization(x, s, s, s, s)
    })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({1, 1, 1, 1}, {1}), "s", Floats({1}, {1}))),
                        StatusCode::kUnimplemented, {"training form"}));
}

// BatchNormalization-14's training mode: each channel normalized by its own batch mean and population variance
// (channel 0 holds 1, 3, 5, 7 and channel 1 0, 2, 4, 6: variance 5 each), and the running statistics 0.9 * input +
// 0.1 * batch.
TEST(NormalizationKernelTest, RunsTheTrainingModeOfOpset14) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2,2,2] x, float[2] s, float[2] b, float[2] m, float[2] v) => (float[2,2,2] y, float[2] rm, float[2] rv) {
      y, rm, rv = BatchNormalization <training_mode = 1, epsilon = 0.0> (x, s, b, m, v)
    })");
  std::map<std::string, Tensor> feeds;
  feeds.emplace("x", Floats({2, 2, 2}, {1, 3, 0, 2, 5, 7, 4, 6}));
  feeds.emplace("s", Floats({2}, {2, 1}));
  feeds.emplace("b", Floats({2}, {0.5f, 0}));
  feeds.emplace("m", Floats({2}, {10, 0}));
  feeds.emplace("v", Floats({2}, {1, 1}));
  const Results results = RunModel(model, std::move(feeds));
  const float root5 = std::sqrt(5.0f);
  EXPECT_TRUE(OutputNear(results, "y",
                         Floats({2, 2, 2}, {2 * (-3 / root5) + 0.5f, 2 * (-1 / root5) + 0.5f, -3 / root5, -1 / root5,
                                            2 * (1 / root5) + 0.5f, 2 * (3 / root5) + 0.5f, 1 / root5, 3 / root5}),
                         1e-6f));
  EXPECT_TRUE(OutputNear(results, "rm", Floats({2}, {10 * 0.9f + 4 * 0.1f, 3 * 0.1f}), 1e-6f));
  EXPECT_TRUE(OutputNear(results, "rv", Floats({2}, {0.9f + 5 * 0.1f, 0.9f + 5 * 0.1f}), 1e-6f));
}

TEST(NormalizationKernelTest, HasRunningStatisticsOnlyInTrainingMode) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[1,1,1,1] x, float[1] s) => (float[1,1,1,1] y, float[1] mean) {
      y, mean = BatchNormalization(x, s, s, s, s)
    })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({1, 1, 1, 1}, {1}), "s", Floats({1}, {1}))),
                        StatusCode::kInvalidArgument, {"exist only in training mode"}));
}

// BatchNormalization-15 lets scale, B, mean and var be float where X is float16.
TEST(NormalizationKernelTest, BatchNormalization15TakesFloatParametersForFloat16) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float16[1,1,1,2] x, float[1] s) => (float16[1,1,1,2] y) { y = BatchNormalization <epsilon = 0.0> (x, s, s, s, s) })");
  // (x - 2) / sqrt(2) * 2 + 2 = sqrt(2) * (x - 2) + 2, rounded to float16.
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Halves({1, 1, 1, 2}, {2, 4}), "s", Floats({1}, {2}))), "y",
                       Halves({1, 1, 1, 2}, {2.0f, 2.0f * 1.41421354f + 2.0f})));
}

TEST(NormalizationKernelTest, RejectsMixedTypesBeforeOpset15) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 14]>
    g (float16[1,1,1,2] x, float[1] s) => (float16[1,1,1,2] y) { y = BatchNormalization(x, s, s, s, s) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Halves({1, 1, 1, 2}, {2, 4}), "s", Floats({1}, {2}))),
                        StatusCode::kInvalidArgument, {"types may differ only from opset 15"}));
}

TEST(NormalizationKernelTest, InstanceNormalizationUsesEachPlanesMeanAndBiasedVariance) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,2] x) => (float[1,1,1,2] y) {
      s = Constant <value = float[1] {2}> ()
      b = Constant <value = float[1] {1}> ()
      y = InstanceNormalization <epsilon = 0.0> (x, s, b)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1, 1, 2}, {1, 3}))), "y", Floats({1, 1, 1, 2}, {-1, 3})));
}

// LRN with size 2 sums the squares of channels c and c + 1 (floor((2 - 1) / 2) = 0 before, 1 after).
TEST(NormalizationKernelTest, LrnSumsTheSquaresOfTheNeighbouringChannels) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,2,1,1] x) => (float[1,2,1,1] y) { y = LRN <size = 2, alpha = 2.0, beta = 1.0, bias = 1.0> (x) })");
  EXPECT_TRUE(OutputNear(RunModel(model, Feed("x", Floats({1, 2, 1, 1}, {1, 2}))), "y",
                         Floats({1, 2, 1, 1}, {1.0f / 6.0f, 0.4f}), 1e-7f));
}

// MeanVarianceNormalization-9: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over axes [0, 2, 3] by default.
TEST(NormalizationKernelTest, MeanVarianceNormalizationFromOpset9) {
  const auto model = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[1,2,1,2] x) => (float[1,2,1,2] y) { y = MeanVarianceNormalization(x) })");
  EXPECT_TRUE(OutputNear(RunModel(model, Feed("x", Floats({1, 2, 1, 2}, {1, 3, 10, 10}))), "y",
                         Floats({1, 2, 1, 2}, {-1, 1, 0, 0}), 1e-6f));
  // Before opset 9 the op is the experimental MVN-1, which only the legalizer's rule computes.
  const auto at8 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 8]>
    g (float[1,2,1,2] x) => (float[1,2,1,2] y) { y = MeanVarianceNormalization(x) })");
  EXPECT_TRUE(FailsWith(RunModel(at8, Feed("x", Floats({1, 2, 1, 2}, {1, 3, 10, 10}))), StatusCode::kUnimplemented,
                        {"MeanVarianceNormalization-1 (experimental)"}));
}

}  // namespace
}  // namespace onnx_legalize::testing
