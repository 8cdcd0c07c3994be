// GivenTensorFill (experimental, Caffe2's, removed in ONNX 1.5): a float tensor holding `values`, shaped by
// the `shape` attribute, or by the input's shape (input_as_shape 0) or values (input_as_shape 1), with
// extra_shape appended. Its values are in the node, so it is a constant whenever its shape is known while
// planning: the pass folds it into an initializer (a Constant node where an initializer cannot be
// declared). A GivenTensorFill whose shape is only known at run time is refused: the values must fill that
// shape exactly, which only a run can tell.
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

struct GivenTensorFillAttributes {
  std::vector<float> values;
  std::vector<int64_t> shape;  // the attribute, when there is no input
  std::vector<int64_t> extra_shape;
  bool input_as_shape = false;
};

class GivenTensorFillRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "GivenTensorFill"; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 0, 1, 1, {"values", "shape", "input_as_shape", "extra_shape"}));
    GivenTensorFillAttributes attributes;
    ASSIGN_OR_RETURN(attributes.values, FloatsAttribute(node, "values", /*required=*/true, /*data=*/true));
    ASSIGN_OR_RETURN(const int64_t input_as_shape, IntAttribute(node, "input_as_shape", 0));
    if (input_as_shape != 0 && input_as_shape != 1) return Invalid(node, "input_as_shape is ", input_as_shape);
    attributes.input_as_shape = input_as_shape == 1;
    ASSIGN_OR_RETURN(attributes.shape, IntsAttribute(node, "shape", false));
    ASSIGN_OR_RETURN(attributes.extra_shape, IntsAttribute(node, "extra_shape", false));
    return attributes;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    if (!ShapeKnown(node)) {
      return absl::FailedPreconditionError(absl::StrCat(
          node.label, ": its shape comes from input '", node.node->input(0),
          "' at run time; GivenTensorFill is legalized only when its shape is known (a constant or static one)"));
    }
    return 1;
  }

  // When its shape is known (ShapeKnown, which MinOpset requires): the values are in the node already, and the
  // fold holds as many floats.
  std::optional<int64_t> FoldedBytes(const ParsedNode& node) const override {
    if (!ShapeKnown(node)) return std::nullopt;
    return int64_t{4} * static_cast<int64_t>(node.attributes<GivenTensorFillAttributes>().values.size());
  }

  ValueType OutputType(const RuleNode&) const override { return ValueType{onnx::TensorProto::FLOAT, std::nullopt}; }

  bool KeepsRank() const override { return false; }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t, NameSource&,
                                      std::string& became) const override {
    // Only ever folded; its replacement is the constant itself, decoded from a TensorProto as the model
    // will hold it (verification compares it with the reference's own reading of the attributes).
    std::vector<const Tensor*> inputs;
    for (const RuleInput& input : node.inputs) inputs.push_back(input.constant);
    ASSIGN_OR_RETURN(std::vector<Tensor> value, Reference(node, inputs));
    Replacement replacement;
    onnx::NodeProto constant = MakeNode("Constant", {}, {node.node->output(0)});
    onnx::AttributeProto* attribute = constant.add_attribute();
    attribute->set_name("value");
    attribute->set_type(onnx::AttributeProto::TENSOR);
    *attribute->mutable_t() = TensorToProto(std::move(value[0]), node.node->output(0));
    replacement.nodes.push_back(std::move(constant));
    became = "initializer";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& attributes = node.attributes<GivenTensorFillAttributes>();
    std::vector<int64_t> dims = attributes.shape;
    const Tensor* input = inputs.empty() ? nullptr : inputs[0];
    if (input != nullptr) {
      if (attributes.input_as_shape) {
        ASSIGN_OR_RETURN(dims, input->ToInt64s("shape"));
      } else {
        dims = input->dims();
      }
    } else if (HasFillInput(node)) {
      // Not a constant, but its static shape is all that is read (ShapeKnown).
      dims = node.inputs[0].type.dims.value_or(std::vector<int64_t>{});
    }
    dims.insert(dims.end(), attributes.extra_shape.begin(), attributes.extra_shape.end());
    ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, "GivenTensorFill's output"));
    if (count != static_cast<int64_t>(attributes.values.size())) {
      return Invalid(node, "values holds ", attributes.values.size(), " numbers but the shape [",
                     absl::StrJoin(dims, ", "), "] has ", count, " elements");
    }
    std::vector<Tensor> result;
    result.push_back(FromFloats(dims, attributes.values));
    return result;
  }

 private:
  // True when the output's shape is known while planning (FillShapeKnown).
  static bool ShapeKnown(const ParsedNode& node) {
    return FillShapeKnown(node, node.attributes<GivenTensorFillAttributes>().input_as_shape);
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeGivenTensorFillRule() { return std::make_unique<GivenTensorFillRule>(); }

}  // namespace onnx_legalize::rules
