// Arithmetic, activations, Softmax, comparisons and Cast (src/eval/kernels/elementwise.cc, activation.cc,
// softmax.cc, logical.cc, cast.cc), each version as its opset says.
#include <limits>
#include <string>
#include <vector>

#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

// Sum-6 wants equal shapes; Sum-8 broadcasts.
TEST(ElementwiseKernelTest, SumBroadcastsFromOpset8Only) {
  constexpr char kModel[] = R"(
    <ir_version: 3, opset_import: ["" : OPSET]>
    g (float[2,2] a, float[2] b) => (float[2,2] y) { y = Sum(a, b, b) })";
  auto at = [&](const std::string& opset) {
    std::string text = kModel;
    text.replace(text.find("OPSET"), 5, opset);
    return ParseModel(text.c_str());
  };
  const Feeds feeds = Feed("a", Floats({2, 2}, {1, 2, 3, 4}), "b", Floats({2}, {10, 20}));
  EXPECT_TRUE(OutputIs(RunModel(at("8"), feeds), "y", Floats({2, 2}, {21, 42, 23, 44})));
  EXPECT_TRUE(FailsWith(RunModel(at("6"), feeds), StatusCode::kInvalidArgument, {"before opset 8"}));
}

TEST(ElementwiseKernelTest, LegacyBroadcastAlignsBWithTheEndWithoutAxis) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[2,3] a, float[3] b) => (float[2,3] y) { y = Mul <broadcast = 1> (a, b) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("a", Floats({2, 3}, {1, 1, 1, 2, 2, 2}), "b", Floats({3}, {1, 2, 3}))), "y",
                       Floats({2, 3}, {1, 2, 3, 2, 4, 6})));
}

TEST(ElementwiseKernelTest, LegacyBroadcastRejectsBThatIsNotARunOfA) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] a, float[2] b) => (float[2,3] y) { y = Sub <broadcast = 1> (a, b) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("a", Floats({2, 3}, std::vector<float>(6)), "b", Floats({2}, {1, 2}))),
                        StatusCode::kInvalidArgument, {"B [2] is not a run of A's dims [2,3]"}));
}

TEST(ElementwiseKernelTest, IntegerDivisionTruncatesAndRefusesZero) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int32[3] a, int32[3] b) => (int32[3] y) { y = Div(a, b) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("a", Int32s({3}, {7, -7, 6}), "b", Int32s({3}, {2, 2, -4}))), "y",
                       Int32s({3}, {3, -3, -1})));
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("a", Int32s({3}, {7, -7, 6}), "b", Int32s({3}, {2, 0, -4}))),
                        StatusCode::kInvalidArgument, {"integer division by zero"}));
}

// Round-11 takes halves to the even neighbour and keeps the sign of a zero.
TEST(ElementwiseKernelTest, RoundTakesHalvesToEven) {
  const auto model = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[8] x) => (float[8] y) { y = Round(x) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({8}, {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f, -0.4f, 2.6f}))),
                       "y", Floats({8}, {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 2.0f, -0.0f, 3.0f})));
}

// Pow-12 lets the exponent be an integer tensor; Pow-7 takes one type for both.
TEST(ElementwiseKernelTest, PowTakesAnIntegerExponentFromOpset12) {
  constexpr char kModel[] = R"(
    <ir_version: 7, opset_import: ["" : OPSET]>
    g (float[2] x, int64[2] e) => (float[2] y) { y = Pow(x, e) })";
  auto at = [&](const std::string& opset) {
    std::string text = kModel;
    text.replace(text.find("OPSET"), 5, opset);
    return ParseModel(text.c_str());
  };
  const Feeds feeds = Feed("x", Floats({2}, {2, 3}), "e", Int64s({2}, {3, 2}));
  EXPECT_TRUE(OutputIs(RunModel(at("12"), feeds), "y", Floats({2}, {8, 9})));
  EXPECT_TRUE(FailsWith(RunModel(at("11"), feeds), StatusCode::kInvalidArgument, {"before opset 12"}));
}

// Pow-12 also takes an int32 or int64 base (onnx's node tests test_pow_types_int*): exact to an integer power,
// wrapping like Mul; truncated toward zero to a float power; an error where the power has no integer value.
TEST(ElementwiseKernelTest, PowTakesAnIntegerBaseFromOpset12) {
  const auto by_integer = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 15]>
    g (int64[4] x, int64[4] e) => (int64[4] y) { y = Pow(x, e) })");
  EXPECT_TRUE(OutputIs(RunModel(by_integer, Feed("x", Int64s({4}, {2, 3, -3, 2}), "e", Int64s({4}, {5, 0, 3, 64}))),
                       "y", Int64s({4}, {32, 1, -27, 0})));  // 2 ** 64 wraps to 0
  EXPECT_TRUE(FailsWith(RunModel(by_integer, Feed("x", Int64s({4}, {2, 3, 4, 5}), "e", Int64s({4}, {1, -1, 1, 1}))),
                        StatusCode::kInvalidArgument, {"base 3 to the power -1", "int64"}));
  const auto by_float = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 12]>
    g (int32[3] x, float[3] e) => (int32[3] y) { y = Pow(x, e) })");
  EXPECT_TRUE(OutputIs(RunModel(by_float, Feed("x", Int32s({3}, {3, 2, -8}), "e", Floats({3}, {6, 0.5, 1}))), "y",
                       Int32s({3}, {729, 1, -8})));  // 2 ** 0.5 = 1.41... truncates to 1
  EXPECT_TRUE(FailsWith(RunModel(by_float, Feed("x", Int32s({3}, {2, 2, 2}), "e", Floats({3}, {1, 40, 1}))),
                        StatusCode::kInvalidArgument, {"base 2 to the power 40", "int32"}));
  const auto at11 = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (int64[1] x, int64[1] e) => (int64[1] y) { y = Pow(x, e) })");
  EXPECT_TRUE(FailsWith(RunModel(at11, Feed("x", Int64s({1}, {2}), "e", Int64s({1}, {3}))),
                        StatusCode::kInvalidArgument, {"before opset 12 takes a float base"}));
}
// Clip-6 takes min and max as attributes, Clip-11 as inputs; an absent bound is the type's extreme value.
TEST(ElementwiseKernelTest, ClipReadsItsBoundsAsItsOpsetSays) {
  const float inf = std::numeric_limits<float>::infinity();
  const auto at6 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[4] x) => (float[4] y) { y = Clip <min = -1.0> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(at6, Feed("x", Floats({4}, {-5, 0.5f, inf, -inf}))), "y",
                       Floats({4}, {-1, 0.5f, std::numeric_limits<float>::max(), -1})));
  const auto at11 = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[4] x, float lo, float hi) => (float[4] y) { y = Clip(x, lo, hi) })");
  Feeds feeds = Feed("x", Floats({4}, {-5, 0.5f, inf, -inf}), "lo", Floats({}, {-1}));
  feeds.emplace("hi", Floats({}, {2}));
  EXPECT_TRUE(OutputIs(RunModel(at11, feeds), "y", Floats({4}, {-1, 0.5f, 2, -1})));
  const auto attribute_at11 = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[4] x) => (float[4] y) { y = Clip <min = -1.0> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(attribute_at11, Feed("x", Floats({4}, {1, 2, 3, 4}))), StatusCode::kInvalidArgument,
                        {"attribute 'min'", "takes as input 1 instead"}));
}

TEST(ElementwiseKernelTest, ActivationsFollowTheirFormulas) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[3] x) => (float[3] leaky, float[3] hard, float[3] sign, float[3] elu) {
      leaky = LeakyRelu <alpha = 0.5> (x)
      hard = HardSigmoid <alpha = 0.25, beta = 0.5> (x)
      sign = Softsign(x)
      elu = Elu <alpha = 2.0> (x)
    })");
  const Results result = RunModel(model, Feed("x", Floats({3}, {-4, 0, 1})));
  EXPECT_TRUE(OutputIs(result, "leaky", Floats({3}, {-2, 0, 1})));
  EXPECT_TRUE(OutputIs(result, "hard", Floats({3}, {0, 0.5f, 0.75f})));
  EXPECT_TRUE(OutputIs(result, "sign", Floats({3}, {-0.8f, 0, 0.5f})));
  EXPECT_TRUE(OutputNear(result, "elu", Floats({3}, {2.0f * (0.0183156393f - 1.0f), 0, 1}), 1e-6f));
}

// Mish-18 is computed as its function body computes it, step by step in the element type (float16 rounds between
// steps): moving a Mish below 18 writes that body, and the proof compares the two bit for bit.
TEST(ElementwiseKernelTest, MishIsItsFunctionBodyToTheBit) {
  constexpr char kModel[] = R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (TYPE[8] x) => (TYPE[8] mish, TYPE[8] body) {
      mish = Mish (x)
      soft = Softplus (x)
      tanh = Tanh (soft)
      body = Mul (x, tanh)
    })";
  const std::vector<float> values = {-30, -3.5f, -0.75f, -0.0f, 0, 0.3f, 2.25f, 40};
  for (const char* type : {"float", "float16", "double"}) {
    std::string text = kModel;
    for (size_t at = text.find("TYPE"); at != std::string::npos; at = text.find("TYPE")) text.replace(at, 4, type);
    const auto model = ParseModel(text.c_str());
    const Tensor x = std::string(type) == "float16"  ? Halves({8}, values)
                     : std::string(type) == "double" ? Doubles({8}, std::vector<double>(values.begin(), values.end()))
                                                     : Floats({8}, values);
    const Results result = RunModel(model, Feed("x", x.Clone()));
    ASSERT_TRUE(result.ok()) << type << ": " << result.status();
    EXPECT_TRUE(result->at("mish").BitwiseEquals(result->at("body"))) << type;
  }
  const Results result = RunModel(ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) { y = Mish (x) })"),
                                  Feed("x", Floats({2}, {1, -1})));
  EXPECT_TRUE(OutputNear(result, "y", Floats({2}, {0.865098f, -0.303401f}), 1e-6f));
}

// Softmax-11 coerces the input to 2-D at axis 1 (one run of 4 here); Softmax-13 normalizes the last axis.
TEST(ElementwiseKernelTest, SoftmaxNormalizesWhatItsVersionSays) {
  constexpr char kModel[] = R"(
    <ir_version: 7, opset_import: ["" : OPSET]>
    g (float[1,2,2] x) => (float[1,2,2] y) { y = Softmax(x) })";
  auto at = [&](const std::string& opset) {
    std::string text = kModel;
    text.replace(text.find("OPSET"), 5, opset);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 2, 2}, {0, 0, 0, 0}));
  EXPECT_TRUE(OutputIs(RunModel(at("11"), x), "y", Floats({1, 2, 2}, {0.25f, 0.25f, 0.25f, 0.25f})));
  EXPECT_TRUE(OutputIs(RunModel(at("13"), x), "y", Floats({1, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f})));
}

// Cast-1 names its target type as a string.
TEST(ElementwiseKernelTest, Cast1TakesTheTypeByName) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (int64[2] x) => (float[2] y) { y = Cast <to = "FLOAT"> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Int64s({2}, {1, -2}))), "y", Floats({2}, {1, -2})));
  const auto bad = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (int64[2] x) => (float[2] y) { y = Cast <to = "REAL"> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(bad, Feed("x", Int64s({2}, {1, -2}))), StatusCode::kInvalidArgument,
                        {"names no type: 'REAL'"}));
}

// CastLike-15 casts to the element type of its second input (the function bodies of LeakyRelu, PRelu, ReduceL2
// use it); it is no op before opset 15.
TEST(ElementwiseKernelTest, CastLikeTakesTheTypeOfItsSecondInput) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 15]>
    g (int64[2] x, float[0] like) => (float[2] y) { y = CastLike (x, like) })");
  const Feeds feeds = Feed("x", Int64s({2}, {3, -2}), "like", Floats({0}, {}));
  EXPECT_TRUE(OutputIs(RunModel(model, feeds), "y", Floats({2}, {3, -2})));
  const auto at14 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 14]>
    g (int64[2] x, float[0] like) => (float[2] y) { y = CastLike (x, like) })");
  EXPECT_TRUE(FailsWith(RunModel(at14, feeds), StatusCode::kInvalidArgument, {"CastLike is an op from opset 15"}));
}

TEST(ElementwiseKernelTest, ComparesAndPicks) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[3] a, float[3] b) => (bool[3] less, float[3] y) {
      less = Less(a, b)
      y = Where(less, a, b)
    })");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Results result = RunModel(model, Feed("a", Floats({3}, {1, 5, nan}), "b", Floats({3}, {2, 4, 0})));
  EXPECT_TRUE(OutputIs(result, "less", Bools({3}, {1, 0, 0})));
  EXPECT_TRUE(OutputIs(result, "y", Floats({3}, {1, 4, 0})));
}

}  // namespace
}  // namespace onnx_legalize::testing
