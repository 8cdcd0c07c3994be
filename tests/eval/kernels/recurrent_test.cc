// RNN, GRU and LSTM (src/eval/kernels/recurrent.cc). Cases whose activations are exact in float (Relu,
// Affine, LeakyRelu on small integers) are checked bit for bit; the others against the spec's equations
// evaluated in float64 with numpy and rounded to float (the script is in each test's comment), within 1e-6.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

// seq 3, batch 2, input 1, hidden 1, W = R = 1 and Relu: each state is the running sum of the inputs, so
// the order in which the steps run is visible in Y. Batch entry 1 has only 2 steps (its third input, 99, is
// padding).
Feeds RunningSumFeeds(int directions) {
  Feeds feeds = Feed("x", Floats({3, 2, 1}, {1, 4, 2, 5, 3, 99}), "w",
                     Floats({directions, 1, 1}, std::vector<float>(directions, 1.0f)));
  feeds.emplace("r", Floats({directions, 1, 1}, std::vector<float>(directions, 1.0f)));
  feeds.emplace("lens", Int32s({2}, {3, 2}));
  return feeds;
}

std::string RunningSumModel(const std::string& direction, int directions) {
  const std::string d = std::to_string(directions);
  return R"(
    <ir_version: 7, opset_import: ["" : 14]>
    g (float[3,2,1] x, float[)" +
         d + R"(,1,1] w, float[)" + d + R"(,1,1] r, int32[2] lens) => (float[3,)" + d + R"(,2,1] y, float[)" + d +
         R"(,2,1] y_h) {
      y, y_h = RNN <hidden_size = 1, activations = [)" +
         (directions == 2 ? R"("Relu", "Relu")" : R"("Relu")") + R"(], direction = ")" + direction +
         R"("> (x, w, r, , lens)
    })";
}

// Forward: batch 0 sums 1, 2, 3 (Y 1, 3, 6); batch 1 sums 4, 5 and stops (Y 4, 9, then 0 past its length).
TEST(RecurrentKernelTest, RnnForwardStopsEachSequenceAtItsLength) {
  const Results result = RunModel(ParseModel(RunningSumModel("forward", 1).c_str()), RunningSumFeeds(1));
  EXPECT_TRUE(OutputIs(result, "y", Floats({3, 1, 2, 1}, {1, 4, 3, 9, 6, 0})));
  EXPECT_TRUE(OutputIs(result, "y_h", Floats({1, 2, 1}, {6, 9})));
}

// Reverse starts at each sequence's own last step: batch 0 sums 3, 2, 1 (Y at t = 2, 1, 0: 3, 5, 6); batch 1
// sums 5, 4 from t = 1 (Y 9 at t = 0, 5 at t = 1, 0 at t = 2), never reading the padding.
TEST(RecurrentKernelTest, RnnReverseStartsAtTheLastStepOfEachSequence) {
  const Results result = RunModel(ParseModel(RunningSumModel("reverse", 1).c_str()), RunningSumFeeds(1));
  EXPECT_TRUE(OutputIs(result, "y", Floats({3, 1, 2, 1}, {6, 9, 5, 5, 3, 0})));
  EXPECT_TRUE(OutputIs(result, "y_h", Floats({1, 2, 1}, {6, 9})));
}

// Bidirectional: Y holds both directions at each step, forward first; Y_h the last state of each.
TEST(RecurrentKernelTest, RnnBidirectionalConcatenatesBothDirections) {
  const Results result = RunModel(ParseModel(RunningSumModel("bidirectional", 2).c_str()), RunningSumFeeds(2));
  EXPECT_TRUE(OutputIs(result, "y", Floats({3, 2, 2, 1}, {1, 4, 6, 9, 3, 9, 5, 5, 6, 0, 3, 0})));
  EXPECT_TRUE(OutputIs(result, "y_h", Floats({2, 2, 1}, {6, 9, 6, 9})));
}

// A sequence of length 0 has no output at all: Y, Y_h and Y_c are zero for it, not its initial state (the
// spec is silent; ONNX Runtime writes zeros). With W = 1, R = 0 and Relu everywhere, every gate of batch entry 0
// is relu(x) = 1: C = f * 10 + i * 1 = 11 and H = o * relu(C) = 11. Batch entry 1 is empty.
TEST(RecurrentKernelTest, AnEmptySequenceHasZeroStates) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 14]>
    g (float[1,2,1] x, float[1,4,1] w, float[1,4,1] r, int32[2] lens, float[1,2,1] h0, float[1,2,1] c0)
        => (float[1,1,2,1] y, float[1,2,1] y_h, float[1,2,1] y_c) {
      y, y_h, y_c = LSTM <hidden_size = 1, activations = ["Relu", "Relu", "Relu"]> (x, w, r, , lens, h0, c0)
    })");
  Feeds feeds = Feed("x", Floats({1, 2, 1}, {1, 2}), "w", Floats({1, 4, 1}, {1, 1, 1, 1}));
  feeds.emplace("r", Floats({1, 4, 1}, {0, 0, 0, 0}));
  feeds.emplace("lens", Int32s({2}, {1, 0}));
  feeds.emplace("h0", Floats({1, 2, 1}, {5, 6}));
  feeds.emplace("c0", Floats({1, 2, 1}, {10, 20}));
  const Results result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "y", Floats({1, 1, 2, 1}, {11, 0})));
  EXPECT_TRUE(OutputIs(result, "y_h", Floats({1, 2, 1}, {11, 0})));
  EXPECT_TRUE(OutputIs(result, "y_c", Floats({1, 2, 1}, {11, 0})));
}

// Activation names are matched regardless of case, as ONNX Runtime matches them: "relu" is Relu.
TEST(RecurrentKernelTest, MatchesActivationNamesRegardlessOfCase) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[3,2,1] x, float[1,1,1] w, float[1,1,1] r) => (float[3,1,2,1] y) {
      y = RNN <hidden_size = 1, activations = ["relu"]> (x, w, r)
    })");
  Feeds feeds = RunningSumFeeds(1);
  feeds.erase("lens");
  EXPECT_TRUE(OutputIs(RunModel(model, feeds), "y", Floats({3, 1, 2, 1}, {1, 4, 3, 9, 6, 108})));
}

// activation_alpha and activation_beta are consumed in the order of the activations, each by the functions
// that take them: LeakyRelu (forward) takes alpha 0.5, Affine (reverse) alpha 2 and beta 1. Inputs -2, 4:
// forward -1 (0.5 * -2), then 4 + -1 = 3; reverse 2 * 4 + 1 = 9, then 2 * (-2 + 9) + 1 = 15.
TEST(RecurrentKernelTest, ActivationsConsumeAlphasAndBetasInOrder) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 14]>
    g (float[2,1,1] x, float[2,1,1] w, float[2,1,1] r) => (float[2,2,1,1] y, float[2,1,1] y_h) {
      y, y_h = RNN <hidden_size = 1, direction = "bidirectional", activations = ["LeakyRelu", "Affine"],
                    activation_alpha = [0.5, 2.0], activation_beta = [1.0]> (x, w, r)
    })");
  Feeds feeds = Feed("x", Floats({2, 1, 1}, {-2, 4}), "w", Floats({2, 1, 1}, {1, 1}));
  feeds.emplace("r", Floats({2, 1, 1}, {1, 1}));
  const Results result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 2, 1, 1}, {-1, 15, 3, 9})));
  EXPECT_TRUE(OutputIs(result, "y_h", Floats({2, 1, 1}, {3, 15})));
}

// The default activation, Tanh, and the biases and initial state: x = 1, 2, W = 0.5, R = 0.25, B = 0:
// H1 = tanh(0.5), H2 = tanh(1 + 0.25 * tanh(0.5)) (numpy: 0.46211717, 0.80600822). Double as well.
TEST(RecurrentKernelTest, RnnAppliesTanhByDefaultInFloatAndDouble) {
  for (const char* type : {"float", "double"}) {
    const std::string t = type;
    const auto model = ParseModel((R"(
      <ir_version: 7, opset_import: ["" : 7]>
      g ()" + t + "[2,1,1] x, " + t +
                                   "[1,1,1] w, " + t + "[1,1,1] r) => (" + t + R"([2,1,1,1] y) {
        y = RNN <hidden_size = 1> (x, w, r)
      })")
                                      .c_str());
    const bool is_double = t == "double";
    Feeds feeds = Feed("x", is_double ? Doubles({2, 1, 1}, {1, 2}) : Floats({2, 1, 1}, {1, 2}), "w",
                       is_double ? Doubles({1, 1, 1}, {0.5}) : Floats({1, 1, 1}, {0.5}));
    feeds.emplace("r", is_double ? Doubles({1, 1, 1}, {0.25}) : Floats({1, 1, 1}, {0.25}));
    const Results result = RunModel(model, feeds);
    ASSERT_TRUE(result.ok()) << result.status();
    const Tensor& y = result->at("y");
    ASSERT_EQ(y.element_count(), 2);
    auto at = [&](int i) {
      return is_double ? reinterpret_cast<const double*>(y.bytes().data())[i]
                       : static_cast<double>(reinterpret_cast<const float*>(y.bytes().data())[i]);
    };
    EXPECT_NEAR(at(0), 0.46211715726000974, 1e-7) << t;
    EXPECT_NEAR(at(1), 0.80600821, 1e-7) << t;
  }
}

// GRU, seq 2, batch 1, input 1, hidden 1, x = 1, 2, initial_h 0.5, W[zrh] = 0.5, -0.5, 1, R[zrh] = 0.25, 0.5,
// -1, B = Wb[zrh] 0.1 0.2 0.3, Rb[zrh] 0.4 0.5 0.6. numpy, per the spec's equations (f = sigmoid, g = tanh):
//   z = f(x*Wz + h*Rz + Wbz + Rbz), r = f(x*Wr + h*Rr + Wbr + Rbr)
//   linear_before_reset = 0: c = g(x*Wh + (r*h)*Rh + Rbh + Wbh);  = 1: c = g(x*Wh + r*(h*Rh + Rbh) + Wbh)
//   h = (1 - z)*c + z*h
// gives Y = 0.60314745, 0.66526872 (0) and 0.59230870, 0.65490997 (1).
TEST(RecurrentKernelTest, GruResetsBeforeOrAfterTheRecurrentProduct) {
  Feeds feeds = Feed("x", Floats({2, 1, 1}, {1, 2}), "w", Floats({1, 3, 1}, {0.5f, -0.5f, 1.0f}));
  feeds.emplace("r", Floats({1, 3, 1}, {0.25f, 0.5f, -1.0f}));
  feeds.emplace("b", Floats({1, 6}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}));
  feeds.emplace("h0", Floats({1, 1, 1}, {0.5f}));
  for (const int linear : {0, 1}) {
    const auto model = ParseModel((R"(
      <ir_version: 7, opset_import: ["" : 7]>
      g (float[2,1,1] x, float[1,3,1] w, float[1,3,1] r, float[1,6] b, float[1,1,1] h0) => (float[2,1,1,1] y) {
        y = GRU <hidden_size = 1, linear_before_reset = )" +
                                   std::to_string(linear) + R"(> (x, w, r, b, , h0)
      })")
                                      .c_str());
    const Tensor want = linear == 0 ? Floats({2, 1, 1, 1}, {0.60314745f, 0.66526872f})
                                    : Floats({2, 1, 1, 1}, {0.59230870f, 0.65490997f});
    EXPECT_TRUE(OutputNear(RunModel(model, feeds), "y", want, 1e-6f)) << linear;
  }
}

// LSTM, seq 2, batch 1, input 1, hidden 1, x = 1, 2, initial_h 0.5, initial_c 1, W[iofc] = 0.5, 0.25, -0.5, 1,
// R[iofc] = 0.5, -0.25, 0.25, 0.5, Wb[iofc] = 0.1, 0.2, 0.3, 0.4, Rb = 0, P[iof] = 0.5, -0.5, 0.25. numpy:
//   i = f(x*Wi + h*Ri + Pi*C + Wbi + Rbi), f = f(... Pf*C ...) or 1 - i (input_forget), c = g(x*Wc + h*Rc + ...)
//   C = f*C + i*c, o = f(x*Wo + h*Ro + Po*C + ...), h = o*g(C); clip bounds the gates' inputs (of f and g,
//   not of h, as ONNX Runtime reads it)
// gives Y = 0.36135644, 0.42260081, Y_c = 1.41093421; with input_forget 0.34142965, 0.40019733, Y_c 0.98168439;
// with clip = 0.5 0.32515809, 0.31745741, Y_c 0.61908281.
TEST(RecurrentKernelTest, LstmAppliesPeepholesInputForgetAndClip) {
  Feeds feeds = Feed("x", Floats({2, 1, 1}, {1, 2}), "w", Floats({1, 4, 1}, {0.5f, 0.25f, -0.5f, 1.0f}));
  feeds.emplace("r", Floats({1, 4, 1}, {0.5f, -0.25f, 0.25f, 0.5f}));
  feeds.emplace("b", Floats({1, 8}, {0.1f, 0.2f, 0.3f, 0.4f, 0, 0, 0, 0}));
  feeds.emplace("h0", Floats({1, 1, 1}, {0.5f}));
  feeds.emplace("c0", Floats({1, 1, 1}, {1.0f}));
  feeds.emplace("p", Floats({1, 3}, {0.5f, -0.5f, 0.25f}));
  struct Variant {
    const char* attributes;
    std::vector<float> y;
    float y_c;
  };
  const Variant variants[] = {{"", {0.36135644f, 0.42260081f}, 1.41093421f},
                              {", input_forget = 1", {0.34142965f, 0.40019733f}, 0.98168439f},
                              {", clip = 0.5", {0.32515809f, 0.31745741f}, 0.61908281f}};
  for (const Variant& variant : variants) {
    const auto model = ParseModel((std::string(R"(
      <ir_version: 7, opset_import: ["" : 14]>
      g (float[2,1,1] x, float[1,4,1] w, float[1,4,1] r, float[1,8] b, float[1,1,1] h0, float[1,1,1] c0,
         float[1,3] p) => (float[2,1,1,1] y, float[1,1,1] y_h, float[1,1,1] y_c) {
        y, y_h, y_c = LSTM <hidden_size = 1)") +
                                   variant.attributes +
                                   R"(> (x, w, r, b, , h0, c0, p)
      })")
                                      .c_str());
    const Results result = RunModel(model, feeds);
    EXPECT_TRUE(OutputNear(result, "y", Floats({2, 1, 1, 1}, variant.y), 1e-6f)) << variant.attributes;
    EXPECT_TRUE(OutputNear(result, "y_h", Floats({1, 1, 1}, {variant.y[1]}), 1e-6f)) << variant.attributes;
    EXPECT_TRUE(OutputNear(result, "y_c", Floats({1, 1, 1}, {variant.y_c}), 1e-6f)) << variant.attributes;
  }
}

// layout = 1 (version 14) reads X as [batch, seq, input] and writes Y as [batch, seq, dirs, hidden] and the
// states as [batch, dirs, hidden]: the running sums of RnnForwardStopsEachSequenceAtItsLength, transposed.
TEST(RecurrentKernelTest, BatchMajorLayoutTransposesXYAndTheStates) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 14]>
    g (float[2,3,1] x, float[1,1,1] w, float[1,1,1] r, int32[2] lens, float[2,1,1] h0)
        => (float[2,3,1,1] y, float[2,1,1] y_h) {
      y, y_h = RNN <hidden_size = 1, activations = ["Relu"], layout = 1> (x, w, r, , lens, h0)
    })");
  Feeds feeds = Feed("x", Floats({2, 3, 1}, {1, 2, 3, 4, 5, 99}), "w", Floats({1, 1, 1}, {1}));
  feeds.emplace("r", Floats({1, 1, 1}, {1}));
  feeds.emplace("lens", Int32s({2}, {3, 2}));
  feeds.emplace("h0", Floats({2, 1, 1}, {10, 20}));  // batch 0 starts at 10, batch 1 at 20
  const Results result = RunModel(model, feeds);
  EXPECT_TRUE(OutputIs(result, "y", Floats({2, 3, 1, 1}, {11, 13, 16, 24, 29, 0})));
  EXPECT_TRUE(OutputIs(result, "y_h", Floats({2, 1, 1}, {16, 29})));
}

// Version 1 (opsets 1-6) has output_sequence, which version 7 dropped; Y is computed whenever it is named.
TEST(RecurrentKernelTest, OutputSequenceBelongsToVersionOneOnly) {
  const std::string body = R"( (float[3,2,1] x, float[1,1,1] w, float[1,1,1] r) => (float[3,1,2,1] y) {
      y = RNN <hidden_size = 1, activations = ["Relu"], output_sequence = 0> (x, w, r)
    })";
  Feeds feeds = RunningSumFeeds(1);
  feeds.erase("lens");
  const auto at6 = ParseModel((R"(<ir_version: 3, opset_import: ["" : 6]> g)" + body).c_str());
  EXPECT_TRUE(OutputIs(RunModel(at6, feeds), "y", Floats({3, 1, 2, 1}, {1, 4, 3, 9, 6, 108})));
  const auto at7 = ParseModel((R"(<ir_version: 3, opset_import: ["" : 7]> g)" + body).c_str());
  EXPECT_TRUE(FailsWith(RunModel(at7, feeds), StatusCode::kInvalidArgument, {"output_sequence"}));
}

// GRU-1 (opsets 1 and 2) has no linear_before_reset; layout comes with version 14.
TEST(RecurrentKernelTest, RejectsAttributesTheirVersionDoesNotHave) {
  Feeds feeds = Feed("x", Floats({1, 1, 1}, {1}), "w", Floats({1, 3, 1}, {1, 1, 1}));
  feeds.emplace("r", Floats({1, 3, 1}, {1, 1, 1}));
  const auto gru1 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 2]>
    g (float[1,1,1] x, float[1,3,1] w, float[1,3,1] r) => (float[1,1,1,1] y) {
      y = GRU <hidden_size = 1, linear_before_reset = 1> (x, w, r)
    })");
  EXPECT_TRUE(FailsWith(RunModel(gru1, feeds), StatusCode::kInvalidArgument, {"linear_before_reset"}));
  const auto layout13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,1] x, float[1,3,1] w, float[1,3,1] r) => (float[1,1,1,1] y) {
      y = GRU <hidden_size = 1, layout = 0> (x, w, r)
    })");
  EXPECT_TRUE(FailsWith(RunModel(layout13, feeds), StatusCode::kInvalidArgument, {"layout"}));
}

// The guards: hidden_size against R, W's shape against X's and hidden_size, sequence_lens within X's steps, the
// activations' names and count.
TEST(RecurrentKernelTest, RejectsMalformedInputsAndAttributes) {
  auto run =
      [](const std::string& attributes, const Feeds& feeds) {
        return RunModel(ParseModel((R"(
      <ir_version: 7, opset_import: ["" : 14]>
      g (float[3,2,1] x, float[1,1,K] w, float[1,1,1] r, int32[2] lens) => (float[3,1,2,1] y) {
        y = RNN <)" + attributes + R"(> (x, w, r, , lens)
      })")
                                       .c_str()),
                        feeds);
      };
  EXPECT_TRUE(FailsWith(run("hidden_size = 2", RunningSumFeeds(1)), StatusCode::kInvalidArgument,
                        {"hidden_size is 2 but R is float[1,1,1]"}));
  // W is declared [1,1,K], so that the feed's check lets a W of the wrong width through to the kernel's guard.
  Feeds wide_w = RunningSumFeeds(1);
  wide_w.insert_or_assign("w", Floats({1, 1, 2}, {1, 1}));
  EXPECT_TRUE(FailsWith(run("hidden_size = 1", wide_w), StatusCode::kInvalidArgument,
                        {"W is float[1,1,2]", "expected [1,1,1]"}));
  Feeds long_sequence = RunningSumFeeds(1);
  long_sequence.insert_or_assign("lens", Int32s({2}, {3, 4}));
  EXPECT_TRUE(FailsWith(run("hidden_size = 1", long_sequence), StatusCode::kInvalidArgument,
                        {"sequence_lens[1] is 4", "3 steps"}));
  EXPECT_TRUE(FailsWith(run(R"(hidden_size = 1, activations = ["Swish"])", RunningSumFeeds(1)),
                        StatusCode::kInvalidArgument, {"activation 'Swish'"}));
  EXPECT_TRUE(FailsWith(run(R"(hidden_size = 1, activations = ["Tanh", "Tanh"])", RunningSumFeeds(1)),
                        StatusCode::kInvalidArgument, {"activations has 2 names", "takes 1"}));
  EXPECT_TRUE(
      FailsWith(run("hidden_size = 1, clip = 0.0", RunningSumFeeds(1)), StatusCode::kInvalidArgument, {"clip is 0"}));
}

// float16 is computed in float and rounded once, at the output: the running sums are exact in it.
TEST(RecurrentKernelTest, ComputesFloat16InFloat) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 14]>
    g (float16[3,2,1] x, float16[1,1,1] w, float16[1,1,1] r) => (float16[3,1,2,1] y) {
      y = RNN <hidden_size = 1, activations = ["Relu"]> (x, w, r)
    })");
  Feeds feeds = Feed("x", Halves({3, 2, 1}, {1, 4, 2, 5, 3, 99}), "w", Halves({1, 1, 1}, {1}));
  feeds.emplace("r", Halves({1, 1, 1}, {1}));
  EXPECT_TRUE(OutputIs(RunModel(model, feeds), "y", Halves({3, 1, 2, 1}, {1, 4, 3, 9, 6, 108})));
}

template <typename Proto>
::testing::AssertionResult ReadProto(const std::string& path, Proto& proto) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return ::testing::AssertionFailure() << "cannot open " << path
                                         << " (ctest's fixture onnx_node_test_data writes onnx's node tests there)";
  if (!proto.ParseFromIstream(&in)) return ::testing::AssertionFailure() << "cannot parse " << path;
  return ::testing::AssertionSuccess();
}

// onnx's own test models of the three ops (as onnx 1.23 makes them; layout 1 among them), whose outputs onnx computed
// with its numpy reference: equal within 1e-6 (measured: at most 9e-8; numpy's exp and tanh and its products round
// otherwise than the C library's and Eigen's).
class RecurrentConformanceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RecurrentConformanceTest, MatchesOnnxBackendTestData) {
  const std::string dir = absl::StrCat(ONNX_NODE_TEST_DIR, "/", GetParam());
  onnx::ModelProto model;
  ASSERT_TRUE(ReadProto(dir + "/model.onnx", model));
  Feeds feeds;
  for (int i = 0; i < model.graph().input_size(); ++i) {
    onnx::TensorProto proto;
    ASSERT_TRUE(ReadProto(absl::StrCat(dir, "/test_data_set_0/input_", i, ".pb"), proto));
    absl::StatusOr<Tensor> tensor = TensorFromProto(proto);
    ASSERT_TRUE(tensor.ok()) << tensor.status();
    feeds.emplace(model.graph().input(i).name(), *std::move(tensor));
  }
  const Results result = RunModel(model, feeds);
  for (int k = 0; k < model.graph().output_size(); ++k) {
    onnx::TensorProto proto;
    ASSERT_TRUE(ReadProto(absl::StrCat(dir, "/test_data_set_0/output_", k, ".pb"), proto));
    absl::StatusOr<Tensor> want = TensorFromProto(proto);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE(OutputNear(result, model.graph().output(k).name(), *want, 1e-6f)) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(OnnxNodeTests, RecurrentConformanceTest,
                         ::testing::Values("test_rnn_seq_length", "test_simple_rnn_defaults",
                                           "test_simple_rnn_with_initial_bias", "test_simple_rnn_batchwise",
                                           "test_gru_defaults", "test_gru_seq_length", "test_gru_with_initial_bias",
                                           "test_gru_batchwise", "test_lstm_defaults", "test_lstm_with_initial_bias",
                                           "test_lstm_with_peepholes", "test_lstm_batchwise"));

}  // namespace
}  // namespace onnx_legalize::testing
