// QuantizeLinear and DequantizeLinear (src/eval/kernels/quantize.cc): per tensor, per axis and blocked, rounding
// ties to even, saturation, and the refusals of what the runner does not hold or the op text leaves undefined.
#include <cstdint>
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
using ::onnx::TensorProto;

Tensor Uint8s(std::vector<int64_t> dims, const std::vector<uint8_t>& values) {
  return Make(TensorProto::UINT8, std::move(dims), values);
}
Tensor Int8s(std::vector<int64_t> dims, const std::vector<int8_t>& values) {
  return Make(TensorProto::INT8, std::move(dims), values);
}
Tensor Int16s(std::vector<int64_t> dims, const std::vector<int16_t>& values) {
  return Make(TensorProto::INT16, std::move(dims), values);
}

TEST(QuantizeKernelTest, QuantizeLinearRoundsTiesToEvenAddsTheZeroPointAndSaturates) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (float[8] x) => (uint8[8] y) {
      scale = Constant <value = float {0.5}> ()
      zero = Constant <value = uint8 {10}> ()
      y = QuantizeLinear(x, scale, zero)
    })");
  // 0.25 / 0.5 = 0.5 -> 0, 0.75 / 0.5 = 1.5 -> 2, 1.25 / 0.5 = 2.5 -> 2: ties go to the even integer.
  const Tensor x = Floats({8}, {0.25F, 0.75F, 1.25F, -1.0F, -100.0F, 1000.0F, std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity()});
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", x.Clone())), "y", Uint8s({8}, {10, 12, 12, 8, 0, 255, 255, 0})));
}

TEST(QuantizeKernelTest, QuantizeLinearWithoutAZeroPointGivesUint8) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (float[3] x, float scale) => (uint8[3] y) { y = QuantizeLinear(x, scale) })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({3}, {-3, 3, 600}), "scale", Floats({}, {2}))), "y",
                       Uint8s({3}, {0, 2, 255})));
}

TEST(QuantizeKernelTest, QuantizeLinearPerAxisTakesEachChannelsScaleAndZeroPoint) {
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x) => (int8[2,3] y) {
      scale = Constant <value = float[3] {1, 2, 4}> ()
      zero = Constant <value = int8[3] {0, -1, 100}> ()
      y = QuantizeLinear <axis = -1> (x, scale, zero)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({2, 3}, {1, 2, 4, -200, 8, 200}))), "y",
                       Int8s({2, 3}, {1, 0, 101, -128, 3, 127})));
}

TEST(QuantizeKernelTest, BlockedQuantizationRepeatsEachScaleOverItsBlock) {
  const auto model = ParseModel(R"(
    <ir_version: 10, opset_import: ["" : 21]>
    g (int16[2,5] x) => (float[2,5] y) {
      scale = Constant <value = float[2,3] {1, 10, 100, 2, 20, 200}> ()
      y = DequantizeLinear <axis = 1, block_size = 2> (x, scale)
    })");
  // Columns 0-1 take the first scale of their row, 2-3 the second, 4 the third (a last block of one).
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Int16s({2, 5}, {1, 2, 3, 4, 5, -1, -2, -3, -4, -5}))), "y",
                       Floats({2, 5}, {1, 2, 30, 40, 500, -2, -4, -60, -80, -1000})));
}

TEST(QuantizeKernelTest, DequantizeLinearSubtractsTheZeroPointAsIntegersThenScales) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (uint8[4] x) => (float[4] y) {
      scale = Constant <value = float {0.1}> ()
      zero = Constant <value = uint8 {128}> ()
      y = DequantizeLinear(x, scale, zero)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Uint8s({4}, {0, 128, 129, 255}))), "y",
                       Floats({4}, {-128 * 0.1F, 0, 0.1F, 127 * 0.1F})));
}

TEST(QuantizeKernelTest, DequantizeLinearOfInt32TakesNoZeroPointButZero) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (int32[2] x, int32 zero) => (float[2] y) {
      scale = Constant <value = float {2}> ()
      y = DequantizeLinear(x, scale, zero)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Int32s({2}, {-7, 1 << 20}), "zero", Int32s({}, {0}))), "y",
                       Floats({2}, {-14, 2 << 20})));
  EXPECT_TRUE(FailsWith(RunModel(model, Feed("x", Int32s({2}, {1, 2}), "zero", Int32s({}, {3}))),
                        StatusCode::kInvalidArgument, {"int32", "zero point holds 3, not 0"}));
}

TEST(QuantizeKernelTest, RefusesNaNWhoseQuantizationIsUndefined) {
  const auto model = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (float[2] x, float scale) => (uint8[2] y) { y = QuantizeLinear(x, scale) })");
  EXPECT_TRUE(FailsWith(
      RunModel(model, Feed("x", Floats({2}, {1, std::numeric_limits<float>::quiet_NaN()}), "scale", Floats({}, {1}))),
      StatusCode::kInvalidArgument, {"x[1] / scale is NaN", "undefined"}));
}

TEST(QuantizeKernelTest, RefusesAPerAxisScaleBeforeOpset13AndAScaleThatFitsNoAxis) {
  const auto opset10 = ParseModel(R"(
    <ir_version: 5, opset_import: ["" : 10]>
    g (float[2,3] x, float[3] scale) => (uint8[2,3] y) { y = QuantizeLinear(x, scale) })");
  const Feeds feeds = Feed("x", Floats({2, 3}, {1, 2, 3, 4, 5, 6}), "scale", Floats({3}, {1, 1, 1}));
  EXPECT_TRUE(FailsWith(RunModel(opset10, Feed("x", feeds.at("x").Clone(), "scale", feeds.at("scale").Clone())),
                        StatusCode::kInvalidArgument, {"not a scalar", "before opset 13"}));
  const auto opset13 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (float[2,3] x, float[3] scale) => (uint8[2,3] y) { y = QuantizeLinear <axis = 0> (x, scale) })");
  EXPECT_TRUE(FailsWith(RunModel(opset13, Feed("x", feeds.at("x").Clone(), "scale", feeds.at("scale").Clone())),
                        StatusCode::kInvalidArgument, {"y_scale is float[3]", "1-D of x's dim at axis 0"}));
}

TEST(QuantizeKernelTest, RefusesTypesTheRunnerDoesNotHold) {
  const auto float16_scale = ParseModel(R"(
    <ir_version: 9, opset_import: ["" : 19]>
    g (int8[2] x, float16 scale) => (float16[2] y) { y = DequantizeLinear(x, scale) })");
  EXPECT_TRUE(FailsWith(RunModel(float16_scale, Feed("x", Int8s({2}, {1, 2}), "scale", Halves({}, {1}))),
                        StatusCode::kUnimplemented, {"x_scale of type float16", "supports float"}));
  const auto int16_before_21 = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13]>
    g (int16[2] x, float scale) => (float[2] y) { y = DequantizeLinear(x, scale) })");
  EXPECT_TRUE(FailsWith(RunModel(int16_before_21, Feed("x", Int16s({2}, {1, 2}), "scale", Floats({}, {1}))),
                        StatusCode::kUnimplemented, {"x of type int16", "int8, uint8, int32"}));
}

}  // namespace
}  // namespace onnx_legalize::testing
