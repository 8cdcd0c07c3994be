// Reading a tensor's elements as the type a kernel computes in, writing them back, and choosing that type
// from the tensor's: float16 is computed in float and rounded back to the nearest float16 (ties to even,
// Eigen::half's conversion), float in float, double in double, integers in themselves.
//
// Visit* call `fn(T{})` with the computing type T for the tensor's element type, and return fn's result (an
// absl::StatusOr), or Unimplemented naming the type when the kernel does not take it.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_NUMERIC_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_NUMERIC_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

inline bool IsFloating(DataType type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE || type == onnx::TensorProto::FLOAT16;
}

// The elements of `tensor` as T: float16 widened to float; any other type read as it is stored (the caller
// has checked that T is its type's computing type).
template <typename T>
std::vector<T> ReadAs(const Tensor& tensor) {
  const auto count = static_cast<size_t>(tensor.element_count());
  std::vector<T> values(count);
  if constexpr (std::is_same_v<T, float>) {
    if (tensor.type() == onnx::TensorProto::FLOAT16) {
      const char* bytes = tensor.bytes().data();
      for (size_t i = 0; i < count; ++i) {
        uint16_t bits;
        std::memcpy(&bits, bytes + 2 * i, 2);
        values[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
      }
      return values;
    }
  }
  if (count > 0) std::memcpy(values.data(), tensor.bytes().data(), count * sizeof(T));
  return values;
}

// A tensor of `type` and `dims` from values computed as T: float values rounded to float16 when `type` is
// float16.
template <typename T>
absl::StatusOr<Tensor> WriteAs(DataType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  std::string bytes;
  if constexpr (std::is_same_v<T, float>) {
    if (type == onnx::TensorProto::FLOAT16) {
      bytes.resize(values.size() * 2);
      for (size_t i = 0; i < values.size(); ++i) {
        const auto bits = Eigen::numext::bit_cast<uint16_t>(Eigen::half(values[i]));
        std::memcpy(bytes.data() + 2 * i, &bits, 2);
      }
      return Tensor::FromBytes(type, std::move(dims), std::move(bytes));
    }
  }
  bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return Tensor::FromBytes(type, std::move(dims), std::move(bytes));
}

inline absl::Status UnsupportedType(DataType type, absl::string_view what, absl::string_view supported) {
  return absl::UnimplementedError(
      absl::StrCat(what, " of type ", DataTypeName(type), " (the runner supports ", supported, ")"));
}

// float16, float, double.
template <typename Fn>
auto VisitFloating(DataType type, absl::string_view what, Fn&& fn) -> decltype(fn(float{})) {
  switch (type) {
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::FLOAT: return fn(float{});
    case onnx::TensorProto::DOUBLE: return fn(double{});
    default: return UnsupportedType(type, what, "float16, float, double");
  }
}

// The signed integers and the floating types.
template <typename Fn>
auto VisitSignedNumeric(DataType type, absl::string_view what, Fn&& fn) -> decltype(fn(float{})) {
  switch (type) {
    case onnx::TensorProto::INT8: return fn(int8_t{});
    case onnx::TensorProto::INT16: return fn(int16_t{});
    case onnx::TensorProto::INT32: return fn(int32_t{});
    case onnx::TensorProto::INT64: return fn(int64_t{});
    default:
      if (IsFloating(type)) return VisitFloating(type, what, std::forward<Fn>(fn));
      return UnsupportedType(type, what, "float16, float, double, int8, int16, int32, int64");
  }
}

// Every integer and floating type.
template <typename Fn>
auto VisitNumeric(DataType type, absl::string_view what, Fn&& fn) -> decltype(fn(float{})) {
  switch (type) {
    case onnx::TensorProto::UINT8: return fn(uint8_t{});
    case onnx::TensorProto::UINT16: return fn(uint16_t{});
    case onnx::TensorProto::UINT32: return fn(uint32_t{});
    case onnx::TensorProto::UINT64: return fn(uint64_t{});
    default:
      if (type == onnx::TensorProto::INT8 || type == onnx::TensorProto::INT16 || type == onnx::TensorProto::INT32 ||
          type == onnx::TensorProto::INT64 || IsFloating(type)) {
        return VisitSignedNumeric(type, what, std::forward<Fn>(fn));
      }
      return UnsupportedType(type, what, "float16, float, double and the integer types");
  }
}

// Integers wrap around (two's complement, as the runtimes do) instead of overflowing into undefined behavior.
template <typename T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
T WrappingSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
T WrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // uint16 * uint16 promotes to int and may overflow it; widen to the larger unsigned type first.
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_NUMERIC_H_
