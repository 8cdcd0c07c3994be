// IEEE 754 binary16 (ONNX's float16) to and from float, and whole tensors between the two types.
//
// The removed ops never had float16 kernels of their own in the reference runtime; Windows ML ran its fp16
// legacy models by computing in float. So float16 data is widened to float (exact), computed in float, and
// rounded back once to the nearest float16, ties to even (what a Cast to float16 does in every runtime,
// ONNX Runtime's included): rules/float16_in_float.h.
#ifndef ONNX_LEGALIZE_SRC_CORE_FLOAT16_H_
#define ONNX_LEGALIZE_SRC_CORE_FLOAT16_H_

#include <cstdint>

#include "core/tensor.h"

namespace onnx_legalize {

// The float a float16 holds: exact for every value, NaN stays NaN (sign and payload's top bits kept).
float Float16ToFloat(uint16_t bits);

// The nearest float16, ties to even; past the largest finite float16 (65504) rounds to infinity as IEEE
// rounding says; NaN stays a (quiet) NaN with its sign.
uint16_t FloatToFloat16(float value);

// A float tensor of `tensor`'s dims holding its float16 values, and the reverse (rounded as above).
Tensor WidenFloat16(const Tensor& tensor);
Tensor NarrowToFloat16(const Tensor& tensor);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_CORE_FLOAT16_H_
