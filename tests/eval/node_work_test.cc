// The work the model runner counts (eval/node_work.h) and its meter (RunMeter, eval/model_runner.h): the unit of
// the opset move's proof budget.
#include "eval/node_work.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::HasSubstr;

TEST(NodeWorkTest, CountsTheElementsEachNodeReadsAndWrites) {
  const onnx::ModelProto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y) {
      r = Relu(x)
      y = Neg(r)
    })");
  RunMeter meter;
  ASSERT_TRUE(RunModel(model, Feed("x", Floats({2, 3}, std::vector<float>(6))), nullptr, nullptr, &meter).ok());
  EXPECT_EQ(meter.nodes_executed, 2);
  EXPECT_EQ(meter.work, 2 * (6 + 6));
  EXPECT_FALSE(meter.past_budget);
}

// Conv: each output element is a dot product over W's dims past the first; Gemm: over K; the pools: a window.
TEST(NodeWorkTest, AddsTheMultiplyAddsOfContractionsAndTheWindowsOfPools) {
  const onnx::ModelProto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,2,4,4] x, float[3,2,3,3] w, float[4,5] a, float[5,6] b) => (float[1,3,2,2] c, float[4,6] m,
                                                                              float[1,2,2,2] p) {
      c = Conv(x, w)
      m = Gemm(a, b)
      p = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(x)
    })");
  Feeds feeds =
      Feed("x", Floats({1, 2, 4, 4}, std::vector<float>(32)), "w", Floats({3, 2, 3, 3}, std::vector<float>(54)));
  feeds.emplace("a", Floats({4, 5}, std::vector<float>(20)));
  feeds.emplace("b", Floats({5, 6}, std::vector<float>(30)));
  RunMeter meter;
  ASSERT_TRUE(RunModel(model, feeds, nullptr, nullptr, &meter).ok());
  const int64_t conv = (32 + 54 + 12) + 12 * (2 * 3 * 3);
  const int64_t gemm = (20 + 30 + 24) + 24 * 5;
  const int64_t pool = (32 + 8) + 8 * 4;
  EXPECT_EQ(meter.work, conv + gemm + pool);
  EXPECT_EQ(meter.nodes_executed, 3);
}

// One meter follows several runs, and stops the run whose node passes its budget, naming the node.
TEST(NodeWorkTest, TheMeterAddsUpRunsAndStopsOnePastItsBudget) {
  const onnx::ModelProto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[4] x) => (float[4] y) {
      r = Relu(x)
      y = Neg(r)
    })");
  const Feeds feeds = Feed("x", Floats({4}, {1, -2, 3, -4}));
  RunMeter meter;
  meter.budget = 20;
  ASSERT_TRUE(RunModel(model, feeds, nullptr, nullptr, &meter).ok());
  EXPECT_EQ(meter.work, 16);
  const Results second = RunModel(model, feeds, nullptr, nullptr, &meter);
  EXPECT_TRUE(FailsWith(second, absl::StatusCode::kResourceExhausted,
                        {"Relu", "the run passed its budget of 20 element operations (24 done)"}));
  EXPECT_TRUE(meter.past_budget);
  EXPECT_EQ(meter.nodes_executed, 3) << "stopped after the node that passed it";
}

TEST(NodeWorkTest, CountsSaturateInsteadOfOverflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(SaturatingAdd(kMax - 1, 5), kMax);
  EXPECT_EQ(SaturatingAdd(2, 3), 5);
}

}  // namespace
}  // namespace onnx_legalize::testing
