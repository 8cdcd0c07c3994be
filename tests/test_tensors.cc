#include "test_tensors.h"

namespace onnx_legalize::testing {

Tensor Floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  return Make(onnx::TensorProto::FLOAT, std::move(dims), values);
}

Tensor Doubles(std::vector<int64_t> dims, const std::vector<double>& values) {
  return Make(onnx::TensorProto::DOUBLE, std::move(dims), values);
}

Tensor Int64s(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  return Make(onnx::TensorProto::INT64, std::move(dims), values);
}

Tensor Int32s(std::vector<int64_t> dims, const std::vector<int32_t>& values) {
  return Make(onnx::TensorProto::INT32, std::move(dims), values);
}

Tensor Bools(std::vector<int64_t> dims, const std::vector<uint8_t>& values) {
  return Make(onnx::TensorProto::BOOL, std::move(dims), values);
}

std::vector<float> FloatValues(const Tensor& tensor) {
  std::vector<float> values(static_cast<size_t>(tensor.element_count()));
  if (!values.empty()) std::memcpy(values.data(), tensor.bytes().data(), values.size() * sizeof(float));
  return values;
}

Tensor Iota(std::vector<int64_t> dims) {
  Tensor tensor = *Tensor::Zeros(onnx::TensorProto::FLOAT, std::move(dims));
  for (int64_t i = 0; i < tensor.element_count(); ++i) {
    float value = static_cast<float>(i + 1);
    std::memcpy(tensor.mutable_bytes().data() + i * sizeof(float), &value, sizeof(float));
  }
  return tensor;
}

}  // namespace onnx_legalize::testing
