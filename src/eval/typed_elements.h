// A tensor's elements as a std::vector<T> and back: the kernels of the evaluator and the model runner
// compute on typed vectors and keep their results as Tensors.
#ifndef ONNX_LEGALIZE_SRC_EVAL_TYPED_ELEMENTS_H_
#define ONNX_LEGALIZE_SRC_EVAL_TYPED_ELEMENTS_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace onnx_legalize {

// The elements of `tensor`, read as T (the caller has checked its type).
template <typename T>
std::vector<T> ElementsOf(const Tensor& tensor) {
  std::vector<T> values(static_cast<size_t>(tensor.element_count()));
  if (!values.empty()) std::memcpy(values.data(), tensor.bytes().data(), values.size() * sizeof(T));
  return values;
}

// A tensor of `type` and `dims` holding `values`.
template <typename T>
absl::StatusOr<Tensor> TensorOf(DataType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return Tensor::FromBytes(type, std::move(dims), std::move(bytes));
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_TYPED_ELEMENTS_H_
