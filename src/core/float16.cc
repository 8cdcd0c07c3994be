#include "core/float16.h"

#include <cstring>
#include <string>
#include <utility>

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

}  // namespace

float Float16ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return FloatOf(sign | 0x7f800000u | (mantissa << 13));            // infinity or NaN
  if (exponent != 0) return FloatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));  // 127 - 15 = 112
  // Zero or a denormal: mantissa * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
  return FloatOf(sign | BitsOf(magnitude));
}

uint16_t FloatToFloat16(float value) {
  const uint32_t bits = BitsOf(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {  // NaN: quiet, with the payload's top bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  // 65520 = 65504 + half an ULP of the largest float16: from there on (ties go to the even, infinity).
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) {  // 2^-14 and up: a normal float16
    // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest, ties to even; a
    // carry out of the mantissa moves into the exponent, which is the right result.
    const uint32_t rebiased = magnitude - (uint32_t{112} << 23);
    const uint32_t odd = (rebiased >> 13) & 1u;
    return static_cast<uint16_t>(sign | ((rebiased + 0xfffu + odd) >> 13));
  }
  // Below 2^-14: a denormal float16 (or zero), a multiple of 2^-24. Adding 0.5 makes the float's own
  // rounding (to nearest, ties to even) drop exactly the bits below 2^-24.
  const float shifted = FloatOf(magnitude) + 0.5f;
  return static_cast<uint16_t>(sign | (BitsOf(shifted) - BitsOf(0.5f)));
}

Tensor WidenFloat16(const Tensor& tensor) {
  const auto count = static_cast<size_t>(tensor.element_count());
  std::string bytes(count * sizeof(float), '\0');
  const char* in = tensor.bytes().data();
  for (size_t i = 0; i < count; ++i) {
    uint16_t half;
    std::memcpy(&half, in + 2 * i, sizeof half);
    const float value = Float16ToFloat(half);
    std::memcpy(bytes.data() + 4 * i, &value, sizeof value);
  }
  return Tensor::FromBytes(onnx::TensorProto::FLOAT, tensor.dims(), std::move(bytes)).value();
}

Tensor NarrowToFloat16(const Tensor& tensor) {
  const auto count = static_cast<size_t>(tensor.element_count());
  std::string bytes(count * sizeof(uint16_t), '\0');
  const char* in = tensor.bytes().data();
  for (size_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, in + 4 * i, sizeof value);
    const uint16_t half = FloatToFloat16(value);
    std::memcpy(bytes.data() + 2 * i, &half, sizeof half);
  }
  return Tensor::FromBytes(onnx::TensorProto::FLOAT16, tensor.dims(), std::move(bytes)).value();
}

}  // namespace onnx_legalize
