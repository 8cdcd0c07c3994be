// Conv and ConvTranspose (src/eval/kernels/conv.cc, conv_transpose.cc, conv_geometry.cc).
#include <vector>

#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

const std::vector<float> kOneToNine = {1, 2, 3, 4, 5, 6, 7, 8, 9};

TEST(ConvKernelTest, SlidesTheKernelAndAddsTheBias) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,3,3] x) => (float[1,1,2,2] y) {
      w = Constant <value = float[1,1,2,2] {1, 0, 0, 1}> ()
      b = Constant <value = float[1] {10}> ()
      y = Conv(x, w, b)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1, 3, 3}, kOneToNine))), "y",
                       Floats({1, 1, 2, 2}, {16, 18, 22, 24})));
}

TEST(ConvKernelTest, PadsWithZerosAndStrides) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,3,3] x) => (float[1,1,2,2] y) {
      w = Constant <value = float[1,1,3,3] {1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
      y = Conv <pads = [1, 1, 1, 1], strides = [2, 2]> (x, w)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1, 3, 3}, kOneToNine))), "y",
                       Floats({1, 1, 2, 2}, {12, 16, 24, 28})));
}

// An odd total padding goes to the end with SAME_UPPER and to the beginning with SAME_LOWER.
TEST(ConvKernelTest, SameUpperAndSameLowerPutTheOddPadOnOppositeSides) {
  constexpr char kModel[] = R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,4] x) => (float[1,1,1,4] y) {
      w = Constant <value = float[1,1,1,2] {1, 10}> ()
      y = Conv <auto_pad = "MODE"> (x, w)
    })";
  auto with_mode = [&](const std::string& mode) {
    std::string text = kModel;
    text.replace(text.find("MODE"), 4, mode);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 1, 1, 4}, {1, 2, 3, 4}));
  EXPECT_TRUE(OutputIs(RunModel(with_mode("SAME_UPPER"), x), "y", Floats({1, 1, 1, 4}, {21, 32, 43, 4})));
  EXPECT_TRUE(OutputIs(RunModel(with_mode("SAME_LOWER"), x), "y", Floats({1, 1, 1, 4}, {10, 21, 32, 43})));
  EXPECT_TRUE(OutputIs(RunModel(with_mode("VALID"), x), "y", Floats({1, 1, 1, 3}, {21, 32, 43})));
}

TEST(ConvKernelTest, ConvolvesEachGroupWithItsOwnFilters) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,2,1,2] x) => (float[1,2,1,2] y) {
      w = Constant <value = float[2,1,1,1] {10, 100}> ()
      y = Conv <group = 2> (x, w)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 2, 1, 2}, {1, 2, 3, 4}))), "y",
                       Floats({1, 2, 1, 2}, {10, 20, 300, 400})));
}

TEST(ConvKernelTest, DilatesTheKernel) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,5] x) => (float[1,1,1,3] y) {
      w = Constant <value = float[1,1,1,2] {1, 1}> ()
      y = Conv <dilations = [1, 2]> (x, w)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1, 1, 5}, {1, 2, 3, 4, 5}))), "y",
                       Floats({1, 1, 1, 3}, {4, 6, 8})));
}

// Conv-1 means what Conv-11 means; the runner runs it at the model's opset 1.
TEST(ConvKernelTest, RunsConv1AtOpset1AndFloat16) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float16[1,1,1,3] x, float16[1,1,1,2] w) => (float16[1,1,1,2] y) { y = Conv(x, w) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Halves({1, 1, 1, 3}, {1, 2, 3}), "w", Halves({1, 1, 1, 2}, {1, 1}))),
                       "y", Halves({1, 1, 1, 2}, {3, 5})));
}

TEST(ConvKernelTest, RejectsChannelsThatDoNotFitTheFilterAndNamesTheNode) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,2,3,3] x, float[1,1,2,2] w) => (float[1,1,2,2] y) { y = Conv(x, w) })");
  EXPECT_TRUE(FailsWith(
      RunModel(model, Feed("x", Floats({1, 2, 3, 3}, std::vector<float>(18)), "w", Floats({1, 1, 2, 2}, {1, 1, 1, 1}))),
      StatusCode::kInvalidArgument, {"Conv producing 'y' (graph main)", "do not fit group 1"}));
}

TEST(ConvKernelTest, RejectsAnUnknownAutoPad) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,3,3] x, float[1,1,2,2] w) => (float[1,1,2,2] y) { y = Conv <auto_pad = "SAME"> (x, w) })");
  EXPECT_TRUE(
      FailsWith(RunModel(model, Feed("x", Floats({1, 1, 3, 3}, kOneToNine), "w", Floats({1, 1, 2, 2}, {1, 1, 1, 1}))),
                StatusCode::kInvalidArgument, {"auto_pad 'SAME'"}));
}

TEST(ConvKernelTest, RejectsAKernelShapeThatDiffersFromW) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,3,3] x, float[1,1,2,2] w) => (float[1,1,2,2] y) { y = Conv <kernel_shape = [3, 3]> (x, w) })");
  EXPECT_TRUE(
      FailsWith(RunModel(model, Feed("x", Floats({1, 1, 3, 3}, kOneToNine), "w", Floats({1, 1, 2, 2}, {1, 1, 1, 1}))),
                StatusCode::kInvalidArgument, {"kernel_shape [3,3] differs from W"}));
}

TEST(ConvKernelTest, SaysWhichTypeItDoesNotTake) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (int32[1,1,2,2] x, int32[1,1,1,1] w) => (int32[1,1,2,2] y) { y = Conv(x, w) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Int32s({1, 1, 2, 2}, {1, 2, 3, 4}), "w", Int32s({1, 1, 1, 1}, {2}))),
                        StatusCode::kUnimplemented, {"Conv producing 'y'", "Conv of type int32"}));
}

// The same product computed twice sums in the same order: a proof compares runs bit for bit.
TEST(ConvKernelTest, GivesTheSameBitsOnEveryRun) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[2,8,17,19] x, float[16,8,3,3] w) => (float[2,16,17,19] y) { y = Conv <pads = [1, 1, 1, 1]> (x, w) })");
  std::vector<float> x(2 * 8 * 17 * 19), w(16 * 8 * 3 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 997.0f - 0.5f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 104729) % 1000) / 991.0f - 0.5f;
  const Results first = RunModel(model, Feed("x", Floats({2, 8, 17, 19}, x), "w", Floats({16, 8, 3, 3}, w)));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2, 8, 17, 19}, x), "w", Floats({16, 8, 3, 3}, w))), "y",
                       first->at("y")));
}

TEST(ConvTransposeKernelTest, SpreadsEachInputOverTheStridedOutput) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,2] x) => (float[1,1,1,5] y) {
      w = Constant <value = float[1,1,1,3] {1, 1, 1}> ()
      y = ConvTranspose <strides = [1, 2]> (x, w)
    })");
  EXPECT_TRUE(
      OutputIs(RunModel(model, Feed("x", Floats({1, 1, 1, 2}, {1, 2}))), "y", Floats({1, 1, 1, 5}, {1, 1, 3, 2, 2})));
}

TEST(ConvTransposeKernelTest, AppliesOutputPaddingPadsAndOutputShape) {
  constexpr char kModel[] = R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,2] x) => (float[1,1,1,N] y) {
      w = Constant <value = float[1,1,1,3] {1, 1, 1}> ()
      y = ConvTranspose <strides = [1, 2], ATTRS> (x, w)
    })";
  auto with = [&](const std::string& attrs) {
    std::string text = kModel;
    text.replace(text.find("ATTRS"), 5, attrs);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 1, 1, 2}, {1, 2}));
  EXPECT_TRUE(OutputIs(RunModel(with("output_padding = [0, 1]"), x), "y", Floats({1, 1, 1, 6}, {1, 1, 3, 2, 2, 0})));
  EXPECT_TRUE(OutputIs(RunModel(with("pads = [0, 1, 0, 1]"), x), "y", Floats({1, 1, 1, 3}, {1, 3, 2})));
  // output_shape 4 of a full 5: total padding 1, which ConvTranspose-11's text puts at the beginning.
  EXPECT_TRUE(OutputIs(RunModel(with("output_shape = [1, 4]"), x), "y", Floats({1, 1, 1, 4}, {1, 3, 2, 2})));
}

TEST(ConvTransposeKernelTest, RejectsABiasOfTheWrongLength) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,2] x, float[1,1,1,3] w, float[2] b) => (float[1,1,1,4] y) { y = ConvTranspose(x, w, b) })");
  Feeds feeds = Feed("x", Floats({1, 1, 1, 2}, {1, 2}), "w", Floats({1, 1, 1, 3}, {1, 1, 1}));
  feeds.emplace("b", Floats({2}, {1, 2}));
  EXPECT_TRUE(FailsWith(RunModel(model, feeds), StatusCode::kInvalidArgument, {"B is float[2]; it must be [1]"}));
}

}  // namespace
}  // namespace onnx_legalize::testing
