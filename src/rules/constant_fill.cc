// ConstantFill (experimental, Caffe2's, removed in ONNX 1.5): a tensor of `dtype` (float by default; float,
// int32, int64 or bool) filled with `value` (0.0, converted to dtype), shaped by the `shape` attribute (no
// input), by the input's shape (input_as_shape 0), or by the input's values (input_as_shape 1), with
// extra_shape appended.
//
// When the shape is known while planning (the attribute, a constant input, or an input of static shape)
// the pass folds it into an initializer. Otherwise:
//   y = ConstantFill<value, dtype, input_as_shape=1, extra_shape>(s)
//   -> shape = Cast<to=int64>(s)                     (when s is not int64)
//      shape' = Concat(shape, extra)                 (when extra_shape is set)
//      y = ConstantOfShape<value: one element of dtype>(shape')
//   input_as_shape 0: shape = Shape(x) instead. ConstantOfShape exists from opset 9.
#include <cmath>
#include <cstring>
#include <limits>

#include "core/status_macros.h"
#include "rules/registry.h"
#include "rules/rule_support.h"

namespace onnx_legalize::rules {
namespace {

struct FillSpec {
  double value = 0.0;
  DataType dtype = onnx::TensorProto::FLOAT;
  bool input_as_shape = false;
  std::vector<int64_t> shape;  // the attribute, when there is no input
  std::vector<int64_t> extra_shape;
};

// `count` elements of `type` equal to `value` converted as Caffe2 did (static_cast; bool: nonzero).
absl::StatusOr<Tensor> FillTensor(DataType type, std::vector<int64_t> dims, double value) {
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, "ConstantFill's output"));
  std::string one;
  switch (type) {
    case onnx::TensorProto::FLOAT: {
      const float v = static_cast<float>(value);
      one.assign(reinterpret_cast<const char*>(&v), sizeof(v));
      break;
    }
    case onnx::TensorProto::INT32: {
      const int32_t v = static_cast<int32_t>(value);
      one.assign(reinterpret_cast<const char*>(&v), sizeof(v));
      break;
    }
    case onnx::TensorProto::INT64: {
      const int64_t v = static_cast<int64_t>(value);
      one.assign(reinterpret_cast<const char*>(&v), sizeof(v));
      break;
    }
    default: one.assign(1, value != 0.0 ? '\1' : '\0');
  }
  std::string bytes;
  bytes.reserve(static_cast<size_t>(count) * one.size());
  for (int64_t i = 0; i < count; ++i) bytes.append(one);
  return Tensor::FromBytes(type, std::move(dims), std::move(bytes));
}

class ConstantFillRule final : public RemovedOpRule {
 public:
  const char* op_type() const override { return "ConstantFill"; }

  absl::StatusOr<std::any> Parse(const RuleNode& node) const override {
    RETURN_IF_ERROR(CheckSignature(node, 0, 1, 1, {"value", "dtype", "shape", "input_as_shape", "extra_shape"}));
    ASSIGN_OR_RETURN(FillSpec spec, Spec(node));
    return spec;
  }

  absl::StatusOr<int64_t> MinOpset(const ParsedNode& node) const override { return HasFillInput(node) ? 9 : 1; }

  // When its shape is known (ShapeKnown): the output's element count from the attributes and what is known of
  // the input, times the dtype's size, computed without allocating and saturating at INT64_MAX.
  std::optional<int64_t> FoldedBytes(const ParsedNode& node) const override {
    if (!ShapeKnown(node)) return std::nullopt;
    const auto& spec = node.attributes<FillSpec>();
    std::vector<int64_t> dims = spec.shape;
    if (HasFillInput(node)) {
      const RuleInput& input = node.inputs[0];
      if (spec.input_as_shape && input.constant != nullptr) {
        dims = input.constant->ToInt64s("shape").value_or(std::vector<int64_t>{});
      } else if (!spec.input_as_shape && input.type.dims.has_value()) {
        dims = *input.type.dims;
      }
    }
    dims.insert(dims.end(), spec.extra_shape.begin(), spec.extra_shape.end());
    const int64_t limit = std::numeric_limits<int64_t>::max();
    int64_t bytes = ElementSize(spec.dtype);
    for (int64_t dim : dims) {
      if (dim <= 0) return 0;
      bytes = bytes > limit / dim ? limit : bytes * dim;
    }
    return bytes;
  }

  // The dtype when the node's attributes can be read.
  ValueType OutputType(const RuleNode& node) const override {
    const absl::StatusOr<FillSpec> spec = Spec(node);
    return ValueType{spec.ok() ? spec->dtype : 0, std::nullopt};
  }

  bool KeepsRank() const override { return false; }

  absl::StatusOr<Replacement> Replace(const ParsedNode& node, int64_t, NameSource& names,
                                      std::string& became) const override {
    const auto& spec = node.attributes<FillSpec>();
    const std::string& output = node.node->output(0);
    Replacement replacement;
    if (!HasFillInput(node)) {
      // No input: the value is known now; a Constant is its whole replacement.
      std::vector<int64_t> dims = spec.shape;
      dims.insert(dims.end(), spec.extra_shape.begin(), spec.extra_shape.end());
      ASSIGN_OR_RETURN(Tensor value, FillTensor(spec.dtype, dims, spec.value));
      replacement.constants.emplace_back(output, std::move(value));
      became = "initializer";
      return replacement;
    }
    const std::string& input = node.node->input(0);
    std::string shape = names.Fresh(output + "_shape");
    if (spec.input_as_shape) {
      if (node.inputs[0].type.elem_type == onnx::TensorProto::INT64) {
        shape = input;
      } else {
        onnx::NodeProto cast = MakeNode("Cast", {input}, {shape});
        AddIntAttribute(cast, "to", onnx::TensorProto::INT64);
        replacement.nodes.push_back(std::move(cast));
      }
    } else {
      replacement.nodes.push_back(MakeNode("Shape", {input}, {shape}));
    }
    if (!spec.extra_shape.empty()) {
      const std::string extra = names.Fresh(output + "_extra_shape");
      const std::string full = names.Fresh(output + "_full_shape");
      replacement.constants.emplace_back(extra, Tensor::FromInt64s(spec.extra_shape));
      replacement.nodes.push_back(MakeNode("Concat", {shape, extra}, {full}));
      AddIntAttribute(replacement.nodes.back(), "axis", 0);
      shape = full;
    }
    onnx::NodeProto fill = MakeNode("ConstantOfShape", {shape}, {output});
    ASSIGN_OR_RETURN(Tensor one, FillTensor(spec.dtype, {1}, spec.value));
    onnx::AttributeProto* value = fill.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    *value->mutable_t() = TensorToProto(std::move(one), "value");
    replacement.nodes.push_back(std::move(fill));
    became = spec.input_as_shape ? "ConstantOfShape" : "Shape + ConstantOfShape";
    return replacement;
  }

  absl::StatusOr<std::vector<Tensor>> Reference(const ParsedNode& node,
                                                const std::vector<const Tensor*>& inputs) const override {
    const auto& spec = node.attributes<FillSpec>();
    std::vector<int64_t> dims = spec.shape;
    const Tensor* input = inputs.empty() ? nullptr : inputs[0];
    if (HasFillInput(node)) {
      if (spec.input_as_shape) {
        if (input == nullptr) return Invalid(node, "the shape input has no value");
        if (input->rank() != 1) return Invalid(node, "the shape input has rank ", input->rank(), "; it must be 1-D");
        std::vector<int64_t> values;
        if (input->type() == onnx::TensorProto::INT64 || input->type() == onnx::TensorProto::INT32) {
          ASSIGN_OR_RETURN(values, input->ToInt64s("shape"));
        } else if (input->type() == onnx::TensorProto::FLOAT) {
          for (float v : FloatsOf(*input)) {
            if (!std::isfinite(v) || std::fabs(v) > 9.2e18f) return Invalid(node, "shape value ", v, " is not a dim");
            values.push_back(static_cast<int64_t>(v));
          }
        } else {
          return Invalid(node, "a shape input of type ", DataTypeName(input->type()), " is not supported");
        }
        dims = values;
      } else {
        // The input's shape: from the tensor when there is one, else from what is statically known.
        dims = input != nullptr ? input->dims() : node.inputs[0].type.dims.value_or(std::vector<int64_t>{});
      }
    }
    dims.insert(dims.end(), spec.extra_shape.begin(), spec.extra_shape.end());
    for (int64_t dim : dims) {
      if (dim < 0) return Invalid(node, "the output would have dim ", dim);
    }
    ASSIGN_OR_RETURN(Tensor value, FillTensor(spec.dtype, dims, spec.value));
    std::vector<Tensor> result;
    result.push_back(std::move(value));
    return result;
  }

  absl::StatusOr<std::vector<Tensor>> TrialInputs(const ParsedNode& node, TrialRandom& random) const override {
    std::vector<Tensor> inputs;
    if (!HasFillInput(node)) return inputs;
    const RuleInput& input = node.inputs[0];
    if (input.constant != nullptr) {
      inputs.push_back(input.constant->Clone());
      return inputs;
    }
    const auto& spec = node.attributes<FillSpec>();
    const DataType type = input.type.elem_type != 0 ? input.type.elem_type : onnx::TensorProto::INT64;
    if (spec.input_as_shape) {
      // A shape of a few small dims, zero included.
      std::vector<int64_t> shape(static_cast<size_t>(random.Uniform(0, 3)));
      for (int64_t& dim : shape) dim = random.Uniform(0, 4);
      if (type == onnx::TensorProto::INT64) {
        inputs.push_back(Tensor::FromInt64s(shape));
      } else if (type == onnx::TensorProto::INT32) {
        inputs.push_back(Tensor::FromInt32s(std::vector<int32_t>(shape.begin(), shape.end())));
      } else {
        inputs.push_back(FromDoubles(onnx::TensorProto::FLOAT, {static_cast<int64_t>(shape.size())},
                                     std::vector<double>(shape.begin(), shape.end())));
      }
      return inputs;
    }
    // Only the input's shape matters. A statically known one is used as it is (the fold is verified on
    // it); the output's size bounds it.
    std::vector<int64_t> dims =
        ShapeKnown(node) ? *input.type.dims : TrialDims(input.type, random.Uniform(0, 4), random);
    ASSIGN_OR_RETURN(Tensor data, Tensor::Zeros(type, dims));
    inputs.push_back(std::move(data));
    return inputs;
  }

 private:
  // True when the output's shape is known while planning (FillShapeKnown).
  static bool ShapeKnown(const ParsedNode& node) {
    return FillShapeKnown(node, node.attributes<FillSpec>().input_as_shape);
  }

  // The attributes, checked against the old spec: what Parse returns, and what OutputType reads of a node not
  // yet parsed.
  static absl::StatusOr<FillSpec> Spec(const RuleNode& node) {
    FillSpec spec;
    ASSIGN_OR_RETURN(const float value, FloatAttribute(node, "value", 0.0f));
    spec.value = value;
    ASSIGN_OR_RETURN(const int64_t dtype, IntAttribute(node, "dtype", onnx::TensorProto::FLOAT));
    if (dtype != onnx::TensorProto::FLOAT && dtype != onnx::TensorProto::INT32 && dtype != onnx::TensorProto::INT64 &&
        dtype != onnx::TensorProto::BOOL) {
      return Invalid(node, "dtype is ", dtype, "; ConstantFill makes float (1), int32 (6), int64 (7) or bool (9)");
    }
    spec.dtype = static_cast<DataType>(dtype);
    // Converting a value the integer type cannot hold is undefined (Caffe2's static_cast was too).
    const double limit = dtype == onnx::TensorProto::INT32 ? 2147483647.0 : 9.2e18;
    if ((dtype == onnx::TensorProto::INT32 || dtype == onnx::TensorProto::INT64) && std::fabs(spec.value) > limit) {
      return Invalid(node, "value ", spec.value, " does not fit dtype ", DataTypeName(spec.dtype));
    }
    ASSIGN_OR_RETURN(const int64_t input_as_shape, IntAttribute(node, "input_as_shape", 0));
    if (input_as_shape != 0 && input_as_shape != 1) return Invalid(node, "input_as_shape is ", input_as_shape);
    spec.input_as_shape = input_as_shape == 1;
    ASSIGN_OR_RETURN(spec.shape, IntsAttribute(node, "shape", false));
    ASSIGN_OR_RETURN(spec.extra_shape, IntsAttribute(node, "extra_shape", false));
    for (int64_t dim : spec.shape) {
      if (dim < 0) return Invalid(node, "shape holds ", dim);
    }
    for (int64_t dim : spec.extra_shape) {
      if (dim < 0) return Invalid(node, "extra_shape holds ", dim);
    }
    if (HasFillInput(node) && FindAttribute(*node.node, "shape") != nullptr) {
      return Invalid(node, "has both an input and a shape attribute; the old op takes one or the other");
    }
    if (!HasFillInput(node) && spec.input_as_shape) return Invalid(node, "input_as_shape is 1 but there is no input");
    return spec;
  }
};

}  // namespace

std::unique_ptr<RemovedOpRule> MakeConstantFillRule() { return std::make_unique<ConstantFillRule>(); }

}  // namespace onnx_legalize::rules
