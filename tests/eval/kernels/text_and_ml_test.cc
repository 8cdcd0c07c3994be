// StringNormalizer (src/eval/kernels/text.cc) and ai.onnx.ml's ArrayFeatureExtractor (ml.cc).
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

}  // namespace
}  // namespace onnx_legalize::testing
