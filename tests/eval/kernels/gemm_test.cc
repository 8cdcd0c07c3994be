// Gemm and MatMul (src/eval/kernels/gemm.cc).
#include <string>
#include <vector>

#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

Feeds GemmFeeds() {
  Feeds feeds = Feed("a", Floats({2, 2}, {1, 2, 3, 4}), "b", Floats({2, 2}, {1, 0, 0, 1}));
  feeds.emplace("c", Floats({2}, {10, 20}));
  return feeds;
}

TEST(GemmKernelTest, ComputesAlphaTimesTheProductPlusBetaTimesC) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,2] a, float[2,2] b, float[2] c) => (float[2,2] y, float[2,2] t) {
      y = Gemm <alpha = 2.0, beta = 0.5> (a, b, c)
      t = Gemm <alpha = 2.0, beta = 0.5, transA = 1> (a, b, c)
    })");
  const Results result = RunModel(model, GemmFeeds());
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 2}, {7, 14, 11, 18})));
  EXPECT_TRUE(OutputIs(result, "t", Floats({2, 2}, {7, 16, 9, 18})));
}

// Gemm-6's C is (M, N) unless broadcast = 1; Gemm-7 broadcasts it always.
TEST(GemmKernelTest, BroadcastsCOnlyWhereItsVersionSays) {
  const auto without = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,2] a, float[2,2] b, float[2] c) => (float[2,2] y) { y = Gemm(a, b, c) })");
  EXPECT_TRUE(FailsWith(RunModel(without, GemmFeeds()), StatusCode::kInvalidArgument,
                        {"Gemm producing 'y'", "C float[2] does not fit Y [2,2]"}));
  const auto with = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,2] a, float[2,2] b, float[2] c) => (float[2,2] y) { y = Gemm <broadcast = 1> (a, b, c) })");
  EXPECT_TRUE(OutputIs(RunModel(with, GemmFeeds()), "y", Floats({2, 2}, {11, 22, 13, 24})));
  const auto at7 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 7]>
    g (float[2,2] a, float[2,2] b, float[2] c) => (float[2,2] y) { y = Gemm(a, b, c) })");
  EXPECT_TRUE(OutputIs(RunModel(at7, GemmFeeds()), "y", Floats({2, 2}, {11, 22, 13, 24})));
}

// C is optional from Gemm-11 only.
TEST(GemmKernelTest, TakesNoCFromOpset11Only) {
  const auto at11 = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[2,2] a, float[2,2] b) => (float[2,2] y) { y = Gemm(a, b) })");
  const Feeds feeds = Feed("a", Floats({2, 2}, {1, 2, 3, 4}), "b", Floats({2, 2}, {1, 0, 0, 1}));
  EXPECT_TRUE(OutputIs(RunModel(at11, feeds), "y", Floats({2, 2}, {1, 2, 3, 4})));
  const auto at9 = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[2,2] a, float[2,2] b) => (float[2,2] y) { y = Gemm(a, b) })");
  EXPECT_TRUE(FailsWith(RunModel(at9, feeds), StatusCode::kInvalidArgument, {"has 2 inputs", "takes 3"}));
}

TEST(GemmKernelTest, MatMulBroadcastsBatchesAndPromotesVectors) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,1,2] a, float[2,1] b, float[2] u, float[2] v) => (float[2,1,1] y, float d) {
      y = MatMul(a, b)
      d = MatMul(u, v)
    })");
  Feeds feeds = Feed("a", Floats({2, 1, 2}, {1, 2, 3, 4}), "b", Floats({2, 1}, {1, 1}));
  feeds.emplace("u", Floats({2}, {1, 2}));
  feeds.emplace("v", Floats({2}, {3, 4}));
  const Results result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 1, 1}, {3, 7})));
  EXPECT_TRUE(OutputIs(result, "d", Floats({}, {11})));
}

TEST(GemmKernelTest, MatMulRejectsOperandsThatDoNotMultiply) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] a, float[2,3] b) => (float[2,3] y) { y = MatMul(a, b) })");
  EXPECT_TRUE(FailsWith(
      RunModel(model, Feed("a", Floats({2, 3}, std::vector<float>(6)), "b", Floats({2, 3}, std::vector<float>(6)))),
      StatusCode::kInvalidArgument, {"MatMul producing 'y'", "float[2,3] and float[2,3] do not multiply"}));
}

TEST(GemmKernelTest, MultipliesIntegers) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64[1,2] a, int64[2,1] b) => (int64[1,1] y) { y = MatMul(a, b) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("a", Int64s({1, 2}, {3, -4}), "b", Int64s({2, 1}, {5, 6}))), "y",
                       Int64s({1, 1}, {-9})));
}

}  // namespace
}  // namespace onnx_legalize::testing
