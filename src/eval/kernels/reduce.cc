// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare,
// ReduceLogSum, ReduceLogSumExp, and ArgMax, ArgMin.
//
// The axes are the `axes` attribute (up to 17, ReduceSum up to 12), or optional input 1 (ReduceSum from 13,
// the others from 18); none or empty means all, unless noop_with_empty_axes (which comes with the input) says
// none: then every element is its own set, and the composite reductions still take their other steps (the
// text: ReduceLogSum gives the log of the input, ReduceSumSquare its square). keepdims (default 1) keeps the
// reduced dims as 1. ReduceMax-20 and ReduceMin-20 also take bool (any and all). Each output
// element folds its input elements in row-major order of the reduced coordinates: Sum and Mean add (Mean
// divides by the count after), Prod multiplies, Max and Min keep the greatest/least with NaN propagating,
// L1/L2/SumSquare add |x|, x*x (L2 takes the root last), LogSum takes the log of the sum, LogSumExp is
// m + log(sum(exp(x - m))) with m the maximum (the same value as the spec's log(sum(exp(x))) but without
// overflowing where the result is finite). float16 is computed in float; integers for Sum, Prod, Max, Min.
// ReduceLogSum-28 and ReduceLogSumExp-28 drop the integer types the runner never computed for them.
//
// ArgMax/ArgMin: the index of the first (or, select_last_index from opset 12, last) greatest/least element
// along `axis` (default 0), as int64; NaN never wins.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"
#include "eval/typed_elements.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

constexpr int64_t kReduceSumAxesInputOpset = 13;
// Every reduction but ReduceSum takes its axes as input 1 from opset 18.
constexpr int64_t kReduceAxesInputOpset = 18;
constexpr int64_t kReduceBoolOpset = 20;
constexpr int64_t kSelectLastIndexOpset = 12;

enum class Reduction { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

struct ReducedShape {
  std::vector<bool> reduced;       // per input dim
  std::vector<int64_t> out_dims;   // as the output is declared (keepdims or not)
  std::vector<int64_t> kept_dims;  // the output with every reduced dim kept as 1
  int64_t count = 1;               // input elements per output element
};

bool TakesAxesInput(const KernelContext& ctx, bool is_sum) {
  return ctx.OpsetAtLeast(is_sum ? kReduceSumAxesInputOpset : kReduceAxesInputOpset);
}

absl::StatusOr<ReducedShape> ShapeOfReduction(const KernelContext& ctx, const Tensor& x, bool is_sum) {
  std::optional<std::vector<int64_t>> axes;
  bool noop_with_empty_axes = false;
  if (TakesAxesInput(ctx, is_sum)) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "axes", "takes as input 1 instead"));
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 2));
    if (const Tensor* axes_tensor = ctx.Input(1)) {
      ASSIGN_OR_RETURN(axes, axes_tensor->ToInt64s("axes"));
    }
    ASSIGN_OR_RETURN(const int64_t noop, IntAttributeOr(ctx.node, "noop_with_empty_axes", 0));
    noop_with_empty_axes = noop != 0;
  } else {
    // An axes input before its opset is an extra input: ExpectInputCount names it.
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    RETURN_IF_ERROR(RejectAttribute(ctx, "noop_with_empty_axes", "does not have (it comes with the axes input)"));
    ASSIGN_OR_RETURN(axes, IntsAttribute(ctx.node, "axes"));
  }
  ASSIGN_OR_RETURN(const int64_t keepdims, IntAttributeOr(ctx.node, "keepdims", 1));
  ReducedShape shape;
  const bool all = !axes || axes->empty();
  shape.reduced.assign(x.rank(), all && !noop_with_empty_axes);
  if (!all) {
    ASSIGN_OR_RETURN(const std::vector<int64_t> normalized, NormalizeAxes(*axes, x.rank(), "axis"));
    for (const int64_t axis : normalized) shape.reduced[axis] = true;
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    const int64_t dim = x.dims()[d];
    shape.kept_dims.push_back(shape.reduced[d] ? 1 : dim);
    if (shape.reduced[d]) shape.count *= dim;
    if (!shape.reduced[d] || keepdims != 0) shape.out_dims.push_back(shape.reduced[d] ? 1 : dim);
  }
  return shape;
}

// Calls fn(output_index, input_index) for every input element in row-major order.
template <typename Fn>
void ForEachReduced(const Tensor& x, const ReducedShape& shape, Fn&& fn) {
  const size_t rank = x.dims().size();
  if (rank == 0) {
    // A scalar: its one element goes to the one output. Taken apart because GCC 12, following a rank of 0 into
    // the loops below, warns of freeing a pointer at a nonzero offset inside std::vector (-Wfree-nonheap-object).
    fn(0, 0);
    return;
  }
  std::vector<int64_t> out_stride(rank, 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    out_stride[d] = shape.reduced[d] ? 0 : stride;
    stride *= shape.kept_dims[d];
  }
  std::vector<int64_t> coordinate(rank, 0);
  int64_t out = 0;
  for (int64_t i = 0; i < x.element_count(); ++i) {
    fn(out, i);
    for (size_t d = rank; d-- > 0;) {
      out += out_stride[d];
      if (++coordinate[d] < x.dims()[d]) break;
      out -= out_stride[d] * x.dims()[d];
      coordinate[d] = 0;
    }
  }
}

template <typename T>
T Fold(Reduction op, T acc, T x) {
  switch (op) {
    case Reduction::kSum:
    case Reduction::kMean:
    case Reduction::kLogSum: return WrappingAdd(acc, x);
    case Reduction::kProd: return WrappingMul(acc, x);
    case Reduction::kL1: return acc + (x < T{0} ? T{0} - x : x);
    case Reduction::kL2:
    case Reduction::kSumSquare: return acc + x * x;
    case Reduction::kMax:
    case Reduction::kMin:
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<T>::quiet_NaN();
      }
      return op == Reduction::kMax ? (x > acc ? x : acc) : (x < acc ? x : acc);
    case Reduction::kLogSumExp: break;  // folded in two passes by ApplyReduction
  }
  return acc;
}

template <typename T>
T Initial(Reduction op) {
  switch (op) {
    case Reduction::kProd: return T{1};
    case Reduction::kMax:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    case Reduction::kMin:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    default: return T{0};
  }
}

// An empty set reduces to the initial value: ReduceMax to -inf (the type's lowest without an infinity, false for
// bool) and ReduceMin to +inf (its highest), as ReduceMax-18 and ReduceMin-18 define it and ONNX Runtime computes it
// at every opset; the sum to 0, the product to 1.
template <typename T>
absl::StatusOr<Tensor> ApplyReduction(Reduction op, const Tensor& x, const ReducedShape& shape) {
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(shape.out_dims, "the reduced output"));
  const std::vector<T> in = ReadAs<T>(x);
  std::vector<T> out(static_cast<size_t>(count), Initial<T>(op == Reduction::kLogSumExp ? Reduction::kMax : op));
  if (op == Reduction::kLogSumExp) {
    std::vector<T> max = out;
    ForEachReduced(x, shape, [&](int64_t o, int64_t i) { max[o] = Fold(Reduction::kMax, max[o], in[i]); });
    std::fill(out.begin(), out.end(), T{0});
    ForEachReduced(x, shape, [&](int64_t o, int64_t i) { out[o] += std::exp(in[i] - max[o]); });
    for (size_t o = 0; o < out.size(); ++o) out[o] = max[o] + std::log(out[o]);
    return WriteAs<T>(x.type(), shape.out_dims, out);
  }
  ForEachReduced(x, shape, [&](int64_t o, int64_t i) { out[o] = Fold(op, out[o], in[i]); });
  if constexpr (!std::is_integral_v<T>) {
    for (T& value : out) {
      if (op == Reduction::kMean) value /= static_cast<T>(shape.count);
      if (op == Reduction::kL2) value = std::sqrt(value);
      if (op == Reduction::kLogSum) value = std::log(value);
    }
  }
  return WriteAs<T>(x.type(), shape.out_dims, out);
}

absl::StatusOr<Outputs> RunReduce(const KernelContext& ctx, Reduction op) {
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const ReducedShape shape, ShapeOfReduction(ctx, *x, op == Reduction::kSum));
  auto reduce = [&](auto tag) { return ApplyReduction<decltype(tag)>(op, *x, shape); };
  const bool max_or_min = op == Reduction::kMax || op == Reduction::kMin;
  if (x->type() == onnx::TensorProto::BOOL && max_or_min && ctx.OpsetAtLeast(kReduceBoolOpset)) {
    // bool is stored as one byte 0 or 1: the greatest is any, the least all.
    return Single(ApplyReduction<uint8_t>(op, *x, shape));
  }
  const bool integers = op == Reduction::kSum || op == Reduction::kProd || max_or_min;
  if (integers) return Single(VisitNumeric(x->type(), ctx.node.op_type(), reduce));
  return Single(VisitFloating(x->type(), ctx.node.op_type(), reduce));
}

template <typename T>
absl::StatusOr<Tensor> ApplyArg(const Tensor& x, int64_t axis, bool keepdims, bool last, bool is_max) {
  const int64_t outer = DimsProduct(x.dims(), 0, static_cast<size_t>(axis));
  const int64_t size = x.dims()[axis];
  const int64_t inner = DimsProduct(x.dims(), static_cast<size_t>(axis) + 1, x.dims().size());
  if (size == 0) return absl::InvalidArgumentError(StrCat("axis ", axis, " of ", Describe(x), " is empty"));
  const std::vector<T> in = ReadAs<T>(x);
  std::vector<int64_t> out(static_cast<size_t>(outer * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < size; ++k) {
        const T candidate = in[(o * size + k) * inner + i], current = in[(o * size + best) * inner + i];
        const bool better = is_max ? candidate > current : candidate < current;
        if (better || (last && candidate == current)) best = k;
      }
      out[o * inner + i] = best;
    }
  }
  std::vector<int64_t> dims = x.dims();
  if (keepdims) {
    dims[axis] = 1;
  } else {
    dims.erase(dims.begin() + axis);
  }
  return TensorOf<int64_t>(onnx::TensorProto::INT64, dims, out);
}

absl::StatusOr<Outputs> RunArg(const KernelContext& ctx, bool is_max) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttributeOr(ctx.node, "axis", 0));
  ASSIGN_OR_RETURN(const int64_t keepdims, IntAttributeOr(ctx.node, "keepdims", 1));
  int64_t last = 0;
  if (ctx.OpsetAtLeast(kSelectLastIndexOpset)) {
    ASSIGN_OR_RETURN(last, IntAttributeOr(ctx.node, "select_last_index", 0));
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "select_last_index", "does not have (added at opset 12)"));
  }
  if (x->rank() == 0) return absl::InvalidArgumentError("data is a scalar");
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_attr, x->rank(), "axis"));
  return Single(VisitNumeric(x->type(), ctx.node.op_type(), [&](auto tag) {
    return ApplyArg<decltype(tag)>(*x, axis, keepdims != 0, last != 0, is_max);
  }));
}

}  // namespace

void AddReduceKernels(KernelTable& table) {
  table["ReduceSum"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kSum); };
  table["ReduceMean"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kMean); };
  table["ReduceMax"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kMax); };
  table["ReduceMin"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kMin); };
  table["ReduceProd"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kProd); };
  table["ReduceL1"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kL1); };
  table["ReduceL2"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kL2); };
  table["ReduceSumSquare"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kSumSquare); };
  table["ReduceLogSum"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kLogSum); };
  table["ReduceLogSumExp"] = [](const KernelContext& ctx) { return RunReduce(ctx, Reduction::kLogSumExp); };
  table["ArgMax"] = [](const KernelContext& ctx) { return RunArg(ctx, /*is_max=*/true); };
  table["ArgMin"] = [](const KernelContext& ctx) { return RunArg(ctx, /*is_max=*/false); };
}

}  // namespace onnx_legalize
