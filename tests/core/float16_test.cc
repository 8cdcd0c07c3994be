// float16 to and from float, checked against Eigen::half's conversions (an implementation of its own) on
// every float16 value and on floats around every float16 rounding boundary, then on whole tensors.
#include "core/float16.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "Eigen/Core"
#include "gtest/gtest.h"

namespace onnx_legalize {
namespace {

uint32_t BitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float FloatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint16_t EigenHalf(float value) { return Eigen::numext::bit_cast<uint16_t>(Eigen::half(value)); }

TEST(Float16Test, EveryFloat16WidensExactlyAsEigenDoes) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float widened = Float16ToFloat(static_cast<uint16_t>(bits));
    const float eigen = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(bits)));
    if (std::isnan(eigen)) {
      EXPECT_TRUE(std::isnan(widened)) << std::hex << bits;
      EXPECT_EQ(std::signbit(widened), std::signbit(eigen)) << std::hex << bits;
    } else {
      EXPECT_EQ(BitsOf(widened), BitsOf(eigen)) << std::hex << bits;
    }
  }
}

TEST(Float16Test, EveryFiniteFloat16NarrowsBackToItself) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    if ((bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0) continue;  // NaN: below
    EXPECT_EQ(FloatToFloat16(Float16ToFloat(static_cast<uint16_t>(bits))), bits) << std::hex << bits;
  }
}

// Rounding to nearest, ties to even, decided at the midpoints between neighbouring float16 values: the
// midpoint itself and the floats just beside it, for every pair of neighbours (denormals, normals, and
// the step from 65504 to infinity), both signs.
TEST(Float16Test, NarrowingRoundsToNearestTiesToEvenAtEveryBoundary) {
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {
    const double low = Float16ToFloat(static_cast<uint16_t>(bits));
    // The next float16 up; past 65504 the step to infinity is taken at 65520 (65504 + half an ULP).
    const double high = bits + 1 == 0x7c00 ? 65536.0 : Float16ToFloat(static_cast<uint16_t>(bits + 1));
    const auto midpoint = static_cast<float>((low + high) / 2);
    for (int offset = -2; offset <= 2; ++offset) {
      const float value = FloatOf(BitsOf(midpoint) + static_cast<uint32_t>(offset));
      EXPECT_EQ(FloatToFloat16(value), EigenHalf(value)) << value;
      EXPECT_EQ(FloatToFloat16(-value), EigenHalf(-value)) << -value;
    }
  }
}

TEST(Float16Test, NarrowingMatchesEigenOnASweepOfAllFloats) {
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 251) {
    const float value = FloatOf(static_cast<uint32_t>(bits));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(Float16ToFloat(FloatToFloat16(value))));
      continue;
    }
    ASSERT_EQ(FloatToFloat16(value), EigenHalf(value)) << value;
  }
}

TEST(Float16Test, SpecialValues) {
  EXPECT_EQ(FloatToFloat16(65504.0f), 0x7bffu);
  EXPECT_EQ(FloatToFloat16(65519.996f), 0x7bffu);
  EXPECT_EQ(FloatToFloat16(65520.0f), 0x7c00u) << "the tie past the largest finite goes to infinity";
  EXPECT_EQ(FloatToFloat16(-INFINITY), 0xfc00u);
  EXPECT_EQ(FloatToFloat16(-0.0f), 0x8000u);
  EXPECT_EQ(FloatToFloat16(0x1p-25f), 0x0000u) << "half the least denormal: a tie, to even zero";
  EXPECT_EQ(FloatToFloat16(0x1.8p-25f), 0x0001u);
  EXPECT_EQ(FloatToFloat16(0x1p-14f), 0x0400u) << "the least normal";
  const uint16_t nan = FloatToFloat16(-NAN);
  EXPECT_EQ(nan & 0xfc00u, 0xfc00u);
  EXPECT_NE(nan & 0x3ffu, 0u) << "NaN stays NaN, not infinity";
}

TEST(Float16Test, TensorsWidenAndNarrowElementByElement) {
  const uint16_t halves[] = {0x3c00, 0xc000, 0x0001, 0x7c00};
  std::string bytes(sizeof halves, '\0');
  std::memcpy(bytes.data(), halves, sizeof halves);
  const Tensor half = Tensor::FromBytes(onnx::TensorProto::FLOAT16, {2, 2}, bytes).value();
  const Tensor widened = WidenFloat16(half);
  EXPECT_EQ(widened.type(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(widened.dims(), (std::vector<int64_t>{2, 2}));
  float values[4];
  std::memcpy(values, widened.bytes().data(), sizeof values);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_EQ(values[2], 0x1p-24f);
  EXPECT_EQ(values[3], INFINITY);
  EXPECT_TRUE(NarrowToFloat16(widened).BitwiseEquals(half));
}

}  // namespace
}  // namespace onnx_legalize
