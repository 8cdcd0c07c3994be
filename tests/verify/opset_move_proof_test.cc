// The opset move is proved by executing the model before and after it, where the model runner can.
#include "verify/opset_move_proof.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::ParseModel;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// PRelu-6 with a per-channel slope, as PyTorch's exporter wrote it (pytorch-converted/test_PReLU_2d_multiparam).
constexpr char kPRelu6[] = R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3,4,5] x, float[3] slope) => (float[2,3,4,5] y) { y = PRelu(x, slope) }
)ONNX";

absl::StatusOr<Report> LegalizeAt(onnx::ModelProto& model, int64_t target) {
  Options options;
  options.target_opset = target;
  return Legalize(model, options);
}

TEST(OpsetMoveProofTest, ExecutesTheModelBeforeAndAfterTheMoveAndReportsIt) {
  onnx::ModelProto model = ParseModel(kPRelu6);
  absl::StatusOr<Report> report = LegalizeAt(model, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move,
            "executed in the model runner at opset 6 and 13 on 3 seeded input sets: every output identical");
  // What ran, counted: PRelu before the move and the nodes the move made of it after, on each of the 3 sets.
  const OpsetMoveProof& proof = report->opset_move_proof;
  EXPECT_TRUE(proof.executed);
  EXPECT_EQ(proof.input_sets, 3);
  EXPECT_EQ(proof.nodes_executed % 3, 0);
  EXPECT_GE(proof.nodes_executed, 6);
  // At least x (120), slope (3) and y (120) read and written, by both forms, on each set.
  EXPECT_GE(proof.work, 3 * 2 * 243);
  EXPECT_GE(proof.seconds, 0);
  EXPECT_EQ(proof.why_not, "");
}

// Options::proof_budget, in element operations, bounds the work the proof does.
TEST(OpsetMoveProofTest, ABudgetTooSmallForOneInputSetLeavesTheMoveNotExecutedAndSaysWhy) {
  onnx::ModelProto model = ParseModel(kPRelu6);
  Options options;
  options.target_opset = 13;
  options.proof_budget = 100;  // PRelu alone reads and writes 243 elements
  absl::StatusOr<Report> report = Legalize(model, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_after, 13) << "the move is made; only its proof is left out";
  const OpsetMoveProof& proof = report->opset_move_proof;
  const std::string why = absl::StrCat("past the proof budget (100 element operations) in the first input set (",
                                       proof.work, " done); raise it with --proof-budget (Options::proof_budget)");
  EXPECT_EQ(report->opset_move, "not executed: " + why);
  EXPECT_FALSE(proof.executed);
  EXPECT_EQ(proof.why_not, why);
  EXPECT_EQ(proof.input_sets, 0);
  // The forms run node beside node: the Unsqueeze of the slope the move adds and its axes' Constant (10 elements
  // together), then PRelu, which passes the budget and stops the run.
  EXPECT_EQ(proof.nodes_executed, 3) << "the run stops at the node that passes the budget";
  EXPECT_EQ(proof.work, 10 + 243);

  // 0 executes nothing at all.
  model = ParseModel(kPRelu6);
  options.proof_budget = 0;
  report = Legalize(model, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, StartsWith("not executed: past the proof budget (0 element operations)"));
}

TEST(OpsetMoveProofTest, ABudgetThatHoldsOneInputSetButNotThreeRunsOne) {
  onnx::ModelProto model = ParseModel(kPRelu6);
  absl::StatusOr<Report> full = LegalizeAt(model, 13);
  ASSERT_TRUE(full.ok()) << full.status();
  ASSERT_EQ(full->opset_move_proof.input_sets, 3);
  const int64_t one_set = full->opset_move_proof.work / 3;  // the sets' dims are static: each does as much

  model = ParseModel(kPRelu6);
  Options options;
  options.target_opset = 13;
  options.proof_budget = one_set;
  absl::StatusOr<Report> report = Legalize(model, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move,
            "executed in the model runner at opset 6 and 13 on 1 seeded input set (the proof budget holds no more): "
            "every output identical");
  EXPECT_TRUE(report->opset_move_proof.executed);
  EXPECT_EQ(report->opset_move_proof.input_sets, 1);
  EXPECT_EQ(report->opset_move_proof.work, one_set) << "no second set is started that the budget would cut off";
  EXPECT_EQ(report->opset_move_proof.nodes_executed, full->opset_move_proof.nodes_executed / 3);
}

TEST(OpsetMoveProofTest, CatchesAMoveThatChangesWhatTheModelComputes) {
  // onnx 1.12's converter calls PRelu 6->7 compatible; taken at its word, the slope [3] no longer fits X.
  const onnx::ModelProto before = ParseModel(kPRelu6);
  onnx::ModelProto taken_at_its_word = before;
  taken_at_its_word.mutable_opset_import(0)->set_version(13);
  absl::StatusOr<OpsetMoveProofResult> proof = ProveOpsetMove(before, taken_at_its_word, Options());
  EXPECT_TRUE(IsVerificationFailure(proof.status())) << proof.status();
  EXPECT_THAT(std::string(proof.status().message()),
              HasSubstr("the opset move from 6 to 13: trial 0: the model runs before the move and fails after it: "
                        "PRelu producing 'y' (graph main): slope [3] does not broadcast to X [2,3,4,5]"));

  // A move that keeps the model runnable but changes a value: Slice-1's ends clamp, a wrong rewrite of it
  // to Slice-10 that drops the last element does not.
  const onnx::ModelProto slice1 = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[3] y) { y = Slice<starts = [1], ends = [100]>(x) }
)ONNX");
  const onnx::ModelProto wrong = ParseModel(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[4] x) => (float[2] y) {
  s = Constant<value = int64[1] {1}>()
  e = Constant<value = int64[1] {3}>()
  y = Slice(x, s, e)
}
)ONNX");
  proof = ProveOpsetMove(slice1, wrong, Options());
  EXPECT_TRUE(IsVerificationFailure(proof.status())) << proof.status();
  EXPECT_THAT(std::string(proof.status().message()), HasSubstr("output 'y': float[3] before, float[2] after"));

  // Same shape, other values: Relu lost on the way.
  const onnx::ModelProto relu = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) { y = Relu(x) }
)ONNX");
  const onnx::ModelProto identity = ParseModel(R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y) { y = Identity(x) }
)ONNX");
  proof = ProveOpsetMove(relu, identity, Options());
  EXPECT_TRUE(IsVerificationFailure(proof.status())) << proof.status();
  EXPECT_THAT(std::string(proof.status().message()), HasSubstr("output 'y': element "));
  EXPECT_THAT(std::string(proof.status().message()), HasSubstr(" before and "));
}

// onnx 1.23's Flatten 9 -> 8 casts int64 to float and back, which rounds every value past 2^24: the later input sets
// hold such integers (and their type's extremes), so the proof catches it though small integers would pass it.
TEST(OpsetMoveProofTest, CatchesAFormThatComputesIntegersInFloat) {
  const onnx::ModelProto flatten = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (int64[2, 3, 2] x) => (int64[2, 6] y) { y = Flatten(x) }
)ONNX");
  const onnx::ModelProto through_float = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (int64[2, 3, 2] x) => (int64[2, 6] y) {
  f = Cast<to = 1>(x)
  g = Flatten(f)
  y = Cast<to = 7>(g)
}
)ONNX");
  const absl::StatusOr<OpsetMoveProofResult> proof = ProveOpsetMove(flatten, through_float, Options());
  EXPECT_TRUE(IsVerificationFailure(proof.status())) << proof.status();
  EXPECT_THAT(std::string(proof.status().message()), HasSubstr("output 'y': element "));
}

TEST(OpsetMoveProofTest, SaysWhyWhenItCannotExecuteTheModel) {
  onnx::ModelProto conv = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,1,4,4] x, float[4] d, int64[1] s, int64[1] e) => (float[1,1,4,4] y, float[N] z) {
  y = Hardmax(x)
  z = DynamicSlice(d, s, e)
}
)ONNX");
  absl::StatusOr<Report> report = LegalizeAt(conv, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move, "not executed: the model runner has no kernel for op Hardmax (graph main)");
  EXPECT_FALSE(report->opset_move_proof.executed);
  EXPECT_EQ(report->opset_move_proof.why_not, "the model runner has no kernel for op Hardmax (graph main)");
  EXPECT_EQ(report->opset_move_proof.nodes_executed, 0);

  onnx::ModelProto unshaped = ParseModel(kPRelu6);
  unshaped.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_EQ(WhyOpsetMoveCannotBeExecuted(unshaped), "graph input 'x' has no declared rank");
}

TEST(OpsetMoveProofTest, IsEmptyWithoutAMoveAndSkippedWithoutVerification) {
  onnx::ModelProto at9 = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[2] y) {
  s = Constant<value = int64[1] {1}>()
  e = Constant<value = int64[1] {3}>()
  c = Constant<value = float[4] {1, 2, 3, 4}>()
  y = DynamicSlice(c, s, e)
}
)ONNX");
  absl::StatusOr<Report> folded = Legalize(at9, Options());
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(folded->opset_after, 9) << "everything folds: the opset stays";
  EXPECT_EQ(folded->opset_move, "");
  EXPECT_FALSE(folded->opset_move_proof.executed);
  EXPECT_EQ(folded->opset_move_proof.why_not, "");

  onnx::ModelProto model = ParseModel(kPRelu6);
  Options options;
  options.target_opset = 13;
  options.verify = false;
  absl::StatusOr<Report> unverified = Legalize(model, options);
  ASSERT_TRUE(unverified.ok()) << unverified.status();
  EXPECT_EQ(unverified->opset_move, "skipped (verification off)");
  EXPECT_FALSE(unverified->opset_move_proof.executed);
  EXPECT_EQ(unverified->opset_move_proof.why_not, "verification off");
  EXPECT_EQ(unverified->opset_move_proof.nodes_executed, 0);
}

TEST(OpsetMoveProofTest, RunsTheRemovedOpsByTheirReferenceKernelsOnBothSides) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,3,2,2] x) => (float[1,3,2,2] y) {
  s = ImageScaler<scale = 0.5, bias = [1.0, 2.0, 3.0]>(x)
  y = Relu(s)
}
)ONNX");
  absl::StatusOr<Report> report = LegalizeAt(model, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, StartsWith("executed in the model runner at opset 7 and 13"));
}

// The move passes a removed op through untouched, so after it the node still means what it meant before:
// an MVN-1 with no attributes is not read as MeanVarianceNormalization-13 (whose default axes differ).
TEST(OpsetMoveProofTest, RunsARemovedOpPassedThroughAsItWasWritten) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (float[2,2,2,2] x) => (float[2,2,2,2] y) { y = MeanVarianceNormalization(x) }
)ONNX");
  absl::StatusOr<Report> report = LegalizeAt(model, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, StartsWith("executed in the model runner at opset 8 and 13"));
}

// An image-sized input (its static dims past 2^16 elements) draws its open batch dim as 1, runs on one input
// set, and the report says so.
TEST(OpsetMoveProofTest, DrawsAnImageBatchOfOneAndRunsOneInputSet) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 7]>
g (float[N,3,720,720] x) => (float[N,3,720,720] y) { y = Relu(x) }
)ONNX");
  EXPECT_EQ(WhyOpsetMoveCannotBeExecuted(model), std::nullopt);
  absl::StatusOr<Report> report = LegalizeAt(model, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move,
            "executed in the model runner at opset 7 and 13 on 1 seeded input set: every output identical");
}

// An image network with two 3x3 convolutions, then a global average: each output reads every input. The
// second Conv's weights are given; the rest are fixed.
onnx::ModelProto TwoConvolutions(int64_t opset, const std::vector<float>& second_weights) {
  std::vector<std::string> first_weights;
  for (int i = 0; i < 8 * 3 * 9; ++i) first_weights.push_back(absl::StrCat((i * 37 % 19 - 9) / 40.0));
  const std::string text = absl::StrCat(
      "<ir_version: 4, opset_import: [\"\" : ", opset, "]>\n", "g (float[1,3,160,160] x) => (float[1,8,1,1] y) {\n",
      "  w1 = Constant<value = float[8,3,3,3] {", absl::StrJoin(first_weights, ", "), "}>()\n",
      "  w2 = Constant<value = float[8,8,3,3] {", absl::StrJoin(second_weights, ", "), "}>()\n",
      "  a = Conv<pads = [1, 1, 1, 1]>(x, w1)\n  r = Relu(a)\n  b = Conv<pads = [1, 1, 1, 1]>(r, w2)\n",
      "  y = GlobalAveragePool(b)\n}\n");
  return ParseModel(text.c_str());
}

// The first input set holds ordinary numbers (finite, normal, moderate), so that they flow through a deep
// network and its outputs are numbers to compare: were NaN and infinities among them, every output of an
// image network would be NaN before and after the move, whatever the move did.
TEST(OpsetMoveProofTest, CatchesAChangeDeepInAnImageNetwork) {
  std::vector<float> weights(8 * 8 * 9);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(static_cast<int>(i * 53 % 23) - 11) / 50;
  const onnx::ModelProto before = TwoConvolutions(9, weights);
  EXPECT_EQ(ProveOpsetMove(before, TwoConvolutions(13, weights), Options()).status(), absl::OkStatus());
  weights[100] += 0.25f;  // one weight of 576, as a wrong adapter might leave it
  const absl::StatusOr<OpsetMoveProofResult> proof = ProveOpsetMove(before, TwoConvolutions(13, weights), Options());
  EXPECT_TRUE(IsVerificationFailure(proof.status())) << proof.status();
  EXPECT_THAT(std::string(proof.status().message()), HasSubstr("trial 0: output 'y': element "));
}

// A Neg (Neg-6 at 9, Neg-13 at 13: a new version, whose kernel asks nothing of the opset) and then `depth` LeakyRelus
// (LeakyRelu-6 at both opsets; alphas near 1, so that negative values stay numbers through them all), the one at
// `odd_one` with an alpha of its own in this form.
onnx::ModelProto NegThenLeakyRelus(int64_t opset, int depth, int odd_one, float odd_alpha) {
  std::string text = absl::StrCat("<ir_version: 4, opset_import: [\"\" : ", opset, "]>\n",
                                  "g (float[4,8] x) => (float[4,8] y) {\n  v0 = Neg(x)\n");
  for (int i = 1; i <= depth; ++i) {
    const float alpha = i == odd_one ? odd_alpha : 1 - 0.01f * static_cast<float>(i % 7 + 1);
    absl::StrAppend(&text, "  ", i == depth ? "y" : absl::StrCat("v", i), " = LeakyRelu<alpha = ", alpha, ">(v", i - 1,
                    ")\n");
  }
  absl::StrAppend(&text, "}\n");
  return ParseModel(text.c_str());
}

// The forms run node beside node (RunModelPair): a node the move left as it was is computed once for both, and
// whatever it changed runs in each. The proof still fails on a wrong adapter anywhere: one alpha of 300, 250
// nodes deep, changed as a wrong adapter might leave it, makes that node and all after it run in both forms.
TEST(OpsetMoveProofTest, SharesWhatTheMoveLeftAndStillCatchesAChangeDeepInALongChain) {
  constexpr int kDepth = 300;
  const onnx::ModelProto before = NegThenLeakyRelus(9, kDepth, 250, 0.5f);
  const absl::StatusOr<OpsetMoveProofResult> proven =
      ProveOpsetMove(before, NegThenLeakyRelus(13, kDepth, 250, 0.5f), Options());
  ASSERT_TRUE(proven.ok()) << proven.status();
  // On each of the 3 input sets every node was computed once for both forms: the LeakyRelus are LeakyRelu-6 at
  // both opsets, and the runner's Neg computes Neg-6 and Neg-13 alike (its kernel asks nothing of the opset).
  EXPECT_EQ(proven->proof.input_sets, 3);
  EXPECT_EQ(proven->proof.nodes_shared, 3 * (kDepth + 1));
  EXPECT_EQ(proven->proof.nodes_executed, 3 * (kDepth + 1));

  const absl::StatusOr<OpsetMoveProofResult> wrong =
      ProveOpsetMove(before, NegThenLeakyRelus(13, kDepth, 250, 0.25f), Options());
  EXPECT_TRUE(IsVerificationFailure(wrong.status())) << wrong.status();
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("trial 0: output 'y': element "));
}

// A move that leaves every node as it was (Neg-6 and LeakyRelu-6 at 9 and at 10) runs nothing: every output is the
// same tensor in both forms by construction. A wrong adapter anywhere still fails the proof: the node it changed,
// what it reads and what reads it run, in each form where their values differ.
TEST(OpsetMoveProofTest, RunsNothingTheMoveLeftAsItWasAndStillCatchesAWrongAdapterAnywhere) {
  constexpr int kDepth = 300;
  const onnx::ModelProto before = NegThenLeakyRelus(9, kDepth, 250, 0.5f);
  const absl::StatusOr<OpsetMoveProofResult> proven =
      ProveOpsetMove(before, NegThenLeakyRelus(10, kDepth, 250, 0.5f), Options());
  ASSERT_TRUE(proven.ok()) << proven.status();
  EXPECT_EQ(proven->proof.nodes_executed, 0);
  EXPECT_EQ(proven->proof.nodes_skipped, 3 * (kDepth + 1));
  EXPECT_THAT(proven->text, HasSubstr("every output identical (all by construction: the move left every node they "
                                      "depend on as it was)"));

  // An attribute changed 250 nodes deep: the 249 nodes before it run once for both forms, it and all after it in
  // each.
  const absl::StatusOr<OpsetMoveProofResult> wrong_alpha =
      ProveOpsetMove(before, NegThenLeakyRelus(10, kDepth, 250, 0.25f), Options());
  EXPECT_TRUE(IsVerificationFailure(wrong_alpha.status())) << wrong_alpha.status();
  EXPECT_THAT(std::string(wrong_alpha.status().message()), HasSubstr("trial 0: output 'y': element "));

  // An input rewired 200 nodes deep (v198 read where v199 was): found as surely.
  onnx::ModelProto rewired = NegThenLeakyRelus(10, kDepth, 250, 0.5f);
  ASSERT_EQ(rewired.graph().node(200).input(0), "v199");
  rewired.mutable_graph()->mutable_node(200)->set_input(0, "v198");
  const absl::StatusOr<OpsetMoveProofResult> wrong_input = ProveOpsetMove(before, rewired, Options());
  EXPECT_TRUE(IsVerificationFailure(wrong_input.status())) << wrong_input.status();
  EXPECT_THAT(std::string(wrong_input.status().message()), HasSubstr("trial 0: output 'y': element "));
}

// An input of any integer type is drawn (an image of uint8 pixels: sonos/tract's PyTorch 1.5 LSTM of the real
// models), unsigned ones from 0; Upsample's and Resize's scales fed at run time are ones, which every model accepts
// (onnx's own test_upsample_nearest at opset 9: a drawn scale of either sign made its proof "not executed").
TEST(OpsetMoveProofTest, DrawsEveryIntegerTypeAndScalesAsOnes) {
  for (const char* type : {"uint8", "int8", "int16", "uint16", "uint32", "uint64"}) {
    onnx::ModelProto pixels =
        ParseModel(absl::StrCat(R"ONNX(<ir_version: 4, opset_import: ["" : 9]>
g ()ONNX",
                                type, R"ONNX([1,3,4] x) => (float[1,3,4] y) { y = Cast<to = 1>(x) }
)ONNX")
                       .c_str());
    absl::StatusOr<Report> report = LegalizeAt(pixels, 13);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_THAT(report->opset_move, StartsWith("executed in the model runner at opset 9 and 13")) << type;
  }

  onnx::ModelProto upsample = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,1,2,2] x, float[4] scales) => (float[1,1,N,M] y) { y = Upsample<mode = "nearest">(x, scales) }
)ONNX");
  absl::StatusOr<Report> report = LegalizeAt(upsample, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, StartsWith("executed in the model runner at opset 9 and 13"));
}

// Integer inputs are drawn as the model reads them: indices within the dim they index (an Embedding's
// Gather into its [4,3] table: pytorch-converted/test_Embedding), a shape to expand to as ones
// (simple/test_expand_shape_model1), which every input broadcasts with.
TEST(OpsetMoveProofTest, DrawsIndicesWithinWhatTheyIndexAndSizesAsOnes) {
  onnx::ModelProto embedding = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[4,3] w, int64[1,6] i) => (float[1,6,3] y) { y = Gather(w, i) }
)ONNX");
  onnx::TensorProto* table = embedding.mutable_graph()->add_initializer();
  table->set_name("w");
  table->set_data_type(onnx::TensorProto::FLOAT);
  table->add_dims(4);
  table->add_dims(3);
  for (int k = 0; k < 12; ++k) table->add_float_data(static_cast<float>(k));
  absl::StatusOr<Report> report = LegalizeAt(embedding, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, StartsWith("executed in the model runner at opset 6 and 13"));

  onnx::ModelProto expand = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,3,1] x, int64[3] shape) => (float[N,3,M] y) { y = Expand(x, shape) }
)ONNX");
  report = LegalizeAt(expand, 17);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, StartsWith("executed in the model runner at opset 9 and 17"));

  // Axes fed to a DynamicSlice (onnx 1.3's own test model dynamic_slice) are drawn distinct, within the data's rank.
  onnx::ModelProto slice = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[20,10,5] x, int64[2] starts, int64[2] ends, int64[2] axes) => (float[N,M,K] y) {
  y = DynamicSlice(x, starts, ends, axes)
}
)ONNX");
  report = LegalizeAt(slice, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->opset_move, StartsWith("executed in the model runner at opset 9 and 13"));
}

// A classifier's last ZipMap makes a sequence of maps, which the runner cannot hold: its input is compared in its
// place, and the report says so.
TEST(OpsetMoveProofTest, ComparesAnUnreadZipMapByItsInput) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 7, "ai.onnx.ml" : 1]>
g (float[1,3] x, int64[1] top) => (float[1,1] best, loss) {
  p = Softmax(x)
  best = ai.onnx.ml.ArrayFeatureExtractor(p, top)
  loss = ai.onnx.ml.ZipMap <classlabels_strings = ["a", "b", "c"]> (p)
}
)ONNX");
  // ZipMap's type, a sequence of maps from string to float, which the text format does not spell.
  auto* map = model.mutable_graph()
                  ->mutable_output(1)
                  ->mutable_type()
                  ->mutable_sequence_type()
                  ->mutable_elem_type()
                  ->mutable_map_type();
  map->set_key_type(onnx::TensorProto::STRING);
  map->mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  absl::StatusOr<Report> report = LegalizeAt(model, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move,
            "executed in the model runner at opset 7 and 13 on 3 seeded input sets: every output identical (ZipMap "
            "outputs loss: their input scores, as the runner holds no sequence of maps)");
}

// PyTorch 0.3 wrote LogSoftmax-1 with axis -1 (pytorch-converted/test_log_softmax_lastdim). Negative axes are
// defined from opset 11; before, the op texts leave them undefined, and the runner reads them from the back, as
// the runtimes of that era did, so the move is proved.
TEST(OpsetMoveProofTest, ReadsANegativeAxisBeforeOpset11FromTheBack) {
  onnx::ModelProto negative_axis = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3] x) => (float[2,3] y) { y = LogSoftmax <axis = -1> (x) }
)ONNX");
  absl::StatusOr<Report> report = LegalizeAt(negative_axis, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move,
            "executed in the model runner at opset 6 and 13 on 3 seeded input sets: every output identical");
}

// A model whose Reshape fixes its batch at 1 (WinMLTools' CoreML GestureAI: a [None, 120] input reshaped to
// [40, 3, 1, 1]) runs on no other batch: its open dims are drawn as 1 once the first draw does not run, and the
// move is proven.
TEST(OpsetMoveProofTest, DrawsOpenDimsAsOneWhenTheModelRunsOnNoOtherSize) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 4]>
g (float[N,120] x) => (float[40,3,1,1] y) <int64[4] shape = {40, 3, 1, 1}> {
  y = Reshape(x, shape)
}
)ONNX");
  model.mutable_graph()->clear_initializer();  // Reshape-1: the shape is an attribute
  onnx::NodeProto& reshape = *model.mutable_graph()->mutable_node(0);
  reshape.mutable_input()->RemoveLast();
  onnx::AttributeProto& shape = *reshape.add_attribute();
  shape.set_name("shape");
  shape.set_type(onnx::AttributeProto::INTS);
  for (const int64_t dim : {40, 3, 1, 1}) shape.add_ints(dim);
  absl::StatusOr<Report> report = LegalizeAt(model, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move,
            "executed in the model runner at opset 4 and 13 on 3 seeded input sets: every output identical");
}

// A model that takes integers as floats (magika's bytes, cast to int32 for a OneHot) refuses the special values of the
// later input sets (an infinity has no int32): those sets are drawn anew of ordinary numbers, and the report says so.
TEST(OpsetMoveProofTest, DrawsOrdinaryNumbersAgainWhenTheModelRefusesSpecialValues) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3] x) => (float[2,3] y) {
  i = Cast <to = 6> (x)
  f = Cast <to = 1> (i)
  y = Mul(f, x)
}
)ONNX");
  absl::StatusOr<Report> report = LegalizeAt(model, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move,
            "executed in the model runner at opset 9 and 13 on 3 seeded input sets of ordinary numbers (the model "
            "refuses special values): every output identical");
}

TEST(OpsetMoveProofTest, SaysWhyWhenNoInputCouldMakeItRun) {
  absl::StatusOr<Report> report;
  onnx::ModelProto gradient = ParseModel(R"ONNX(
<ir_version: 7, opset_import: ["" : 12, "ai.onnx.preview.training" : 1]>
g (float[2] a, float[2] b) => (float[2] da) {
  c = Add(a, b)
  da = ai.onnx.preview.training.Gradient <xs = ["a"], y = "c"> (a, b)
}
)ONNX");
  EXPECT_EQ(WhyOpsetMoveCannotBeExecuted(gradient),
            "the model runner has no kernel for op Gradient of domain 'ai.onnx.preview.training' (graph main): a "
            "training op, whose value only a training runtime defines");
}

}  // namespace
}  // namespace onnx_legalize
