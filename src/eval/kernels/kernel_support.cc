#include "eval/kernels/kernel_support.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error_kind.h"
#include "core/status_macros.h"

namespace onnx_legalize {

using ::absl::StrCat;

absl::Status CheckValueSize(int64_t count, absl::string_view what) {
  if (count > kMaxValueElements) {
    return absl::ResourceExhaustedError(
        StrCat(what, " would hold ", count, " elements, over the model runner's ", kMaxValueElements));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CheckedOutputCount(const std::vector<int64_t>& dims, absl::string_view what) {
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, what));
  RETURN_IF_ERROR(CheckValueSize(count, what));
  return count;
}

absl::Status AffordWork(const KernelContext& ctx, int64_t work, absl::string_view what) {
  if (work <= ctx.work_allowed) return absl::OkStatus();
  ctx.past_work_allowed = true;
  return absl::ResourceExhaustedError(StrCat(what, " would take ", work, " element operations, past the ",
                                             ctx.work_allowed, " left in the run's budget"));
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t product = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product)) return std::numeric_limits<int64_t>::max();
  return product;
}

std::string DimsString(const std::vector<int64_t>& dims) { return StrCat("[", absl::StrJoin(dims, ","), "]"); }

std::string Describe(const Tensor& tensor) { return StrCat(DataTypeName(tensor.type()), DimsString(tensor.dims())); }

absl::Status Prefixed(const absl::Status& status, absl::string_view prefix) {
  return WithMessage(status, StrCat(prefix, ": ", status.message()));
}

// The tensor itself is not const, so that the runner may move a value out that nothing else holds.
Value Share(Tensor tensor) { return std::make_shared<Tensor>(std::move(tensor)); }

absl::StatusOr<Outputs> Single(absl::StatusOr<Tensor> tensor) {
  if (!tensor.ok()) return tensor.status();
  return Outputs{Share(*std::move(tensor))};
}

absl::StatusOr<Tensor> WithDims(const Tensor& tensor, std::vector<int64_t> dims) {
  if (tensor.is_string()) return Tensor::FromStrings(std::move(dims), tensor.strings());
  return Tensor::FromBytes(tensor.type(), std::move(dims), std::string(tensor.bytes()));
}

absl::Status ExpectInputCount(const KernelContext& ctx, int min, int max) {
  const int count = ctx.node.input_size();
  if (count < min || count > max) {
    std::string expected = StrCat(min);
    if (max == std::numeric_limits<int>::max()) {
      expected = StrCat("at least ", min);
    } else if (max != min) {
      expected = StrCat(min, " to ", max);
    }
    return absl::InvalidArgumentError(
        StrCat("has ", count, " inputs; ", ctx.node.op_type(), " at opset ", ctx.opset(), " takes ", expected));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Tensor*> RequiredInput(const KernelContext& ctx, size_t index, absl::string_view what) {
  const Tensor* tensor = ctx.Input(index);
  if (tensor == nullptr) return absl::InvalidArgumentError(StrCat("input ", index, " (", what, ") is missing"));
  return tensor;
}

namespace {

// The attribute `name` when the node has it with type `type`; nullptr when it has none; InvalidArgument when
// it has one of another type (`kind` says what it must be).
absl::StatusOr<const onnx::AttributeProto*> TypedAttribute(const onnx::NodeProto& node, absl::string_view name,
                                                           onnx::AttributeProto::AttributeType type,
                                                           absl::string_view kind) {
  const onnx::AttributeProto* attribute = FindAttribute(node, name);
  if (attribute == nullptr) return nullptr;
  if (attribute->type() != type) {
    return absl::InvalidArgumentError(StrCat("attribute '", name, "' must be ", kind));
  }
  return attribute;
}

}  // namespace

absl::StatusOr<std::optional<int64_t>> IntAttribute(const onnx::NodeProto& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const onnx::AttributeProto* attribute,
                   TypedAttribute(node, name, onnx::AttributeProto::INT, "an int"));
  if (attribute == nullptr) return std::nullopt;
  return attribute->i();
}

absl::StatusOr<std::optional<float>> FloatAttribute(const onnx::NodeProto& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const onnx::AttributeProto* attribute,
                   TypedAttribute(node, name, onnx::AttributeProto::FLOAT, "a float"));
  if (attribute == nullptr) return std::nullopt;
  return attribute->f();
}

absl::StatusOr<std::optional<std::string>> StringAttribute(const onnx::NodeProto& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const onnx::AttributeProto* attribute,
                   TypedAttribute(node, name, onnx::AttributeProto::STRING, "a string"));
  if (attribute == nullptr) return std::nullopt;
  return attribute->s();
}

absl::StatusOr<std::optional<std::vector<int64_t>>> IntsAttribute(const onnx::NodeProto& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const onnx::AttributeProto* attribute,
                   TypedAttribute(node, name, onnx::AttributeProto::INTS, "a list of ints"));
  if (attribute == nullptr) return std::nullopt;
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

absl::StatusOr<std::optional<std::vector<float>>> FloatsAttribute(const onnx::NodeProto& node, absl::string_view name) {
  ASSIGN_OR_RETURN(const onnx::AttributeProto* attribute,
                   TypedAttribute(node, name, onnx::AttributeProto::FLOATS, "a list of floats"));
  if (attribute == nullptr) return std::nullopt;
  return std::vector<float>(attribute->floats().begin(), attribute->floats().end());
}

absl::StatusOr<int64_t> IntAttributeOr(const onnx::NodeProto& node, absl::string_view name, int64_t fallback) {
  ASSIGN_OR_RETURN(const std::optional<int64_t> value, IntAttribute(node, name));
  return value.value_or(fallback);
}

absl::StatusOr<float> FloatAttributeOr(const onnx::NodeProto& node, absl::string_view name, float fallback) {
  ASSIGN_OR_RETURN(const std::optional<float> value, FloatAttribute(node, name));
  return value.value_or(fallback);
}

absl::StatusOr<std::string> StringAttributeOr(const onnx::NodeProto& node, absl::string_view name,
                                              absl::string_view fallback) {
  ASSIGN_OR_RETURN(std::optional<std::string> value, StringAttribute(node, name));
  if (value) return *std::move(value);
  return std::string(fallback);
}

absl::Status RejectAttribute(const KernelContext& ctx, absl::string_view name, absl::string_view why) {
  if (FindAttribute(ctx.node, name) != nullptr) {
    return absl::InvalidArgumentError(
        StrCat("has attribute '", name, "', which ", ctx.node.op_type(), " at opset ", ctx.opset(), " ", why));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> NormalizeAxes(std::vector<int64_t> axes, int64_t rank, absl::string_view what) {
  std::vector<bool> seen(rank, false);
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(StrCat(what, " ", axis, " is outside [", -rank, ", ", rank - 1, "]"));
    }
    if (axis < 0) axis += rank;
    if (seen[axis]) return absl::InvalidArgumentError(StrCat(what, " ", axis, " appears twice"));
    seen[axis] = true;
  }
  return axes;
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, absl::string_view what) {
  ASSIGN_OR_RETURN(const std::vector<int64_t> axes, NormalizeAxes({axis}, rank, what));
  return axes[0];
}

absl::StatusOr<Tensor> ConcatenateAlong(const std::vector<const Tensor*>& parts, int64_t axis,
                                        std::vector<int64_t> out_dims) {
  const DataType type = parts.front()->type();
  ASSIGN_OR_RETURN(const int64_t out_count, CheckedOutputCount(out_dims, "the concatenated output"));
  const int64_t outer = DimsProduct(out_dims, 0, static_cast<size_t>(axis));
  // Each input contributes one contiguous run of elements per index of the dims before the axis.
  std::vector<int64_t> run(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    run[p] = outer == 0 ? 0 : parts[p]->element_count() / outer;
  }
  if (type == onnx::TensorProto::STRING) {
    std::vector<std::string> strings;
    strings.reserve(out_count);
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t p = 0; p < parts.size(); ++p) {
        const auto begin = parts[p]->strings().begin() + o * run[p];
        strings.insert(strings.end(), begin, begin + run[p]);
      }
    }
    return Tensor::FromStrings(std::move(out_dims), std::move(strings));
  }
  const int64_t element_size = ElementSize(type);
  std::string bytes;
  bytes.reserve(out_count * element_size);
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t p = 0; p < parts.size(); ++p) {
      bytes.append(parts[p]->bytes(), o * run[p] * element_size, run[p] * element_size);
    }
  }
  return Tensor::FromBytes(type, std::move(out_dims), std::move(bytes));
}

int64_t DimsProduct(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) product *= dims[i];
  return product;
}

}  // namespace onnx_legalize
