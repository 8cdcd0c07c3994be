// Pad: the pads are attribute `paddings` in Pad-1, `pads` in Pad-2, input 1 from Pad-11 (with the constant
// value as optional input 2 instead of attribute `value`); [begin_0, ..., begin_n, end_0, ..., end_n], negative
// to remove. Modes: constant (the value, default 0), reflect (mirrored without repeating the edge), edge
// (the edge repeated). Each output element copies one input element or the value: nothing is computed.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/kernels/numeric.h"
#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

constexpr int64_t kPadsAttributeOpset = 2;
constexpr int64_t kPadsInputOpset = 11;

// The input coordinate output coordinate `o` reads along a dim of size `size` with `begin` padding before,
// or -1 for the constant.
int64_t SourceIndex(int64_t o, int64_t begin, int64_t size, const std::string& mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < size) return i;
  if (mode == "edge") return i < 0 ? 0 : size - 1;
  if (mode == "reflect") {
    if (size == 1) return 0;
    const int64_t period = 2 * (size - 1);
    i %= period;
    if (i < 0) i += period;
    return i < size ? i : period - i;
  }
  return -1;
}

struct PadSpec {
  std::vector<int64_t> pads;
  std::string mode;
  std::optional<float> value_attr;      // Pad-1/2
  const Tensor* value_input = nullptr;  // Pad-11
};

absl::StatusOr<PadSpec> ReadPadSpec(const KernelContext& ctx) {
  PadSpec spec;
  ASSIGN_OR_RETURN(spec.mode, StringAttributeOr(ctx.node, "mode", "constant"));
  if (spec.mode != "constant" && spec.mode != "reflect" && spec.mode != "edge") {
    return absl::InvalidArgumentError(StrCat("mode '", spec.mode, "' is none of constant, reflect, edge"));
  }
  if (ctx.opset >= kPadsInputOpset) {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 3));
    RETURN_IF_ERROR(RejectAttribute(ctx, "pads", "takes as input 1 instead"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "value", "takes as input 2 instead"));
    ASSIGN_OR_RETURN(const Tensor* pads, RequiredInput(ctx, 1, "pads"));
    if (pads->type() != onnx::TensorProto::INT64) {
      return absl::InvalidArgumentError(StrCat("pads must be int64, got ", Describe(*pads)));
    }
    ASSIGN_OR_RETURN(spec.pads, pads->ToInt64s("pads"));
    spec.value_input = ctx.Input(2);
    return spec;
  }
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  const char* name = ctx.opset >= kPadsAttributeOpset ? "pads" : "paddings";
  RETURN_IF_ERROR(RejectAttribute(ctx, ctx.opset >= kPadsAttributeOpset ? "paddings" : "pads", "names otherwise"));
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> pads, IntsAttribute(ctx.node, name));
  if (!pads) return absl::InvalidArgumentError(StrCat("attribute '", name, "' is missing"));
  spec.pads = *pads;
  ASSIGN_OR_RETURN(spec.value_attr, FloatAttribute(ctx.node, "value"));
  return spec;
}

template <typename T>
absl::StatusOr<Tensor> ApplyPad(const Tensor& x, const PadSpec& spec) {
  const size_t rank = x.dims().size();
  T value{0};
  if (spec.value_attr) value = static_cast<T>(*spec.value_attr);
  if (spec.value_input != nullptr) {
    if (spec.value_input->type() != x.type() || spec.value_input->element_count() != 1) {
      return absl::InvalidArgumentError(
          StrCat("constant_value must be one element of the data's type, got ", Describe(*spec.value_input)));
    }
    value = ReadAs<T>(*spec.value_input)[0];
  }
  std::vector<int64_t> out_dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    out_dims[d] = x.dims()[d] + spec.pads[d] + spec.pads[rank + d];
    if (out_dims[d] < 0)
      return absl::InvalidArgumentError(StrCat("pads ", DimsString(spec.pads), " remove more than ", Describe(x)));
    if (spec.mode != "constant" && x.dims()[d] == 0 && out_dims[d] > 0) {
      return absl::InvalidArgumentError(StrCat("mode '", spec.mode, "' cannot pad the empty dim ", d));
    }
  }
  ASSIGN_OR_RETURN(const int64_t count, CheckedOutputCount(out_dims, "Pad's output"));
  const std::vector<T> in = ReadAs<T>(x);
  std::vector<T> out(static_cast<size_t>(count));
  std::vector<int64_t> o(rank, 0);
  for (int64_t p = 0; p < count; ++p) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d < rank && inside; ++d) {
      const int64_t i = SourceIndex(o[d], spec.pads[d], x.dims()[d], spec.mode);
      inside = i >= 0;
      offset = offset * x.dims()[d] + i;
    }
    out[p] = inside ? in[offset] : value;
    for (size_t d = rank; d-- > 0;) {
      if (++o[d] < out_dims[d]) break;
      o[d] = 0;
    }
  }
  return WriteAs<T>(x.type(), out_dims, out);
}

absl::StatusOr<Outputs> RunPad(const KernelContext& ctx) {
  ASSIGN_OR_RETURN(const PadSpec spec, ReadPadSpec(ctx));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  if (spec.pads.size() != 2 * x->dims().size()) {
    return absl::InvalidArgumentError(
        StrCat("pads ", DimsString(spec.pads), " do not fit ", Describe(*x), " (two per dim)"));
  }
  return Single(VisitNumeric(x->type(), "Pad", [&](auto tag) { return ApplyPad<decltype(tag)>(*x, spec); }));
}

}  // namespace

void AddPadKernels(KernelTable& table) { table["Pad"] = RunPad; }

}  // namespace onnx_legalize
