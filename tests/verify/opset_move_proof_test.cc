// The opset move is proved by executing the model before and after it, where the model runner can.
#include "verify/opset_move_proof.h"

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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
}

TEST(OpsetMoveProofTest, CatchesAMoveThatChangesWhatTheModelComputes) {
  // onnx 1.12's converter calls PRelu 6->7 compatible; taken at its word, the slope [3] no longer fits X.
  const onnx::ModelProto before = ParseModel(kPRelu6);
  onnx::ModelProto taken_at_its_word = before;
  taken_at_its_word.mutable_opset_import(0)->set_version(13);
  absl::StatusOr<std::string> proof = ProveOpsetMove(before, taken_at_its_word, Options());
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

TEST(OpsetMoveProofTest, SaysWhyWhenItCannotExecuteTheModel) {
  onnx::ModelProto conv = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,1,4,4] x, float[4] d, int64[1] s, int64[1] e) => (float[1,1,4,4] y, float[N] z) {
  y = Erf(x)
  z = DynamicSlice(d, s, e)
}
)ONNX");
  absl::StatusOr<Report> report = LegalizeAt(conv, 13);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_move, "not executed: the model runner has no kernel for op Erf (graph main)");

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

  onnx::ModelProto model = ParseModel(kPRelu6);
  Options options;
  options.target_opset = 13;
  options.verify = false;
  absl::StatusOr<Report> unverified = Legalize(model, options);
  ASSERT_TRUE(unverified.ok()) << unverified.status();
  EXPECT_EQ(unverified->opset_move, "skipped (verification off)");
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

}  // namespace
}  // namespace onnx_legalize
