#include "eval/model_runner.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx::TensorProto;
using ::onnx_legalize::testing::Bools;
using ::onnx_legalize::testing::Floats;
using ::onnx_legalize::testing::Int32s;
using ::onnx_legalize::testing::Int64s;
using ::onnx_legalize::testing::ParseModel;
using ::testing::HasSubstr;
using ::testing::Optional;

using Feeds = std::map<std::string, Tensor>;

Feeds Feed(const std::string& name, Tensor tensor) {
  Feeds feeds;
  feeds.emplace(name, std::move(tensor));
  return feeds;
}

std::string Describe(const Tensor& tensor) {
  std::string values;
  if (tensor.type() == TensorProto::FLOAT) {
    std::vector<float> v(tensor.element_count());
    std::memcpy(v.data(), tensor.bytes().data(), tensor.bytes().size());
    values = absl::StrJoin(v, ",");
  } else if (tensor.type() == TensorProto::INT64) {
    std::vector<int64_t> v(tensor.element_count());
    std::memcpy(v.data(), tensor.bytes().data(), tensor.bytes().size());
    values = absl::StrJoin(v, ",");
  } else if (tensor.type() == TensorProto::INT32) {
    std::vector<int32_t> v(tensor.element_count());
    std::memcpy(v.data(), tensor.bytes().data(), tensor.bytes().size());
    values = absl::StrJoin(v, ",");
  } else if (tensor.is_string()) {
    values = absl::StrJoin(tensor.strings(), ",");
  } else {
    values = absl::StrCat(tensor.bytes().size(), " bytes");
  }
  return absl::StrCat(DataTypeName(tensor.type()), "[", absl::StrJoin(tensor.dims(), ","), "] {", values, "}");
}

// The run succeeded and its output `name` equals `want` bit for bit (type and dims included).
::testing::AssertionResult OutputIs(const absl::StatusOr<std::map<std::string, Tensor>>& result,
                                    const std::string& name, const Tensor& want) {
  if (!result.ok()) return ::testing::AssertionFailure() << "run failed: " << result.status();
  auto it = result->find(name);
  if (it == result->end()) return ::testing::AssertionFailure() << "no output '" << name << "'";
  if (!it->second.BitwiseEquals(want)) {
    return ::testing::AssertionFailure() << "output '" << name << "' is " << Describe(it->second) << ", want "
                                         << Describe(want);
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult FailsWith(const absl::StatusOr<std::map<std::string, Tensor>>& result, absl::StatusCode code,
                                     const std::vector<std::string>& substrings) {
  if (result.ok()) return ::testing::AssertionFailure() << "the run succeeded";
  if (result.status().code() != code) {
    return ::testing::AssertionFailure() << "wrong code: " << result.status();
  }
  for (const std::string& substring : substrings) {
    if (result.status().message().find(substring) == absl::string_view::npos) {
      return ::testing::AssertionFailure() << "message lacks '" << substring << "': " << result.status();
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------------------
// Simple ops.

TEST(ModelRunnerTest, RunsRelu) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,3] y) { y = Relu(x) })");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto result = RunModel(model, Feed("x", Floats({2, 3}, {-1.5f, 0.0f, 2.0f, -0.0f, nan, 7.0f})));
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 3}, {0.0f, 0.0f, 2.0f, -0.0f, nan, 7.0f})));
}

TEST(ModelRunnerTest, RunsConstantFromValueAndValueAttributes) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g () => (int64[2] a, int64[3] b, int64 c, float d, float[2] e) {
      a = Constant <value = int64[2] {-1, 2}> ()
      b = Constant <value_ints = [4, 5, -6]> ()
      c = Constant <value_int = 7> ()
      d = Constant <value_float = 2.5> ()
      e = Constant <value_floats = [0.5, -1.0]> ()
    })");
  const auto result = RunModel(model, {});
  EXPECT_TRUE(OutputIs(result, "a", Int64s({2}, {-1, 2})));
  EXPECT_TRUE(OutputIs(result, "b", Int64s({3}, {4, 5, -6})));
  EXPECT_TRUE(OutputIs(result, "c", Int64s({}, {7})));
  EXPECT_TRUE(OutputIs(result, "d", Floats({}, {2.5f})));
  EXPECT_TRUE(OutputIs(result, "e", Floats({2}, {0.5f, -1.0f})));
}

TEST(ModelRunnerTest, RejectsConstantValueIntsBeforeOpset12) {
  const auto model = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g () => (int64[3] b) { b = Constant <value_ints = [4, 5, -6]> () })");
  EXPECT_TRUE(FailsWith(RunModel(model, {}), absl::StatusCode::kInvalidArgument,
                        {"Constant producing 'b' (graph main)", "value_ints", "Constant-12"}));
}

TEST(ModelRunnerTest, RunsIdentityOnAnInput) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int32[3] x) => (int32[3] y) { y = Identity(x) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Int32s({3}, {1, -2, 3}))), "y", Int32s({3}, {1, -2, 3})));
}

TEST(ModelRunnerTest, RunsArithmeticOnSameDimsAndScalars) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,2] a, float[2,2] b, int64[3] i, int32[2] j) => (float[2,2] sum, float[2,2] diff, float[2,2] prod,
                                                           int64[3] ishift, int32[2] jscaled, float[2,2] fromone) {
      sum = Add(a, b)
      diff = Sub(a, b)
      prod = Mul(a, b)
      two = Constant <value = int64 {2}> ()
      ishift = Sub(i, two)
      three = Constant <value = int32[1] {3}> ()
      jscaled = Mul(three, j)
      one = Constant <value = float[1,1] {1.0}> ()
      fromone = Sub(one, a)
    })");
  Feeds feeds;
  feeds.emplace("a", Floats({2, 2}, {1, 2, 3, 4}));
  feeds.emplace("b", Floats({2, 2}, {0.5f, -2, 10, 0}));
  feeds.emplace("i", Int64s({3}, {0, 5, std::numeric_limits<int64_t>::min()}));
  feeds.emplace("j", Int32s({2}, {-4, 7}));
  const auto result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "sum", Floats({2, 2}, {1.5f, 0, 13, 4})));
  EXPECT_TRUE(OutputIs(result, "diff", Floats({2, 2}, {0.5f, 4, -7, 4})));
  EXPECT_TRUE(OutputIs(result, "prod", Floats({2, 2}, {0.5f, -4, 30, 0})));
  // Integer arithmetic wraps around as the runtimes' does.
  EXPECT_TRUE(OutputIs(result, "ishift", Int64s({3}, {-2, 3, std::numeric_limits<int64_t>::max() - 1})));
  EXPECT_TRUE(OutputIs(result, "jscaled", Int32s({2}, {-12, 21})));
  EXPECT_TRUE(OutputIs(result, "fromone", Floats({2, 2}, {0, -1, -2, -3})));
}

TEST(ModelRunnerTest, BroadcastsArithmeticNumpyStyleFromOpset7) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] a, float[3] b) => (float[2,3] y) { y = Add(a, b) })");
  Feeds feeds;
  feeds.emplace("a", Floats({2, 3}, {1, 2, 3, 4, 5, 6}));
  feeds.emplace("b", Floats({3}, {1, 2, 3}));
  EXPECT_TRUE(OutputIs(RunModel(model, feeds), "y", Floats({2, 3}, {2, 4, 6, 5, 7, 9})));
}

TEST(ModelRunnerTest, RejectsShapesThatDoNotBroadcast) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] a, float[2] b) => (float[2,3] y) { y = Add(a, b) })");
  Feeds feeds;
  feeds.emplace("a", Floats({2, 3}, {1, 2, 3, 4, 5, 6}));
  feeds.emplace("b", Floats({2}, {1, 2}));
  EXPECT_TRUE(FailsWith(RunModel(model, feeds), absl::StatusCode::kInvalidArgument,
                        {"Add producing 'y' (graph main)", "[2,3]", "[2]", "do not broadcast"}));
}

TEST(ModelRunnerTest, RejectsArithmeticOnMixedTypes) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] a, int64[2] b) => (float[2] y) { y = Mul(a, b) })");
  Feeds feeds;
  feeds.emplace("a", Floats({2}, {1, 2}));
  feeds.emplace("b", Int64s({2}, {1, 2}));
  EXPECT_TRUE(FailsWith(RunModel(model, feeds), absl::StatusCode::kInvalidArgument, {"differ in type"}));
}

TEST(ModelRunnerTest, RunsNeg) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[3] f, int64[2] i) => (float[3] nf, int64[2] ni) { nf = Neg(f) ni = Neg(i) })");
  Feeds feeds;
  feeds.emplace("f", Floats({3}, {1.5f, 0.0f, -2.0f}));
  feeds.emplace("i", Int64s({2}, {3, -4}));
  const auto result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "nf", Floats({3}, {-1.5f, -0.0f, 2.0f})));
  EXPECT_TRUE(OutputIs(result, "ni", Int64s({2}, {-3, 4})));
}

TEST(ModelRunnerTest, RunsShape) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3,4] x) => (int64[3] s) { s = Shape(x) })");
  EXPECT_TRUE(
      OutputIs(RunModel(model, Feed("x", Floats({2, 3, 4}, std::vector<float>(24)))), "s", Int64s({3}, {2, 3, 4})));
}

TEST(ModelRunnerTest, RunsShapeStartEndFromOpset15) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[2,3,4] x) => (int64[2] tail, int64[1] middle) {
      tail = Shape <start = -2> (x)
      middle = Shape <start = 1, end = -1> (x)
    })");
  const auto result = RunModel(model, Feed("x", Floats({2, 3, 4}, std::vector<float>(24))));
  EXPECT_TRUE(OutputIs(result, "tail", Int64s({2}, {3, 4})));
  EXPECT_TRUE(OutputIs(result, "middle", Int64s({1}, {3})));
}

TEST(ModelRunnerTest, RejectsShapeStartBeforeOpset15) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (int64[1] s) { s = Shape <start = 1> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2, 3}, std::vector<float>(6)))),
                        absl::StatusCode::kInvalidArgument, {"Shape", "'start'"}));
}

// ---------------------------------------------------------------------------------------------------------
// Gather.

TEST(ModelRunnerTest, GathersRowsWithNegativeAndInt32Indices) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[3,2] data) => (float[2,2,2] rows, float[2] last, float[2,2] narrow) {
      idx = Constant <value = int64[2,2] {0, -1, 2, 1}> ()
      rows = Gather(data, idx)
      minus_one = Constant <value = int64 {-1}> ()
      last = Gather <axis = 0> (data, minus_one)
      idx32 = Constant <value = int32[2] {1, -3}> ()
      narrow = Gather(data, idx32)
    })");
  const auto result = RunModel(model, Feed("data", Floats({3, 2}, {1, 2, 3, 4, 5, 6})));
  EXPECT_TRUE(OutputIs(result, "rows", Floats({2, 2, 2}, {1, 2, 5, 6, 5, 6, 3, 4})));
  EXPECT_TRUE(OutputIs(result, "last", Floats({2}, {5, 6})));
  EXPECT_TRUE(OutputIs(result, "narrow", Floats({2, 2}, {3, 4, 1, 2})));
}

TEST(ModelRunnerTest, GathersFromAShapeVector) {
  // The usual shape arithmetic: Shape -> Gather(scalar index) -> Unsqueeze.
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,5] x) => (int64 n) {
      s = Shape(x)
      one = Constant <value = int64 {1}> ()
      n = Gather(s, one)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2, 5}, std::vector<float>(10)))), "n", Int64s({}, {5})));
}

// Before opset 11 the op texts leave negative indices and axes undefined; the runner counts them from the back,
// as the runtimes of that era did (kernel_support.h).
TEST(ModelRunnerTest, CountsANegativeGatherIndexFromTheBackBeforeOpset11) {
  const auto model = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[3] data) => (float[1] y) {
      idx = Constant <value = int64[1] {-1}> ()
      y = Gather(data, idx)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("data", Floats({3}, {1, 2, 3}))), "y", Floats({1}, {3})));
}

TEST(ModelRunnerTest, RejectsOutOfRangeGatherIndex) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[3] data) => (float[1] y) {
      idx = Constant <value = int64[1] {3}> ()
      y = Gather(data, idx)
    })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("data", Floats({3}, {1, 2, 3}))), absl::StatusCode::kInvalidArgument,
                        {"index 3", "[-3, 2]"}));
}

TEST(ModelRunnerTest, GathersAlongAnotherAxis) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,2] data) => (float[2,1] y) {
      idx = Constant <value = int64[1] {1}> ()
      y = Gather <axis = 1> (data, idx)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("data", Floats({2, 2}, {1, 2, 3, 4}))), "y", Floats({2, 1}, {2, 4})));
}

// ---------------------------------------------------------------------------------------------------------
// Unsqueeze, Squeeze, Concat, Reshape, Cast.

TEST(ModelRunnerTest, UnsqueezesWithAxesAttributeBeforeOpset13) {
  const auto model = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[2,3] x) => (float[1,2,3,1] y) { y = Unsqueeze <axes = [0, -1]> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2, 3}, {1, 2, 3, 4, 5, 6}))), "y",
                       Floats({1, 2, 3, 1}, {1, 2, 3, 4, 5, 6})));
}

TEST(ModelRunnerTest, UnsqueezesWithAxesInputFromOpset13) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64 x) => (int64[1] y) {
      axes = Constant <value = int64[1] {0}> ()
      y = Unsqueeze(x, axes)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Int64s({}, {42}))), "y", Int64s({1}, {42})));
}

TEST(ModelRunnerTest, RejectsUnsqueezeAxesAttributeFromOpset13) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64 x) => (int64[1] y) { y = Unsqueeze <axes = [0]> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Int64s({}, {42}))), absl::StatusCode::kInvalidArgument,
                        {"Unsqueeze", "'axes'"}));
}

// Not a bad value but a reading opset 9 does not give: FailedPrecondition, which the opset move's proof reports as
// the model's, not its drawn inputs'.
TEST(ModelRunnerTest, CountsANegativeUnsqueezeAxisFromTheBackBeforeOpset11) {
  const auto model = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[2] x) => (float[2,1] y) { y = Unsqueeze <axes = [-1]> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2}, {1, 2}))), "y", Floats({2, 1}, {1, 2})));
}

TEST(ModelRunnerTest, SqueezesByAttributeInputOrEveryUnitDim) {
  const auto attr_model = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1,2,1] x) => (float[2,1] y) { y = Squeeze <axes = [0]> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(attr_model, Feed("x", Floats({1, 2, 1}, {1, 2}))), "y", Floats({2, 1}, {1, 2})));

  const auto input_model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,2,1] x) => (float[1,2] y, float[2] z) {
      axes = Constant <value = int64[1] {-1}> ()
      y = Squeeze(x, axes)
      z = Squeeze(x)
    })");
  const auto result = RunModel(input_model, Feed("x", Floats({1, 2, 1}, {1, 2})));
  EXPECT_TRUE(OutputIs(result, "y", Floats({1, 2}, {1, 2})));
  EXPECT_TRUE(OutputIs(result, "z", Floats({2}, {1, 2})));
}

TEST(ModelRunnerTest, RejectsSqueezeOfANonUnitDim) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,2] x) => (float[1] y) {
      axes = Constant <value = int64[1] {1}> ()
      y = Squeeze(x, axes)
    })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({1, 2}, {1, 2}))), absl::StatusCode::kInvalidArgument,
                        {"axis 1", "is not 1"}));
}

TEST(ModelRunnerTest, ConcatenatesAlongAnAxis) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,1] a, float[2,2] b) => (float[2,3] y, int64[3] v) {
      y = Concat <axis = -1> (a, b)
      one = Constant <value = int64[1] {1}> ()
      two = Constant <value = int64[2] {2, 3}> ()
      v = Concat <axis = 0> (one, two)
    })");
  Feeds feeds;
  feeds.emplace("a", Floats({2, 1}, {1, 2}));
  feeds.emplace("b", Floats({2, 2}, {3, 4, 5, 6}));
  const auto result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 3}, {1, 3, 4, 2, 5, 6})));
  EXPECT_TRUE(OutputIs(result, "v", Int64s({3}, {1, 2, 3})));
}

TEST(ModelRunnerTest, RejectsConcatOfMismatchedDims) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,1] a, float[3,1] b) => (float[5,2] y) { y = Concat <axis = 1> (a, b) })");
  Feeds feeds;
  feeds.emplace("a", Floats({2, 1}, {1, 2}));
  feeds.emplace("b", Floats({3, 1}, {3, 4, 5}));
  EXPECT_TRUE(FailsWith(RunModel(model, feeds), absl::StatusCode::kInvalidArgument, {"cannot concatenate"}));
}

TEST(ModelRunnerTest, ReshapesWithZeroAndMinusOne) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3,2] x) => (float[2,6] y) {
      shape = Constant <value = int64[2] {0, -1}> ()
      y = Reshape(x, shape)
    })");
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i);
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2, 3, 2}, values))), "y", Floats({2, 6}, values)));
}

TEST(ModelRunnerTest, ReshapeAllowZeroKeepsALiteralZeroFromOpset14) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[0,3] x) => (float[3,0] y) {
      shape = Constant <value = int64[2] {3, 0}> ()
      y = Reshape <allowzero = 1> (x, shape)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({0, 3}, {}))), "y", Floats({3, 0}, {})));
}

TEST(ModelRunnerTest, RejectsReshapeThatDoesNotFit) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[4,-1] y) {
      shape = Constant <value = int64[2] {4, -1}> ()
      y = Reshape(x, shape)
    })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2, 3}, std::vector<float>(6)))),
                        absl::StatusCode::kInvalidArgument, {"Reshape", "cannot infer"}));
}

TEST(ModelRunnerTest, CastsBetweenFloatInt32AndInt64) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[3] f, int64[2] i) => (int64[3] fi, int32[3] fj, float[2] iff, int32[2] ij, float[3] same) {
      fi = Cast <to = 7> (f)
      fj = Cast <to = 6> (f)
      iff = Cast <to = 1> (i)
      ij = Cast <to = 6> (i)
      same = Cast <to = 1> (f)
    })");
  Feeds feeds;
  feeds.emplace("f", Floats({3}, {1.9f, -2.7f, 0.0f}));
  feeds.emplace("i", Int64s({2}, {-5, 16777217}));
  const auto result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "fi", Int64s({3}, {1, -2, 0})));
  EXPECT_TRUE(OutputIs(result, "fj", Int32s({3}, {1, -2, 0})));
  EXPECT_TRUE(OutputIs(result, "iff", Floats({2}, {-5.0f, 16777216.0f})));
  EXPECT_TRUE(OutputIs(result, "ij", Int32s({2}, {-5, 16777217})));
  EXPECT_TRUE(OutputIs(result, "same", Floats({3}, {1.9f, -2.7f, 0.0f})));
}

TEST(ModelRunnerTest, RejectsCastOfNaNToAnInteger) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1] f) => (int64[1] y) { y = Cast <to = 7> (f) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("f", Floats({1}, {std::numeric_limits<float>::quiet_NaN()}))),
                        absl::StatusCode::kInvalidArgument, {"Cast", "does not fit int64"}));
}

TEST(ModelRunnerTest, RejectsCastToAnUnsupportedType) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1] f) => (string[1] y) { y = Cast <to = 8> (f) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("f", Floats({1}, {1}))), absl::StatusCode::kUnimplemented,
                        {"Cast of float[1] to string"}));
}

// ---------------------------------------------------------------------------------------------------------
// Slice and DynamicSlice.

TEST(ModelRunnerTest, RunsSlice1WithAttributesBeforeOpset10) {
  const auto model = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[3,4] x) => (float[2,2] y) { y = Slice <starts = [1, 1], ends = [1000, 3], axes = [0, 1]> (x) })");
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i);
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({3, 4}, values))), "y", Floats({2, 2}, {5, 6, 9, 10})));
}

TEST(ModelRunnerTest, RunsSliceWithInputsAndStepsFromOpset10) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[6] x) => (float[3] y, float[2] z) {
      starts = Constant <value = int64[1] {-1}> ()
      ends = Constant <value = int64[1] {-1000}> ()
      axes = Constant <value = int64[1] {0}> ()
      steps = Constant <value = int64[1] {-2}> ()
      y = Slice(x, starts, ends, axes, steps)
      s2 = Constant <value = int64[1] {1}> ()
      e2 = Constant <value = int64[1] {3}> ()
      z = Slice(x, s2, e2)
    })");
  const auto result = RunModel(model, Feed("x", Floats({6}, {0, 1, 2, 3, 4, 5})));
  EXPECT_TRUE(OutputIs(result, "y", Floats({3}, {5, 3, 1})));
  EXPECT_TRUE(OutputIs(result, "z", Floats({2}, {1, 2})));
}

TEST(ModelRunnerTest, CountsNegativeSliceAxesFromTheBackBeforeOpset11) {
  const auto slice10 = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (float[2,4] x) => (float[2,2] y) {
      starts = Constant <value = int64[1] {1}> ()
      ends = Constant <value = int64[1] {3}> ()
      axes = Constant <value = int64[1] {-1}> ()
      y = Slice(x, starts, ends, axes)
    })");
  const Tensor x = Floats({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_TRUE(OutputIs(RunModel(slice10, Feed("x", x.Clone())), "y", Floats({2, 2}, {1, 2, 5, 6})));
  const auto slice1 = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[2,4] x) => (float[2,2] y) { y = Slice <starts = [1], ends = [3], axes = [-1]> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(slice1, Feed("x", x.Clone())), "y", Floats({2, 2}, {1, 2, 5, 6})));
}

TEST(ModelRunnerTest, RunsDynamicSliceWithTheReferenceKernel) {
  const auto model = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[3,4] x, int64[2] starts, int64[2] ends) => (float[2,2] y, float[3,3] z) {
      y = DynamicSlice(x, starts, ends)
      axes = Constant <value = int64[1] {1}> ()
      s1 = Constant <value = int64[1] {-3}> ()
      e1 = Constant <value = int64[1] {100}> ()
      z = DynamicSlice(x, s1, e1, axes)
    })");
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i);
  Feeds feeds;
  feeds.emplace("x", Floats({3, 4}, values));
  feeds.emplace("starts", Int64s({2}, {1, 2}));
  feeds.emplace("ends", Int64s({2}, {3, 4}));
  const auto result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 2}, {6, 7, 10, 11})));
  EXPECT_TRUE(OutputIs(result, "z", Floats({3, 3}, {1, 2, 3, 5, 6, 7, 9, 10, 11})));
}

TEST(ModelRunnerTest, DynamicSliceAndItsSliceRewriteAgreeBitForBit) {
  // The use the runner exists for: run the legacy form and the legalized form on the same inputs.
  const auto before = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[4,4] x, int64[1] s, int64[1] e) => (float[-1,4] y) { y = DynamicSlice(x, s, e) })");
  const auto after = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[4,4] x, int64[1] s, int64[1] e) => (float[-1,4] y) { y = Slice(x, s, e) })");
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = static_cast<float>(i) - 7.5f;
  for (const auto& [start, end] : std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {-3, -1}, {2, 1}, {-9, 9}}) {
    Feeds feeds;
    feeds.emplace("x", Floats({4, 4}, values));
    feeds.emplace("s", Int64s({1}, {start}));
    feeds.emplace("e", Int64s({1}, {end}));
    const auto want = RunModel(before, feeds);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE(OutputIs(RunModel(after, feeds), "y", want->at("y"))) << start << ":" << end;
  }
}

// ---------------------------------------------------------------------------------------------------------
// If and Loop.

constexpr char kIfModel[] = R"(
  <ir_version: 7, opset_import: ["" : 13]>
  g (bool c, float[2] x) => (float[2] y) {
    k = Constant <value = float[2] {10, 20}> ()
    y = If(c) <
      then_branch = then_graph () => (float[2] t) { t = Add(x, k) },
      else_branch = else_graph () => (float[2] e) { e = Neg(x) }
    >
  })";

TEST(ModelRunnerTest, IfRunsTheChosenBranchWhichReadsOuterValues) {
  const auto model = ParseModel(kIfModel);
  Feeds then_feeds;
  then_feeds.emplace("c", Bools({}, {1}));
  then_feeds.emplace("x", Floats({2}, {1, 2}));
  EXPECT_TRUE(OutputIs(RunModel(model, then_feeds), "y", Floats({2}, {11, 22})));
  Feeds else_feeds;
  else_feeds.emplace("c", Bools({}, {0}));
  else_feeds.emplace("x", Floats({2}, {1, 2}));
  EXPECT_TRUE(OutputIs(RunModel(model, else_feeds), "y", Floats({2}, {-1, -2})));
}

TEST(ModelRunnerTest, ErrorInsideABranchNamesBothNodesAndTheSubgraphPath) {
  auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If(c) <
        then_branch = then_graph () => (float[2] t) { t = Hardmax(x) },
        else_branch = else_graph () => (float[2] e) { e = Identity(x) }
      >
    })");
  model.mutable_graph()->mutable_node(0)->set_name("choose");
  Feeds feeds;
  feeds.emplace("c", Bools({}, {1}));
  feeds.emplace("x", Floats({2}, {1, 2}));
  EXPECT_TRUE(FailsWith(
      RunModel(model, feeds), absl::StatusCode::kUnimplemented,
      {"If 'choose' (graph main)", "Hardmax producing 't' (graph main/then_graph)", "op Hardmax is not supported"}));
}

TEST(ModelRunnerTest, LoopCarriesValuesAndStacksScanOutputs) {
  // acc starts at init and adds step (an outer value) each iteration; the scan output records acc * i.
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64 m, float[2] init, float[2] step) => (float[2] final, float[3,2] scanned, int64[3,1] iters) {
      cond = Constant <value = bool {1}> ()
      final, scanned, iters = Loop(m, cond, init) <
        body = loop_body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out, float[2] scan_out,
                                                              int64[1] i_out) {
          c_out = Identity(c)
          acc_out = Add(acc, step)
          fi = Cast <to = 1> (i)
          scan_out = Mul(acc_out, fi)
          zero = Constant <value = int64[1] {0}> ()
          i_out = Unsqueeze(i, zero)
        }
      >
    })");
  Feeds feeds;
  feeds.emplace("m", Int64s({}, {3}));
  feeds.emplace("init", Floats({2}, {0, 1}));
  feeds.emplace("step", Floats({2}, {1, 10}));
  const auto result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "final", Floats({2}, {3, 31})));
  EXPECT_TRUE(OutputIs(result, "scanned", Floats({3, 2}, {0, 0, 2, 21, 6, 62})));
  EXPECT_TRUE(OutputIs(result, "iters", Int64s({3, 1}, {0, 1, 2})));
}

TEST(ModelRunnerTest, LoopStopsWhenTheBodyConditionTurnsFalse) {
  // No trip count: the body's cond output, read from an outer table, ends the loop after 3 iterations.
  auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64[1] init) => (int64[1] final, int64[3] seen) {
      table = Constant <value = bool[5] {1, 1, 0, 1, 1}> ()
      cond = Constant <value = bool {1}> ()
      final, seen = Loop(no_trip_count, cond, init) <
        body = loop_body (int64 i, bool c, int64[1] acc) => (bool c_out, int64[1] acc_out, int64 i_out) {
          c_out = Gather(table, i)
          one = Constant <value = int64[1] {1}> ()
          acc_out = Add(acc, one)
          i_out = Identity(i)
        }
      >
    })");
  // The 1.12 parser cannot write a leading empty input; omit M here.
  model.mutable_graph()->mutable_node(2)->set_input(0, "");
  const auto result = RunModel(model, Feed("init", Int64s({1}, {100})));
  EXPECT_TRUE(OutputIs(result, "final", Int64s({1}, {103})));
  EXPECT_TRUE(OutputIs(result, "seen", Int64s({3}, {0, 1, 2})));
}

TEST(ModelRunnerTest, LoopWithZeroIterationsGivesEmptyScanOutputsOfTheDeclaredType) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64 m, float[2] init) => (float[2] final, float[0,2] scanned) {
      final, scanned = Loop(m, , init) <
        body = loop_body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out, float[2] scan_out) {
          c_out = Identity(c)
          acc_out = Neg(acc)
          scan_out = Identity(acc)
        }
      >
    })");
  Feeds feeds;
  feeds.emplace("m", Int64s({}, {0}));
  feeds.emplace("init", Floats({2}, {1, 2}));
  const auto result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "final", Floats({2}, {1, 2})));
  EXPECT_TRUE(OutputIs(result, "scanned", Floats({0, 2}, {})));
}

TEST(ModelRunnerTest, NestedSubgraphsReadEveryEnclosingScope) {
  // An If inside a Loop body reads a main-graph value and a body value.
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64 m, bool pick, float[1] base) => (float[1] final) {
      final = Loop(m, , base) <
        body = loop_body (int64 i, bool c, float[1] acc) => (bool c_out, float[1] acc_out) {
          c_out = Identity(c)
          doubled = Add(acc, acc)
          acc_out = If(pick) <
            then_branch = then_graph () => (float[1] t) { t = Add(doubled, base) },
            else_branch = else_graph () => (float[1] e) { e = Identity(doubled) }
          >
        }
      >
    })");
  Feeds feeds;
  feeds.emplace("m", Int64s({}, {2}));
  feeds.emplace("pick", Bools({}, {1}));
  feeds.emplace("base", Floats({1}, {1}));
  // acc: 1 -> 2 + 1 = 3 -> 6 + 1 = 7.
  EXPECT_TRUE(OutputIs(RunModel(model, feeds), "final", Floats({1}, {7})));
}

TEST(ModelRunnerTest, RejectsScanOutputsThatChangeShape) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int64 m, float[1] init) => (float[3] final, float[2,-1] scanned) {
      final, scanned = Loop(m, , init) <
        body = loop_body (int64 i, bool c, float[-1] acc) => (bool c_out, float[-1] acc_out, float[-1] scan_out) {
          c_out = Identity(c)
          acc_out = Concat <axis = 0> (acc, acc)
          scan_out = Identity(acc)
        }
      >
    })");
  Feeds feeds;
  feeds.emplace("m", Int64s({}, {2}));
  feeds.emplace("init", Floats({1}, {1}));
  EXPECT_TRUE(FailsWith(RunModel(model, feeds), absl::StatusCode::kInvalidArgument,
                        {"Loop producing 'final' (graph main)", "scan output 'scan_out'", "iteration 1"}));
}

// ---------------------------------------------------------------------------------------------------------
// Inputs, initializers and graph-level errors.

constexpr char kOverridableModel[] = R"(
  <ir_version: 7, opset_import: ["" : 13]>
  g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {1, 2}> { y = Add(x, w) })";

TEST(ModelRunnerTest, UsesAnOverridableInitializerUnlessFed) {
  const auto model = ParseModel(kOverridableModel);
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2}, {10, 20}))), "y", Floats({2}, {11, 22})));
  Feeds feeds;
  feeds.emplace("x", Floats({2}, {10, 20}));
  feeds.emplace("w", Floats({2}, {100, 200}));
  EXPECT_TRUE(OutputIs(RunModel(model, feeds), "y", Floats({2}, {110, 220})));
}

TEST(ModelRunnerTest, FeedingAnIr3InitializerOverridesIt) {
  // In IR 3 every initializer is also a graph input; feeding one replaces its value as well.
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 8]>
    g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {1, 2}> { y = Mul(x, w) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2}, {3, 4}))), "y", Floats({2}, {3, 8})));
  Feeds feeds;
  feeds.emplace("x", Floats({2}, {3, 4}));
  feeds.emplace("w", Floats({2}, {-1, 0.5f}));
  EXPECT_TRUE(OutputIs(RunModel(model, feeds), "y", Floats({2}, {-3, 2})));
}

TEST(ModelRunnerTest, RejectsFeedingAnInitializerThatIsNotAnInput) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) <float[2] w = {1, 2}> { y = Add(x, w) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2}, {10, 20}))), "y", Floats({2}, {11, 22})));
  Feeds feeds;
  feeds.emplace("x", Floats({2}, {10, 20}));
  feeds.emplace("w", Floats({2}, {100, 200}));
  EXPECT_TRUE(
      FailsWith(RunModel(model, feeds), absl::StatusCode::kInvalidArgument, {"'w' is fed but is not an input"}));
}

TEST(ModelRunnerTest, RejectsAMissingInput) {
  const auto model = ParseModel(kOverridableModel);
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("w", Floats({2}, {1, 2}))), absl::StatusCode::kInvalidArgument,
                        {"graph input 'x'"}));
}

TEST(ModelRunnerTest, RejectsAFeedOfTheWrongTypeOrDims) {
  const auto model = ParseModel(kOverridableModel);
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({3}, {1, 2, 3}))), absl::StatusCode::kInvalidArgument,
                        {"'x' is fed float[3]"}));
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Int64s({2}, {1, 2}))), absl::StatusCode::kInvalidArgument,
                        {"'x' is fed int64[2]"}));
}

// ML.NET's exporter declares an open dim as dim_value -1 (mlnet_unknowndims_opset8 of the real models); ONNX
// Runtime reads it as open, and so does the runner.
TEST(ModelRunnerTest, ReadsANegativeDeclaredDimAsOpen) {
  auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,3] x) => (float[N,3] y) { y = Relu(x) })");
  model.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(-1);
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2, 3}, {-1, 2, -3, 4, -5, 6}))), "y",
                       Floats({2, 3}, {0, 2, 0, 4, 0, 6})));
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2, 4}, std::vector<float>(8)))),
                        absl::StatusCode::kInvalidArgument, {"'x' is fed float[2,4]"}));
}

TEST(ModelRunnerTest, RejectsANodeReadingAValueDefinedLater) {
  // Nodes run in the listed order, which ONNX requires to be topological.
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] z) { z = Relu(y) y = Neg(x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2}, {1, 2}))), absl::StatusCode::kInvalidArgument,
                        {"Relu producing 'z' (graph main)", "input 'y' is not defined"}));
}

TEST(ModelRunnerTest, RejectsAValueDefinedTwice) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) { y = Relu(x) y = Neg(x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2}, {1, 2}))), absl::StatusCode::kInvalidArgument,
                        {"Neg producing 'y' (graph main)", "defined twice"}));
}

// The runner drops a value once its last reader has run (an image network's activations would not fit
// otherwise); a value read twice lives until its second reader, and a name defined again after it was
// dropped is still a second definition.
TEST(ModelRunnerTest, DropsValuesAfterTheirLastReaderOnly) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) { a = Neg(x)  b = Neg(a)  y = Add(a, b) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2}, {1, -2}))), "y", Floats({2}, {0, 0})));
  const auto redefined = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) { a = Neg(x)  b = Neg(a)  a = Neg(b)  y = Identity(a) })");
  EXPECT_TRUE(FailsWith(RunModel(redefined, Feed("x", Floats({2}, {1, 2}))), absl::StatusCode::kInvalidArgument,
                        {"value 'a' is defined twice"}));
}

TEST(ModelRunnerTest, RejectsAnUnsupportedOpByName) {
  auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) { y = Hardmax(x) })");
  model.mutable_graph()->mutable_node(0)->set_name("squash");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2}, {1, 2}))), absl::StatusCode::kUnimplemented,
                        {"Hardmax 'squash' (graph main)", "op Hardmax"}));
}

// The runner implements onnx 1.23's opsets, 1 to 28 (kMaxRunnerOpset): 28 runs, 29 is refused by number.
TEST(ModelRunnerTest, RejectsAnOpsetOutsideTheImplementedRange) {
  const auto newest = ParseModel(R"(
    <ir_version: 13, opset_import: ["" : 28]>
    g (float[2] x) => (float[2] y) { y = Relu(x) })");
  EXPECT_TRUE(OutputIs(RunModel(newest, Feed("x", Floats({2}, {-1, 2}))), "y", Floats({2}, {0, 2})));
  EXPECT_EQ(FirstUnsupportedNode(newest), std::nullopt);
  const auto model = ParseModel(R"(
    <ir_version: 13, opset_import: ["" : 29]>
    g (float[2] x) => (float[2] y) { y = Relu(x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2}, {1, 2}))), absl::StatusCode::kUnimplemented,
                        {"opset 29", "opsets 1 to 28"}));
  EXPECT_THAT(FirstUnsupportedNode(model), Optional(HasSubstr("opset 29")));
}

Feeds TwoFeeds(const std::string& a, Tensor ta, const std::string& b, Tensor tb) {
  Feeds feeds;
  feeds.emplace(a, std::move(ta));
  feeds.emplace(b, std::move(tb));
  return feeds;
}

// The runner executes models it is given: a value that would outgrow its budget is refused, not allocated.
TEST(ModelRunnerTest, RefusesAValueOverItsBudgetBeforeAllocatingIt) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[4096] x, int64[16385] i) => (float[16385,4096] y) {
      r = Reshape(x, s)
      y = Gather(r, i)
    })");
  // Gather of 16385 rows of a [1,4096] tensor: 16385 * 4096 elements, just over 2^26.
  onnx::ModelProto with_shape = model;
  onnx::TensorProto* s = with_shape.mutable_graph()->add_initializer();
  s->set_name("s");
  s->set_data_type(TensorProto::INT64);
  s->add_dims(2);
  s->add_int64_data(1);
  s->add_int64_data(4096);
  EXPECT_TRUE(FailsWith(RunModel(with_shape, TwoFeeds("x", Floats({4096}, std::vector<float>(4096)), "i",
                                                      Int64s({16385}, std::vector<int64_t>(16385)))),
                        absl::StatusCode::kResourceExhausted, {"Gather's output would hold 67112960 elements"}));
}

// Add-6's broadcast=1 places B's dims at `axis` of A's: [2] at axis 0 of [2,3] gives one value per row, where
// numpy's rule (from Add-7) would align it with the last dim and refuse.
TEST(ModelRunnerTest, RunsLegacyBroadcastingAtOpset6) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] x, float[2] b) => (float[2,3] y) { y = Add<broadcast=1, axis=0>(x, b) })");
  EXPECT_TRUE(OutputIs(RunModel(model, TwoFeeds("x", Floats({2, 3}, std::vector<float>(6)), "b", Floats({2}, {1, 2}))),
                       "y", Floats({2, 3}, {1, 1, 1, 2, 2, 2})));
}

TEST(ModelRunnerTest, RejectsUnequalShapesWithoutLegacyBroadcastAtOpset6) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] x, float[3] b) => (float[2,3] y) { y = Add(x, b) })");
  EXPECT_TRUE(
      FailsWith(RunModel(model, TwoFeeds("x", Floats({2, 3}, std::vector<float>(6)), "b", Floats({3}, {1, 2, 3}))),
                absl::StatusCode::kInvalidArgument, {"without broadcast=1 needs equal shapes"}));
}

// PRelu-6 applies a 1-D slope per channel (axis 1); PRelu-7 broadcasts it from the last axis. The same
// model means different things at the two opsets, and the runner says so.
TEST(ModelRunnerTest, PReluReadsItsSlopeAsItsOpsetSays) {
  constexpr char kPRelu[] = R"(
    <ir_version: 3, opset_import: ["" : OPSET]>
    g (float[1,2,2] x, float[2] slope) => (float[1,2,2] y) { y = PRelu(x, slope) })";
  auto at = [&](const char* opset) {
    std::string text = kPRelu;
    text.replace(text.find("OPSET"), 5, opset);
    return ParseModel(text.c_str());
  };
  const Feeds feeds = TwoFeeds("x", Floats({1, 2, 2}, {-1, -2, -3, 4}), "slope", Floats({2}, {10, 100}));
  // Channel 0 is {-1, -2}, channel 1 is {-3, 4}.
  EXPECT_TRUE(OutputIs(RunModel(at("6"), feeds), "y", Floats({1, 2, 2}, {-10, -20, -300, 4})));
  // From the last axis: column 0 takes 10, column 1 takes 100.
  EXPECT_TRUE(OutputIs(RunModel(at("7"), feeds), "y", Floats({1, 2, 2}, {-10, -200, -30, 4})));

  const Feeds per_channel = TwoFeeds("x", Floats({1, 2, 2}, {-1, -2, -3, 4}), "slope", Floats({2, 1}, {10, 100}));
  auto wide = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 7]>
    g (float[1,2,2] x, float[2,1] slope) => (float[1,2,2] y) { y = PRelu(x, slope) })");
  EXPECT_TRUE(OutputIs(RunModel(wide, per_channel), "y", Floats({1, 2, 2}, {-10, -20, -300, 4})));

  auto misfit = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 13]>
    g (float[1,3,2] x, float[3] slope) => (float[1,3,2] y) { y = PRelu(x, slope) })");
  EXPECT_TRUE(FailsWith(
      RunModel(misfit, TwoFeeds("x", Floats({1, 3, 2}, std::vector<float>(6)), "slope", Floats({3}, {1, 2, 3}))),
      absl::StatusCode::kInvalidArgument, {"slope [3] does not broadcast to X [1,3,2]"}));
}

// A caller's kernels run the ops the runner does not know (the legalizer's removed ops).
class NegatingSquash : public ExtraKernels {
 public:
  bool Handles(const onnx::NodeProto& node, int64_t) const override { return node.op_type() == "Squash"; }
  absl::StatusOr<std::vector<Tensor>> Run(const onnx::NodeProto&, int64_t,
                                          const std::vector<const Tensor*>& inputs) const override {
    std::vector<float> values(static_cast<size_t>(inputs[0]->element_count()));
    std::memcpy(values.data(), inputs[0]->bytes().data(), values.size() * sizeof(float));
    for (float& v : values) v = -v;
    std::string bytes(values.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    ASSIGN_OR_RETURN(Tensor out, Tensor::FromBytes(onnx::TensorProto::FLOAT, inputs[0]->dims(), std::move(bytes)));
    std::vector<Tensor> outputs;
    outputs.push_back(std::move(out));
    return outputs;
  }
};

TEST(ModelRunnerTest, RunsWhatExtraKernelsHandleAndNamesTheFirstNodeNoKernelRuns) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float[2] y) { s = Squash(x)  y = Relu(s) })");
  const NegatingSquash squash;
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2}, {1, -2})), &squash), "y", Floats({2}, {0, 2})));
  EXPECT_EQ(FirstUnsupportedNode(model, &squash), std::nullopt);
  EXPECT_THAT(FirstUnsupportedNode(model), Optional(std::string("op Squash (graph main)")));
  const auto in_branch = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If(c) <then_branch = t () => (float[2] a) { a = Hardmax(x) }, else_branch = e () => (float[2] b) { b = Relu(x) }>
    })");
  EXPECT_THAT(FirstUnsupportedNode(in_branch), Optional(HasSubstr("op Hardmax (graph main/")));
}

// A removed op of another domain (com.microsoft's LegacyPadding) is computed by the extra kernels too.
TEST(ModelRunnerTest, RunsAnotherDomainsOpThatExtraKernelsHandle) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13, "com.example" : 1]>
    g (float[2] x) => (float[2] y) { y = com.example.Squash(x) })");
  const NegatingSquash squash;
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2}, {1, -2})), &squash), "y", Floats({2}, {-1, 2})));
  EXPECT_EQ(FirstUnsupportedNode(model, &squash), std::nullopt);
  EXPECT_THAT(FirstUnsupportedNode(model), Optional(std::string("op Squash of domain 'com.example' (graph main)")));
}

TEST(ModelRunnerTest, RejectsAnotherDomain) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13, "com.example" : 1]>
    g (float[2] x) => (float[2] y) { y = com.example.Relu(x) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Floats({2}, {1, 2}))), absl::StatusCode::kUnimplemented,
                        {"domain 'com.example'"}));
}

}  // namespace
}  // namespace onnx_legalize
