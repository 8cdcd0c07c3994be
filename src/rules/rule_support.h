// What the removed-op rules share: reading a node's attributes against the old spec, the guard clauses
// every rule starts with, and building the replacement's nodes and constants.
#ifndef ONNX_LEGALIZE_SRC_RULES_RULE_SUPPORT_H_
#define ONNX_LEGALIZE_SRC_RULES_RULE_SUPPORT_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/attributes.h"
#include "rules/removed_op_rule.h"

namespace onnx_legalize::rules {

// InvalidArgument "<label>: <parts...>".
template <typename... Parts>
absl::Status Invalid(const RuleNode& node, const Parts&... parts) {
  return absl::InvalidArgumentError(absl::StrCat(node.label, ": ", parts...));
}

// The old spec's signature: input count in [min_inputs, max_inputs], `outputs` outputs, each named, and no
// attribute outside `known_attributes` (an attribute the old op did not have means the node is not what
// the rule would replace).
absl::Status CheckSignature(const RuleNode& node, int min_inputs, int max_inputs, int outputs,
                            std::initializer_list<const char*> known_attributes);

// A FLOAT attribute: `fallback` when absent (InvalidArgument when absent and there is none), and
// InvalidArgument when it has another type or is not finite (the old kernels gave NaN everywhere then).
absl::StatusOr<float> FloatAttribute(const RuleNode& node, const char* name, std::optional<float> fallback);
// FLOATS; finite unless `data` (a tensor's values, where infinities and NaN are data like any other).
absl::StatusOr<std::vector<float>> FloatsAttribute(const RuleNode& node, const char* name, bool required,
                                                   bool data = false);
absl::StatusOr<int64_t> IntAttribute(const RuleNode& node, const char* name, std::optional<int64_t> fallback);
absl::StatusOr<std::vector<int64_t>> IntsAttribute(const RuleNode& node, const char* name, bool required);

// The element type of input `index`, which must be known and float or double: the types the old ops
// admitted that ONNX Runtime ran. (float16 reaches a rule as float: rules/float16_in_float.h.)
absl::StatusOr<DataType> FloatInputType(const RuleNode& node, int index);

// The fills' first input (ConstantFill, GivenTensorFill): whether it is there, and whether the shape of their output
// is known while planning: from the attributes (no input), a constant input, or, unless `input_as_shape` (the
// input's values are the shape), an input of static shape.
bool HasFillInput(const RuleNode& node);
bool FillShapeKnown(const RuleNode& node, bool input_as_shape);

// A node of the default domain.
onnx::NodeProto MakeNode(const char* op_type, std::vector<std::string> inputs, std::vector<std::string> outputs);
void AddFloatAttribute(onnx::NodeProto& node, const char* name, float value);
void AddIntsAttribute(onnx::NodeProto& node, const char* name, const std::vector<int64_t>& values);
void AddFloatsAttribute(onnx::NodeProto& node, const char* name, const std::vector<float>& values);
void AddIntAttribute(onnx::NodeProto& node, const char* name, int64_t value);
void AddStringAttribute(onnx::NodeProto& node, const char* name, const std::string& value);

// A tensor of `type` (float16, float or double) and `dims` with every element `value` (rounded to the type).
Tensor Filled(DataType type, const std::vector<int64_t>& dims, double value);
// A float16, float or double tensor holding `values`, rounded to the type.
Tensor FromDoubles(DataType type, const std::vector<int64_t>& dims, const std::vector<double>& values);

// Per-element access to float/double tensors for reference kernels: the values widened to double and a
// result rounded back. Exact both ways, so a kernel that computes in the element type stays bit-exact.
std::vector<float> FloatsOf(const Tensor& tensor);
std::vector<double> DoublesOf(const Tensor& tensor);
Tensor FromFloats(const std::vector<int64_t>& dims, const std::vector<float>& values);
Tensor FromDoubleValues(const std::vector<int64_t>& dims, const std::vector<double>& values);

// The dims trial data gets: the known dims with unknown ones (and dims past a size budget) made small;
// `rank` dims of small sizes when the rank is unknown.
std::vector<int64_t> TrialDims(const ValueType& type, int64_t rank, TrialRandom& random);

// Verification's default trial data: each constant input as it is, each omitted one an empty tensor, each other
// drawn as SpecialFloats of its type near `pivots`, of its TrialDims (rank 4 when unknown) after `adjust_dims`.
absl::StatusOr<std::vector<Tensor>> DrawTrialInputs(
    const RuleNode& node, TrialRandom& random, const std::vector<double>& pivots,
    const std::function<void(std::vector<int64_t>&)>& adjust_dims = nullptr);

}  // namespace onnx_legalize::rules

#endif  // ONNX_LEGALIZE_SRC_RULES_RULE_SUPPORT_H_
