// RunModelPair (src/eval/paired_run.h): two forms of one model run node beside node, a node the transformation
// left as it was computed once (in neither form when nothing it changed reads it), everything it changed (and what
// reads that, until the values are equal again) run in each form.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "eval/kernels/kernel.h"
#include "eval/model_runner.h"
#include "eval/paired_run.h"
#include "gtest/gtest.h"
#include "test_models.h"
#include "test_tensors.h"

namespace onnx_legalize::testing {
namespace {

std::map<std::string, Tensor> FeedX(const Tensor& x) {
  std::map<std::string, Tensor> feeds;
  feeds.emplace("x", x.Clone());
  return feeds;
}

constexpr char kChain[] = R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y, float[2,3] w) <float[2,3] weight = {1, 2, 3, 4, 5, 6}> {
      a = Relu(x)
      b = Add(a, x)
      w = Identity(weight)
      y = Neg(b)
    })";

TEST(PairedRunTest, RunsNothingWhenTheFormsAreAlike) {
  const auto before = ParseModel(kChain);
  const auto after = ParseModel(kChain);
  const PairPlan plan = PlanModelPair(RunForm{before}, RunForm{after});
  EXPECT_TRUE(plan.steps.empty());
  EXPECT_EQ(plan.nodes_skipped, 4);
  EXPECT_EQ(plan.outputs_same_by_construction, (std::vector<std::string>{"y", "w"}));
  RunMeter meter;
  const PairedRun run = RunModelPair(plan, FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6})), nullptr, &meter);
  ASSERT_TRUE(run.before_status.ok()) << run.before_status;
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(meter.nodes_executed, 0);
  EXPECT_EQ(meter.nodes_skipped, 4);
  EXPECT_TRUE(run.before_outputs.empty() && run.after_outputs.empty()) << "identical by construction: no comparing";
}

TEST(PairedRunTest, ComputesOnceForBothWhatAChangedNodeReads) {
  const auto before = ParseModel(kChain);
  // Neg written as 0 - b: Relu and Add feed it, so they run, once for both forms; the Identity of the weight feeds
  // nothing that changed and runs in neither.
  const auto after = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y, float[2,3] w) <float[2,3] weight = {1, 2, 3, 4, 5, 6}> {
      a = Relu(x)
      b = Add(a, x)
      w = Identity(weight)
      zero = Constant <value = float {0}> ()
      y = Sub(zero, b)
    })");
  RunMeter meter;
  const PairedRun run =
      RunModelPair(RunForm{before}, RunForm{after}, FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6})), nullptr, &meter);
  ASSERT_TRUE(run.before_status.ok()) << run.before_status;
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(run.nodes_shared, 2) << "Relu and Add";
  EXPECT_EQ(meter.nodes_skipped, 1) << "the Identity";
  EXPECT_EQ(meter.nodes_executed, 2 + 3) << "Relu and Add once, Neg, Constant and Sub";
  EXPECT_EQ(run.before_outputs.count("w") + run.after_outputs.count("w"), 0);
  EXPECT_TRUE(run.before_outputs.at("y")->BitwiseEquals(*run.after_outputs.at("y")));
  EXPECT_EQ(FloatValues(*run.after_outputs.at("y")), (std::vector<float>{-2, 2, -6, 4, -10, 6}));
}

TEST(PairedRunTest, RunsAChangedNodeInEachFormAndSharesAgainOnceItsValuesAreEqual) {
  const auto before = ParseModel(kChain);
  // Relu written as Clip at 0 computes the same tensor: Add and Neg after it are shared again.
  const auto same_values = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y, float[2,3] w) <float[2,3] weight = {1, 2, 3, 4, 5, 6}> {
      zero = Constant <value = float {0}> ()
      a = Clip(x, zero)
      b = Add(a, x)
      w = Identity(weight)
      y = Neg(b)
    })");
  RunMeter meter;
  PairedRun run = RunModelPair(RunForm{before}, RunForm{same_values}, FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6})),
                               nullptr, &meter);
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(run.nodes_shared, 2) << "Add and Neg";
  EXPECT_EQ(meter.nodes_skipped, 1) << "the Identity of the weight";
  EXPECT_EQ(run.before_outputs.at("y"), run.after_outputs.at("y"));

  // A Relu made LeakyRelu (a wrong adapter): it and everything after it run in each form, and the outputs differ.
  const auto wrong = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y, float[2,3] w) <float[2,3] weight = {1, 2, 3, 4, 5, 6}> {
      a = LeakyRelu <alpha = 0.5> (x)
      b = Add(a, x)
      w = Identity(weight)
      y = Neg(b)
    })");
  run = RunModelPair(RunForm{before}, RunForm{wrong}, FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6})));
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(run.nodes_shared, 0);
  EXPECT_NE(run.before_outputs.at("y"), run.after_outputs.at("y"));
  EXPECT_EQ(FloatValues(*run.after_outputs.at("y")), (std::vector<float>{-2, 3, -6, 6, -10, 9}));
}

TEST(PairedRunTest, AWeightTheMoveChangedIsNoLongerTheSameByConstruction) {
  const auto before = ParseModel(kChain);
  const auto after = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y, float[2,3] w) <float[2,3] weight = {1, 2, 3, 4, 5, 7}> {
      a = Relu(x)
      b = Add(a, x)
      w = Identity(weight)
      y = Neg(b)
    })");
  const PairPlan plan = PlanModelPair(RunForm{before}, RunForm{after});
  EXPECT_EQ(plan.outputs_same_by_construction, (std::vector<std::string>{"y"}));
  EXPECT_EQ(plan.nodes_skipped, 3) << "Relu, Add and Neg";
  const PairedRun run = RunModelPair(plan, FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6})));
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(FloatValues(*run.before_outputs.at("w")), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(FloatValues(*run.after_outputs.at("w")), (std::vector<float>{1, 2, 3, 4, 5, 7}));
}

TEST(PairedRunTest, AnInputDeclaredAnewIsNoLongerTheSameByConstruction) {
  const auto before = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y) { y = Relu(x) })");
  const auto after = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[N,3] x) => (float[2,3] y) { y = Relu(x) })");
  const PairPlan plan = PlanModelPair(RunForm{before}, RunForm{after});
  EXPECT_EQ(plan.nodes_skipped, 0);
  EXPECT_TRUE(plan.outputs_same_by_construction.empty());
  const PairedRun run = RunModelPair(plan, FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6})));
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(run.nodes_shared, 1) << "fed once for both: the same tensor after all";
}

TEST(PairedRunTest, RunsWhatASubgraphReadsFromTheGraphAroundIt) {
  // An If always runs in each form; the Relu its branches read runs too, once for both.
  constexpr char kBranching[] = R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x, bool c) => (float[2,3] y) {
      a = Relu(x)
      y = If(c) <then_branch = t () => (float[2,3] r) { r = Neg(a) },
                 else_branch = e () => (float[2,3] r) { r = Identity(a) }>
    })";
  const auto before = ParseModel(kBranching);
  const auto after = ParseModel(kBranching);
  std::map<std::string, Tensor> feeds = FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6}));
  feeds.emplace("c", Bools({}, {1}));
  RunMeter meter;
  const PairedRun run = RunModelPair(RunForm{before}, RunForm{after}, feeds, nullptr, &meter);
  ASSERT_TRUE(run.before_status.ok()) << run.before_status;
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(run.nodes_shared, 1) << "the Relu";
  EXPECT_EQ(meter.nodes_skipped, 0);
  EXPECT_EQ(FloatValues(*run.after_outputs.at("y")), (std::vector<float>{-1, 0, -3, 0, -5, 0}));
}

TEST(PairedRunTest, RunsANodeWhoseOpVersionTheMoveChangedInEachForm) {
  // Softmax-1 and Softmax-13 differ in meaning (a 2-D coercion against one axis): never shared.
  const auto before = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 7]>
    g (float[2,3] x) => (float[2,3] y) { s = Softmax <axis = 1> (x)  y = Relu(s) })");
  const auto after = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y) { s = Softmax <axis = 1> (x)  y = Relu(s) })");
  const PairedRun run = RunModelPair(RunForm{before}, RunForm{after}, FeedX(Floats({2, 3}, {1, 2, 3, 4, 5, 6})));
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  // Relu-6 and Relu-13 are two versions too, but the runner's Relu asks only whether the opset is 14 or later
  // (integer inputs): 7 and 13 answer alike, so once the Softmaxes agree it is computed once.
  EXPECT_EQ(run.nodes_shared, 1);
  EXPECT_TRUE(run.before_outputs.at("y")->BitwiseEquals(*run.after_outputs.at("y")));
}

TEST(PairedRunTest, RunsANodeInEachFormWhenItsKernelAnswersTheOpsetOtherwise) {
  // Relu at 13 and at 14: the kernel's question (opset 14 or later?) gets two answers, so it runs in each form.
  const auto relu_at = [](int opset) {
    return ParseModel(absl::StrCat(R"(<ir_version: 7, opset_import: ["" : )", opset, R"(]>
      g (float[2,3] x) => (float[2,3] y) { y = Relu(x) })")
                          .c_str());
  };
  const PairedRun run =
      RunModelPair(RunForm{relu_at(13)}, RunForm{relu_at(14)}, FeedX(Floats({2, 3}, {1, -2, 3, -4, 5, -6})));
  ASSERT_TRUE(run.after_status.ok()) << run.after_status;
  EXPECT_EQ(run.nodes_shared, 0);
  EXPECT_TRUE(run.before_outputs.at("y")->BitwiseEquals(*run.after_outputs.at("y")));
}

TEST(PairedRunTest, AKernelContextKnowsTheOpsetsItsAnswersHoldFor) {
  const onnx::NodeProto node;
  const KernelContext asked(node, {}, 11);
  EXPECT_TRUE(asked.OpsetsAnsweredAlike(1) && asked.OpsetsAnsweredAlike(28)) << "nothing asked: every opset";
  EXPECT_TRUE(asked.OpsetAtLeast(10));
  EXPECT_FALSE(asked.OpsetAtLeast(13));
  EXPECT_FALSE(asked.OpsetsAnsweredAlike(9));
  EXPECT_TRUE(asked.OpsetsAnsweredAlike(10) && asked.OpsetsAnsweredAlike(12));
  EXPECT_FALSE(asked.OpsetsAnsweredAlike(13));
  const KernelContext read(node, {}, 11);
  EXPECT_EQ(read.opset(), 11);
  EXPECT_TRUE(read.OpsetsAnsweredAlike(11));
  EXPECT_FALSE(read.OpsetsAnsweredAlike(10) || read.OpsetsAnsweredAlike(12)) << "the opset itself: only it";
}

TEST(PairedRunTest, SharesADynamicSliceTheMoveLeftAsItWas) {
  // DynamicSlice has no onnx schema at any opset; it had one version, which the runner computes at every opset.
  const auto slice_at = [](int opset) {
    return ParseModel(absl::StrCat(R"(<ir_version: 4, opset_import: ["" : )", opset, R"(]>
      g (float[2,3] x) => (float[2,2] y) {
        starts = Constant <value = int64[1] {1}> ()
        ends = Constant <value = int64[1] {3}> ()
        axes = Constant <value = int64[1] {1}> ()
        y = DynamicSlice (x, starts, ends, axes)
      })")
                          .c_str());
  };
  const auto before = slice_at(9);
  const auto after = slice_at(10);
  // Constant-9 and Constant-9 at 10, DynamicSlice and DynamicSlice: the same by construction, run in neither form.
  const PairPlan plan = PlanModelPair(RunForm{before}, RunForm{after});
  EXPECT_EQ(plan.nodes_skipped, 4);
  EXPECT_EQ(plan.outputs_same_by_construction, (std::vector<std::string>{"y"}));
  EXPECT_TRUE(plan.steps.empty());
}

TEST(PairedRunTest, TellsABeforeThatDoesNotRunFromAnAfterThatFails) {
  const auto before = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x, int64[1] i) => (float[1,3] y) { y = Gather(x, i) })");
  const auto after_fails = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x, int64[1] i) => (float[1,3] y) { j = Add(i, i)  y = Gather(x, j) })");
  std::map<std::string, Tensor> feeds = FeedX(Floats({2, 3}, {1, 2, 3, 4, 5, 6}));
  feeds.emplace("i", Int64s({1}, {1}));
  PairedRun run = RunModelPair(RunForm{before}, RunForm{after_fails}, feeds);
  EXPECT_TRUE(run.before_status.ok()) << run.before_status;
  EXPECT_FALSE(run.after_status.ok()) << "index 2 is out of range after, 1 was not before";
  EXPECT_EQ(run.before_outputs.count("y"), 1);

  feeds.at("i") = Int64s({1}, {5});
  run = RunModelPair(RunForm{before}, RunForm{after_fails}, feeds);
  EXPECT_FALSE(run.before_status.ok()) << "before does not run on these inputs";
}

}  // namespace
}  // namespace onnx_legalize::testing
