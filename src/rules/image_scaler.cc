// ImageScaler (experimental, removed in ONNX 1.5): output[n, c, h, w] = scale * input[n, c, h, w] + bias[c].
//
//   y = ImageScaler<scale, bias>(x)         x: NCHW, float or double
//   -> y_scaled = Mul(x, scale)             scale: a scalar constant of x's type
//      y = Add(y_scaled, bias')             bias': bias shaped [C, 1, 1] to broadcast per channel
// The same two roundings in the same order as the old kernel (ONNX Runtime's: x * scale, then + bias[c]),
// so the replacement is exact. Mul and Add broadcast this way from opset 7.
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

struct ImageScalerAttributes {
  float scale = 1.0f;
  std::vector<float> bias;  // one per channel
};

class ImageScalerRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "ImageScaler"; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 1, 1, 1, {"scale", "bias"}));
    ImageScalerAttributes attributes;
    ASSIGN_OR_RETURN(attributes.scale, FloatAttribute(node, "scale", 1.0f));
    ASSIGN_OR_RETURN(attributes.bias, FloatsAttribute(node, "bias", /*required=*/true));
    if (attributes.bias.empty()) return Invalid(node, "bias is empty; it holds one value per channel");
    return attributes;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    const std::vector<float>& bias = node.attributes<ImageScalerAttributes>().bias;
    RETURN_IF_ERROR(FloatInputType(node, 0).status());
    const auto& dims = node.inputs[0].type.dims;
    // ONNX Runtime's kernel, the old ops' reference runtime, takes only NCHW data.
    if (dims.has_value() && dims->size() != 4) {
      return Invalid(node, "input '", node.inputs[0].name, "' has rank ", dims->size(),
                     "; ImageScaler takes NCHW data of rank 4");
    }
    if (dims.has_value() && (*dims)[1] >= 0 && (*dims)[1] != static_cast<int64_t>(bias.size())) {
      return Invalid(node, "bias has ", bias.size(), " values but input '", node.inputs[0].name, "' has ", (*dims)[1],
                     " channels");
    }
    return 7;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    (void)opset;
    const auto& [scale, bias] = node.attributes<ImageScalerAttributes>();
    ASSIGN_OR_RETURN(const DataType type, FloatInputType(node, 0));
    const std::string& output = node.node->output(0);
    Replacement replacement;
    const std::string scale_name = names.Fresh(output + "_scale");
    const std::string bias_name = names.Fresh(output + "_bias");
    const std::string scaled = names.Fresh(output + "_scaled");
    replacement.constants.emplace_back(scale_name, Filled(type, {}, scale));
    replacement.constants.emplace_back(bias_name, FromDoubles(type, {static_cast<int64_t>(bias.size()), 1, 1},
                                                              std::vector<double>(bias.begin(), bias.end())));
    replacement.nodes.push_back(MakeNode("Mul", {node.node->input(0), scale_name}, {scaled}));
    replacement.nodes.push_back(MakeNode("Add", {scaled, bias_name}, {output}));
    became = "Mul + Add";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const Tensor& x = *inputs[0];
    const auto& [scale, bias] = node.attributes<ImageScalerAttributes>();
    if (x.rank() != 4) return Invalid(node, "input of rank ", x.rank(), "; ImageScaler takes rank 4");
    if (x.dims()[1] != static_cast<int64_t>(bias.size())) {
      return Invalid(node, "input has ", x.dims()[1], " channels; bias has ", bias.size());
    }
    const int64_t channels = x.dims()[1];
    const int64_t plane = x.dims()[2] * x.dims()[3];
    std::vector<Tensor> result;
    if (x.type() == onnx::TensorProto::FLOAT) {
      std::vector<float> values = FloatsOf(x);
      for (size_t i = 0; i < values.size(); ++i) {
        const int64_t c = (static_cast<int64_t>(i) / plane) % channels;
        values[i] = values[i] * scale + bias[static_cast<size_t>(c)];
      }
      result.push_back(FromFloats(x.dims(), values));
    } else {
      std::vector<double> values = DoublesOf(x);
      for (size_t i = 0; i < values.size(); ++i) {
        const int64_t c = (static_cast<int64_t>(i) / plane) % channels;
        values[i] = values[i] * double{scale} + double{bias[static_cast<size_t>(c)]};
      }
      result.push_back(FromDoubleValues(x.dims(), values));
    }
    return result;
  }

  // NCHW data of the node's channels.
  absl::StatusOr<std::vector<Tensor>> TrialInputs(const ParsedNode& node, TrialRandom& random) const override {
    const int64_t channels = static_cast<int64_t>(node.attributes<ImageScalerAttributes>().bias.size());
    return DrawTrialInputs(node, random, TrialPivots(node), [channels](std::vector<int64_t>& dims) {
      dims.resize(4, 2);
      dims[1] = channels;
    });
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeImageScalerRule() { return std::make_unique<ImageScalerRule>(); }

}  // namespace onnx_legalize::rules
