// Ops of the ai.onnx.ml domain that classifiers exported to ONNX end with: ArrayFeatureExtractor and Normalizer
// (ai.onnx.ml-1, their only versions; skl2onnx's pipelines hold Normalizer). ZipMap, which follows it in Custom
// Vision's and OnnxMLTools' classifiers, makes a sequence of maps, which the runner's values cannot hold: the opset
// move's proof compares its input instead (verify/opset_move_proof.cc).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

// ArrayFeatureExtractor: the elements of X at positions Y (int64, any shape, read flat) along X's last axis;
// the output is X's dims with the last replaced by Y's element count, and [1, count] for a 1-D X (onnx's
// reference implementation and ONNX Runtime agree on both). Positions must lie in [0, last dim): the spec
// defines no negative ones, and ONNX Runtime checks only the upper bound.
absl::StatusOr<Outputs> RunArrayFeatureExtractor(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const Tensor* y, RequiredInput(ctx, 1, "Y"));
  if (x->rank() == 0) return absl::InvalidArgumentError(StrCat("X is a scalar, ", Describe(*x)));
  if (y->type() != TensorProto::INT64) return absl::InvalidArgumentError(StrCat("Y is ", Describe(*y), ", not int64"));
  if (y->element_count() == 0) return absl::InvalidArgumentError("Y holds no position");
  const std::vector<int64_t> positions = ElementsOf<int64_t>(*y);
  const int64_t stride = x->dims().back();
  for (const int64_t position : positions) {
    if (position < 0 || position >= stride) {
      return absl::InvalidArgumentError(
          StrCat("position ", position, " is out of range for X's last axis of ", stride, " (", Describe(*x), ")"));
    }
  }
  const auto count = static_cast<int64_t>(positions.size());
  std::vector<int64_t> dims = x->dims();
  dims.back() = count;
  if (x->rank() == 1) dims.insert(dims.begin(), 1);
  ASSIGN_OR_RETURN(const int64_t out_count, CheckedOutputCount(dims, "the output"));
  const int64_t rows = stride == 0 ? 0 : x->element_count() / stride;
  if (x->is_string()) {
    std::vector<std::string> strings;
    strings.reserve(static_cast<size_t>(out_count));
    for (int64_t r = 0; r < rows; ++r) {
      for (const int64_t position : positions) strings.push_back(x->strings()[r * stride + position]);
    }
    return Single(Tensor::FromStrings(std::move(dims), std::move(strings)));
  }
  const int64_t size = ElementSize(x->type());
  std::string bytes;
  bytes.reserve(static_cast<size_t>(out_count * size));
  for (int64_t r = 0; r < rows; ++r) {
    for (const int64_t position : positions) bytes.append(x->bytes(), (r * stride + position) * size, size);
  }
  return Single(Tensor::FromBytes(x->type(), std::move(dims), std::move(bytes)));
}

// One row of Normalizer's X as float, as ONNX Runtime converts it: integers and doubles each to float, except that
// L2 squares each element in X's own type first. An integer whose square (L2) or magnitude (L1) leaves its type is
// refused: ONNX Runtime's arithmetic overflows there, undefined.
enum class Norm { kMax, kL1, kL2 };

template <typename T>
absl::Status NormalizeRow(const T* in, float* out, int64_t count, Norm norm) {
  float total = 0.0F;
  if (norm == Norm::kMax) {
    total = std::numeric_limits<float>::lowest();
    // NaN never replaces the running maximum (ONNX Runtime's std::max(max, x)).
    for (int64_t i = 0; i < count; ++i) total = std::max(total, static_cast<float>(in[i]));
  } else {
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_integral_v<T>) {
        const T limit = norm == Norm::kL1
                            ? std::numeric_limits<T>::max()
                            : static_cast<T>(std::sqrt(static_cast<double>(std::numeric_limits<T>::max())));
        if (in[i] > limit || in[i] < -limit) {
          return absl::InvalidArgumentError(
              StrCat("element ", in[i], " overflows its type in the ", norm == Norm::kL1 ? "L1" : "L2", " norm"));
        }
      }
      // L2 keeps each square (in X's type, then as float) for the second pass.
      out[i] = norm == Norm::kL1 ? static_cast<float>(std::abs(in[i])) : static_cast<float>(in[i] * in[i]);
      total += out[i];
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    const auto x = static_cast<float>(in[i]);
    if (total == 0.0F) {
      out[i] = x;
    } else if (norm == Norm::kL2) {
      // ONNX Runtime's L2: sqrt(x^2 / sum) with x's sign, not x / sqrt(sum) as onnx's reference computes it (the
      // two differ in the last bit); the runner agrees with the runtime users run.
      const float magnitude = std::sqrt(out[i] / total);
      out[i] = in[i] < T{0} ? -magnitude : magnitude;
    } else {
      out[i] = x / total;
    }
  }
  return absl::OkStatus();
}

// Normalizer: each row of X (rank 1: X is one row; rank 2: each of its rows) divided by its maximum ("MAX"),
// the sum of its magnitudes ("L1") or the square root of the sum of its squares ("L2"); a row whose norm is 0
// is written as it is. Y is float, whatever X's type.
absl::StatusOr<Outputs> RunNormalizer(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const std::string name, StringAttributeOr(ctx.node, "norm", "MAX"));
  Norm norm;
  if (name == "MAX") {
    norm = Norm::kMax;
  } else if (name == "L1") {
    norm = Norm::kL1;
  } else if (name == "L2") {
    norm = Norm::kL2;
  } else {
    return absl::InvalidArgumentError(StrCat("norm is '", name, "', not MAX, L1 or L2"));
  }
  if (x->rank() != 1 && x->rank() != 2) {
    return absl::InvalidArgumentError(StrCat("X is ", Describe(*x), ": Normalizer takes rank 1 or 2"));
  }
  const int64_t rows = x->rank() == 1 ? 1 : x->dims()[0];
  const int64_t row_size = x->dims().back();
  ASSIGN_OR_RETURN(OutputAs<float> out, OutputAs<float>::Make(TensorProto::FLOAT, x->dims()));
  const auto normalize = [&](auto type_tag) -> absl::Status {
    using T = decltype(type_tag);
    const ElementsAs<T> in(*x);
    for (int64_t row = 0; row < rows; ++row) {
      const absl::Status status = NormalizeRow(in.data() + row * row_size, out.data() + row * row_size, row_size, norm);
      if (!status.ok()) return Prefixed(status, StrCat("row ", row));
    }
    return absl::OkStatus();
  };
  switch (x->type()) {
    case TensorProto::FLOAT: RETURN_IF_ERROR(normalize(float{})); break;
    case TensorProto::DOUBLE: RETURN_IF_ERROR(normalize(double{})); break;
    case TensorProto::INT32: RETURN_IF_ERROR(normalize(int32_t{})); break;
    case TensorProto::INT64: RETURN_IF_ERROR(normalize(int64_t{})); break;
    default: return UnsupportedType(x->type(), "X", "float, double, int32, int64");
  }
  return Single(std::move(out).Finish());
}

}  // namespace

void AddMlKernels(KernelTable& table) {
  table[DomainKey(kMlDomain, "ArrayFeatureExtractor")] = RunArrayFeatureExtractor;
  table[DomainKey(kMlDomain, "Normalizer")] = RunNormalizer;
}

}  // namespace onnx_legalize
