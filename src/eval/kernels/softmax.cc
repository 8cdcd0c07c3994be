// Softmax and LogSoftmax. Before opset 13 (Softmax-1/11) the input is coerced to 2-D at `axis` (default 1):
// each row of the dims from `axis` on, flattened, is normalized as one. From Softmax-13 `axis` (default -1)
// names the one axis normalized, the others independent.
//
// Each normalized run: m = its maximum (NaN if any is NaN), s = sum of exp(x - m) in index order, then
// Softmax y = exp(x - m) / s, LogSoftmax y = (x - m) - log(s). float16 is computed in float.
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

constexpr int64_t kSingleAxisOpset = 13;

// Normalizes `count` elements of `data` at `stride` apart, starting at `first`.
template <typename T>
void NormalizeRun(std::vector<T>& data, int64_t first, int64_t count, int64_t stride, bool log) {
  T max = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < count; ++k) {
    const T value = data[first + k * stride];
    if (std::isnan(value) || value > max) max = value;
    if (std::isnan(max)) break;
  }
  T sum = 0;
  for (int64_t k = 0; k < count; ++k) sum += std::exp(data[first + k * stride] - max);
  const T log_sum = std::log(sum);
  for (int64_t k = 0; k < count; ++k) {
    T& value = data[first + k * stride];
    value = log ? (value - max) - log_sum : std::exp(value - max) / sum;
  }
}

absl::StatusOr<Outputs> RunSoftmax(const KernelContext& ctx, bool log) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  const bool single_axis = ctx.OpsetAtLeast(kSingleAxisOpset);
  ASSIGN_OR_RETURN(int64_t axis, IntAttributeOr(ctx.node, "axis", single_axis ? -1 : 1));
  const int64_t rank = x->rank();
  // Softmax-1 allows axis in [0, rank] (axis = rank coerces to [N, 1]); a negative one counts from the back
  // (defined from Softmax-11; kernel_support.h says why earlier versions read it so too).
  if (axis < -rank || axis > rank || (single_axis && axis == rank) || (rank == 0 && single_axis)) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " is out of range for ", Describe(*x)));
  }
  if (axis < 0) axis += rank;
  const auto a = static_cast<size_t>(axis);
  const int64_t outer = DimsProduct(x->dims(), 0, a);
  // Coerced to 2-D: one run of all the inner elements. Single axis: runs of dims[axis] at a stride of the
  // dims after it.
  const int64_t inner = single_axis ? DimsProduct(x->dims(), a + 1, x->dims().size()) : 1;
  const int64_t count = single_axis ? x->dims()[a] : DimsProduct(x->dims(), a, x->dims().size());
  return Single(VisitFloating(x->type(), ctx.node.op_type(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> values = ReadAs<T>(*x);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) NormalizeRun(values, o * count * inner + i, count, inner, log);
    }
    return WriteAs<T>(x->type(), x->dims(), values);
  }));
}

}  // namespace

void AddSoftmaxKernels(KernelTable& table) {
  table["Softmax"] = [](const KernelContext& ctx) { return RunSoftmax(ctx, /*log=*/false); };
  table["LogSoftmax"] = [](const KernelContext& ctx) { return RunSoftmax(ctx, /*log=*/true); };
}

}  // namespace onnx_legalize
