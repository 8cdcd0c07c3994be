// Gemm and MatMul, their products through Eigen (matrix_product.h).
//
// Gemm: Y = alpha * A' * B' + beta * C, computed per element as (alpha * p) + (beta * c) with p the product's
// element; alpha = 1 and beta = 1 make those multiplications exact. C is required before Gemm-11; Gemm-1/6
// take it as (M, N) unless `broadcast` = 1; from Gemm-7 it broadcasts to (M, N) one way. With beta = 0 C is
// not read (0 * inf would be NaN; ONNX Runtime skips it too).
// MatMul: numpy's matmul (1-D operands promoted and the added dim removed, batch dims broadcast).
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/broadcast.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/matrix_product.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

constexpr int64_t kGemmBroadcastOpset = 7;
constexpr int64_t kGemmOptionalCOpset = 11;

// float16, float, double, and from Gemm-9/MatMul-9 int32, int64, uint32, uint64.
template <typename Fn>
auto VisitProductType(DataType type, absl::string_view what, Fn&& fn) -> decltype(fn(float{})) {
  switch (type) {
    case TensorProto::INT32: return fn(int32_t{});
    case TensorProto::INT64: return fn(int64_t{});
    case TensorProto::UINT32: return fn(uint32_t{});
    case TensorProto::UINT64: return fn(uint64_t{});
    default:
      if (IsFloating(type)) return VisitFloating(type, what, std::forward<Fn>(fn));
      return UnsupportedType(type, what, "float16, float, double, int32, int64, uint32, uint64");
  }
}

struct GemmShape {
  int64_t m, k, n;
  bool trans_a, trans_b;
};

absl::StatusOr<GemmShape> GemmShapeOf(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  ASSIGN_OR_RETURN(const int64_t trans_a, IntAttributeOr(ctx.node, "transA", 0));
  ASSIGN_OR_RETURN(const int64_t trans_b, IntAttributeOr(ctx.node, "transB", 0));
  if (a.rank() != 2 || b.rank() != 2) {
    return absl::InvalidArgumentError(StrCat("A is ", Describe(a), " and B ", Describe(b), "; Gemm takes 2-D"));
  }
  GemmShape shape{a.dims()[trans_a ? 1 : 0], a.dims()[trans_a ? 0 : 1], b.dims()[trans_b ? 0 : 1], trans_a != 0,
                  trans_b != 0};
  if (b.dims()[trans_b ? 1 : 0] != shape.k) {
    return absl::InvalidArgumentError(StrCat("A", trans_a ? "'" : "", " ", Describe(a), " and B", trans_b ? "'" : "",
                                             " ", Describe(b), " do not multiply"));
  }
  return shape;
}

// C's dims as Y reads them, by the version's rule.
absl::StatusOr<std::vector<int64_t>> GemmCDims(const KernelContext& ctx, const Tensor& c, const GemmShape& shape) {
  const std::vector<int64_t> y = {shape.m, shape.n};
  bool fits = BroadcastsTo(c.dims(), y);
  if (!ctx.OpsetAtLeast(kGemmBroadcastOpset)) {
    ASSIGN_OR_RETURN(const int64_t broadcast, IntAttributeOr(ctx.node, "broadcast", 0));
    if (broadcast == 0) fits = c.dims() == y;
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "broadcast", "does not have (C broadcasts from Gemm-7)"));
  }
  if (!fits) return absl::InvalidArgumentError(StrCat("C ", Describe(c), " does not fit Y ", DimsString(y)));
  return c.dims();
}

template <typename T>
absl::StatusOr<Tensor> ApplyGemm(const KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor* c,
                                 const GemmShape& shape) {
  ASSIGN_OR_RETURN(const float alpha_attr, FloatAttributeOr(ctx.node, "alpha", 1.0f));
  ASSIGN_OR_RETURN(const float beta_attr, FloatAttributeOr(ctx.node, "beta", 1.0f));
  const T alpha = static_cast<T>(alpha_attr), beta = static_cast<T>(beta_attr);
  const std::vector<int64_t> y_dims = {shape.m, shape.n};
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(y_dims, "Gemm's output"));
  RETURN_IF_ERROR(AffordWork(ctx, SaturatingMul(count, shape.k), "the matrix product"));
  const ElementsAs<T> av(a), bv(b);
  ASSIGN_OR_RETURN(OutputAs<T> y, OutputAs<T>::Make(a.type(), y_dims));  // the product writes every element
  MultiplyMatrices<T>({av.data(), a.dims()[0], a.dims()[1], a.dims()[1], shape.trans_a},
                      {bv.data(), b.dims()[0], b.dims()[1], b.dims()[1], shape.trans_b}, y.data(), shape.n);
  for (T& value : y) value = WrappingMul(alpha, value);
  if (c != nullptr && beta != T{0}) {
    ASSIGN_OR_RETURN(const std::vector<int64_t> c_dims, GemmCDims(ctx, *c, shape));
    const ElementsAs<T> cv(*c);
    const std::array<std::vector<int64_t>, 1> strides = {BroadcastStrides(c_dims, y_dims)};
    ForEachBroadcast(y_dims, strides, [&](int64_t i, const std::array<int64_t, 1>& at) {
      y[i] = WrappingAdd(y[i], WrappingMul(beta, cv[at[0]]));
    });
  }
  return std::move(y).Finish();
}

absl::StatusOr<Outputs> RunGemm(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, ctx.OpsetAtLeast(kGemmOptionalCOpset) ? 2 : 3, 3));
  ASSIGN_OR_RETURN(const Tensor* a, RequiredInput(ctx, 0, "A"));
  ASSIGN_OR_RETURN(const Tensor* b, RequiredInput(ctx, 1, "B"));
  const Tensor* c = ctx.Input(2);
  if (c == nullptr && !ctx.OpsetAtLeast(kGemmOptionalCOpset))
    return absl::InvalidArgumentError("input 2 (C) is missing");
  if (a->type() != b->type() || (c != nullptr && c->type() != a->type())) {
    return absl::InvalidArgumentError(StrCat("A, B and C differ in type: ", Describe(*a), ", ", Describe(*b),
                                             c != nullptr ? StrCat(", ", Describe(*c)) : ""));
  }
  ASSIGN_OR_RETURN(const GemmShape shape, GemmShapeOf(ctx, *a, *b));
  return Single(
      VisitProductType(a->type(), "Gemm", [&](auto tag) { return ApplyGemm<decltype(tag)>(ctx, *a, *b, c, shape); }));
}

template <typename T>
absl::StatusOr<Tensor> ApplyMatMul(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  // 1-D operands become [1, K] and [K, 1]; the dims they added are left out of the result.
  std::vector<int64_t> ad = a.dims(), bd = b.dims();
  if (ad.empty() || bd.empty()) return absl::InvalidArgumentError("MatMul does not take scalars");
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  if (bd[bd.size() - 2] != k) {
    return absl::InvalidArgumentError(StrCat(Describe(a), " and ", Describe(b), " do not multiply"));
  }
  const std::vector<int64_t> a_batch(ad.begin(), ad.end() - 2), b_batch(bd.begin(), bd.end() - 2);
  ASSIGN_OR_RETURN(const std::vector<int64_t> batch, BroadcastDims({a_batch, b_batch}));
  std::vector<int64_t> out_dims = batch;
  if (a.rank() > 1) out_dims.push_back(m);
  if (b.rank() > 1) out_dims.push_back(n);
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(out_dims, "MatMul's output"));
  RETURN_IF_ERROR(AffordWork(ctx, SaturatingMul(count, k), "the matrix product"));
  const ElementsAs<T> av(a), bv(b);
  ASSIGN_OR_RETURN(OutputAs<T> out, OutputAs<T>::Make(a.type(), out_dims));  // the products write every element
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(a_batch, batch),
                                                       BroadcastStrides(b_batch, batch)};
  ForEachBroadcast(batch, strides, [&](int64_t i, const std::array<int64_t, 2>& at) {
    MultiplyMatrices<T>({av.data() + at[0] * m * k, m, k, k}, {bv.data() + at[1] * k * n, k, n, n},
                        out.data() + i * m * n, n);
  });
  return std::move(out).Finish();
}

absl::StatusOr<Outputs> RunMatMul(const KernelContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* a, RequiredInput(ctx, 0, "A"));
  ASSIGN_OR_RETURN(const Tensor* b, RequiredInput(ctx, 1, "B"));
  if (a->type() != b->type()) {
    return absl::InvalidArgumentError(StrCat("A is ", Describe(*a), " and B ", Describe(*b)));
  }
  return Single(
      VisitProductType(a->type(), "MatMul", [&](auto tag) { return ApplyMatMul<decltype(tag)>(ctx, *a, *b); }));
}

}  // namespace

void AddGemmKernels(KernelTable& table) {
  table["Gemm"] = RunGemm;
  table["MatMul"] = RunMatMul;
}

}  // namespace onnx_legalize
