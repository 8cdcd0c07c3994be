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

class GivenTensorFillRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "GivenTensorFill"; }

  absl::StatusOr<int64_t> MinOpset(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 0, 1, 1, {"values", "shape", "input_as_shape", "extra_shape"}));
    RETURN_IF_ERROR(FloatsAttribute(node, "values", /*required=*/true, /*data=*/true).status());
    ASSIGN_OR_RETURN(const int64_t input_as_shape, IntAttribute(node, "input_as_shape", 0));
    if (input_as_shape != 0 && input_as_shape != 1) return Invalid(node, "input_as_shape is ", input_as_shape);
    RETURN_IF_ERROR(IntsAttribute(node, "shape", false).status());
    RETURN_IF_ERROR(IntsAttribute(node, "extra_shape", false).status());
    if (!CanFold(node)) {
      return absl::FailedPreconditionError(absl::StrCat(
          node.label, ": its shape comes from input '", node.node->input(0),
          "' at run time; GivenTensorFill is legalized only when its shape is known (a constant or static one)"));
    }
    return 1;
  }

  bool CanFold(const RuleNode& node) const override {
    if (node.node->input_size() == 0 || node.node->input(0).empty()) return true;
    const RuleInput& input = node.inputs[0];
    if (input.constant != nullptr) return true;
    if (IntAttribute(node, "input_as_shape", 0).value_or(1) != 0 || !input.type.dims.has_value()) return false;
    for (int64_t dim : *input.type.dims) {
      if (dim < 0) return false;
    }
    return true;
  }

  // The values are in the node already: the fold holds as many floats.
  int64_t FoldedBytesBound(const RuleNode& node) const override {
    const onnx::AttributeProto* values = FindAttribute(*node.node, "values");
    return values == nullptr ? 0 : int64_t{4} * values->floats_size();
  }

  ValueType OutputType(const RuleNode&) const override { return ValueType{onnx::TensorProto::FLOAT, std::nullopt}; }

  bool KeepsRank() const override { return false; }

  absl::StatusOr<Replacement> Replace(const RuleNode& node, int64_t, NameSource&, std::string& became) const override {
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

  absl::StatusOr<std::vector<Tensor>> Reference(const RuleNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    ASSIGN_OR_RETURN(const std::vector<float> values, FloatsAttribute(node, "values", true, /*data=*/true));
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntsAttribute(node, "shape", false));
    ASSIGN_OR_RETURN(const std::vector<int64_t> extra, IntsAttribute(node, "extra_shape", false));
    ASSIGN_OR_RETURN(const int64_t input_as_shape, IntAttribute(node, "input_as_shape", 0));
    const Tensor* input = inputs.empty() ? nullptr : inputs[0];
    if (input != nullptr) {
      if (input_as_shape == 1) {
        ASSIGN_OR_RETURN(dims, input->ToInt64s("shape"));
      } else {
        dims = input->dims();
      }
    } else if (node.node->input_size() > 0 && !node.node->input(0).empty()) {
      // Not a constant, but its static shape is all that is read (CanFold).
      dims = node.inputs[0].type.dims.value_or(std::vector<int64_t>{});
    }
    dims.insert(dims.end(), extra.begin(), extra.end());
    ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, "GivenTensorFill's output"));
    if (count != static_cast<int64_t>(values.size())) {
      return Invalid(node, "values holds ", values.size(), " numbers but the shape [", absl::StrJoin(dims, ", "),
                     "] has ", count, " elements");
    }
    std::vector<Tensor> result;
    result.push_back(FromFloats(dims, values));
    return result;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeGivenTensorFillRule() { return std::make_unique<GivenTensorFillRule>(); }

}  // namespace onnx_legalize::rules
