// Conv and ConvTranspose (src/eval/kernels/conv.cc, conv_transpose.cc, conv_geometry.cc).
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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

// A 2-D Conv takes a path of its own (Im2Col2d), and a 1x1 one at stride 1 without padding reads its input in
// place. Each gives the bits the N-D path gives the same convolution written in 3-D with a leading dim of 1:
// the same values in the same im2col matrix, multiplied by the same product.
struct Window2d {
  const char* name;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
};
void PrintTo(const Window2d& window, std::ostream* os) { *os << window.name; }

class Conv2dPathTest : public ::testing::TestWithParam<Window2d> {};

std::vector<float> Ramp(size_t count, size_t multiplier) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>((i * multiplier) % 1000) / 997.0f - 0.5f;
  return values;
}

TEST_P(Conv2dPathTest, GivesTheBitsOfTheNdPath) {
  const Window2d& w = GetParam();
  const int64_t channels = 3, maps = 4, height = 9, width = 11;
  const std::string attributes2d =
      absl::StrCat("strides = [", w.stride_h, ", ", w.stride_w, "], dilations = [", w.dilation_h, ", ", w.dilation_w,
                   "], pads = [", w.pad_top, ", ", w.pad_left, ", ", w.pad_bottom, ", ", w.pad_right, "]");
  const std::string attributes3d = absl::StrCat("strides = [1, ", w.stride_h, ", ", w.stride_w, "], dilations = [1, ",
                                                w.dilation_h, ", ", w.dilation_w, "], pads = [0, ", w.pad_top, ", ",
                                                w.pad_left, ", 0, ", w.pad_bottom, ", ", w.pad_right, "]");
  const auto model = [](const std::string& x_dims, const std::string& w_dims, const std::string& attributes) {
    const std::string text =
        absl::StrCat("<ir_version: 7, opset_import: [\"\" : 11]>\n g (float[", x_dims, "] x, float[", w_dims,
                     "] w) => (float y) { y = Conv <", attributes, "> (x, w) }");
    return ParseModel(text.c_str());
  };
  const auto x = Ramp(channels * height * width, 7919);
  const auto weights = Ramp(maps * channels * w.kernel_h * w.kernel_w, 104729);
  const Results plane = RunModel(model("1,3,9,11", absl::StrCat("4,3,", w.kernel_h, ",", w.kernel_w), attributes2d),
                                 Feed("x", Floats({1, channels, height, width}, x), "w",
                                      Floats({maps, channels, w.kernel_h, w.kernel_w}, weights)));
  const Results volume =
      RunModel(model("1,3,1,9,11", absl::StrCat("4,3,1,", w.kernel_h, ",", w.kernel_w), attributes3d),
               Feed("x", Floats({1, channels, 1, height, width}, x), "w",
                    Floats({maps, channels, 1, w.kernel_h, w.kernel_w}, weights)));
  ASSERT_TRUE(plane.ok()) << plane.status();
  ASSERT_TRUE(volume.ok()) << volume.status();
  EXPECT_EQ(plane->at("y").bytes(), volume->at("y").bytes());
  EXPECT_GT(plane->at("y").element_count(), 0);
}

INSTANTIATE_TEST_SUITE_P(Windows, Conv2dPathTest,
                         ::testing::Values(Window2d{"Plain3x3", 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
                                           Window2d{"Padded3x3", 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                                           Window2d{"UnevenPads", 3, 2, 1, 1, 1, 1, 2, 0, 1, 3},
                                           Window2d{"Strided", 3, 3, 2, 3, 1, 1, 1, 1, 1, 1},
                                           Window2d{"Dilated", 3, 3, 1, 1, 2, 3, 2, 2, 2, 2},
                                           Window2d{"PadsWiderThanTheKernel", 2, 2, 2, 2, 1, 1, 4, 5, 4, 5},
                                           Window2d{"OneByOne", 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
                                           Window2d{"OneByOnePadded", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                                           Window2d{"OneByOneStrided", 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},
                                           Window2d{"WholeInput", 9, 11, 1, 1, 1, 1, 0, 0, 0, 0}),
                         [](const ::testing::TestParamInfo<Window2d>& info) { return std::string(info.param.name); });

// A 1x1 Conv at stride 1 without padding is W [M, C] times X [C, H*W]: the same product as MatMul's.
TEST(ConvKernelTest, OneByOneReadsItsInputInPlaceAndGivesMatMulsBits) {
  const auto conv = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,8,5,7] x, float[6,8,1,1] w) => (float y) { y = Conv(x, w) })");
  const auto matmul = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[8,35] x, float[6,8] w) => (float y) { y = MatMul(w, x) })");
  const auto x = Ramp(8 * 5 * 7, 7919), w = Ramp(6 * 8, 104729);
  const Results by_conv = RunModel(conv, Feed("x", Floats({1, 8, 5, 7}, x), "w", Floats({6, 8, 1, 1}, w)));
  const Results by_matmul = RunModel(matmul, Feed("x", Floats({8, 35}, x), "w", Floats({6, 8}, w)));
  ASSERT_TRUE(by_conv.ok()) << by_conv.status();
  ASSERT_TRUE(by_matmul.ok()) << by_matmul.status();
  EXPECT_EQ(by_conv->at("y").bytes(), by_matmul->at("y").bytes());
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

// output_shape 6 of a full 5: total padding -1. onnx halves it rounding down (its reference is Python's //), so the
// beginning gets -1 - (-1) = 0 and the end -1: the output grows at its end, as onnx's node test
// test_convtranspose_output_shape and ONNX Runtime have it. Halving toward zero grew it at the beginning.
TEST(ConvTransposeKernelTest, AnOutputShapePastTheFullOutputGrowsItsEnd) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,2] x) => (float[1,1,1,6] y) {
      w = Constant <value = float[1,1,1,3] {1, 1, 1}> ()
      y = ConvTranspose <strides = [1, 2], output_shape = [1, 6]> (x, w)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1, 1, 2}, {1, 2}))), "y",
                       Floats({1, 1, 1, 6}, {1, 1, 3, 2, 2, 0})));
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
