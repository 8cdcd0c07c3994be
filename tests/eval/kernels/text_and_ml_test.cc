// StringNormalizer (src/eval/kernels/text.cc) and ai.onnx.ml's ArrayFeatureExtractor and Normalizer (ml.cc).
#include <cmath>
#include <string>
#include <vector>

#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

Tensor Strings(std::vector<int64_t> dims, std::vector<std::string> values) {
  absl::StatusOr<Tensor> tensor = Tensor::FromStrings(std::move(dims), std::move(values));
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return *std::move(tensor);
}

// onnx's own backend test (simple/test_strnorm_model_monday_insensintive_upper_twodim).
TEST(TextKernelTest, DropsStopWordsIgnoringCaseThenMapsCase) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (string[1,6] x) => (string[1,4] y) {
      y = StringNormalizer <case_change_action = "UPPER", stopwords = ["monday"]> (x)
    })");
  const Tensor x = Strings({1, 6}, {"Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"});
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", x.Clone())), "y",
                       Strings({1, 4}, {"TUESDAY", "WEDNESDAY", "TUESDAY", "WEDNESDAY"})));
}

TEST(TextKernelTest, KeepsOtherCasesWhenCaseSensitiveAndGivesOneEmptyStringWhenAllAreDropped) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (string[N] x) => (string[M] y) {
      y = StringNormalizer <case_change_action = "LOWER", is_case_sensitive = 1, stopwords = ["monday"]> (x)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Strings({3}, {"monday", "Monday", "X-Y"}))), "y",
                       Strings({2}, {"monday", "x-y"})));
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Strings({2}, {"monday", "monday"}))), "y", Strings({1}, {""})));
}

TEST(TextKernelTest, RefusesToMapTheCaseOfTextBeyondAscii) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (string[1] x) => (string[1] y) { y = StringNormalizer <case_change_action = "UPPER"> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Strings({1}, {"stra\xc3\x9f"
                                                                "e"}))),
                        StatusCode::kUnimplemented, {"not ASCII", "depends on the locale"}));
}

TEST(MlKernelTest, ArrayFeatureExtractorTakesPositionsOfTheLastAxis) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1, "ai.onnx.ml" : 1]>
    g (float[2,3] x, int64[2] p, float[3] v) => (float[2,2] y, float[1,2] w) {
      y = ai.onnx.ml.ArrayFeatureExtractor(x, p)
      w = ai.onnx.ml.ArrayFeatureExtractor(v, p)
    })");
  Feeds feeds = Feed("x", Floats({2, 3}, {1, 2, 3, 4, 5, 6}), "p", Int64s({2}, {2, 0}));
  feeds.emplace("v", Floats({3}, {7, 8, 9}));
  const Results result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 2}, {3, 1, 6, 4})));
  // A 1-D X gives [1, count], as onnx's reference implementation and ONNX Runtime do.
  EXPECT_TRUE(OutputIs(result, "w", Floats({1, 2}, {9, 7})));
}

TEST(MlKernelTest, ArrayFeatureExtractorRejectsPositionsOutsideTheAxis) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1, "ai.onnx.ml" : 1]>
    g (float[2,3] x, int64[1] p) => (float[2,1] y) { y = ai.onnx.ml.ArrayFeatureExtractor(x, p) })");
  for (const int64_t position : {3, -1}) {
    EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2, 3}, {1, 2, 3, 4, 5, 6}), "p", Int64s({1}, {position}))),
                          StatusCode::kInvalidArgument, {"is out of range for X's last axis of 3"}));
  }
}

// skl2onnx's Normalizer: each row divided by its norm, computed as ONNX Runtime computes it.
TEST(MlKernelTest, NormalizerDividesEachRowByItsNorm) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1, "ai.onnx.ml" : 1]>
    g (float[2,3] x) => (float[2,3] max, float[2,3] l1, float[2,3] l2) {
      max = ai.onnx.ml.Normalizer <norm = "MAX"> (x)
      l1 = ai.onnx.ml.Normalizer <norm = "L1"> (x)
      l2 = ai.onnx.ml.Normalizer <norm = "L2"> (x)
    })");
  const Results result = RunModel(model, Feed("x", Floats({2, 3}, {1, -2, 4, 0, 0, 0})));
  EXPECT_TRUE(OutputIs(result, "max", Floats({2, 3}, {0.25F, -0.5F, 1, 0, 0, 0})));
  EXPECT_TRUE(OutputIs(result, "l1", Floats({2, 3}, {1 / 7.0F, -2 / 7.0F, 4 / 7.0F, 0, 0, 0})));
  // L2 as sqrt(x^2 / sum) with x's sign: the bits ONNX Runtime gives, which x / sqrt(sum) can miss by one.
  EXPECT_TRUE(OutputIs(result, "l2",
                       Floats({2, 3}, {std::sqrt(1 / 21.0F), -std::sqrt(4 / 21.0F), std::sqrt(16 / 21.0F), 0, 0, 0})));
}

TEST(MlKernelTest, NormalizerTakesIntegersAndGivesFloat) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1, "ai.onnx.ml" : 1]>
    g (int64[4] x) => (float[4] y) { y = ai.onnx.ml.Normalizer <norm = "L1"> (x) })");
  EXPECT_TRUE(
      OutputIs(RunModel(model, Feed("x", Int64s({4}, {1, -1, 2, 0}))), "y", Floats({4}, {0.25F, -0.25F, 0.5F, 0})));
  // A square past int64 is undefined in ONNX Runtime's arithmetic: refused, naming the row.
  const auto l2 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1, "ai.onnx.ml" : 1]>
    g (int64[1,2] x) => (float[1,2] y) { y = ai.onnx.ml.Normalizer <norm = "L2"> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(l2, Feed("x", Int64s({1, 2}, {1, int64_t{1} << 40}))), StatusCode::kInvalidArgument,
                        {"row 0", "overflows its type in the L2 norm"}));
}

TEST(MlKernelTest, NormalizerRefusesAnUnknownNormAndRankThree) {
  const auto unknown = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1, "ai.onnx.ml" : 1]>
    g (float[2] x) => (float[2] y) { y = ai.onnx.ml.Normalizer <norm = "L3"> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(unknown, Feed("x", Floats({2}, {1, 2}))), StatusCode::kInvalidArgument,
                        {"norm is 'L3', not MAX, L1 or L2"}));
  const auto rank3 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1, "ai.onnx.ml" : 1]>
    g (float[1,1,2] x) => (float[1,1,2] y) { y = ai.onnx.ml.Normalizer(x) })");
  EXPECT_TRUE(FailsWith(RunModel(rank3, Feed("x", Floats({1, 1, 2}, {1, 2}))), StatusCode::kInvalidArgument,
                        {"X is float[1,1,2]", "rank 1 or 2"}));
}

}  // namespace
}  // namespace onnx_legalize::testing
