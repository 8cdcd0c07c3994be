// LegacyPadding (com.microsoft, opset 1): the padding of CoreML's "includeLastPixel" pooling, as WinMLTools
// 0.1 and OnnxMLTools 0.1's CoreML converter (PoolingLayerConverter) wrote it in front of a VALID MaxPool or
// AveragePool; only the Windows ML preview of 2018 ran it. It pads an NCHW input's height and width with
// `value` so that the VALID pooling that follows (window `kernel_shape`, `strides`) gives CoreML's output: for
// each spatial axis of size H with padding p, kernel k and stride s (onnxmltools' later CoreML converter
// computes the same statically, in calculate_legacy_pad_amount, and writes a Pad):
//   T = H + 2p - k;  O = ceil(T / s) + 1 (CoreML's output size);  begin = p;
//   end = p + (s - T mod s) when T mod s != 0, else p;  L = H + begin + end;
//   when (O - 1) s >= H + p (the last window would start in the padding), L is cut back to a multiple of s
//   below it (by s when L already is one);  end = L - begin - H.
//
//   y = LegacyPadding<kernel_shape, strides, pads=[p_h, p_w], value>(x)        x: [N, C, H, W], H and W known
//   -> y = Pad<pads=[0, 0, begin_h, begin_w, 0, 0, end_h, end_w], value>(x)   (Pad-1's `paddings` at opset 1;
//                                                                              from Pad-11 pads and value inputs)
// A copy of x among constants, exact.
#include <cmath>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

// First opsets of Pad-2 (`pads` and `value` attributes) and Pad-11 (pads and the value as inputs).
constexpr int64_t kPadWithPadsAttribute = 2;
constexpr int64_t kPadWithInputs = 11;

struct Padding {
  std::vector<int64_t> pads;  // [0, 0, begin_h, begin_w, 0, 0, end_h, end_w]
  float value = 0.0f;
};

// Floor and ceiling of a / b for b > 0.
int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

class LegacyPaddingRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "LegacyPadding"; }
  const char* domain() const override { return "com.microsoft"; }

  // The attributes give the pads only with the input's height and width: those are checked here too.
  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"kernel_shape", "strides", "pads", "value"}));
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    ASSIGN_OR_RETURN(Padding padding, Amounts(node));
    return padding;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode&) const override { return 1; }

  // The padded height and width when the pads can be told.
  ValueType OutputType(const RuleNode& node) const override {
    ValueType type = node.inputs[0].type;
    absl::StatusOr<Padding> padding = Amounts(node);
    if (padding.ok() && type.dims.has_value()) {
      (*type.dims)[2] += padding->pads[2] + padding->pads[6];
      (*type.dims)[3] += padding->pads[3] + padding->pads[7];
    }
    return type;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    const auto& padding = node.attributes<Padding>();
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    const std::string& output = node.node->output(0);
    Replacement replacement;
    if (opset < kPadWithInputs) {
      onnx::NodeProto pad = MakeNode("Pad", {node.node->input(0)}, {output});
      AddIntsAttribute(pad, opset < kPadWithPadsAttribute ? "paddings" : "pads", padding.pads);
      AddFloatAttribute(pad, "value", padding.value);
      replacement.nodes.push_back(std::move(pad));
      became = opset < kPadWithPadsAttribute ? "Pad-1" : "Pad-2";
      return replacement;
    }
    const std::string pads = names.Fresh(output + "_pads");
    const std::string value = names.Fresh(output + "_value");
    replacement.constants.emplace_back(pads, Tensor::FromInt64s(padding.pads));
    replacement.constants.emplace_back(value, Filled(type, {}, padding.value));
    replacement.nodes.push_back(MakeNode("Pad", {node.node->input(0), pads, value}, {output}));
    became = opset >= 13 ? "Pad-13" : "Pad-11";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& padding = node.attributes<Padding>();
    const Tensor& x = *inputs[0];
    if (x.rank() != 4) return Invalid(node, "input of rank ", x.rank(), "; LegacyPadding pads NCHW data of rank 4");
    const int64_t images = x.dims()[0] * x.dims()[1], h = x.dims()[2], w = x.dims()[3];
    const int64_t top = padding.pads[2], left = padding.pads[3];
    const int64_t out_h = h + top + padding.pads[6], out_w = w + left + padding.pads[7];
    const std::vector<int64_t> dims = {x.dims()[0], x.dims()[1], out_h, out_w};
    auto pad = [&](const auto& in, auto fill) {
      std::vector<decltype(fill)> out(static_cast<size_t>(images * out_h * out_w), fill);
      for (int64_t image = 0; image < images; ++image) {
        for (int64_t row = 0; row < h; ++row) {
          for (int64_t column = 0; column < w; ++column) {
            out[static_cast<size_t>((image * out_h + row + top) * out_w + column + left)] =
                in[static_cast<size_t>((image * h + row) * w + column)];
          }
        }
      }
      return out;
    };
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      result.push_back(FromFloats(dims, pad(FloatsOf(x), padding.value)));
    } else {
      result.push_back(FromDoubleValues(dims, pad(DoublesOf(x), static_cast<double>(padding.value))));
    }
    return result;
  }

 private:
  // The pads, from the node's attributes and its input's height and width, which must be known: what Parse
  // returns, and what OutputType reads of a node not yet parsed.
  static absl::StatusOr<Padding> Amounts(const RuleNode& node) {
    ASSIGN_OR_RETURN(const std::vector<int64_t> kernel, IntsAttribute(node, "kernel_shape", /*required=*/true));
    ASSIGN_OR_RETURN(std::vector<int64_t> strides, IntsAttribute(node, "strides", /*required=*/false));
    ASSIGN_OR_RETURN(std::vector<int64_t> pads, IntsAttribute(node, "pads", /*required=*/false));
    if (strides.empty()) strides = {1, 1};
    if (pads.empty()) pads = {0, 0};
    if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 2) {
      return Invalid(node, "kernel_shape, strides and pads must each hold 2 values (height, width)");
    }
    Padding padding;
    ASSIGN_OR_RETURN(padding.value, FloatAttribute(node, "value", 0.0f));
    const auto& dims = node.inputs[0].type.dims;
    if (dims.has_value() && dims->size() != 4) {
      return Invalid(node, "input '", node.inputs[0].name, "' has rank ", dims->size(), "; it pads NCHW data");
    }
    if (!dims.has_value() || (*dims)[2] < 0 || (*dims)[3] < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(node.label, ": the height and width of input '", node.inputs[0].name,
                       "' are not known, and the padding at their end depends on them (CoreML's includeLastPixel)"));
    }
    padding.pads.assign(8, 0);
    for (size_t axis = 0; axis < 2; ++axis) {
      const int64_t size = (*dims)[2 + axis], p = pads[axis], k = kernel[axis], s = strides[axis];
      if (k < 1 || s < 1 || p < 0) {
        return Invalid(node, "kernel ", k, ", stride ", s, ", pad ", p,
                       ": kernels and strides are positive, pads not negative");
      }
      const int64_t span = size + 2 * p - k;
      if (span < 0) {
        return Invalid(node, "the ", k, "-pixel window does not fit the ", size, "-pixel axis with ", p,
                       " pixels of padding");
      }
      const int64_t windows = CeilDiv(span, s) + 1;
      const int64_t begin = p;
      int64_t end = windows > FloorDiv(span, s) + 1 ? p + (s - span % s) : p;
      int64_t length = size + begin + end;
      if ((windows - 1) * s >= size + p) length -= length % s == 0 ? s : length % s;
      end = length - begin - size;
      if (end < 0) {
        return absl::FailedPreconditionError(absl::StrCat(node.label, ": pads ", p, " of a ", k,
                                                          "-pixel window would cut the axis (end padding ", end, ")"));
      }
      padding.pads[2 + axis] = begin;
      padding.pads[6 + axis] = end;
    }
    return padding;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeLegacyPaddingRule() { return std::make_unique<LegacyPaddingRule>(); }

}  // namespace onnx_legalize::rules
