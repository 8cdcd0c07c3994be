#include "rules/rule_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_join.h"
#include "core/float16.h"
#include "core/status_macros.h"
#include "graph/op_names.h"
#include "rules/trial_limits.h"

namespace onnx_legalize {

namespace {

// Trial data stays small: the removed ops compute each element (or each channel's statistics) alike, and
// small dims cover every case their results depend on (the limit of their product: rules/trial_limits.h).
constexpr int64_t kMaxTrialDim = 6;
// The rank of drawn data whose rank is not known: the removed ops' NCHW.
constexpr int64_t kTrialRank = 4;

// InvalidArgument unless `type` is one trial floats are drawn in: float16, float, double.
absl::Status CheckTrialFloatType(DataType type) {
  if (type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE || type == onnx::TensorProto::FLOAT16) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("trial data of type ", DataTypeName(type)));
}

template <typename T>
Tensor PackValues(DataType type, const std::vector<int64_t>& dims, const std::vector<double>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const T value = static_cast<T>(values[i]);
    std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
  }
  return Tensor::FromBytes(type, dims, std::move(bytes)).value();
}

// The float16 `direction` (+1 or -1) units in the last place from `value` (a float16's value).
double NextFloat16(double value, int direction) {
  const uint16_t bits = FloatToFloat16(static_cast<float>(value));
  // Bit patterns ordered as the values are: the sign bit flips the order of the rest.
  int32_t ordered = (bits & 0x8000u) != 0 ? -static_cast<int32_t>(bits & 0x7fffu) : static_cast<int32_t>(bits);
  ordered += direction;
  const auto next = static_cast<uint16_t>(ordered < 0 ? 0x8000 | -ordered : ordered);
  return Float16ToFloat(next);
}

}  // namespace

int64_t TrialRandom::Uniform(int64_t low, int64_t high) {
  const uint64_t span = static_cast<uint64_t>(high - low) + 1;
  return low + static_cast<int64_t>(span == 0 ? rng_() : rng_() % span);
}

absl::StatusOr<Tensor> TrialRandom::SpecialFloats(DataType type, const std::vector<int64_t>& dims,
                                                  const std::vector<double>& pivots) {
  const bool is_half = type == onnx::TensorProto::FLOAT16;
  RETURN_IF_ERROR(CheckTrialFloatType(type));
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, "trial data"));
  const bool is_float = type == onnx::TensorProto::FLOAT;
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<double> specials;
  if (is_half) {
    // 2^-24 the least denormal, 6e-5 about the least normal, 65504 the largest finite.
    specials = {0.0,     -0.0, infinity, -infinity, std::nan(""), 0x1p-24, -0x1p-24, 1e-5, -3e-7,
                60000.0, -6e4, 3e4,      -65504.0,  65504.0,      88.8,    -88.8,    1e-3, 1.0};
  } else {
    const double denormal = is_float ? static_cast<double>(std::numeric_limits<float>::denorm_min())
                                     : std::numeric_limits<double>::denorm_min();
    const double largest =
        is_float ? static_cast<double>(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
    specials = {0.0,  -0.0,  infinity, -infinity, std::nan(""), denormal, -denormal, 1e-39, -3e-42,
                1e30, -1e30, 3e37,     -largest,  largest,      88.8,     -88.8,     1e-7,  1.0};
  }
  std::vector<double> values(static_cast<size_t>(count));
  for (double& value : values) {
    const int64_t kind = Uniform(0, 9);
    if (kind <= 2) {
      value = specials[static_cast<size_t>(Uniform(0, static_cast<int64_t>(specials.size()) - 1))];
    } else if (kind == 3 && !pivots.empty()) {
      // A pivot, or a few units in the last place beside it.
      double pivot = pivots[static_cast<size_t>(Uniform(0, static_cast<int64_t>(pivots.size()) - 1))];
      if (is_float) pivot = static_cast<float>(pivot);
      if (is_half) pivot = Float16ToFloat(FloatToFloat16(static_cast<float>(pivot)));
      for (int64_t steps = Uniform(-2, 2); steps != 0; steps += steps > 0 ? -1 : 1) {
        if (is_half) {
          pivot = NextFloat16(pivot, steps > 0 ? 1 : -1);
        } else {
          pivot = is_float ? std::nextafter(static_cast<float>(pivot), steps > 0 ? INFINITY : -INFINITY)
                           : std::nextafter(pivot, steps > 0 ? infinity : -infinity);
        }
      }
      value = pivot;
    } else {
      value = OrdinaryValue(-12, 12);  // ordinary magnitudes over many binades
    }
  }
  return rules::FromDoubles(type, dims, values);
}

absl::StatusOr<Tensor> TrialRandom::OrdinaryFloats(DataType type, const std::vector<int64_t>& dims) {
  RETURN_IF_ERROR(CheckTrialFloatType(type));
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, "trial data"));
  std::vector<double> values(static_cast<size_t>(count));
  for (double& value : values) value = OrdinaryValue(-5, 0);
  return rules::FromDoubles(type, dims, values);
}

double TrialRandom::OrdinaryValue(int min_exponent, int max_exponent) {
  // One draw per statement: C++ leaves the order of operands within an expression open, and the draws must
  // come in one order whatever the compiler (mantissa, sign, exponent: the order GCC and Clang gave the single
  // expression this was).
  const double mantissa = static_cast<double>(Uniform(0, 1 << 20)) / (1 << 20);
  const double sign = Uniform(0, 1) ? -1.0 : 1.0;
  const auto exponent = static_cast<int>(Uniform(min_exponent, max_exponent));
  return sign * (0.5 + mantissa) * std::ldexp(1.0, exponent);
}

std::optional<int64_t> RemovedOpRule::FoldedBytes(const ParsedNode& node) const {
  int64_t bytes = 0;
  for (const RuleInput& input : node.inputs) {
    if (input.name.empty()) continue;
    if (input.constant == nullptr) return std::nullopt;
    bytes = std::max<int64_t>(bytes, static_cast<int64_t>(input.constant->bytes().size()));
  }
  return bytes;
}

absl::StatusOr<std::vector<Tensor>> RemovedOpRule::TrialInputs(const ParsedNode& node, TrialRandom& random) const {
  return rules::DrawTrialInputs(node, random, TrialPivots(node));
}

namespace rules {

absl::Status CheckSignature(const RuleNode& node, int min_inputs, int max_inputs, int outputs,
                            std::initializer_list<const char*> known_attributes) {
  const onnx::NodeProto& proto = *node.node;
  if (proto.input_size() < min_inputs || proto.input_size() > max_inputs) {
    return Invalid(node, "has ", proto.input_size(), " inputs; ", proto.op_type(), " takes ",
                   min_inputs == max_inputs ? absl::StrCat(min_inputs) : absl::StrCat(min_inputs, " to ", max_inputs));
  }
  for (int i = 0; i < proto.input_size() && i < 1; ++i) {
    if (min_inputs > 0 && proto.input(i).empty()) return Invalid(node, "input ", i, " is empty");
  }
  if (proto.output_size() != outputs) {
    return Invalid(node, "has ", proto.output_size(), " outputs; ", proto.op_type(), " has ", outputs);
  }
  for (const std::string& output : proto.output()) {
    if (output.empty()) return Invalid(node, "has an output without a name");
  }
  for (const auto& attribute : proto.attribute()) {
    const bool known = std::any_of(known_attributes.begin(), known_attributes.end(),
                                   [&](const char* name) { return attribute.name() == name; });
    if (!known) {
      return Invalid(node, "has attribute '", attribute.name(), "', which ", proto.op_type(), " never had (it takes ",
                     known_attributes.size() == 0 ? std::string("none") : absl::StrJoin(known_attributes, ", "), ")");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<float> FloatAttribute(const RuleNode& node, const char* name, std::optional<float> fallback) {
  const onnx::AttributeProto* attribute = FindAttribute(*node.node, name);
  if (attribute == nullptr) {
    if (fallback.has_value()) return *fallback;
    return Invalid(node, "has no attribute '", name, "', which ", node.node->op_type(), " requires");
  }
  if (attribute->type() != onnx::AttributeProto::FLOAT) {
    return Invalid(node, "attribute '", name, "' is not a float");
  }
  if (!std::isfinite(attribute->f())) return Invalid(node, "attribute '", name, "' is ", attribute->f());
  return attribute->f();
}

absl::StatusOr<std::vector<float>> FloatsAttribute(const RuleNode& node, const char* name, bool required, bool data) {
  const onnx::AttributeProto* attribute = FindAttribute(*node.node, name);
  if (attribute == nullptr) {
    if (!required) return std::vector<float>{};
    return Invalid(node, "has no attribute '", name, "', which ", node.node->op_type(), " requires");
  }
  if (attribute->type() != onnx::AttributeProto::FLOATS) {
    return Invalid(node, "attribute '", name, "' is not a list of floats");
  }
  for (float value : attribute->floats()) {
    if (!data && !std::isfinite(value)) return Invalid(node, "attribute '", name, "' holds ", value);
  }
  return std::vector<float>(attribute->floats().begin(), attribute->floats().end());
}

absl::StatusOr<int64_t> IntAttribute(const RuleNode& node, const char* name, std::optional<int64_t> fallback) {
  const onnx::AttributeProto* attribute = FindAttribute(*node.node, name);
  if (attribute == nullptr) {
    if (fallback.has_value()) return *fallback;
    return Invalid(node, "has no attribute '", name, "', which ", node.node->op_type(), " requires");
  }
  if (attribute->type() != onnx::AttributeProto::INT) return Invalid(node, "attribute '", name, "' is not an int");
  return attribute->i();
}

absl::StatusOr<std::vector<int64_t>> IntsAttribute(const RuleNode& node, const char* name, bool required) {
  const onnx::AttributeProto* attribute = FindAttribute(*node.node, name);
  if (attribute == nullptr) {
    if (!required) return std::vector<int64_t>{};
    return Invalid(node, "has no attribute '", name, "', which ", node.node->op_type(), " requires");
  }
  if (attribute->type() != onnx::AttributeProto::INTS) {
    return Invalid(node, "attribute '", name, "' is not a list of ints");
  }
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

absl::StatusOr<DataType> FloatInputType(const RuleNode& node, int index) {
  const RuleInput& input = node.inputs[static_cast<size_t>(index)];
  const DataType type = input.type.elem_type;
  if (type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE) return type;
  if (type == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(node.label, ": the element type of input '", input.name,
                     "' is not known (declare it in the graph's value_info), and the replacement's constants need it"));
  }
  return absl::FailedPreconditionError(absl::StrCat(node.label, ": input '", input.name, "' is ", DataTypeName(type),
                                                    "; the removed ops computed float16 (in float), float and double"));
}

onnx::NodeProto MakeNode(const char* op_type, std::vector<std::string> inputs, std::vector<std::string> outputs) {
  onnx::NodeProto node;
  node.set_op_type(op_type);
  for (std::string& input : inputs) node.add_input(std::move(input));
  for (std::string& output : outputs) node.add_output(std::move(output));
  return node;
}

bool HasFillInput(const RuleNode& node) { return node.node->input_size() > 0 && !node.node->input(0).empty(); }

bool FillShapeKnown(const RuleNode& node, bool input_as_shape) {
  if (!HasFillInput(node)) return true;
  const RuleInput& input = node.inputs[0];
  if (input.constant != nullptr) return true;
  if (input_as_shape || !input.type.dims.has_value()) return false;
  for (int64_t dim : *input.type.dims) {
    if (dim < 0) return false;
  }
  return true;
}

void AddFloatAttribute(onnx::NodeProto& node, const char* name, float value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::FLOAT);
  attribute->set_f(value);
}

void AddIntsAttribute(onnx::NodeProto& node, const char* name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INTS);
  for (int64_t value : values) attribute->add_ints(value);
}

void AddFloatsAttribute(onnx::NodeProto& node, const char* name, const std::vector<float>& values) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::FLOATS);
  for (float value : values) attribute->add_floats(value);
}

void AddIntAttribute(onnx::NodeProto& node, const char* name, int64_t value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INT);
  attribute->set_i(value);
}

void AddStringAttribute(onnx::NodeProto& node, const char* name, const std::string& value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::STRING);
  attribute->set_s(value);
}

Tensor FromDoubles(DataType type, const std::vector<int64_t>& dims, const std::vector<double>& values) {
  if (type == onnx::TensorProto::FLOAT16) {
    std::string bytes(values.size() * 2, '\0');
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t half = FloatToFloat16(static_cast<float>(values[i]));
      std::memcpy(bytes.data() + 2 * i, &half, 2);
    }
    return Tensor::FromBytes(type, dims, std::move(bytes)).value();
  }
  return type == onnx::TensorProto::FLOAT ? PackValues<float>(type, dims, values)
                                          : PackValues<double>(type, dims, values);
}

Tensor Filled(DataType type, const std::vector<int64_t>& dims, double value) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return FromDoubles(type, dims, std::vector<double>(static_cast<size_t>(count), value));
}

std::vector<float> FloatsOf(const Tensor& tensor) {
  std::vector<float> values(static_cast<size_t>(tensor.element_count()));
  if (!values.empty()) std::memcpy(values.data(), tensor.bytes().data(), values.size() * sizeof(float));
  return values;
}

std::vector<double> DoublesOf(const Tensor& tensor) {
  std::vector<double> values(static_cast<size_t>(tensor.element_count()));
  if (!values.empty()) std::memcpy(values.data(), tensor.bytes().data(), values.size() * sizeof(double));
  return values;
}

Tensor FromFloats(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return Tensor::FromBytes(onnx::TensorProto::FLOAT, dims, std::move(bytes)).value();
}

Tensor FromDoubleValues(const std::vector<int64_t>& dims, const std::vector<double>& values) {
  std::string bytes(values.size() * sizeof(double), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return Tensor::FromBytes(onnx::TensorProto::DOUBLE, dims, std::move(bytes)).value();
}

std::vector<int64_t> TrialDims(const ValueType& type, int64_t rank, TrialRandom& random) {
  std::vector<int64_t> dims;
  if (type.dims.has_value()) {
    dims = *type.dims;
  } else {
    dims.assign(static_cast<size_t>(rank), -1);
  }
  int64_t count = 1;
  for (int64_t& dim : dims) {
    if (dim < 0 || dim > kMaxTrialDim) dim = random.Uniform(1, kMaxTrialDim);
    count *= std::max<int64_t>(dim, 1);
  }
  // Within the budget even at rank 8: shrink the largest dims first.
  while (count > kMaxRemovedOpTrialElements) {
    auto largest = std::max_element(dims.begin(), dims.end());
    count = count / *largest;
    *largest = std::max<int64_t>(1, *largest / 2);
    count *= *largest;
  }
  return dims;
}

absl::StatusOr<std::vector<Tensor>> DrawTrialInputs(const RuleNode& node, TrialRandom& random,
                                                    const std::vector<double>& pivots,
                                                    const std::function<void(std::vector<int64_t>&)>& adjust_dims) {
  std::vector<Tensor> inputs;
  for (const RuleInput& input : node.inputs) {
    if (input.constant != nullptr) {
      inputs.push_back(input.constant->Clone());
      continue;
    }
    if (input.name.empty()) {
      inputs.emplace_back();
      continue;
    }
    std::vector<int64_t> dims = TrialDims(input.type, kTrialRank, random);
    if (adjust_dims) adjust_dims(dims);
    ASSIGN_OR_RETURN(Tensor data, random.SpecialFloats(input.type.elem_type, dims, pivots));
    inputs.push_back(std::move(data));
  }
  return inputs;
}

}  // namespace rules
}  // namespace onnx_legalize
