// Reading a tensor's elements as the type a kernel computes in, writing them back, and choosing that type
// from the tensor's: float16 is computed in float and rounded back to the nearest float16 (ties to even,
// Eigen::half's conversion), float in float, double in double, integers in themselves.
//
// Visit* call `fn(T{})` with the computing type T for the tensor's element type, and return fn's result (an
// absl::StatusOr), or Unimplemented naming the type when the kernel does not take it.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_NUMERIC_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_NUMERIC_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
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

// `count` floats rounded to float16 (ties to even), their little-endian bits written to `bytes`.
inline void NarrowIntoFloat16(const float* values, size_t count, char* bytes) {
  for (size_t i = 0; i < count; ++i) {
    const auto bits = Eigen::numext::bit_cast<uint16_t>(Eigen::half(values[i]));
    std::memcpy(bytes + 2 * i, &bits, 2);
  }
}

// A tensor of `type` and `dims` from values computed as T: float values rounded to float16 when `type` is
// float16.
template <typename T>
absl::StatusOr<Tensor> WriteAs(DataType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  std::string bytes;
  if constexpr (std::is_same_v<T, float>) {
    if (type == onnx::TensorProto::FLOAT16) {
      bytes.resize(values.size() * 2);
      NarrowIntoFloat16(values.data(), values.size(), bytes.data());
      return Tensor::FromBytes(type, std::move(dims), std::move(bytes));
    }
  }
  bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return Tensor::FromBytes(type, std::move(dims), std::move(bytes));
}

// The elements of `tensor` as T, read where they are stored when T is their stored type, else (float16 read as
// float) widened into a copy the reader owns. A kernel reads its inputs through this instead of ReadAs: the
// activations of an image network are megabytes each, and copying each one per node cost a tenth of a proof.
template <typename T>
class ElementsAs {
 public:
  explicit ElementsAs(const Tensor& tensor) : size_(static_cast<size_t>(tensor.element_count())) {
    const bool widened = std::is_same_v<T, float> && tensor.type() == onnx::TensorProto::FLOAT16;
    const char* bytes = tensor.bytes().data();
    // Tensors own or view heap bytes, aligned for every type; a view elsewhere is read through a copy.
    if (widened || reinterpret_cast<uintptr_t>(bytes) % alignof(T) != 0) {
      copy_ = ReadAs<T>(tensor);
      data_ = copy_.data();
    } else {
      data_ = reinterpret_cast<const T*>(bytes);
    }
  }
  ElementsAs(const ElementsAs&) = delete;
  ElementsAs& operator=(const ElementsAs&) = delete;

  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  std::vector<T> copy_;
  const T* data_ = nullptr;
  size_t size_;
};

// A kernel's output of `type` and `dims` computed as T, written where the tensor keeps its bytes, except float16,
// which is computed in float beside them and rounded into them (ties to even) by Finish. Its elements are not
// initialized: the kernel writes every one.
template <typename T>
class OutputAs {
 public:
  static absl::StatusOr<OutputAs> Make(DataType type, std::vector<int64_t> dims) {
    ASSIGN_OR_RETURN(Tensor tensor, Tensor::Uninitialized(type, std::move(dims)));
    return OutputAs(std::move(tensor));
  }

  T* data() { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }

  // The tensor, once every element is written.
  Tensor Finish() && {
    if (!widened_.empty()) NarrowIntoFloat16(widened_.data(), widened_.size(), tensor_.mutable_data());
    return std::move(tensor_);
  }

 private:
  explicit OutputAs(Tensor tensor) : tensor_(std::move(tensor)), size_(static_cast<size_t>(tensor_.element_count())) {
    if constexpr (std::is_same_v<T, float>) {
      if (tensor_.type() == onnx::TensorProto::FLOAT16) {
        widened_.resize(size_);
        data_ = widened_.data();
        return;
      }
    }
    data_ = reinterpret_cast<T*>(tensor_.mutable_data());
  }

  Tensor tensor_;
  std::vector<float> widened_;  // float16's values, computed in float
  T* data_ = nullptr;
  size_t size_;
};

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
