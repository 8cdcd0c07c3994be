#include "eval/kernels/kernel_test_support.h"

#include <cstdint>

#include "Eigen/Core"

namespace onnx_legalize::testing {
namespace {

std::string Values(const Tensor& tensor) {
  auto join = [&tensor](auto tag) {
    using T = decltype(tag);
    std::vector<T> v(tensor.element_count());
    if (!v.empty()) std::memcpy(v.data(), tensor.bytes().data(), tensor.bytes().size());
    return absl::StrJoin(v, ",");
  };
  switch (tensor.type()) {
    case onnx::TensorProto::FLOAT: return join(float{});
    case onnx::TensorProto::DOUBLE: return join(double{});
    case onnx::TensorProto::INT64: return join(int64_t{});
    case onnx::TensorProto::INT32: return join(int32_t{});
    case onnx::TensorProto::BOOL: return join(uint8_t{});
    default: return absl::StrCat(tensor.bytes().size(), " bytes");
  }
}

std::string Describe(const Tensor& tensor) {
  return absl::StrCat(DataTypeName(tensor.type()), "[", absl::StrJoin(tensor.dims(), ","), "] {", Values(tensor), "}");
}

absl::StatusOr<const Tensor*> Output(const Results& result, const std::string& name) {
  if (!result.ok()) return result.status();
  auto it = result->find(name);
  if (it == result->end()) return absl::NotFoundError(absl::StrCat("no output '", name, "'"));
  return &it->second;
}

}  // namespace

Tensor Halves(std::vector<int64_t> dims, const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (const float value : values) bits.push_back(Eigen::numext::bit_cast<uint16_t>(Eigen::half(value)));
  return Make(onnx::TensorProto::FLOAT16, std::move(dims), bits);
}

::testing::AssertionResult OutputIs(const Results& result, const std::string& name, const Tensor& want) {
  absl::StatusOr<const Tensor*> got = Output(result, name);
  if (!got.ok()) return ::testing::AssertionFailure() << got.status();
  if (!(*got)->BitwiseEquals(want)) {
    return ::testing::AssertionFailure() << "output '" << name << "' is " << Describe(**got) << ", want "
                                         << Describe(want);
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult OutputNear(const Results& result, const std::string& name, const Tensor& want,
                                      float tolerance) {
  absl::StatusOr<const Tensor*> got = Output(result, name);
  if (!got.ok()) return ::testing::AssertionFailure() << got.status();
  const Tensor& tensor = **got;
  bool near = tensor.type() == onnx::TensorProto::FLOAT && tensor.dims() == want.dims();
  for (int64_t i = 0; near && i < tensor.element_count(); ++i) {
    float a, b;
    std::memcpy(&a, tensor.bytes().data() + 4 * i, 4);
    std::memcpy(&b, want.bytes().data() + 4 * i, 4);
    near = std::fabs(a - b) <= tolerance;
  }
  if (!near) {
    return ::testing::AssertionFailure() << "output '" << name << "' is " << Describe(tensor) << ", want "
                                         << Describe(want) << " within " << tolerance;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult FailsWith(const Results& result, absl::StatusCode code,
                                     const std::vector<std::string>& substrings) {
  if (result.ok()) return ::testing::AssertionFailure() << "the run succeeded";
  if (result.status().code() != code) return ::testing::AssertionFailure() << "wrong code: " << result.status();
  for (const std::string& substring : substrings) {
    if (result.status().message().find(substring) == absl::string_view::npos) {
      return ::testing::AssertionFailure() << "message lacks '" << substring << "': " << result.status();
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace onnx_legalize::testing
