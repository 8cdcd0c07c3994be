// The library's evaluator (src/eval/evaluator.h): each op the removed ops' replacements use, on values whose
// results are written out here, and what it refuses.
#include "eval/evaluator.h"

#include <cmath>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rules/rule_support.h"

namespace onnx_legalize {
namespace {

using rules::FloatsOf;
using rules::FromFloats;
using rules::MakeNode;
using ::testing::HasSubstr;

std::vector<float> RunOne(onnx::NodeProto node, std::map<std::string, Tensor> values, int64_t opset = 13) {
  const std::string output = node.output(0);
  const absl::Status status = RunNodes({node}, opset, values);
  EXPECT_TRUE(status.ok()) << status;
  return status.ok() ? FloatsOf(values.at(output)) : std::vector<float>{};
}

std::map<std::string, Tensor> Values(std::vector<std::pair<std::string, Tensor>> list) {
  std::map<std::string, Tensor> values;
  for (auto& [name, value] : list) values.emplace(name, std::move(value));
  return values;
}

TEST(EvaluatorTest, AddBroadcastsAPerChannelBiasOverNchw) {
  std::vector<std::pair<std::string, Tensor>> list;
  list.emplace_back("x", FromFloats({1, 2, 1, 2}, {1, 2, 3, 4}));
  list.emplace_back("b", FromFloats({2, 1, 1}, {10, 20}));
  EXPECT_EQ(RunOne(MakeNode("Add", {"x", "b"}, {"y"}), Values(std::move(list))), (std::vector<float>{11, 12, 23, 24}));
}

TEST(EvaluatorTest, WhereTakesEachBranchAsItIsAndNotInverts) {
  std::map<std::string, Tensor> values;
  values.emplace("x", FromFloats({3}, {-0.0f, 2, NAN}));
  values.emplace("alpha", FromFloats({}, {-1}));
  values.emplace("zero", FromFloats({}, {0}));
  const std::vector<onnx::NodeProto> nodes = {MakeNode("Greater", {"x", "alpha"}, {"above"}),
                                              MakeNode("Not", {"above"}, {"drop"}),
                                              MakeNode("Where", {"drop", "zero", "x"}, {"y"})};
  ASSERT_TRUE(RunNodes(nodes, 9, values).ok());
  const std::vector<float> y = FloatsOf(values.at("y"));
  EXPECT_TRUE(std::signbit(y[0])) << "-0.0 above alpha stays -0.0";
  EXPECT_EQ(y[1], 2.0f);
  EXPECT_EQ(y[2], 0.0f) << "NaN is not above alpha";
}

TEST(EvaluatorTest, TransposeMovesChannelsFirst) {
  onnx::NodeProto transpose = MakeNode("Transpose", {"x"}, {"y"});
  rules::AddIntsAttribute(transpose, "perm", {1, 0, 2, 3});
  std::map<std::string, Tensor> values;
  values.emplace("x", FromFloats({2, 2, 1, 1}, {1, 2, 3, 4}));
  EXPECT_EQ(RunOne(transpose, std::move(values)), (std::vector<float>{1, 3, 2, 4}));
}

TEST(EvaluatorTest, ReduceMeanKeepsReducedDims) {
  onnx::NodeProto mean = MakeNode("ReduceMean", {"x"}, {"y"});
  rules::AddIntsAttribute(mean, "axes", {1, 2, 3});
  std::map<std::string, Tensor> values;
  values.emplace("x", FromFloats({2, 1, 1, 2}, {1, 3, 5, 9}));
  std::map<std::string, Tensor> out = std::move(values);
  ASSERT_TRUE(RunNodes({mean}, 13, out).ok());
  EXPECT_EQ(out.at("y").dims(), (std::vector<int64_t>{2, 1, 1, 1}));
  EXPECT_EQ(FloatsOf(out.at("y")), (std::vector<float>{2, 7}));
}

TEST(EvaluatorTest, SliceTakesAttributesBelowTenAndInputsFromTen) {
  onnx::NodeProto slice1 = MakeNode("Slice", {"x"}, {"y"});
  rules::AddIntsAttribute(slice1, "starts", {1});
  rules::AddIntsAttribute(slice1, "ends", {3});
  std::map<std::string, Tensor> values;
  values.emplace("x", FromFloats({4}, {1, 2, 3, 4}));
  EXPECT_EQ(RunOne(slice1, std::move(values), 9), (std::vector<float>{2, 3}));

  std::map<std::string, Tensor> inputs;
  inputs.emplace("x", FromFloats({4}, {1, 2, 3, 4}));
  inputs.emplace("s", Tensor::FromInt64s({-2}));
  inputs.emplace("e", Tensor::FromInt64s({INT64_MAX}));
  EXPECT_EQ(RunOne(MakeNode("Slice", {"x", "s", "e"}, {"y"}), std::move(inputs), 10), (std::vector<float>{3, 4}));
}

TEST(EvaluatorTest, ConstantOfShapeOfAShape) {
  std::map<std::string, Tensor> values;
  values.emplace("x", FromFloats({2, 1}, {7, 8}));
  const std::vector<onnx::NodeProto> nodes = {MakeNode("Shape", {"x"}, {"s"}),
                                              MakeNode("ConstantOfShape", {"s"}, {"y"})};
  ASSERT_TRUE(RunNodes(nodes, 9, values).ok());
  EXPECT_EQ(values.at("y").dims(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(FloatsOf(values.at("y")), (std::vector<float>{0, 0})) << "ConstantOfShape's value defaults to float 0";
}

TEST(EvaluatorTest, RefusesAnOpItDoesNotImplement) {
  std::map<std::string, Tensor> values;
  values.emplace("x", FromFloats({1}, {1}));
  const absl::Status status = RunNodes({MakeNode("Conv", {"x"}, {"y"})}, 13, values);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(status.message()), HasSubstr("does not implement Conv"));
}

TEST(EvaluatorTest, RefusesAnInputNothingDefines) {
  std::map<std::string, Tensor> values;
  const absl::Status status = RunNodes({MakeNode("Tanh", {"missing"}, {"y"})}, 13, values);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("reads 'missing', which nothing defines"));
}

TEST(EvaluatorTest, RefusesShapesThatDoNotBroadcast) {
  std::map<std::string, Tensor> values;
  values.emplace("a", FromFloats({2}, {1, 2}));
  values.emplace("b", FromFloats({3}, {1, 2, 3}));
  EXPECT_EQ(RunNodes({MakeNode("Mul", {"a", "b"}, {"y"})}, 13, values).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace onnx_legalize
