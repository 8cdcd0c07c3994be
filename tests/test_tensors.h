// Tensors from values, and values from tensors, for tests: the one set of typed builders every test uses.
#ifndef ONNX_LEGALIZE_TESTS_TEST_TENSORS_H_
#define ONNX_LEGALIZE_TESTS_TEST_TENSORS_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace onnx_legalize::testing {

// A tensor of `type` and `dims` holding `values`, in the host's (little-endian) byte order; fails the test
// when Tensor::FromBytes refuses them (a count that does not match the dims).
template <typename T>
Tensor Make(DataType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  absl::StatusOr<Tensor> tensor = Tensor::FromBytes(type, std::move(dims), std::move(bytes));
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return *std::move(tensor);
}

Tensor Floats(std::vector<int64_t> dims, const std::vector<float>& values);
Tensor Doubles(std::vector<int64_t> dims, const std::vector<double>& values);
Tensor Int64s(std::vector<int64_t> dims, const std::vector<int64_t>& values);
Tensor Int32s(std::vector<int64_t> dims, const std::vector<int32_t>& values);
Tensor Bools(std::vector<int64_t> dims, const std::vector<uint8_t>& values);

// The values of a float tensor, in order.
std::vector<float> FloatValues(const Tensor& tensor);

// A float tensor with values 1, 2, 3, ... of the given dims.
Tensor Iota(std::vector<int64_t> dims);

}  // namespace onnx_legalize::testing

#endif  // ONNX_LEGALIZE_TESTS_TEST_TENSORS_H_
