// The work the model runner counts (eval/node_work.h) and its meter (RunMeter, eval/model_runner.h): the unit of
// the opset move's proof budget.
#include "eval/node_work.h"

#include <cstdint>
#include <limits>
#include <string>
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

// An Identity passes its input on as its output, the same tensor: nothing read or written, no work.
TEST(NodeWorkTest, AnOutputThatIsItsInputCostsNothing) {
  const onnx::ModelProto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y) {
      i = Identity(x)
      y = Neg(i)
    })");
  RunMeter meter;
  ASSERT_TRUE(RunModel(model, Feed("x", Floats({2, 3}, std::vector<float>(6))), nullptr, nullptr, &meter).ok());
  EXPECT_EQ(meter.nodes_executed, 2);
  EXPECT_EQ(meter.work, 6 + 6) << "Neg's read and write only";
}

// A Conv, a matrix product (`product`: Gemm or MatMul, of A [4,5] and B [5,6]) and a MaxPool, side by side.
onnx::ModelProto ConvProductAndPool(const std::string& product) {
  std::string text = R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,2,4,4] x, float[3,2,3,3] w, float[4,5] a, float[5,6] b) => (float[1,3,2,2] c, float[4,6] m,
                                                                              float[1,2,2,2] p) {
      c = Conv(x, w)
      m = PRODUCT(a, b)
      p = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(x)
    })";
  text.replace(text.find("PRODUCT"), 7, product);
  return ParseModel(text.c_str());
}

Feeds ConvProductAndPoolFeeds() {
  Feeds feeds =
      Feed("x", Floats({1, 2, 4, 4}, std::vector<float>(32)), "w", Floats({3, 2, 3, 3}, std::vector<float>(54)));
  feeds.emplace("a", Floats({4, 5}, std::vector<float>(20)));
  feeds.emplace("b", Floats({5, 6}, std::vector<float>(30)));
  return feeds;
}

// Conv: each output element is a dot product over W's dims past the first; Gemm: over K; the pools: a window.
TEST(NodeWorkTest, AddsTheMultiplyAddsOfContractionsAndTheWindowsOfPools) {
  const onnx::ModelProto model = ConvProductAndPool("Gemm");
  const Feeds feeds = ConvProductAndPoolFeeds();
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

// Resize reads 2 input elements per output element for each dim it interpolates linearly: 4 for two dims.
TEST(NodeWorkTest, AddsTheInterpolationReadsOfResize) {
  const onnx::ModelProto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,2,2] x, float[4] scales) => (float[1,1,4,4] y) {
      y = Resize<mode = "linear">(x, , scales)
    })");
  RunMeter meter;
  ASSERT_TRUE(RunModel(model, Feed("x", Floats({1, 1, 2, 2}, {1, 2, 3, 4}), "scales", Floats({4}, {1, 1, 2, 2})),
                       nullptr, nullptr, &meter)
                  .ok());
  EXPECT_EQ(meter.work, (4 + 4 + 16) + 16 * 4);
}

// The budget is checked after each node, but a node whose own work passes what is left of it stops before it
// starts: a rank-6 linear Resize to 16^6 elements reads 64 inputs for each, 2^30 operations in one node.
TEST(NodeWorkTest, ANodeWhoseWorkWouldPassTheBudgetStopsBeforeItStarts) {
  const onnx::ModelProto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,2,2,2,2,2] x, float[6] scales) => (float[16,16,16,16,16,16] y) {
      r = Relu(x)
      y = Resize<mode = "linear">(r, , scales)
    })");
  RunMeter meter;
  meter.budget = 1000;
  const Results results = RunModel(
      model,
      Feed("x", Floats({2, 2, 2, 2, 2, 2}, std::vector<float>(64)), "scales", Floats({6}, std::vector<float>(6, 8))),
      nullptr, nullptr, &meter);
  EXPECT_TRUE(FailsWith(results, absl::StatusCode::kResourceExhausted,
                        {"Resize", "the interpolation would take 1073741824 element operations, past the 872 left"}));
  EXPECT_TRUE(meter.past_budget);
  EXPECT_EQ(meter.work, 128) << "the Relu's work; the Resize did none";
}

// The same holds for the contractions and windows: a Conv, a MatMul, a pool.
TEST(NodeWorkTest, ContractionsAndPoolsPastTheBudgetStopBeforeTheyStart) {
  const onnx::ModelProto model = ConvProductAndPool("MatMul");
  const Feeds feeds = ConvProductAndPoolFeeds();
  struct Case {
    int64_t budget;
    const char* stopped_in;
    const char* what;
  };
  // Conv's dot products are 12 x 18 = 216 operations; MatMul's 24 x 5 = 120; the pool's windows 8 x 4 = 32.
  const int64_t conv = (32 + 54 + 12) + 216, matmul = (20 + 30 + 24) + 120;
  for (const Case& c : {Case{215, "Conv", "the convolution would take 216"},
                        Case{conv + 119, "MatMul", "the matrix product would take 120"},
                        Case{conv + matmul + 31, "MaxPool", "the pooling windows would take 32"}}) {
    RunMeter meter;
    meter.budget = c.budget;
    EXPECT_TRUE(FailsWith(RunModel(model, feeds, nullptr, nullptr, &meter), absl::StatusCode::kResourceExhausted,
                          {c.stopped_in, c.what}))
        << c.stopped_in;
    EXPECT_TRUE(meter.past_budget) << c.stopped_in;
  }
}

TEST(NodeWorkTest, CountsSaturateInsteadOfOverflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(SaturatingAdd(kMax - 1, 5), kMax);
  EXPECT_EQ(SaturatingAdd(2, 3), 5);
}

}  // namespace
}  // namespace onnx_legalize::testing
