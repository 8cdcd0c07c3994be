// Pad: the pads are attribute `paddings` in Pad-1, `pads` in Pad-2, input 1 from Pad-11 (with the constant
// value as optional input 2 instead of attribute `value`); [begin_0, ..., begin_n, end_0, ..., end_n], negative
// to remove. Pad-18 adds optional input 3, `axes` (int32 or int64, negative from the back): the pads then
// hold a begin and an end for each of those axes only, the others unpadded. Modes: constant (the value,
// default 0), reflect (mirrored without repeating the edge), edge (the edge repeated), and from Pad-19 wrap
// (the data as a torus: the elements a negative pad keeps repeat from the other end). Each output element
// copies one input element or the value: nothing is computed.
#include <algorithm>
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
constexpr int64_t kPadAxesInputOpset = 18;
constexpr int64_t kPadWrapOpset = 19;

// The input coordinate output coordinate `o` reads along a dim of size `size` with `begin` padding before and
// `end` after, or -1 for the constant.
int64_t SourceIndex(int64_t o, int64_t begin, int64_t end, int64_t size, const std::string& mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < size) return i;
  if (mode == "edge") return i < 0 ? 0 : size - 1;
  if (mode == "wrap") {
    // The torus is what the pads keep, [kept_begin, kept_end): a negative pad removes before it repeats, as
    // ONNX Runtime reads it (numpy.pad, the reference, takes no negative pads). ApplyPad has checked it is
    // not empty.
    const int64_t kept_begin = begin < 0 ? -begin : 0;
    const int64_t kept = size + (end < 0 ? end : 0) - kept_begin;
    int64_t k = (i - kept_begin) % kept;
    if (k < 0) k += kept;
    return kept_begin + k;
  }
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

absl::Status CheckMode(const KernelContext& ctx, const std::string& mode) {
  if (mode == "constant" || mode == "reflect" || mode == "edge") return absl::OkStatus();
  if (mode == "wrap" && ctx.OpsetAtLeast(kPadWrapOpset)) return absl::OkStatus();
  if (mode == "wrap") return absl::InvalidArgumentError("mode 'wrap' is Pad's only from opset 19");
  return absl::InvalidArgumentError(
      StrCat("mode '", mode, "' is none of constant, reflect, edge", ctx.OpsetAtLeast(kPadWrapOpset) ? ", wrap" : ""));
}

// Pad-18's pads for `axes` only (input 3), spread over every dim of `x`: the dims not named are not padded.
absl::StatusOr<std::vector<int64_t>> PadsOfAxes(const Tensor& axes_tensor, const Tensor& x,
                                                const std::vector<int64_t>& pads) {
  if (axes_tensor.type() != onnx::TensorProto::INT64 && axes_tensor.type() != onnx::TensorProto::INT32) {
    return absl::InvalidArgumentError(StrCat("axes must be int32 or int64, got ", Describe(axes_tensor)));
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> raw_axes, axes_tensor.ToInt64s("axes"));
  // The text leaves a repeated axis undefined; NormalizeAxes refuses it.
  ASSIGN_OR_RETURN(const std::vector<int64_t> axes, NormalizeAxes(std::move(raw_axes), x.rank(), "axes"));
  if (pads.size() != 2 * axes.size()) {
    return absl::InvalidArgumentError(
        StrCat("pads ", DimsString(pads), " do not fit axes ", DimsString(axes), " (two per axis)"));
  }
  const size_t rank = x.dims().size();
  std::vector<int64_t> all(2 * rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    all[axes[i]] = pads[i];
    all[rank + axes[i]] = pads[axes.size() + i];
  }
  return all;
}

absl::StatusOr<PadSpec> ReadPadSpec(const KernelContext& ctx, const Tensor& x) {
  PadSpec spec;
  ASSIGN_OR_RETURN(spec.mode, StringAttributeOr(ctx.node, "mode", "constant"));
  RETURN_IF_ERROR(CheckMode(ctx, spec.mode));
  if (ctx.OpsetAtLeast(kPadsInputOpset)) {
    // An axes input before Pad-18 is an extra input: ExpectInputCount names it.
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, ctx.OpsetAtLeast(kPadAxesInputOpset) ? 4 : 3));
    RETURN_IF_ERROR(RejectAttribute(ctx, "pads", "takes as input 1 instead"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "value", "takes as input 2 instead"));
    ASSIGN_OR_RETURN(const Tensor* pads, RequiredInput(ctx, 1, "pads"));
    if (pads->type() != onnx::TensorProto::INT64) {
      return absl::InvalidArgumentError(StrCat("pads must be int64, got ", Describe(*pads)));
    }
    ASSIGN_OR_RETURN(spec.pads, pads->ToInt64s("pads"));
    spec.value_input = ctx.Input(2);
    if (const Tensor* axes = ctx.Input(3)) {
      ASSIGN_OR_RETURN(spec.pads, PadsOfAxes(*axes, x, spec.pads));
    }
    return spec;
  }
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  const char* name = ctx.OpsetAtLeast(kPadsAttributeOpset) ? "pads" : "paddings";
  RETURN_IF_ERROR(RejectAttribute(ctx, ctx.OpsetAtLeast(kPadsAttributeOpset) ? "paddings" : "pads", "names otherwise"));
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
    const int64_t kept = x.dims()[d] + std::min<int64_t>(spec.pads[d], 0) + std::min<int64_t>(spec.pads[rank + d], 0);
    if (spec.mode == "wrap" && kept <= 0 && out_dims[d] > 0) {
      return absl::InvalidArgumentError(StrCat("pads ", DimsString(spec.pads), " remove all of dim ", d, " of ",
                                               Describe(x), ", which wrap repeats"));
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
      const int64_t i = SourceIndex(o[d], spec.pads[d], spec.pads[rank + d], x.dims()[d], spec.mode);
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
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const PadSpec spec, ReadPadSpec(ctx, *x));
  if (spec.pads.size() != 2 * x->dims().size()) {
    return absl::InvalidArgumentError(
        StrCat("pads ", DimsString(spec.pads), " do not fit ", Describe(*x), " (two per dim)"));
  }
  return Single(VisitNumeric(x->type(), "Pad", [&](auto tag) { return ApplyPad<decltype(tag)>(*x, spec); }));
}

}  // namespace

void AddPadKernels(KernelTable& table) { table["Pad"] = RunPad; }

}  // namespace onnx_legalize
