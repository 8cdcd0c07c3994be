// Ops of the ai.onnx.ml domain that classifiers exported to ONNX end with: ArrayFeatureExtractor (ai.onnx.ml-1,
// its only version). ZipMap, which follows it in Custom Vision's and OnnxMLTools' classifiers, makes a sequence
// of maps, which the runner's values cannot hold: the opset move's proof compares its input instead
// (verify/opset_move_proof.cc).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
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

}  // namespace

void AddMlKernels(KernelTable& table) {
  table[DomainKey(kMlDomain, "ArrayFeatureExtractor")] = RunArrayFeatureExtractor;
}

}  // namespace onnx_legalize
