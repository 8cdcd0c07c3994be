#include "rules/float16_in_float.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/float16.h"
#include "core/status_macros.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

constexpr DataType kFloat = onnx::TensorProto::FLOAT;
constexpr DataType kFloat16 = onnx::TensorProto::FLOAT16;
// Cast with an int `to` attribute, float16 among its types: from opset 6.
constexpr int64_t kCastOpset = 6;

bool IsFloat16(const RuleInput& input) {
  return input.type.elem_type == kFloat16 || (input.constant != nullptr && input.constant->type() == kFloat16);
}

bool HasFloat16Input(const RuleNode& node) { return std::any_of(node.inputs.begin(), node.inputs.end(), IsFloat16); }

// The node as its float rule sees it: float16 inputs typed float, constant ones widened; optionally another
// NodeProto (the same node with its float16 values renamed to their float copies). Parsed or not, as the node
// it is made from: the float rule's attributes do not depend on the element types.
template <typename Node>
class FloatView {
 public:
  explicit FloatView(const Node& node, const onnx::NodeProto* renamed = nullptr) : node_(node) {
    if (renamed != nullptr) node_.node = renamed;
    for (RuleInput& input : node_.inputs) {
      if (!IsFloat16(input)) continue;
      input.type.elem_type = kFloat;
      if (input.constant != nullptr && input.constant->type() == kFloat16) {
        widened_.push_back(std::make_unique<Tensor>(WidenFloat16(*input.constant)));
        input.constant = widened_.back().get();
      }
    }
  }
  const Node& node() const { return node_; }

 private:
  std::vector<std::unique_ptr<Tensor>> widened_;
  Node node_;
};

onnx::NodeProto CastNode(const std::string& input, const std::string& output, DataType to) {
  onnx::NodeProto cast = MakeNode("Cast", {input}, {output});
  AddIntAttribute(cast, "to", to);
  return cast;
}

class Float16InFloatRule final : public RemovedOpRule {
 public:
  explicit Float16InFloatRule(std::unique_ptr<RemovedOpRule> rule) : rule_(std::move(rule)) {}

  const char* op_type() const override { return rule_->op_type(); }
  const char* domain() const override { return rule_->domain(); }
  bool IsRemovedAt(const onnx::NodeProto& node, int64_t opset) const override {
    return rule_->IsRemovedAt(node, opset);
  }
  bool KeepsRank() const override { return rule_->KeepsRank(); }
  std::optional<int64_t> FoldedBytes(const ParsedNode& node) const override { return rule_->FoldedBytes(node); }
  std::vector<double> TrialPivots(const ParsedNode& node) const override { return rule_->TrialPivots(node); }

  // The float rule's parse of the node in float: what it checks of its inputs' types holds of the widened ones.
  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    if (!HasFloat16Input(node)) return rule_->Parse(node);
    return rule_->Parse(FloatView(node).node());
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override {
    if (!HasFloat16Input(node)) return rule_->MinOpset(node);
    ASSIGN_OR_RETURN(const int64_t opset, rule_->MinOpset(FloatView(node).node()));
    return std::max(opset, kCastOpset);
  }

  ValueType OutputType(const RuleNode& node) const override {
    if (!HasFloat16Input(node)) return rule_->OutputType(node);
    ValueType type = rule_->OutputType(FloatView(node).node());
    if (type.elem_type == kFloat) type.elem_type = kFloat16;
    return type;
  }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t opset, NameSource& names,
                                      std::string& became) const override {
    if (!HasFloat16Input(node)) return rule_->Replace(node, opset, names, became);
    onnx::NodeProto in_float = *node.node;
    std::vector<onnx::NodeProto> widen;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!IsFloat16(node.inputs[i])) continue;
      const std::string widened = names.Fresh(node.inputs[i].name + "_float");
      widen.push_back(CastNode(node.inputs[i].name, widened, kFloat));
      in_float.set_input(static_cast<int>(i), widened);
    }
    std::vector<onnx::NodeProto> narrow;
    for (int i = 0; i < node.node->output_size(); ++i) {
      const std::string& output = node.node->output(i);
      if (output.empty()) continue;
      const std::string computed = names.Fresh(output + "_float");
      narrow.push_back(CastNode(computed, output, kFloat16));
      in_float.set_output(i, computed);
    }
    std::string inner_became;
    ASSIGN_OR_RETURN(Replacement replacement,
                     rule_->Replace(FloatView(node, &in_float).node(), opset, names, inner_became));
    replacement.nodes.insert(replacement.nodes.begin(), std::make_move_iterator(widen.begin()),
                             std::make_move_iterator(widen.end()));
    replacement.nodes.insert(replacement.nodes.end(), std::make_move_iterator(narrow.begin()),
                             std::make_move_iterator(narrow.end()));
    became = absl::StrCat("Cast to float, ", inner_became, ", Cast to float16");
    return replacement;
  }

  // Decided by the tensors themselves: the opset move's proof calls this with untyped inputs.
  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    std::vector<Tensor> widened(inputs.size());
    std::vector<const Tensor*> in_float = inputs;
    ParsedNode float_node = node;
    bool any = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == nullptr || inputs[i]->type() != kFloat16) continue;
      any = true;
      widened[i] = WidenFloat16(*inputs[i]);
      in_float[i] = &widened[i];
      if (i < float_node.inputs.size()) {
        float_node.inputs[i].type.elem_type = kFloat;
        if (float_node.inputs[i].constant != nullptr) float_node.inputs[i].constant = &widened[i];
      }
    }
    if (!any) return rule_->Reference(node, inputs);
    ASSIGN_OR_RETURN(std::vector<Tensor> outputs, rule_->Reference(float_node, in_float));
    for (Tensor& output : outputs) {
      if (output.type() == kFloat) output = NarrowToFloat16(output);
    }
    return outputs;
  }

  // The float rule's trial (its dims), with each drawn float16 input drawn again as float16 values: its
  // specials are float16's (denormals from 2^-24, the largest finite 65504).
  absl::StatusOr<std::vector<Tensor>> TrialInputs(const ParsedNode& node, TrialRandom& random) const override {
    if (!HasFloat16Input(node)) return rule_->TrialInputs(node, random);
    ASSIGN_OR_RETURN(std::vector<Tensor> inputs, rule_->TrialInputs(FloatView(node).node(), random));
    for (size_t i = 0; i < inputs.size() && i < node.inputs.size(); ++i) {
      const RuleInput& input = node.inputs[i];
      if (!IsFloat16(input)) continue;
      if (input.constant != nullptr) {
        inputs[i] = input.constant->Clone();
        continue;
      }
      ASSIGN_OR_RETURN(inputs[i], random.SpecialFloats(kFloat16, inputs[i].dims(), rule_->TrialPivots(node)));
    }
    return inputs;
  }

 private:
  std::unique_ptr<RemovedOpRule> rule_;
};

}  // namespace

std::unique_ptr<RemovedOpRule> Float16InFloat(std::unique_ptr<RemovedOpRule> rule) {
  return std::make_unique<Float16InFloatRule>(std::move(rule));
}

}  // namespace onnx_legalize::rules
