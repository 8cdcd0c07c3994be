// Shape and data-movement ops, Pad, Upsample/Resize, reductions, ArgMax, TopK, Range (src/eval/kernels/
// shape_ops.cc, data_movement.cc, one_hot.cc, pad.cc, resize.cc, reduce.cc, range_topk.cc), each version as its opset
// says.
#include <limits>
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

const std::vector<float> kSix = {1, 2, 3, 4, 5, 6};

// Reshape-1 takes the shape as an attribute, Reshape-5 as input 1.
TEST(TensorOpsKernelTest, ReshapeTakesItsShapeAsItsOpsetSays) {
  const auto at1 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[2,3] x) => (float[3,2] y) { y = Reshape <shape = [3, -1]> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(at1, Feed("x", Floats({2, 3}, kSix))), "y", Floats({3, 2}, kSix)));
  const auto attribute_at5 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 5]>
    g (float[2,3] x, int64[2] s) => (float[3,2] y) { y = Reshape <shape = [3, -1]> (x, s) })");
  EXPECT_TRUE(FailsWith(RunModel(attribute_at5, Feed("x", Floats({2, 3}, kSix), "s", Int64s({2}, {3, -1}))),
                        StatusCode::kInvalidArgument, {"attribute 'shape'", "takes as input 1 instead"}));
}

// OneHot (one_hot.cc): the depth axis inserted where `axis` says; an index in [-depth, -1] counts from the back, at 9
// as at 11 (ONNX Runtime's reading); one beyond either end is off everywhere.
TEST(TensorOpsKernelTest, OneHotSetsThePositionOfEachIndex) {
  for (const char* opset : {"9", "11"}) {
    const auto model = ParseModel(absl::StrCat(R"(
      <ir_version: 4, opset_import: ["" : )",
                                               opset, R"(]>
      g (int64[4] i, int64 d, float[2] v) => (float[4,3] last, float[3,4] first) {
        last = OneHot(i, d, v)
        first = OneHot <axis = 0> (i, d, v)
      })")
                                      .c_str());
    const Results result =
        RunModel(model, Feed("i", Int64s({4}, {0, -1, 3, -4}), "d", Int64s({}, {3}), "v", Floats({2}, {-1, 5})));
    EXPECT_TRUE(OutputIs(result, "last", Floats({4, 3}, {5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1}))) << opset;
    EXPECT_TRUE(OutputIs(result, "first", Floats({3, 4}, {5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1}))) << opset;
  }
}

TEST(TensorOpsKernelTest, OneHotRefusesADepthBelowOneAndValuesThatAreNotTwo) {
  const auto model = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (int64[2] i, int64 d, float[N] v) => (float[2,M] y) { y = OneHot(i, d, v) })");
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("i", Int64s({2}, {0, 1}), "d", Int64s({}, {0}), "v", Floats({2}, {0, 1}))),
                        StatusCode::kInvalidArgument, {"depth is 0", "at least 1"}));
  EXPECT_TRUE(
      FailsWith(RunModel(model, Feed("i", Int64s({2}, {0, 1}), "d", Int64s({}, {2}), "v", Floats({3}, {0, 1, 2}))),
                StatusCode::kInvalidArgument, {"values is float[3]", "[off, on]"}));
}

TEST(TensorOpsKernelTest, TransposesFlattensAndConcatenates) {
  const auto model = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[2,3] x) => (float[3,2] t, float[2,3] f, float[2,6] c) {
      t = Transpose(x)
      f = Flatten(x)
      c = Concat(x, x)
    })");
  const Results result = RunModel(model, Feed("x", Floats({2, 3}, kSix)));
  EXPECT_TRUE(OutputIs(result, "t", Floats({3, 2}, {1, 4, 2, 5, 3, 6})));
  EXPECT_TRUE(OutputIs(result, "f", Floats({2, 3}, kSix)));
  // Concat-1's axis defaults to 1.
  EXPECT_TRUE(OutputIs(result, "c", Floats({2, 6}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6})));
}

TEST(TensorOpsKernelTest, SplitsByAttributeOrInput) {
  const auto at11 = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[2,3] x) => (float[2,1] a, float[2,2] b) { a, b = Split <axis = -1, split = [1, 2]> (x) })");
  const Results split = RunModel(at11, Feed("x", Floats({2, 3}, kSix)));
  EXPECT_TRUE(OutputIs(split, "a", Floats({2, 1}, {1, 4})));
  EXPECT_TRUE(OutputIs(split, "b", Floats({2, 2}, {2, 3, 5, 6})));
  const auto at13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2,1] a, float[2,2] b) { a, b = Split <axis = 1, split = [1, 2]> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(at13, Feed("x", Floats({2, 3}, kSix))), StatusCode::kInvalidArgument,
                        {"attribute 'split'", "takes as input 1 instead"}));
}

// Tile-1 repeats one axis `tiles` times; Tile-6 takes a count per axis.
TEST(TensorOpsKernelTest, TileRepeatsAsItsOpsetSays) {
  const auto at1 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[1,2] x, int64 n, int64 a) => (float[1,6] y) { y = Tile(x, n, a) })");
  Feeds feeds = Feed("x", Floats({1, 2}, {1, 2}), "n", Int64s({}, {3}));
  feeds.emplace("a", Int64s({}, {1}));
  EXPECT_TRUE(OutputIs(RunModel(at1, feeds), "y", Floats({1, 6}, {1, 2, 1, 2, 1, 2})));
  const auto at6 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[1,2] x, int64[2] r) => (float[2,4] y) { y = Tile(x, r) })");
  EXPECT_TRUE(OutputIs(RunModel(at6, Feed("x", Floats({1, 2}, {1, 2}), "r", Int64s({2}, {2, 2}))), "y",
                       Floats({2, 4}, {1, 2, 1, 2, 1, 2, 1, 2})));
}

// Pad-1's `paddings`, Pad-2's `pads`, Pad-11's input; reflect and edge modes.
TEST(TensorOpsKernelTest, PadsAsItsOpsetSays) {
  const auto at1 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[1,3] x) => (float[1,5] y) { y = Pad <paddings = [0, 1, 0, 1], value = 9.0> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(at1, Feed("x", Floats({1, 3}, {1, 2, 3}))), "y", Floats({1, 5}, {9, 1, 2, 3, 9})));
  const auto at2 = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 2]>
    g (float[1,3] x) => (float[1,7] y) { y = Pad <pads = [0, 2, 0, 2], mode = "reflect"> (x) })");
  EXPECT_TRUE(
      OutputIs(RunModel(at2, Feed("x", Floats({1, 3}, {1, 2, 3}))), "y", Floats({1, 7}, {3, 2, 1, 2, 3, 2, 1})));
  const auto at11 = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1,3] x, int64[N] p) => (float[1,6] y) { y = Pad <mode = "edge"> (x, p) })");
  EXPECT_TRUE(OutputIs(RunModel(at11, Feed("x", Floats({1, 3}, {1, 2, 3}), "p", Int64s({4}, {0, 2, 0, 1}))), "y",
                       Floats({1, 6}, {1, 1, 1, 2, 3, 3})));
  EXPECT_TRUE(FailsWith(RunModel(at11, Feed("x", Floats({1, 3}, {1, 2, 3}), "p", Int64s({2}, {0, 2}))),
                        StatusCode::kInvalidArgument, {"Pad producing 'y'", "pads [0,2] do not fit float[1,3]"}));
}

TEST(TensorOpsKernelTest, DepthToSpaceReadsTheDepthByMode) {
  constexpr char kModel[] = R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1,4,1,1] x) => (float[1,1,2,2] y) { y = DepthToSpace <blocksize = 2, mode = "MODE"> (x) })";
  auto with = [&](const std::string& mode) {
    std::string text = kModel;
    text.replace(text.find("MODE"), 4, mode);
    return ParseModel(text.c_str());
  };
  const Feeds x = Feed("x", Floats({1, 4, 1, 1}, {1, 2, 3, 4}));
  EXPECT_TRUE(OutputIs(RunModel(with("DCR"), x), "y", Floats({1, 1, 2, 2}, {1, 2, 3, 4})));
  EXPECT_TRUE(OutputIs(RunModel(with("CRD"), x), "y", Floats({1, 1, 2, 2}, {1, 2, 3, 4})));
  const Feeds two = Feed("x", Floats({1, 8, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8}));
  const auto dcr = ParseModel(R"(
    <ir_version: 6, opset_import: ["" : 11]>
    g (float[1,8,1,1] x) => (float[1,2,2,2] y) { y = DepthToSpace <blocksize = 2> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(dcr, two), "y", Floats({1, 2, 2, 2}, {1, 3, 5, 7, 2, 4, 6, 8})));
}

TEST(TensorOpsKernelTest, UpsampleRepeatsNearestAndResizeInterpolates) {
  const auto upsample = ParseModel(R"(
    <ir_version: 3, opset_import: ["" : 7]>
    g (float[1,1,1,2] x) => (float[1,1,2,4] y) { y = Upsample <scales = [1.0, 1.0, 2.0, 2.0]> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(upsample, Feed("x", Floats({1, 1, 1, 2}, {1, 2}))), "y",
                       Floats({1, 1, 2, 4}, {1, 1, 2, 2, 1, 1, 2, 2})));
  // half_pixel: output x maps to (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped to [0, 1].
  const auto resize = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,1,2] x, float[N] s) => (float[1,1,1,4] y) { y = Resize <mode = "linear"> (x, , s) })");
  EXPECT_TRUE(OutputIs(RunModel(resize, Feed("x", Floats({1, 1, 1, 2}, {1, 2}), "s", Floats({4}, {1, 1, 1, 2}))), "y",
                       Floats({1, 1, 1, 4}, {1, 1.25f, 1.75f, 2})));
  EXPECT_TRUE(FailsWith(RunModel(resize, Feed("x", Floats({1, 1, 1, 2}, {1, 2}), "s", Floats({3}, {1, 1, 2}))),
                        StatusCode::kInvalidArgument, {"scales has 3 values for float[1,1,1,2]"}));
}

// Cubic, asymmetric, W doubled: output x reads around x / 2 with Keys' weights at a = -0.75; at t = 0.5 they are
// -0.09375, 0.59375, 0.59375, -0.09375 (exact in float), and the taps past the edge read the edge.
constexpr char kCubicResize[] = R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,1,4] x) => (float[1,1,1,8] y) {
      s = Constant <value = float[4] {1.0, 1.0, 1.0, 2.0}> ()
      y = Resize <mode = "cubic", coordinate_transformation_mode = "asymmetric"EXTRA> (x, , s)
    })";

onnx::ModelProto CubicResize(const std::string& extra) {
  std::string text = kCubicResize;
  text.replace(text.find("EXTRA"), 5, extra);
  return ParseModel(text.c_str());
}

TEST(TensorOpsKernelTest, CubicResizeWeighsFourNeighboursByKeysKernel) {
  const Feeds x = Feed("x", Floats({1, 1, 1, 4}, {0, 1, 0, 0}));
  EXPECT_TRUE(OutputIs(RunModel(CubicResize(""), x), "y",
                       Floats({1, 1, 1, 8}, {0, 0.59375f, 1, 0.59375f, 0, -0.09375f, 0, 0})));
  // cubic_coeff_a = -0.5 at t = 0.5: -0.0625, 0.5625, 0.5625, -0.0625.
  EXPECT_TRUE(OutputIs(RunModel(CubicResize(", cubic_coeff_a = -0.5"), x), "y",
                       Floats({1, 1, 1, 8}, {0, 0.5625f, 1, 0.5625f, 0, -0.0625f, 0, 0})));
}

TEST(TensorOpsKernelTest, CubicResizeExcludeOutsideWeighsOnlyTheInputAndRenormalizes) {
  // Output 1 reads taps -1..2: tap -1 is outside, so the others are divided by their sum, 1.09375; output 5 reads
  // taps 1..4, tap 4 outside. Inside the input the weights sum to 1 and nothing changes.
  const Feeds x = Feed("x", Floats({1, 1, 1, 4}, {0, 1, 0, 0}));
  EXPECT_TRUE(OutputIs(RunModel(CubicResize(", exclude_outside = 1"), x), "y",
                       Floats({1, 1, 1, 8}, {0, 0.59375f / 1.09375f, 1, 0.59375f, 0, -0.09375f / 1.09375f, 0, 0})));
}

TEST(TensorOpsKernelTest, CubicResizeIsOnlyFromOpsetElevenAndOnlyOfFloats) {
  const auto resize10 = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (float[1,1,1,2] x, float[4] s) => (float[1,1,1,4] y) { y = Resize <mode = "cubic"> (x, s) })");
  EXPECT_TRUE(FailsWith(RunModel(resize10, Feed("x", Floats({1, 1, 1, 2}, {1, 2}), "s", Floats({4}, {1, 1, 1, 2}))),
                        StatusCode::kInvalidArgument, {"mode 'cubic' is Resize's only from opset 11"}));
  const auto upsample = ParseModel(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[1,1,1,2] x, float[4] s) => (float[1,1,1,4] y) { y = Upsample <mode = "cubic"> (x, s) })");
  EXPECT_TRUE(FailsWith(RunModel(upsample, Feed("x", Floats({1, 1, 1, 2}, {1, 2}), "s", Floats({4}, {1, 1, 1, 2}))),
                        StatusCode::kInvalidArgument, {"mode 'cubic'"}));
  const auto integers = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int32[1,1,1,2] x, float[4] s) => (int32[1,1,1,4] y) { y = Resize <mode = "cubic"> (x, , s) })");
  EXPECT_TRUE(FailsWith(RunModel(integers, Feed("x", Int32s({1, 1, 1, 2}, {1, 2}), "s", Floats({4}, {1, 1, 1, 2}))),
                        StatusCode::kUnimplemented, {"int32"}));
}

// tf_crop_and_resize: W's roi -0.2..1.3 of its last index 3 maps output x of 6 to -0.6 + 0.9 x; the first and last
// fall outside [0, 3] and take extrapolation_value.
TEST(TensorOpsKernelTest, CropAndResizeReadsTheRoiAndExtrapolatesOutsideTheInput) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,1,4] x) => (float[1,1,1,6] y) {
      roi = Constant <value = float[8] {0.0, 0.0, 0.0, -0.2, 1.0, 1.0, 1.0, 1.3}> ()
      z = Constant <value = int64[4] {1, 1, 1, 6}> ()
      y = Resize <mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize",
                  extrapolation_value = -7.5> (x, roi, , z)
    })");
  EXPECT_TRUE(OutputNear(RunModel(model, Feed("x", Floats({1, 1, 1, 4}, {0, 1, 2, 3}))), "y",
                         Floats({1, 1, 1, 6}, {-7.5f, 0.3f, 1.2f, 2.1f, 3.0f, -7.5f}), 1e-6f));
}

// The text crops every dim by its roi, also one whose size does not change (ONNX Runtime leaves such a dim as it
// is): H's roi 0.25..0.75 of two rows reads rows 0.25 and 0.75.
TEST(TensorOpsKernelTest, CropAndResizeCropsADimItDoesNotResize) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,2,1] x) => (float[1,1,2,1] y) {
      roi = Constant <value = float[8] {0.0, 0.0, 0.25, 0.0, 1.0, 1.0, 0.75, 1.0}> ()
      z = Constant <value = int64[4] {1, 1, 2, 1}> ()
      y = Resize <mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize"> (x, roi, , z)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1, 2, 1}, {0, 4}))), "y", Floats({1, 1, 2, 1}, {1, 3})));
  const auto short_roi = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,2,1] x) => (float[1,1,2,1] y) {
      roi = Constant <value = float[4] {0.0, 0.0, 1.0, 1.0}> ()
      z = Constant <value = int64[4] {1, 1, 2, 1}> ()
      y = Resize <mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize"> (x, roi, , z)
    })");
  EXPECT_TRUE(FailsWith(RunModel(short_roi, Feed("x", Floats({1, 1, 2, 1}, {0, 4}))), StatusCode::kInvalidArgument,
                        {"roi float[4] must hold a start and an end for each dim of float[1,1,2,1]"}));
}

// Dropout passes its input on and masks nothing in inference; in training mode it drops at random, which the runner
// does not draw, except at ratio 0, where training drops nothing and scales by 1.
TEST(TensorOpsKernelTest, DropoutIsIdentityInInferenceAndInTrainingAtRatioZero) {
  constexpr char kTraining[] = R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[3] x, float r, bool t) => (float[3] y, bool[3] mask) { y, mask = Dropout(x, r, t) })";
  const auto model = ParseModel(kTraining);
  auto feeds = [](float ratio, bool training) {
    Feeds feeds = Feed("x", Floats({3}, {1, -2, 3}), "r", Floats({}, {ratio}));
    feeds.emplace("t", Bools({}, {static_cast<uint8_t>(training)}));
    return feeds;
  };
  EXPECT_TRUE(OutputIs(RunModel(model, feeds(0.5f, false)), "y", Floats({3}, {1, -2, 3})));
  EXPECT_TRUE(OutputIs(RunModel(model, feeds(0.0f, true)), "y", Floats({3}, {1, -2, 3})));
  EXPECT_TRUE(OutputIs(RunModel(model, feeds(0.0f, true)), "mask", Bools({3}, {1, 1, 1})));
  EXPECT_TRUE(FailsWith(RunModel(model, feeds(0.5f, true)), StatusCode::kUnimplemented,
                        {"Dropout in training mode (ratio 0.5)"}));
}

// An empty dim has nothing to interpolate from: sizes that ask for more of it are refused, not read past the input.
TEST(TensorOpsKernelTest, ResizeRefusesToGrowAnEmptyDim) {
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    std::string text = R"(
      <ir_version: 7, opset_import: ["" : 13]>
      g (float[1,1,0,4] x) => (float[1,1,3,4] y) {
        z = Constant <value = int64[4] {1, 1, 3, 4}> ()
        y = Resize <mode = "MODE"> (x, , , z)
      })";
    text.replace(text.find("MODE"), 4, mode);
    EXPECT_TRUE(FailsWith(RunModel(ParseModel(text.c_str()), Feed("x", Floats({1, 1, 0, 4}, {}))),
                          StatusCode::kInvalidArgument,
                          {"dim 2 of float[1,1,0,4] is empty; it cannot be resized to 3"}))
        << mode;
  }
}

// ReduceSum-13 takes its axes as input 1; the other reductions keep the attribute.
TEST(TensorOpsKernelTest, ReducesOverTheAxesItsOpsetNames) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x, int64[1] a) => (float[2,1] sum, float[3] mean, float[1,1] max) {
      sum = ReduceSum(x, a)
      mean = ReduceMean <axes = [0], keepdims = 0> (x)
      max = ReduceMax(x)
    })");
  const Results result = RunModel(model, Feed("x", Floats({2, 3}, kSix), "a", Int64s({1}, {1})));
  EXPECT_TRUE(OutputIs(result, "sum", Floats({2, 1}, {6, 15})));
  EXPECT_TRUE(OutputIs(result, "mean", Floats({3}, {2.5f, 3.5f, 4.5f})));
  EXPECT_TRUE(OutputIs(result, "max", Floats({1, 1}, {6})));
}

// A scalar reduces to itself: every reduction of a rank-0 tensor is its one element, through the op's own step
// (ReduceL2 of -3 is 3, ReduceSumSquare 9, ReduceLogSumExp the element itself).
TEST(TensorOpsKernelTest, AScalarReducesToItsOneElement) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float x) => (float sum, float l2, float square, float log_sum_exp) {
      sum = ReduceSum(x)
      l2 = ReduceL2(x)
      square = ReduceSumSquare(x)
      log_sum_exp = ReduceLogSumExp(x)
    })");
  const Results result = RunModel(model, Feed("x", Floats({}, {-3})));
  EXPECT_TRUE(OutputIs(result, "sum", Floats({}, {-3})));
  EXPECT_TRUE(OutputIs(result, "l2", Floats({}, {3})));
  EXPECT_TRUE(OutputIs(result, "square", Floats({}, {9})));
  EXPECT_TRUE(OutputIs(result, "log_sum_exp", Floats({}, {-3})));
}

TEST(TensorOpsKernelTest, ArgMaxTopKAndRange) {
  const auto out_of_order = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[4] x, int64[1] k) => (int64[1] first, int64[1] last, float[2] v, int64[2] i, int64[3] r) {
      first = ArgMax(x)
      last = ArgMax <select_last_index = 1> (x)
      v, i = TopK(x, k)
      r = Range(a, b, c)
      a = Constant <value = int64 {5}> ()
      b = Constant <value = int64 {-1}> ()
      c = Constant <value = int64 {-2}> ()
    })");
  const auto ordered = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[4] x, int64[1] k) => (int64[1] first, int64[1] last, float[2] v, int64[2] i, int64[3] r) {
      first = ArgMax(x)
      last = ArgMax <select_last_index = 1> (x)
      v, i = TopK(x, k)
      a = Constant <value = int64 {5}> ()
      b = Constant <value = int64 {-1}> ()
      c = Constant <value = int64 {-2}> ()
      r = Range(a, b, c)
    })");
  const Results result = RunModel(ordered, Feed("x", Floats({4}, {3, 7, 1, 7}), "k", Int64s({1}, {2})));
  EXPECT_TRUE(OutputIs(result, "first", Int64s({1}, {1})));
  EXPECT_TRUE(OutputIs(result, "last", Int64s({1}, {3})));
  EXPECT_TRUE(OutputIs(result, "v", Floats({2}, {7, 7})));
  EXPECT_TRUE(OutputIs(result, "i", Int64s({2}, {1, 3})));
  EXPECT_TRUE(OutputIs(result, "r", Int64s({3}, {5, 3, 1})));
  // A node that reads a value only a later node makes is an error naming it (ONNX wants a topological order).
  EXPECT_TRUE(FailsWith(RunModel(out_of_order, Feed("x", Floats({4}, {3, 7, 1, 7}), "k", Int64s({1}, {2}))),
                        StatusCode::kInvalidArgument, {"Range producing 'r'", "input 'a' is not defined"}));
}

// ---- onnx 1.23's versions, opsets 18..28

// From opset 18 every reduction takes its axes as optional input 1, as ReduceSum-13 does; the attribute is gone.
TEST(TensorOpsKernelTest, ReductionsTakeTheirAxesAsInputFromOpset18) {
  const auto at18 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x, int64[1] a) => (float[2] mean, float[1,3] max, float[2,1] l1, float[1,1] all) {
      mean = ReduceMean <keepdims = 0> (x, a)
      z = Constant <value = int64[1] {-2}> ()
      max = ReduceMax(x, z)
      l1 = ReduceL1(x, a)
      all = ReduceProd(x)
    })");
  const Results result = RunModel(at18, Feed("x", Floats({2, 3}, kSix), "a", Int64s({1}, {1})));
  EXPECT_TRUE(OutputIs(result, "mean", Floats({2}, {2, 5})));
  EXPECT_TRUE(OutputIs(result, "max", Floats({1, 3}, {4, 5, 6})));
  EXPECT_TRUE(OutputIs(result, "l1", Floats({2, 1}, {6, 15})));
  EXPECT_TRUE(OutputIs(result, "all", Floats({1, 1}, {720})));
}

TEST(TensorOpsKernelTest, RejectsReductionAxesWhereTheirOpsetDoesNotHaveThem) {
  const auto attribute_at18 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,1] y) { y = ReduceMean <axes = [1]> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(attribute_at18, Feed("x", Floats({2, 3}, kSix))), StatusCode::kInvalidArgument,
                        {"attribute 'axes'", "ReduceMean at opset 18", "takes as input 1 instead"}));
  const auto input_at17 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x, int64[1] a) => (float[2,1] y) { y = ReduceMean(x, a) })");
  EXPECT_TRUE(FailsWith(RunModel(input_at17, Feed("x", Floats({2, 3}, kSix), "a", Int64s({1}, {1}))),
                        StatusCode::kInvalidArgument, {"has 2 inputs", "ReduceMean at opset 17 takes 1"}));
  const auto noop_at17 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[2,3] y) { y = ReduceMax <noop_with_empty_axes = 1> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(noop_at17, Feed("x", Floats({2, 3}, kSix))), StatusCode::kInvalidArgument,
                        {"attribute 'noop_with_empty_axes'", "ReduceMax at opset 17"}));
}

// noop_with_empty_axes: empty or absent axes reduce nothing, but the composite reductions keep their other steps
// (the text: ReduceSumSquare squares, ReduceLogSum takes the log). Without it, empty axes reduce everything.
TEST(TensorOpsKernelTest, NoopWithEmptyAxesReducesNothingButKeepsTheOtherSteps) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2] x, int64[0] e) => (float[2,2] mean, float[2,2] square, float[2,2] l2, float[1,1] all) {
      mean = ReduceMean <noop_with_empty_axes = 1> (x, e)
      square = ReduceSumSquare <noop_with_empty_axes = 1> (x)
      l2 = ReduceL2 <noop_with_empty_axes = 1> (x, e)
      all = ReduceMin(x, e)
    })");
  const Results result = RunModel(model, Feed("x", Floats({2, 2}, {-3, 2, 1, 4}), "e", Int64s({0}, {})));
  EXPECT_TRUE(OutputIs(result, "mean", Floats({2, 2}, {-3, 2, 1, 4})));
  EXPECT_TRUE(OutputIs(result, "square", Floats({2, 2}, {9, 4, 1, 16})));
  EXPECT_TRUE(OutputIs(result, "l2", Floats({2, 2}, {3, 2, 1, 4})));
  EXPECT_TRUE(OutputIs(result, "all", Floats({1, 1}, {-3})));
}

// ReduceMax-20 and ReduceMin-20 take bool: any and all. Before opset 20 bool is not theirs.
TEST(TensorOpsKernelTest, ReduceMaxAndMinTakeBoolFromOpset20) {
  const auto at20 = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 20]>
    g (bool[2,3] x, int64[1] a) => (bool[2] any, bool[2] all) {
      any = ReduceMax <keepdims = 0> (x, a)
      all = ReduceMin <keepdims = 0> (x, a)
    })");
  const Feeds feeds = Feed("x", Bools({2, 3}, {0, 1, 0, 1, 1, 1}), "a", Int64s({1}, {1}));
  const Results result = RunModel(at20, feeds);
  EXPECT_TRUE(OutputIs(result, "any", Bools({2}, {1, 1})));
  EXPECT_TRUE(OutputIs(result, "all", Bools({2}, {0, 1})));
  const auto at19 = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (bool[2,3] x, int64[1] a) => (bool[2] any) { any = ReduceMax <keepdims = 0> (x, a) })");
  EXPECT_TRUE(FailsWith(RunModel(at19, feeds), StatusCode::kUnimplemented, {"bool"}));
}

// An empty set reduces to ReduceMax's -inf and ReduceMin's +inf (ReduceMax-18 defines it; ONNX Runtime computes
// it so at every opset), and bool's max to false.
TEST(TensorOpsKernelTest, ReduceMaxAndMinOfAnEmptySetAreTheirInitialValues) {
  const auto model = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 20]>
    g (float[2,0,2] x, bool[2,0] b, int64[1] a) => (float[2,2] max, float[2,2] min, bool[2] any) {
      max = ReduceMax <keepdims = 0> (x, a)
      min = ReduceMin <keepdims = 0> (x, a)
      any = ReduceMax <keepdims = 0> (b, a)
    })");
  Feeds feeds = Feed("x", Floats({2, 0, 2}, {}), "b", Bools({2, 0}, {}));
  feeds.emplace("a", Int64s({1}, {1}));
  const Results result = RunModel(model, feeds);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(OutputIs(result, "max", Floats({2, 2}, {-inf, -inf, -inf, -inf})));
  EXPECT_TRUE(OutputIs(result, "min", Floats({2, 2}, {inf, inf, inf, inf})));
  EXPECT_TRUE(OutputIs(result, "any", Bools({2}, {0, 0})));
}

// Pad-18's axes input names the dims the pads are for (negative from the back); the others are not padded.
TEST(TensorOpsKernelTest, PadsOnlyTheAxesItIsGivenFromOpset18) {
  const auto at18 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x, int64[2] p, int32[1] a) => (float[2,5] y) { y = Pad(x, p, , a) })");
  auto feeds = [] { return Feed("x", Floats({2, 3}, kSix), "p", Int64s({2}, {1, 1}), "a", Int32s({1}, {-1})); };
  EXPECT_TRUE(OutputIs(RunModel(at18, feeds()), "y", Floats({2, 5}, {0, 1, 2, 3, 0, 0, 4, 5, 6, 0})));
  const auto at17 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x, int64[2] p, int32[1] a) => (float[2,5] y) { y = Pad(x, p, , a) })");
  EXPECT_TRUE(FailsWith(RunModel(at17, feeds()), StatusCode::kInvalidArgument, {"has 4 inputs", "Pad at opset 17"}));
  const auto repeated = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x, int64[4] p, int32[2] a) => (float[2,5] y) { y = Pad(x, p, , a) })");
  EXPECT_TRUE(FailsWith(
      RunModel(repeated, Feed("x", Floats({2, 3}, kSix), "p", Int64s({4}, {1, 1, 1, 1}), "a", Int32s({2}, {1, -1}))),
      StatusCode::kInvalidArgument, {"axes 1 appears twice"}));
}

// Pad-19's wrap reads the data as a torus: the rows before come from the end, the columns after from the start
// (the text's example 4). A negative pad removes before it wraps. Before opset 19 the mode does not exist.
TEST(TensorOpsKernelTest, PadWrapsAroundFromOpset19) {
  const auto at19 = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[3,2] x, int64[4] p) => (float[6,4] y) { y = Pad <mode = "wrap"> (x, p) })");
  const Tensor x = Floats({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  EXPECT_TRUE(OutputIs(RunModel(at19, Feed("x", x.Clone(), "p", Int64s({4}, {2, 1, 1, 1}))), "y",
                       Floats({6, 4}, {3.4f, 2.3f, 3.4f, 2.3f, 5.7f, 4.5f, 5.7f, 4.5f, 1.2f, 1.0f, 1.2f, 1.0f,
                                       3.4f, 2.3f, 3.4f, 2.3f, 5.7f, 4.5f, 5.7f, 4.5f, 1.2f, 1.0f, 1.2f, 1.0f})));
  // Rows: the first is removed, then [2.3, 4.5] wraps to 4.5 2.3 4.5 2.3 (2 before, 1 after).
  const auto cropped = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[3,2] x, int64[4] p) => (float[4,1] y) { y = Pad <mode = "wrap"> (x, p) })");
  EXPECT_TRUE(OutputIs(RunModel(cropped, Feed("x", x.Clone(), "p", Int64s({4}, {-1, 0, 2, -1}))), "y",
                       Floats({4, 1}, {2.3f, 4.5f, 2.3f, 4.5f})));
  const auto at18 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2] x, int64[4] p) => (float[6,4] y) { y = Pad <mode = "wrap"> (x, p) })");
  EXPECT_TRUE(FailsWith(RunModel(at18, Feed("x", x.Clone(), "p", Int64s({4}, {2, 1, 1, 1}))),
                        StatusCode::kInvalidArgument, {"mode 'wrap'", "opset 19"}));
}

// Split-18's num_outputs: equal parts, or parts of ceil(dim / n) and a smaller last one.
TEST(TensorOpsKernelTest, SplitsIntoNumOutputsFromOpset18) {
  const auto even = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6] x) => (float[3] a, float[3] b) { a, b = Split <num_outputs = 2> (x) })");
  const Results halves = RunModel(even, Feed("x", Floats({6}, kSix)));
  EXPECT_TRUE(OutputIs(halves, "a", Floats({3}, {1, 2, 3})));
  EXPECT_TRUE(OutputIs(halves, "b", Floats({3}, {4, 5, 6})));
  const auto uneven = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] x) => (float[2,2] a, float[2,1] b) { a, b = Split <axis = 1, num_outputs = 2> (x) })");
  const Results parts = RunModel(uneven, Feed("x", Floats({2, 3}, kSix)));
  EXPECT_TRUE(OutputIs(parts, "a", Floats({2, 2}, {1, 2, 4, 5})));
  EXPECT_TRUE(OutputIs(parts, "b", Floats({2, 1}, {3, 6})));
}

TEST(TensorOpsKernelTest, RejectsSplitsThatSplit18DoesNotDefine) {
  const Feeds x = Feed("x", Floats({5}, {1, 2, 3, 4, 5}));
  // 5 into 4: parts of 2 leave -1 for the last.
  const auto too_many = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] x) => (float[2] a, float[2] b, float[2] c, float[2] d) { a, b, c, d = Split <num_outputs = 4> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(too_many, x), StatusCode::kInvalidArgument, {"does not split into 4"}));
  const auto neither = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] x) => (float[5] a) { a = Split(x) })");
  EXPECT_TRUE(FailsWith(RunModel(neither, x), StatusCode::kInvalidArgument, {"exactly one", "num_outputs"}));
  const auto both = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] x, int64[2] s) => (float[2] a, float[3] b) { a, b = Split <num_outputs = 2> (x, s) })");
  EXPECT_TRUE(FailsWith(RunModel(both, Feed("x", Floats({5}, {1, 2, 3, 4, 5}), "s", Int64s({2}, {2, 3}))),
                        StatusCode::kInvalidArgument, {"exactly one"}));
  const auto mismatched = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] x) => (float[5] a) { a = Split <num_outputs = 2> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(mismatched, x), StatusCode::kInvalidArgument, {"num_outputs 2", "1 outputs"}));
  const auto at17 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[6] x) => (float[3] a, float[3] b) { a, b = Split <num_outputs = 2> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(at17, Feed("x", Floats({6}, kSix))), StatusCode::kInvalidArgument,
                        {"attribute 'num_outputs'", "Split at opset 17"}));
}

// SpaceToDepth-28's mode: DCR, the default, is the order SpaceToDepth always had ([b, b, C] depth); CRD writes
// [C, b, b], and undoes DepthToSpace's CRD. Before opset 28 there is no mode.
TEST(TensorOpsKernelTest, SpaceToDepthTakesAModeFromOpset28) {
  // Two channels of 2x2: channel 0 is 1..4, channel 1 is 5..8; one block each.
  const Feeds x = Feed("x", Floats({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
  const auto model = ParseModel(R"(
    <ir_version: 13, opset_import: ["" : 28]>
    g (float[1,2,2,2] x) => (float[1,8,1,1] dcr, float[1,8,1,1] crd, float[1,2,2,2] back) {
      dcr = SpaceToDepth <blocksize = 2> (x)
      crd = SpaceToDepth <blocksize = 2, mode = "CRD"> (x)
      back = DepthToSpace <blocksize = 2, mode = "CRD"> (crd)
    })");
  const Results result = RunModel(model, x);
  EXPECT_TRUE(OutputIs(result, "dcr", Floats({1, 8, 1, 1}, {1, 5, 2, 6, 3, 7, 4, 8})));
  EXPECT_TRUE(OutputIs(result, "crd", Floats({1, 8, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8})));
  EXPECT_TRUE(OutputIs(result, "back", Floats({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})));
  const auto at13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,2,2,2] x) => (float[1,8,1,1] y) { y = SpaceToDepth <blocksize = 2> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(at13, x), "y", Floats({1, 8, 1, 1}, {1, 5, 2, 6, 3, 7, 4, 8})));
  const auto mode_at13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,2,2,2] x) => (float[1,8,1,1] y) { y = SpaceToDepth <blocksize = 2, mode = "DCR"> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(mode_at13, x), StatusCode::kInvalidArgument,
                        {"attribute 'mode'", "SpaceToDepth at opset 13"}));
}

// Range-27 takes float16, computed in stash_type's float (default) or double and rounded to float16 once;
// stash_type is float or double only. Before opset 27 there is neither float16 nor stash_type.
TEST(TensorOpsKernelTest, RangeTakesFloat16FromOpset27) {
  constexpr char kModel[] = R"(
    <ir_version: 13, opset_import: ["" : 27]>
    g (float16 a, float16 b, float16 c) => (float16[3] y) { y = Range <stash_type = STASH> (a, b, c) })";
  auto with = [&](const std::string& stash) {
    std::string text = kModel;
    text.replace(text.find("STASH"), 5, stash);
    return ParseModel(text.c_str());
  };
  auto feeds = [] { return Feed("a", Halves({}, {2046}), "b", Halves({}, {2052}), "c", Halves({}, {2})); };
  EXPECT_TRUE(OutputIs(RunModel(with("1"), feeds()), "y", Halves({3}, {2046, 2048, 2050})));
  EXPECT_TRUE(OutputIs(RunModel(with("11"), feeds()), "y", Halves({3}, {2046, 2048, 2050})));
  EXPECT_TRUE(FailsWith(RunModel(with("10"), feeds()), StatusCode::kInvalidArgument, {"stash_type 10"}));
  const auto float16_at26 = ParseModel(R"(
    <ir_version: 13, opset_import: ["" : 26]>
    g (float16 a, float16 b, float16 c) => (float16[3] y) { y = Range(a, b, c) })");
  EXPECT_TRUE(FailsWith(RunModel(float16_at26, feeds()), StatusCode::kInvalidArgument, {"float16 only from opset 27"}));
  const auto stash_at26 = ParseModel(R"(
    <ir_version: 13, opset_import: ["" : 26]>
    g (float a, float b, float c) => (float[3] y) { y = Range <stash_type = 1> (a, b, c) })");
  EXPECT_TRUE(FailsWith(RunModel(stash_at26, Feed("a", Floats({}, {0}), "b", Floats({}, {3}), "c", Floats({}, {1}))),
                        StatusCode::kInvalidArgument, {"attribute 'stash_type'", "Range at opset 26"}));
}

// Equal-19 compares strings, byte for byte.
TEST(TensorOpsKernelTest, EqualComparesStringsFromOpset19) {
  auto strings = [](std::vector<int64_t> dims, std::vector<std::string> values) {
    return Tensor::FromStrings(std::move(dims), std::move(values)).value();
  };
  const auto at19 = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (string[3] a, string[1] b) => (bool[3] y) { y = Equal(a, b) })");
  auto feeds = [&] { return Feed("a", strings({3}, {"cat", "Cat", "cat"}), "b", strings({1}, {"cat"})); };
  EXPECT_TRUE(OutputIs(RunModel(at19, feeds()), "y", Bools({3}, {1, 0, 1})));
  const auto at13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (string[3] a, string[1] b) => (bool[3] y) { y = Equal(a, b) })");
  EXPECT_TRUE(FailsWith(RunModel(at13, feeds()), StatusCode::kUnimplemented, {"string"}));
}

// Cast-19's saturate and Cast-24's round_mode apply to float8 targets only, which the runner has no type for:
// taken where they exist, refused before.
TEST(TensorOpsKernelTest, CastTakesSaturateFromOpset19Only) {
  const auto at19 = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[2] x) => (float16[2] y) { y = Cast <to = 10, saturate = 0> (x) })");
  EXPECT_TRUE(OutputIs(RunModel(at19, Feed("x", Floats({2}, {1.5f, -2}))), "y", Halves({2}, {1.5f, -2})));
  const auto at13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2] x) => (float16[2] y) { y = Cast <to = 10, saturate = 0> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(at13, Feed("x", Floats({2}, {1.5f, -2}))), StatusCode::kInvalidArgument,
                        {"attribute 'saturate'", "Cast at opset 13"}));
  const auto round_mode_at23 = ParseModel(R"(
    <ir_version: 11, opset_import: ["" : 23]>
    g (float[2] x) => (float16[2] y) { y = Cast <to = 10, round_mode = "up"> (x) })");
  EXPECT_TRUE(FailsWith(RunModel(round_mode_at23, Feed("x", Floats({2}, {1.5f, -2}))), StatusCode::kInvalidArgument,
                        {"attribute 'round_mode'", "Cast at opset 23"}));
}

// Resize-18's axes: scales (or sizes, or roi) for the named dims only, the others kept.
TEST(TensorOpsKernelTest, ResizesOnlyTheAxesItIsGivenFromOpset18) {
  const auto at18 = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,2,2] x, float[1] s) => (float[1,1,2,4] y) {
      y = Resize <mode = "nearest", axes = [-1], coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"> (x, , s)
    })");
  const Feeds feeds = Feed("x", Floats({1, 1, 2, 2}, {1, 2, 3, 4}), "s", Floats({1}, {2}));
  EXPECT_TRUE(OutputIs(RunModel(at18, feeds), "y", Floats({1, 1, 2, 4}, {1, 1, 2, 2, 3, 3, 4, 4})));
  const auto at13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[1,1,2,2] x, float[1] s) => (float[1,1,2,4] y) { y = Resize <axes = [3]> (x, , s) })");
  EXPECT_TRUE(
      FailsWith(RunModel(at13, feeds), StatusCode::kInvalidArgument, {"attribute 'axes'", "Resize at opset 13"}));
}

// keep_aspect_ratio_policy not_larger: one scale for every resized dim, the least of sizes / in (here 3/2 of
// W's 4 -> 6 and 4/2 of H's: 1.5), and H becomes round(1.5 * 2) = 3, not 4.
TEST(TensorOpsKernelTest, KeepsTheAspectRatioTheNodeAsksFor) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,2,4] x, int64[2] z) => (float[1,1,3,6] y) {
      y = Resize <mode = "nearest", axes = [2, 3], keep_aspect_ratio_policy = "not_larger"> (x, , , z)
    })");
  const Results result =
      RunModel(model, Feed("x", Floats({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), "z", Int64s({2}, {4, 6})));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->at("y").dims(), (std::vector<int64_t>{1, 1, 3, 6}));
  const auto with_scales = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,2,4] x, float[4] s) => (float[1,1,4,8] y) {
      y = Resize <keep_aspect_ratio_policy = "not_smaller"> (x, , s)
    })");
  EXPECT_TRUE(FailsWith(
      RunModel(with_scales, Feed("x", Floats({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), "s", Floats({4}, {1, 1, 2, 2}))),
      StatusCode::kInvalidArgument, {"applies to sizes"}));
}

// antialias changes linear and cubic downscaling, which the runner does not implement: refused by name.
TEST(TensorOpsKernelTest, RefusesAntialias) {
  const auto model = ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,2,4] x, float[4] s) => (float[1,1,1,2] y) { y = Resize <mode = "linear", antialias = 1> (x, , s) })");
  EXPECT_TRUE(FailsWith(
      RunModel(model, Feed("x", Floats({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), "s", Floats({4}, {1, 1, 0.5f, 0.5f}))),
      StatusCode::kUnimplemented, {"attribute 'antialias' = 1"}));
}

// Resize-19's half_pixel_symmetric: half_pixel shifted so that the centers meet when in * scale is not whole.
// W: 4 * 0.6 = 2.4 -> 2 outputs; adjustment 2 / 2.4, offset 2 * (1 - 5/6) = 1/3; x = 1/3 + (o + 0.5) / 0.6 - 0.5,
// 0.667 and 2.333 for o = 0, 1: nearest (round_prefer_floor) reads 1 and 2, where half_pixel (0.333, 2) reads 0
// and 2. Before opset 19 the mode does not exist.
TEST(TensorOpsKernelTest, HalfPixelSymmetricFromOpset19) {
  constexpr char kModel[] = R"(
    <ir_version: 9, opset_import: ["" : OPSET]>
    g (float[1,4] x, float[2] s) => (float[1,2] y) { y = Resize <coordinate_transformation_mode = "MODE"> (x, , s) })";
  auto at = [&](const std::string& opset, const std::string& mode) {
    std::string text = kModel;
    text.replace(text.find("OPSET"), 5, opset);
    text.replace(text.find("MODE"), 4, mode);
    return ParseModel(text.c_str());
  };
  const Feeds feeds = Feed("x", Floats({1, 4}, {10, 20, 30, 40}), "s", Floats({2}, {1, 0.6f}));
  EXPECT_TRUE(OutputIs(RunModel(at("19", "half_pixel_symmetric"), feeds), "y", Floats({1, 2}, {20, 30})));
  EXPECT_TRUE(OutputIs(RunModel(at("19", "half_pixel"), feeds), "y", Floats({1, 2}, {10, 30})));
  EXPECT_TRUE(FailsWith(RunModel(at("18", "half_pixel_symmetric"), feeds), StatusCode::kInvalidArgument,
                        {"half_pixel_symmetric", "opset 19"}));
}

}  // namespace
}  // namespace onnx_legalize::testing
