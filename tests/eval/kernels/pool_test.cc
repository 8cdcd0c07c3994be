// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool (src/eval/kernels/pool.cc).
#include <cmath>
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

TEST(PoolKernelTest, MaxPoolIgnoresThePadding) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,3,3] x) => (float[1,1,2,2] y) {
      y = MaxPool <kernel_shape = [2, 2], pads = [1, 1, 1, 1], strides = [2, 2]> (x)
    })");
  EXPECT_TRUE(
      OutputIs(RunModel(model, Feed("x", Floats({1, 1, 3, 3}, kOneToNine))), "y", Floats({1, 1, 2, 2}, {1, 3, 7, 9})));
}

// MaxPool-10's ceil_mode keeps the last, partial window; before opset 10 the attribute does not exist.
TEST(PoolKernelTest, CeilModeFromOpset10Only) {
  constexpr char kModel[] = R"(
    <ir_version: 5, opset_import: ["" : OPSET]>
    g (float[1,1,1,5] x) => (float[1,1,1,N] y) { y = MaxPool <kernel_shape = [1, 2], strides = [1, 2], ceil_mode = 1> (x) })";
  auto at = [&](const std::string& opset) {
    std::string text = kModel;
    text.replace(text.find("OPSET"), 5, opset);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 1, 1, 5}, {1, 2, 3, 4, 5}));
  EXPECT_TRUE(OutputIs(RunModel(at("10"), x), "y", Floats({1, 1, 1, 3}, {2, 4, 5})));
  EXPECT_TRUE(FailsWith(RunModel(at("9"), x), StatusCode::kInvalidArgument, {"ceil_mode", "added at opset 10"}));
}

// With ceil_mode, a last window that would start in the end padding, past every input element, is dropped, as onnx
// and ONNX Runtime drop it: a 2x2 input pooled by 1x1 windows at stride 2 gives 1x1, not 2x2 (onnx's
// test_maxpool_2d_ceil_output_size_reduce_by_one).
TEST(PoolKernelTest, CeilModeDropsALastWindowThatStartsInThePadding) {
  const auto max_pool = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 22]>
    g (float[1,1,2,2] x) => (float[1,1,1,1] y) { y = MaxPool <kernel_shape = [1, 1], strides = [2, 2], ceil_mode = 1> (x) })");
  EXPECT_TRUE(
      OutputIs(RunModel(max_pool, Feed("x", Floats({1, 1, 2, 2}, {1, 2, 3, 4}))), "y", Floats({1, 1, 1, 1}, {1})));
  // A window that starts inside the input, even when it ends in the padding, stays.
  const auto average_pool = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 22]>
    g (float[1,1,1,5] x) => (float[1,1,1,3] y) { y = AveragePool <kernel_shape = [1, 2], strides = [1, 2], ceil_mode = 1> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(average_pool, Feed("x", Floats({1, 1, 1, 5}, {1, 2, 3, 4, 5}))), "y",
                       Floats({1, 1, 1, 3}, {1.5f, 3.5f, 5})));
}

// MaxPool-8's Indices: the flat index of the maximum, row-major or (storage_order = 1) column-major.
TEST(PoolKernelTest, MaxPoolIndicesFollowStorageOrder) {
  constexpr char kModel[] = R"(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[1,1,2,2] x) => (float[1,1,1,1] y, int64[1,1,1,1] i) {
      y, i = MaxPool <kernel_shape = [2, 2], storage_order = ORDER> (x)
    })";
  auto with = [&](const std::string& order) {
    std::string text = kModel;
    text.replace(text.find("ORDER"), 5, order);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 1, 2, 2}, {1, 4, 3, 2}));
  EXPECT_TRUE(OutputIs(RunModel(with("0"), x), "i", Int64s({1, 1, 1, 1}, {1})));
  EXPECT_TRUE(OutputIs(RunModel(with("1"), x), "i", Int64s({1, 1, 1, 1}, {2})));
  EXPECT_TRUE(OutputIs(RunModel(with("1"), x), "y", Floats({1, 1, 1, 1}, {4})));
}

// A 2-D MaxPool without Indices takes a path of its own (MaxPoolPlane2d). It gives the values the general
// path gives when Indices are asked for, on data with signed zeros, NaNs and ties, whose result depends on
// the order in which each window is read.
class MaxPool2dPathTest : public ::testing::TestWithParam<const char*> {};

TEST_P(MaxPool2dPathTest, GivesTheValuesOfTheGeneralPath) {
  const std::string attributes = GetParam();
  const auto model = [&](const std::string& outputs) {
    const std::string text =
        absl::StrCat("<ir_version: 7, opset_import: [\"\" : 12]>\n g (float[2,3,7,8] x) => (", outputs, ") { ",
                     outputs == "float y" ? "y" : "y, i", " = MaxPool <", attributes, "> (x) }");
    return ParseModel(text.c_str());
  };
  std::vector<float> x(2 * 3 * 7 * 8);
  const float kSpecial[] = {0.0f, -0.0f, std::nanf(""), 1.0f, -1.0f, -0.0f, 0.0f, 2.0f, -5.0f, 1.0f, -0.0f};
  for (size_t i = 0; i < x.size(); ++i) x[i] = kSpecial[(i * 7) % (sizeof(kSpecial) / sizeof(float))];
  const Results fast = RunModel(model("float y"), Feed("x", Floats({2, 3, 7, 8}, x)));
  const Results general = RunModel(model("float y, int64 i"), Feed("x", Floats({2, 3, 7, 8}, x)));
  ASSERT_TRUE(fast.ok()) << fast.status();
  ASSERT_TRUE(general.ok()) << general.status();
  EXPECT_EQ(fast->at("y").bytes(), general->at("y").bytes());
  EXPECT_EQ(fast->at("y").dims(), general->at("y").dims());
}

INSTANTIATE_TEST_SUITE_P(Windows, MaxPool2dPathTest,
                         ::testing::Values("kernel_shape = [2, 2], strides = [2, 2]",
                                           "kernel_shape = [3, 3], pads = [1, 1, 1, 1]",
                                           "kernel_shape = [3, 2], strides = [2, 3], pads = [2, 0, 1, 1]",
                                           "kernel_shape = [2, 3], dilations = [2, 2], pads = [1, 2, 1, 2]",
                                           "kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1",
                                           "kernel_shape = [7, 8]"));

TEST(PoolKernelTest, AveragePoolCountsThePaddingOnlyWhenAsked) {
  constexpr char kModel[] = R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,1,3] x) => (float[1,1,1,3] y) {
      y = AveragePool <kernel_shape = [1, 3], pads = [0, 1, 0, 1], count_include_pad = COUNT> (x)
    })";
  auto with = [&](const std::string& count) {
    std::string text = kModel;
    text.replace(text.find("COUNT"), 5, count);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 1, 1, 3}, {1, 2, 3}));
  EXPECT_TRUE(OutputIs(RunModel(with("0"), x), "y", Floats({1, 1, 1, 3}, {1.5f, 2.0f, 2.5f})));
  EXPECT_TRUE(OutputIs(RunModel(with("1"), x), "y", Floats({1, 1, 1, 3}, {1.0f, 2.0f, 5.0f / 3.0f})));
}

TEST(PoolKernelTest, RejectsCountIncludePadBeforeOpset7) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[1,1,1,3] x) => (float[1,1,1,1] y) { y = AveragePool <kernel_shape = [1, 3], count_include_pad = 1> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({1, 1, 1, 3}, {1, 2, 3}))), StatusCode::kInvalidArgument,
                        {"AveragePool producing 'y'", "count_include_pad", "added at opset 7"}));
}

TEST(PoolKernelTest, RejectsAKernelOfTheWrongRank) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,1,3,3] x) => (float[1,1,1,1] y) { y = MaxPool <kernel_shape = [3]> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({1, 1, 3, 3}, kOneToNine))), StatusCode::kInvalidArgument,
                        {"kernel_shape [3] does not fit X float[1,1,3,3]"}));
}

TEST(PoolKernelTest, GlobalPoolsReduceEverySpatialPosition) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 11]>
    g (float[1,2,1,2] x) => (float[1,2,1,1] avg, float[1,2,1,1] max) {
      avg = GlobalAveragePool(x)
      max = GlobalMaxPool(x)
    })");
  const Results result = RunModel(model, Feed("x", Floats({1, 2, 1, 2}, {1, 2, 3, 5})));
  EXPECT_TRUE(OutputIs(result, "avg", Floats({1, 2, 1, 1}, {1.5f, 4.0f})));
  EXPECT_TRUE(OutputIs(result, "max", Floats({1, 2, 1, 1}, {2, 5})));
}

// AveragePool-19 adds dilations: the window's taps are `dilation` apart. Over [1..9] as 3x3, a 2x2 window with
// dilation 2 reads the four corners (1, 3, 7, 9). Before opset 19 the attribute does not exist.
TEST(PoolKernelTest, AveragePoolDilatesFromOpset19Only) {
  const auto at19 = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[1,1,3,3] x) => (float[1,1,1,1] y) { y = AveragePool <kernel_shape = [2, 2], dilations = [2, 2]> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(at19, Feed("x", Floats({1, 1, 3, 3}, kOneToNine))), "y", Floats({1, 1, 1, 1}, {5})));
  const auto at18 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,3,3] x) => (float[1,1,1,1] y) { y = AveragePool <kernel_shape = [2, 2], dilations = [2, 2]> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(at18, Feed("x", Floats({1, 1, 3, 3}, kOneToNine))), StatusCode::kInvalidArgument,
                        {"attribute 'dilations'", "AveragePool at opset 18"}));
}

// With dilations, count_include_pad counts the window's taps inside the padded input, not the span they cover:
// over [1, 2, 3] padded by 1 on each side, a window of 2 taps 2 apart starting at -1 reads the pad and 2
// (2 / 2 = 1 with the pad counted, 2 without); the next, from 0, reads 1 and 3 (2 either way).
TEST(PoolKernelTest, AveragePoolWithDilationsCountsTheTapsInThePadding) {
  constexpr char kModel[] = R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[1,1,3] x) => (float[1,1,3] y) {
      y = AveragePool <kernel_shape = [2], dilations = [2], pads = [1, 1], count_include_pad = COUNT> (x)
    })";
  auto with = [&](const std::string& count) {
    std::string text = kModel;
    text.replace(text.find("COUNT"), 5, count);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 1, 3}, {1, 2, 3}));
  EXPECT_TRUE(OutputIs(RunModel(with("1"), x), "y", Floats({1, 1, 3}, {1, 2, 1})));
  EXPECT_TRUE(OutputIs(RunModel(with("0"), x), "y", Floats({1, 1, 3}, {2, 2, 2})));
}

}  // namespace
}  // namespace onnx_legalize::testing
