#include "eval/model_runner.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "eval/slice_kernels.h"
#include "eval/typed_elements.h"
#include "graph/graph_scope.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "status_macros.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

// Values are shared, not copied: Identity, If and Loop pass a tensor on without touching its bytes.
using Value = std::shared_ptr<const Tensor>;

// The opsets whose op versions this runner implements; outside them, ops such as Concat have other attributes
// and semantics (Concat-1's optional axis). At opset 6, Add, Sub and Mul with legacy broadcasting
// (`broadcast`, `axis`) are not run.
constexpr int64_t kMinOpset = 6;
constexpr int64_t kMaxOpset = 17;
// Negative axes (Unsqueeze, Squeeze, Concat, Slice) and negative Gather indices are defined from opset 11.
constexpr int64_t kNegativeIndicesOpset = 11;
// A Loop with neither a trip count nor a condition that turns false would never end; stop it here.
constexpr int64_t kMaxLoopIterations = int64_t{1} << 16;
// The largest value an op that can grow its data (Gather, Concat, a Loop's scan outputs) may make: the runner
// executes models it is given (the opset move's proof), which may ask for any size.
constexpr int64_t kMaxValueElements = int64_t{1} << 24;

absl::Status CheckValueSize(int64_t count, absl::string_view what) {
  if (count > kMaxValueElements) {
    return absl::ResourceExhaustedError(
        StrCat(what, " would hold ", count, " elements, over the model runner's ", kMaxValueElements));
  }
  return absl::OkStatus();
}

constexpr char kIfOp[] = "If";
constexpr char kLoopOp[] = "Loop";

std::string DimsString(const std::vector<int64_t>& dims) { return StrCat("[", absl::StrJoin(dims, ","), "]"); }

std::string Describe(const Tensor& tensor) { return StrCat(DataTypeName(tensor.type()), DimsString(tensor.dims())); }

absl::Status Prefixed(const absl::Status& status, absl::string_view prefix) {
  return absl::Status(status.code(), StrCat(prefix, ": ", status.message()));
}

Value Share(Tensor tensor) { return std::make_shared<const Tensor>(std::move(tensor)); }

Value Int64Scalar(int64_t value) { return Share(*TensorOf<int64_t>(TensorProto::INT64, {}, {value})); }

Value BoolScalar(bool value) {
  return Share(*TensorOf<uint8_t>(TensorProto::BOOL, {}, {static_cast<uint8_t>(value ? 1 : 0)}));
}

// A copy of `tensor` with other dims holding the same elements.
absl::StatusOr<Tensor> WithDims(const Tensor& tensor, std::vector<int64_t> dims) {
  if (tensor.is_string()) return Tensor::FromStrings(std::move(dims), tensor.strings());
  return Tensor::FromBytes(tensor.type(), std::move(dims), std::string(tensor.bytes()));
}

// The one element of a bool tensor (If's cond, Loop's cond); ONNX asks for a single element, of any rank.
absl::StatusOr<bool> SingleBool(const Tensor& tensor, absl::string_view what) {
  if (tensor.type() != TensorProto::BOOL || tensor.element_count() != 1) {
    return absl::InvalidArgumentError(StrCat(what, " must be a single-element bool tensor, got ", Describe(tensor)));
  }
  return tensor.bytes()[0] != 0;
}

// Concatenates same-typed tensors along axis `axis`, given the output dims (checked by the caller).
// Each input contributes one contiguous run of elements per index of the dims before the axis.
absl::StatusOr<Tensor> ConcatenateAlong(const std::vector<const Tensor*>& parts, int64_t axis,
                                        std::vector<int64_t> out_dims) {
  const DataType type = parts.front()->type();
  ASSIGN_OR_RETURN(const int64_t out_count, CheckedElementCount(out_dims, "concatenated output"));
  RETURN_IF_ERROR(CheckValueSize(out_count, "the concatenated output"));
  ASSIGN_OR_RETURN(const int64_t outer,
                   CheckedElementCount({out_dims.begin(), out_dims.begin() + axis}, "concatenated output"));
  std::vector<int64_t> run(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    run[p] = outer == 0 ? 0 : parts[p]->element_count() / outer;
  }
  if (type == TensorProto::STRING) {
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

// ---------------------------------------------------------------------------------------------------------
// Node context and attributes.

struct NodeContext {
  const onnx::NodeProto& node;
  std::vector<Value> inputs;  // null where the node leaves an optional input empty
  int64_t opset;

  const Tensor* Input(size_t index) const { return index < inputs.size() ? inputs[index].get() : nullptr; }
};

absl::Status ExpectInputCount(const NodeContext& ctx, int min, int max) {
  const int count = ctx.node.input_size();
  if (count < min || count > max) {
    std::string expected = StrCat(min);
    if (max == std::numeric_limits<int>::max()) {
      expected = StrCat("at least ", min);
    } else if (max != min) {
      expected = StrCat(min, " to ", max);
    }
    return absl::InvalidArgumentError(
        StrCat("has ", count, " inputs; ", ctx.node.op_type(), " at opset ", ctx.opset, " takes ", expected));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Tensor*> RequiredInput(const NodeContext& ctx, size_t index, absl::string_view what) {
  const Tensor* tensor = ctx.Input(index);
  if (tensor == nullptr) return absl::InvalidArgumentError(StrCat("input ", index, " (", what, ") is missing"));
  return tensor;
}

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, absl::string_view name) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

absl::StatusOr<std::optional<int64_t>> IntAttribute(const onnx::NodeProto& node, absl::string_view name) {
  const onnx::AttributeProto* attribute = FindAttribute(node, name);
  if (attribute == nullptr) return std::nullopt;
  if (attribute->type() != onnx::AttributeProto::INT) {
    return absl::InvalidArgumentError(StrCat("attribute '", name, "' must be an int"));
  }
  return attribute->i();
}

absl::StatusOr<std::optional<std::vector<int64_t>>> IntsAttribute(const onnx::NodeProto& node, absl::string_view name) {
  const onnx::AttributeProto* attribute = FindAttribute(node, name);
  if (attribute == nullptr) return std::nullopt;
  if (attribute->type() != onnx::AttributeProto::INTS) {
    return absl::InvalidArgumentError(StrCat("attribute '", name, "' must be a list of ints"));
  }
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

absl::Status RejectAttribute(const NodeContext& ctx, absl::string_view name, absl::string_view why) {
  if (FindAttribute(ctx.node, name) != nullptr) {
    return absl::InvalidArgumentError(
        StrCat("has attribute '", name, "', which ", ctx.node.op_type(), " at opset ", ctx.opset, " ", why));
  }
  return absl::OkStatus();
}

// `axes` made non-negative against `rank`, each in [-rank, rank-1] and none twice. Negative axes are
// defined only from opset 11; before, the op's text leaves them undefined, so a model relying on them is
// rejected rather than given one runtime's reading.
absl::StatusOr<std::vector<int64_t>> NormalizeAxes(std::vector<int64_t> axes, int64_t rank, int64_t opset,
                                                   absl::string_view what) {
  std::vector<bool> seen(rank, false);
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(StrCat(what, " ", axis, " is outside [", -rank, ", ", rank - 1, "]"));
    }
    if (axis < 0 && opset < kNegativeIndicesOpset) {
      return absl::InvalidArgumentError(
          StrCat(what, " ", axis, " is negative, which opset ", opset, " leaves undefined (allowed from 11)"));
    }
    if (axis < 0) axis += rank;
    if (seen[axis]) return absl::InvalidArgumentError(StrCat(what, " ", axis, " appears twice"));
    seen[axis] = true;
  }
  return axes;
}

// ---------------------------------------------------------------------------------------------------------
// Kernels. Each returns the node's outputs in order; the caller adds the node's name to any error.

using Outputs = std::vector<Value>;

absl::StatusOr<Outputs> RunConstant(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 0, 0));
  for (const auto& attribute : ctx.node.attribute()) {
    if (attribute.name() == "sparse_value") {
      return absl::UnimplementedError("a sparse_value Constant is not supported");
    }
    // Constant-12 added value_float(s), value_int(s), value_string(s).
    if (attribute.name() != "value" && ctx.opset < 12) {
      return absl::InvalidArgumentError(
          StrCat("attribute '", attribute.name(), "' exists only from Constant-12; the model's opset is ", ctx.opset));
    }
  }
  ASSIGN_OR_RETURN(Tensor value, ConstantNodeValue(ctx.node));
  return Outputs{Share(std::move(value))};
}

absl::StatusOr<Outputs> RunIdentity(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  RETURN_IF_ERROR(RequiredInput(ctx, 0, "input").status());
  return Outputs{ctx.inputs[0]};
}

absl::StatusOr<Outputs> RunRelu(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  if (x->type() != TensorProto::FLOAT) {
    return absl::UnimplementedError(StrCat("Relu of ", Describe(*x), " (the runner supports float)"));
  }
  std::vector<float> values = ElementsOf<float>(*x);
  // NaN and -0.0 pass through unchanged.
  for (float& value : values) value = value < 0.0f ? 0.0f : value;
  ASSIGN_OR_RETURN(Tensor y, TensorOf(x->type(), x->dims(), values));
  return Outputs{Share(std::move(y))};
}

enum class Arithmetic { kAdd, kSub, kMul };

// Integers wrap around (two's complement, as the runtimes do) instead of overflowing into undefined behavior.
template <typename T>
T Apply(Arithmetic op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case Arithmetic::kAdd: return static_cast<T>(static_cast<U>(ua + ub));
      case Arithmetic::kSub: return static_cast<T>(static_cast<U>(ua - ub));
      case Arithmetic::kMul: return static_cast<T>(static_cast<U>(ua * ub));
    }
  } else {
    switch (op) {
      case Arithmetic::kAdd: return a + b;
      case Arithmetic::kSub: return a - b;
      case Arithmetic::kMul: return a * b;
    }
  }
  return T{};
}

template <typename T>
absl::StatusOr<Tensor> ApplyElementwise(Arithmetic op, const Tensor& a, const Tensor& b,
                                        std::vector<int64_t> out_dims) {
  const std::vector<T> x = ElementsOf<T>(a), y = ElementsOf<T>(b);
  const bool a_single = x.size() == 1, b_single = y.size() == 1;
  std::vector<T> out(std::max(x.size(), y.size()));
  if (x.empty() || y.empty()) out.clear();
  for (size_t i = 0; i < out.size(); ++i) out[i] = Apply(op, x[a_single ? 0 : i], y[b_single ? 0 : i]);
  return TensorOf(a.type(), std::move(out_dims), out);
}

absl::StatusOr<Outputs> RunArithmetic(const NodeContext& ctx, Arithmetic op) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  if (ctx.opset < 7 &&
      (FindAttribute(ctx.node, "broadcast") != nullptr || FindAttribute(ctx.node, "axis") != nullptr)) {
    return absl::UnimplementedError(StrCat(ctx.node.op_type(), "-6's legacy broadcasting (broadcast, axis)"));
  }
  ASSIGN_OR_RETURN(const Tensor* a, RequiredInput(ctx, 0, "A"));
  ASSIGN_OR_RETURN(const Tensor* b, RequiredInput(ctx, 1, "B"));
  if (a->type() != b->type()) {
    return absl::InvalidArgumentError(StrCat("operands differ in type: ", Describe(*a), " and ", Describe(*b)));
  }
  // Multidirectional broadcasting, limited to what the tests need: equal dims, or one operand holding a
  // single element whose rank does not exceed the other's (so the output takes the other's dims).
  std::vector<int64_t> out_dims;
  const bool a_broadcasts = a->element_count() == 1 && a->rank() <= b->rank();
  const bool b_broadcasts = b->element_count() == 1 && b->rank() <= a->rank();
  if (a->dims() == b->dims() || (!a_broadcasts && b_broadcasts)) {
    out_dims = a->dims();
  } else if (a_broadcasts) {
    out_dims = b->dims();
  } else {
    return absl::UnimplementedError(StrCat("broadcasting ", Describe(*a), " with ", Describe(*b),
                                           " (the runner supports equal dims or a single-element operand)"));
  }
  absl::StatusOr<Tensor> out;
  switch (a->type()) {
    case TensorProto::FLOAT: out = ApplyElementwise<float>(op, *a, *b, std::move(out_dims)); break;
    case TensorProto::INT32: out = ApplyElementwise<int32_t>(op, *a, *b, std::move(out_dims)); break;
    case TensorProto::INT64: out = ApplyElementwise<int64_t>(op, *a, *b, std::move(out_dims)); break;
    default:
      return absl::UnimplementedError(
          StrCat(ctx.node.op_type(), " of ", Describe(*a), " (the runner supports float, int32, int64)"));
  }
  if (!out.ok()) return out.status();
  return Outputs{Share(*std::move(out))};
}

template <typename T>
absl::StatusOr<Tensor> NegateIntegers(const Tensor& x) {
  std::vector<T> values = ElementsOf<T>(x);
  for (T& value : values) value = Apply<T>(Arithmetic::kSub, T{0}, value);  // INT_MIN stays INT_MIN
  return TensorOf(x.type(), x.dims(), values);
}

absl::StatusOr<Outputs> RunNeg(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  absl::StatusOr<Tensor> out;
  switch (x->type()) {
    case TensorProto::FLOAT: {
      // Negation is a sign-bit flip, NaN payloads included.
      std::vector<uint32_t> bits = ElementsOf<uint32_t>(*x);
      for (uint32_t& value : bits) value ^= 0x80000000u;
      out = TensorOf(x->type(), x->dims(), bits);
      break;
    }
    case TensorProto::INT32: out = NegateIntegers<int32_t>(*x); break;
    case TensorProto::INT64: out = NegateIntegers<int64_t>(*x); break;
    default:
      return absl::UnimplementedError(StrCat("Neg of ", Describe(*x), " (the runner supports float, int32, int64)"));
  }
  if (!out.ok()) return out.status();
  return Outputs{Share(*std::move(out))};
}

absl::StatusOr<Outputs> RunShape(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  const int64_t rank = x->rank();
  int64_t start = 0, end = rank;
  if (ctx.opset >= 15) {
    // Shape-15: start/end select a range of dims; negative values count from the back, then clamp.
    ASSIGN_OR_RETURN(const std::optional<int64_t> start_attr, IntAttribute(ctx.node, "start"));
    ASSIGN_OR_RETURN(const std::optional<int64_t> end_attr, IntAttribute(ctx.node, "end"));
    auto clamp = [rank](int64_t value) {
      if (value < 0) value += rank;
      return std::min(std::max<int64_t>(value, 0), rank);
    };
    if (start_attr) start = clamp(*start_attr);
    if (end_attr) end = clamp(*end_attr);
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "start", "does not have (Shape-15 added it)"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "end", "does not have (Shape-15 added it)"));
  }
  std::vector<int64_t> dims;
  if (start < end) dims.assign(x->dims().begin() + start, x->dims().begin() + end);
  return Outputs{Share(Tensor::FromInt64s(dims))};
}

absl::StatusOr<Outputs> RunGather(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const Tensor* indices, RequiredInput(ctx, 1, "indices"));
  if (data->rank() < 1) return absl::InvalidArgumentError("data is a scalar; Gather needs rank >= 1");
  ASSIGN_OR_RETURN(const std::optional<int64_t> axis_attr, IntAttribute(ctx.node, "axis"));
  const int64_t axis = axis_attr.value_or(0);
  if (axis != 0 && axis != -data->rank()) {
    return absl::UnimplementedError(StrCat("Gather along axis ", axis, " (the runner supports axis 0)"));
  }
  std::vector<int64_t> index_values;
  if (indices->type() == TensorProto::INT64) {
    index_values = ElementsOf<int64_t>(*indices);
  } else if (indices->type() == TensorProto::INT32) {
    const std::vector<int32_t> narrow = ElementsOf<int32_t>(*indices);
    index_values.assign(narrow.begin(), narrow.end());
  } else {
    return absl::InvalidArgumentError(StrCat("indices must be int32 or int64, got ", Describe(*indices)));
  }
  const int64_t size = data->dims()[0];
  for (int64_t& index : index_values) {
    if (index < -size || index >= size) {
      return absl::InvalidArgumentError(
          StrCat("index ", index, " is outside [", -size, ", ", size - 1, "] for data ", Describe(*data)));
    }
    if (index < 0 && ctx.opset < kNegativeIndicesOpset) {
      return absl::InvalidArgumentError(StrCat("index ", index, " is negative, which Gather at opset ", ctx.opset,
                                               " leaves undefined (allowed from 11)"));
    }
    if (index < 0) index += size;
  }
  std::vector<int64_t> out_dims = indices->dims();
  out_dims.insert(out_dims.end(), data->dims().begin() + 1, data->dims().end());
  ASSIGN_OR_RETURN(const int64_t out_count, CheckedElementCount(out_dims, "Gather output"));
  RETURN_IF_ERROR(CheckValueSize(out_count, "Gather's output"));
  const int64_t row = size == 0 ? 0 : data->element_count() / size;  // elements per index
  if (data->is_string()) {
    std::vector<std::string> strings;
    strings.reserve(out_count);
    for (const int64_t index : index_values) {
      const auto begin = data->strings().begin() + index * row;
      strings.insert(strings.end(), begin, begin + row);
    }
    ASSIGN_OR_RETURN(Tensor out, Tensor::FromStrings(std::move(out_dims), std::move(strings)));
    return Outputs{Share(std::move(out))};
  }
  const int64_t row_bytes = row * ElementSize(data->type());
  std::string bytes;
  bytes.reserve(out_count * ElementSize(data->type()));
  for (const int64_t index : index_values) bytes.append(data->bytes(), index * row_bytes, row_bytes);
  ASSIGN_OR_RETURN(Tensor out, Tensor::FromBytes(data->type(), std::move(out_dims), std::move(bytes)));
  return Outputs{Share(std::move(out))};
}

// The axes of Unsqueeze/Squeeze: an attribute before opset 13, the optional second input from 13.
absl::StatusOr<std::optional<std::vector<int64_t>>> SqueezeAxes(const NodeContext& ctx, bool required) {
  if (ctx.opset >= 13) {
    RETURN_IF_ERROR(RejectAttribute(ctx, "axes", "takes as input 1 instead"));
    RETURN_IF_ERROR(ExpectInputCount(ctx, required ? 2 : 1, 2));
    const Tensor* axes = ctx.Input(1);
    if (axes == nullptr) {
      if (required) return absl::InvalidArgumentError("input 1 (axes) is missing");
      return std::nullopt;
    }
    if (axes->type() != TensorProto::INT64 || axes->rank() != 1) {
      return absl::InvalidArgumentError(StrCat("axes must be a 1-D int64 tensor, got ", Describe(*axes)));
    }
    return axes->ToInt64s("axes");
  }
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes, IntsAttribute(ctx.node, "axes"));
  if (!axes && required) return absl::InvalidArgumentError("attribute 'axes' is missing");
  return axes;
}

absl::StatusOr<Outputs> RunUnsqueeze(const NodeContext& ctx) {
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes, SqueezeAxes(ctx, /*required=*/true));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  const int64_t out_rank = x->rank() + static_cast<int64_t>(axes->size());
  ASSIGN_OR_RETURN(const std::vector<int64_t> normalized, NormalizeAxes(*axes, out_rank, ctx.opset, "axis"));
  std::vector<int64_t> out_dims(out_rank, -1);
  for (const int64_t axis : normalized) out_dims[axis] = 1;
  auto next = x->dims().begin();
  for (int64_t& dim : out_dims) {
    if (dim == -1) dim = *next++;
  }
  ASSIGN_OR_RETURN(Tensor out, WithDims(*x, std::move(out_dims)));
  return Outputs{Share(std::move(out))};
}

absl::StatusOr<Outputs> RunSqueeze(const NodeContext& ctx) {
  ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes, SqueezeAxes(ctx, /*required=*/false));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  std::vector<bool> drop(x->rank(), false);
  if (axes) {
    ASSIGN_OR_RETURN(const std::vector<int64_t> normalized, NormalizeAxes(*axes, x->rank(), ctx.opset, "axis"));
    for (const int64_t axis : normalized) {
      if (x->dims()[axis] != 1) {
        return absl::InvalidArgumentError(StrCat("axis ", axis, " of ", Describe(*x), " is not 1"));
      }
      drop[axis] = true;
    }
  } else {
    // Without axes, every dim of size 1 goes.
    for (int64_t d = 0; d < x->rank(); ++d) drop[d] = x->dims()[d] == 1;
  }
  std::vector<int64_t> out_dims;
  for (int64_t d = 0; d < x->rank(); ++d) {
    if (!drop[d]) out_dims.push_back(x->dims()[d]);
  }
  ASSIGN_OR_RETURN(Tensor out, WithDims(*x, std::move(out_dims)));
  return Outputs{Share(std::move(out))};
}

absl::StatusOr<Outputs> RunConcat(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, std::numeric_limits<int>::max()));
  ASSIGN_OR_RETURN(const std::optional<int64_t> axis_attr, IntAttribute(ctx.node, "axis"));
  if (!axis_attr) return absl::InvalidArgumentError("attribute 'axis' is missing");
  std::vector<const Tensor*> parts;
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    ASSIGN_OR_RETURN(const Tensor* part, RequiredInput(ctx, i, "inputs"));
    parts.push_back(part);
  }
  const Tensor& first = *parts.front();
  if (first.rank() == 0) return absl::InvalidArgumentError("cannot concatenate scalars");
  ASSIGN_OR_RETURN(const std::vector<int64_t> axes, NormalizeAxes({*axis_attr}, first.rank(), ctx.opset, "axis"));
  const int64_t axis = axes[0];
  std::vector<int64_t> out_dims = first.dims();
  out_dims[axis] = 0;
  for (const Tensor* part : parts) {
    bool compatible = part->type() == first.type() && part->rank() == first.rank();
    for (int64_t d = 0; compatible && d < first.rank(); ++d) {
      compatible = d == axis || part->dims()[d] == first.dims()[d];
    }
    if (!compatible) {
      return absl::InvalidArgumentError(
          StrCat("cannot concatenate ", Describe(*part), " with ", Describe(first), " along axis ", axis));
    }
    out_dims[axis] += part->dims()[axis];
  }
  ASSIGN_OR_RETURN(Tensor out, ConcatenateAlong(parts, axis, std::move(out_dims)));
  return Outputs{Share(std::move(out))};
}

template <typename From, typename To>
absl::StatusOr<Tensor> Convert(const Tensor& x, DataType to) {
  const std::vector<From> in = ElementsOf<From>(x);
  std::vector<To> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
      // Casting NaN or an out-of-range float to an integer is undefined in ONNX (and in C++).
      const From low = static_cast<From>(std::numeric_limits<To>::min());  // -2^(n-1), exact
      if (!(in[i] >= low && in[i] < -low)) {
        return absl::InvalidArgumentError(
            StrCat("value ", in[i], " at index ", i, " does not fit ", DataTypeName(to), "; the cast is undefined"));
      }
    }
    out[i] = static_cast<To>(in[i]);  // int64 -> int32 wraps, as the runtimes do
  }
  return TensorOf(to, x.dims(), out);
}

template <typename From>
absl::StatusOr<Tensor> ConvertFrom(const Tensor& x, DataType to) {
  switch (to) {
    case TensorProto::FLOAT: return Convert<From, float>(x, to);
    case TensorProto::INT32: return Convert<From, int32_t>(x, to);
    case TensorProto::INT64: return Convert<From, int64_t>(x, to);
    default: return absl::UnimplementedError("");
  }
}

absl::StatusOr<Outputs> RunCast(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "input"));
  ASSIGN_OR_RETURN(const std::optional<int64_t> to, IntAttribute(ctx.node, "to"));
  if (!to) return absl::InvalidArgumentError("attribute 'to' is missing");
  if (*to == x->type()) return Outputs{ctx.inputs[0]};
  absl::StatusOr<Tensor> out = absl::UnimplementedError("");
  switch (x->type()) {
    case TensorProto::FLOAT: out = ConvertFrom<float>(*x, static_cast<DataType>(*to)); break;
    case TensorProto::INT32: out = ConvertFrom<int32_t>(*x, static_cast<DataType>(*to)); break;
    case TensorProto::INT64: out = ConvertFrom<int64_t>(*x, static_cast<DataType>(*to)); break;
    default: break;
  }
  if (absl::IsUnimplemented(out.status())) {
    return absl::UnimplementedError(StrCat("Cast of ", Describe(*x), " to ", DataTypeName(static_cast<DataType>(*to)),
                                           " (the runner casts between float, int32, int64)"));
  }
  if (!out.ok()) return out.status();
  return Outputs{Share(*std::move(out))};
}

absl::StatusOr<Outputs> RunReshape(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const Tensor* shape_tensor, RequiredInput(ctx, 1, "shape"));
  if (shape_tensor->type() != TensorProto::INT64 || shape_tensor->rank() != 1) {
    return absl::InvalidArgumentError(StrCat("shape must be a 1-D int64 tensor, got ", Describe(*shape_tensor)));
  }
  bool allow_zero = false;
  if (ctx.opset >= 14) {
    ASSIGN_OR_RETURN(const std::optional<int64_t> attr, IntAttribute(ctx.node, "allowzero"));
    allow_zero = attr.value_or(0) != 0;
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "allowzero", "does not have (Reshape-14 added it)"));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> shape, shape_tensor->ToInt64s("shape"));
  std::vector<int64_t> out_dims(shape.size());
  std::optional<size_t> inferred;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred) return absl::InvalidArgumentError(StrCat("shape ", DimsString(shape), " has two -1"));
      inferred = i;
      out_dims[i] = 1;
    } else if (shape[i] == 0 && !allow_zero) {
      // 0 copies the input's dim at the same index.
      if (static_cast<int64_t>(i) >= x->rank()) {
        return absl::InvalidArgumentError(
            StrCat("shape ", DimsString(shape), " copies dim ", i, " of ", Describe(*x), ", which has none"));
      }
      out_dims[i] = x->dims()[i];
    } else if (shape[i] < 0) {
      return absl::InvalidArgumentError(StrCat("shape ", DimsString(shape), " has dim ", shape[i]));
    } else {
      out_dims[i] = shape[i];
    }
  }
  ASSIGN_OR_RETURN(const int64_t known, CheckedElementCount(out_dims, "Reshape output"));
  if (inferred) {
    if (known == 0 || x->element_count() % known != 0) {
      return absl::InvalidArgumentError(
          StrCat("cannot infer the -1 in shape ", DimsString(shape), " for ", Describe(*x)));
    }
    out_dims[*inferred] = x->element_count() / known;
  } else if (known != x->element_count()) {
    return absl::InvalidArgumentError(StrCat("shape ", DimsString(shape), " does not fit ", Describe(*x)));
  }
  ASSIGN_OR_RETURN(Tensor out, WithDims(*x, std::move(out_dims)));
  return Outputs{Share(std::move(out))};
}

// Rejects negative values in an axes tensor before opset 11 (Slice-1 and Slice-10 leave them undefined).
absl::Status CheckSliceAxes(const NodeContext& ctx, const Tensor* axes) {
  if (axes == nullptr || ctx.opset >= kNegativeIndicesOpset) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::vector<int64_t> values, axes->ToInt64s("axes"));
  for (const int64_t axis : values) {
    if (axis < 0) {
      return absl::InvalidArgumentError(StrCat("axis ", axis, " is negative, which Slice at opset ", ctx.opset,
                                               " leaves undefined (allowed from 11)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Outputs> RunSlice(const NodeContext& ctx) {
  absl::StatusOr<Tensor> out;
  if (ctx.opset < 10) {
    // Slice-1: starts, ends and the optional axes are attributes.
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> starts, IntsAttribute(ctx.node, "starts"));
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> ends, IntsAttribute(ctx.node, "ends"));
    ASSIGN_OR_RETURN(const std::optional<std::vector<int64_t>> axes, IntsAttribute(ctx.node, "axes"));
    if (!starts || !ends) return absl::InvalidArgumentError("Slice-1 needs attributes 'starts' and 'ends'");
    std::optional<Tensor> axes_tensor;
    if (axes) axes_tensor = Tensor::FromInt64s(*axes);
    const Tensor* axes_ptr = axes_tensor ? &*axes_tensor : nullptr;
    RETURN_IF_ERROR(CheckSliceAxes(ctx, axes_ptr));
    out = Slice(*data, Tensor::FromInt64s(*starts), Tensor::FromInt64s(*ends), axes_ptr, nullptr);
  } else {
    RETURN_IF_ERROR(RejectAttribute(ctx, "starts", "takes as input 1 instead"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "ends", "takes as input 2 instead"));
    RETURN_IF_ERROR(RejectAttribute(ctx, "axes", "takes as input 3 instead"));
    RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 5));
    ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
    ASSIGN_OR_RETURN(const Tensor* starts, RequiredInput(ctx, 1, "starts"));
    ASSIGN_OR_RETURN(const Tensor* ends, RequiredInput(ctx, 2, "ends"));
    RETURN_IF_ERROR(CheckSliceAxes(ctx, ctx.Input(3)));
    out = Slice(*data, *starts, *ends, ctx.Input(3), ctx.Input(4));
  }
  if (!out.ok()) return out.status();
  return Outputs{Share(*std::move(out))};
}

// PRelu: y = x < 0 ? slope * x : x (NaN and -0.0 pass through as x). Which slope element an element of X
// takes is what changed at opset 7: PRelu-6 and before apply one value to all, a 1-D slope of X's dim 1 per
// channel, or a slope of X's shape element by element; PRelu-7 broadcasts the slope to X numpy-style, from
// the last axis.
absl::StatusOr<std::vector<int64_t>> PReluSlopeIndex(const Tensor& x, const Tensor& slope, int64_t opset) {
  const std::vector<int64_t>& xd = x.dims();
  const std::vector<int64_t>& sd = slope.dims();
  std::vector<int64_t> index(static_cast<size_t>(x.element_count()), 0);
  if (slope.element_count() == 1) return index;
  if (opset < 7) {
    if (sd == xd) {
      for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<int64_t>(i);
      return index;
    }
    if (sd.size() == 1 && xd.size() >= 2 && sd[0] == xd[1]) {
      int64_t inner = 1;
      for (size_t k = 2; k < xd.size(); ++k) inner *= xd[k];
      for (size_t i = 0; i < index.size(); ++i) index[i] = (static_cast<int64_t>(i) / inner) % xd[1];
      return index;
    }
    return absl::InvalidArgumentError(StrCat("slope ", DimsString(sd), " does not fit X ", DimsString(xd),
                                             " under PRelu-", opset,
                                             " (one value, one per channel of axis 1, or X's shape)"));
  }
  // Unidirectional broadcasting: slope's dims align with X's last ones, each equal or 1.
  bool fits = sd.size() <= xd.size();
  for (size_t k = 0; fits && k < sd.size(); ++k) {
    const int64_t xk = xd[xd.size() - sd.size() + k];
    fits = sd[k] == xk || sd[k] == 1;
  }
  if (!fits) {
    return absl::InvalidArgumentError(StrCat("slope ", DimsString(sd), " does not broadcast to X ", DimsString(xd)));
  }
  const size_t offset = xd.size() - sd.size();
  std::vector<int64_t> coordinate(xd.size(), 0);
  for (size_t i = 0; i < index.size(); ++i) {
    int64_t flat = 0;
    for (size_t k = 0; k < sd.size(); ++k) flat = flat * sd[k] + (sd[k] == 1 ? 0 : coordinate[offset + k]);
    index[i] = flat;
    for (size_t k = xd.size(); k-- > 0;) {  // next coordinate, last axis fastest
      if (++coordinate[k] < xd[k]) break;
      coordinate[k] = 0;
    }
  }
  return index;
}

template <typename T>
absl::StatusOr<Tensor> ApplyPRelu(const Tensor& x, const Tensor& slope, const std::vector<int64_t>& slope_index) {
  std::vector<T> values = ElementsOf<T>(x);
  const std::vector<T> slopes = ElementsOf<T>(slope);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < T{0}) values[i] = slopes[static_cast<size_t>(slope_index[i])] * values[i];
  }
  return TensorOf(x.type(), x.dims(), values);
}

absl::StatusOr<Outputs> RunPRelu(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 2, 2));
  ASSIGN_OR_RETURN(const Tensor* x, RequiredInput(ctx, 0, "X"));
  ASSIGN_OR_RETURN(const Tensor* slope, RequiredInput(ctx, 1, "slope"));
  if (x->type() != slope->type() || (x->type() != TensorProto::FLOAT && x->type() != TensorProto::DOUBLE)) {
    return absl::UnimplementedError(
        StrCat("PRelu of ", Describe(*x), " and ", Describe(*slope), " (the runner supports float and double)"));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> slope_index, PReluSlopeIndex(*x, *slope, ctx.opset));
  absl::StatusOr<Tensor> y = x->type() == TensorProto::FLOAT ? ApplyPRelu<float>(*x, *slope, slope_index)
                                                             : ApplyPRelu<double>(*x, *slope, slope_index);
  if (!y.ok()) return y.status();
  return Outputs{Share(*std::move(y))};
}

absl::StatusOr<Outputs> RunDynamicSlice(const NodeContext& ctx) {
  RETURN_IF_ERROR(ExpectInputCount(ctx, 3, 4));
  ASSIGN_OR_RETURN(const Tensor* data, RequiredInput(ctx, 0, "data"));
  ASSIGN_OR_RETURN(const Tensor* starts, RequiredInput(ctx, 1, "starts"));
  ASSIGN_OR_RETURN(const Tensor* ends, RequiredInput(ctx, 2, "ends"));
  ASSIGN_OR_RETURN(Tensor out, DynamicSliceReference(*data, *starts, *ends, ctx.Input(3)));
  return Outputs{Share(std::move(out))};
}

using Kernel = absl::StatusOr<Outputs> (*)(const NodeContext&);

const std::unordered_map<std::string, Kernel>& Kernels() {
  static const auto* const kernels = new std::unordered_map<std::string, Kernel>{
      {kConstantOp, RunConstant},
      {"Identity", RunIdentity},
      {"Relu", RunRelu},
      {"PRelu", RunPRelu},
      {"Add", [](const NodeContext& ctx) { return RunArithmetic(ctx, Arithmetic::kAdd); }},
      {"Sub", [](const NodeContext& ctx) { return RunArithmetic(ctx, Arithmetic::kSub); }},
      {"Mul", [](const NodeContext& ctx) { return RunArithmetic(ctx, Arithmetic::kMul); }},
      {"Neg", RunNeg},
      {"Shape", RunShape},
      {"Gather", RunGather},
      {"Unsqueeze", RunUnsqueeze},
      {"Squeeze", RunSqueeze},
      {"Concat", RunConcat},
      {"Cast", RunCast},
      {"Reshape", RunReshape},
      {kSliceOp, RunSlice},
      {kDynamicSliceOp, RunDynamicSlice},
  };
  return *kernels;
}

// ---------------------------------------------------------------------------------------------------------
// Graphs.

// The values one graph defines, with lookups that fall through to the enclosing graphs.
class Scope {
 public:
  Scope(std::string path, const Scope* outer) : path_(std::move(path)), outer_(outer) {}

  const std::string& path() const { return path_; }

  // The value of `name` here or in an enclosing graph; null when none defines it (yet).
  const Value* Find(const std::string& name) const {
    for (const Scope* scope = this; scope != nullptr; scope = scope->outer_) {
      auto it = scope->values_.find(name);
      if (it != scope->values_.end()) return &it->second;
    }
    return nullptr;
  }

  // A graph is in SSA form: each name is defined once.
  absl::Status Define(const std::string& name, Value value) {
    if (!values_.emplace(name, std::move(value)).second) {
      return absl::InvalidArgumentError(StrCat("value '", name, "' is defined twice in graph ", path_));
    }
    return absl::OkStatus();
  }

 private:
  std::string path_;
  const Scope* outer_;
  std::unordered_map<std::string, Value> values_;
};

class Runner {
 public:
  Runner(int64_t opset, const ExtraKernels* extra) : opset_(opset), extra_(extra) {}

  // Runs `graph`'s nodes in order, defining their outputs in `scope`.
  absl::Status RunNodes(const onnx::GraphProto& graph, Scope& scope) const {
    // The node's label is built only for an error: a model of many nodes runs them all.
    auto label = [&scope](const onnx::NodeProto& node) { return InGraph(NodeLabel(node), scope.path()); };
    for (const onnx::NodeProto& node : graph.node()) {
      if (!IsDefaultDomain(node.domain())) {
        return absl::UnimplementedError(StrCat(label(node), ": domain '", node.domain(), "' is not supported"));
      }
      NodeContext ctx{node, {}, opset_};
      ctx.inputs.reserve(static_cast<size_t>(node.input_size()));
      for (const std::string& name : node.input()) {
        if (name.empty()) {
          ctx.inputs.push_back(nullptr);
          continue;
        }
        const Value* value = scope.Find(name);
        if (value == nullptr) {
          return absl::InvalidArgumentError(StrCat(
              label(node), ": input '", name, "' is not defined by a graph input, an initializer or an earlier node"));
        }
        ctx.inputs.push_back(*value);
      }
      absl::StatusOr<Outputs> outputs = RunNode(ctx, scope);
      if (!outputs.ok()) return Prefixed(outputs.status(), label(node));
      if (static_cast<int>(outputs->size()) < node.output_size()) {
        return absl::InvalidArgumentError(
            StrCat(label(node), ": has ", node.output_size(), " outputs, but the op produces ", outputs->size()));
      }
      for (int i = 0; i < node.output_size(); ++i) {
        if (node.output(i).empty()) continue;
        absl::Status defined = scope.Define(node.output(i), std::move((*outputs)[i]));
        if (!defined.ok()) return Prefixed(defined, label(node));
      }
    }
    return absl::OkStatus();
  }

  // Runs a subgraph (an If branch, a Loop body) with `inputs` bound to its inputs in order, inside
  // `outer`, whose values it may read. Returns the subgraph's outputs in order.
  absl::StatusOr<Outputs> RunSubgraph(const onnx::GraphProto& graph, const std::string& path, const Scope& outer,
                                      Outputs inputs) const {
    if (graph.input_size() != static_cast<int>(inputs.size())) {
      return absl::InvalidArgumentError(
          StrCat("graph ", path, " declares ", graph.input_size(), " inputs; the op binds ", inputs.size()));
    }
    Scope scope(path, &outer);
    for (int i = 0; i < graph.input_size(); ++i) {
      RETURN_IF_ERROR(scope.Define(graph.input(i).name(), std::move(inputs[i])));
    }
    for (const onnx::TensorProto& initializer : graph.initializer()) {
      ASSIGN_OR_RETURN(Tensor value, TensorFromProto(initializer, StrCat("initializer '", initializer.name(),
                                                                         "' (graph ", path, ")")));
      RETURN_IF_ERROR(scope.Define(initializer.name(), Share(std::move(value))));
    }
    RETURN_IF_ERROR(RunNodes(graph, scope));
    Outputs outputs;
    for (const onnx::ValueInfoProto& output : graph.output()) {
      const Value* value = scope.Find(output.name());
      if (value == nullptr) {
        return absl::InvalidArgumentError(StrCat("graph ", path, ": output '", output.name(), "' is never defined"));
      }
      outputs.push_back(*value);
    }
    return outputs;
  }

 private:
  absl::StatusOr<Outputs> RunNode(const NodeContext& ctx, const Scope& scope) const {
    const std::string& op = ctx.node.op_type();
    if (op == kIfOp) return RunIf(ctx, scope);
    if (op == kLoopOp) return RunLoop(ctx, scope);
    if (extra_ != nullptr && extra_->Handles(ctx.node, ctx.opset)) return RunExtra(ctx);
    auto kernel = Kernels().find(op);
    if (kernel == Kernels().end()) {
      return absl::UnimplementedError(StrCat("op ", op, " is not supported by the model runner"));
    }
    return kernel->second(ctx);
  }

  absl::StatusOr<Outputs> RunExtra(const NodeContext& ctx) const {
    std::vector<const Tensor*> inputs;
    for (const Value& value : ctx.inputs) inputs.push_back(value.get());
    ASSIGN_OR_RETURN(std::vector<Tensor> results, extra_->Run(ctx.node, ctx.opset, inputs));
    Outputs outputs;
    for (Tensor& result : results) outputs.push_back(Share(std::move(result)));
    return outputs;
  }

  static absl::StatusOr<const onnx::GraphProto*> GraphAttribute(const NodeContext& ctx, absl::string_view name) {
    const onnx::AttributeProto* attribute = FindAttribute(ctx.node, name);
    if (attribute == nullptr || !attribute->has_g()) {
      return absl::InvalidArgumentError(StrCat("graph attribute '", name, "' is missing"));
    }
    return &attribute->g();
  }

  static std::string SubgraphPath(const NodeContext& ctx, const Scope& scope, const std::string& attribute,
                                  const onnx::GraphProto& graph) {
    return onnx_legalize::SubgraphPath(scope.path(), ctx.node, attribute, graph);
  }

  // If: runs one branch, which sees the enclosing graphs' values and has no inputs of its own.
  absl::StatusOr<Outputs> RunIf(const NodeContext& ctx, const Scope& scope) const {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 1, 1));
    ASSIGN_OR_RETURN(const Tensor* cond_tensor, RequiredInput(ctx, 0, "cond"));
    ASSIGN_OR_RETURN(const bool cond, SingleBool(*cond_tensor, "cond"));
    const std::string attribute = cond ? "then_branch" : "else_branch";
    ASSIGN_OR_RETURN(const onnx::GraphProto* branch, GraphAttribute(ctx, attribute));
    ASSIGN_OR_RETURN(Outputs outputs, RunSubgraph(*branch, SubgraphPath(ctx, scope, attribute, *branch), scope, {}));
    if (static_cast<int>(outputs.size()) != ctx.node.output_size()) {
      return absl::InvalidArgumentError(
          StrCat(attribute, " has ", outputs.size(), " outputs; the node has ", ctx.node.output_size()));
    }
    return outputs;
  }

  // Loop: inputs (M, cond, v_initial...), body (iter_num, cond, v...) -> (cond, v..., scan...), outputs
  // (v_final..., scan outputs stacked along a new axis 0). An omitted cond input makes the body's cond
  // output ignored (Loop's "for loop" form).
  absl::StatusOr<Outputs> RunLoop(const NodeContext& ctx, const Scope& scope) const {
    RETURN_IF_ERROR(ExpectInputCount(ctx, 2, std::numeric_limits<int>::max()));
    ASSIGN_OR_RETURN(const onnx::GraphProto* body, GraphAttribute(ctx, "body"));
    const std::string path = SubgraphPath(ctx, scope, "body", *body);
    std::optional<int64_t> trip_count;
    if (const Tensor* m = ctx.Input(0)) {
      if (m->type() != TensorProto::INT64 || m->element_count() != 1) {
        return absl::InvalidArgumentError(StrCat("M must be a single-element int64 tensor, got ", Describe(*m)));
      }
      trip_count = ElementsOf<int64_t>(*m)[0];
    }
    const bool has_cond = ctx.Input(1) != nullptr;
    bool cond = true;
    if (has_cond) {
      ASSIGN_OR_RETURN(cond, SingleBool(*ctx.Input(1), "cond"));
    }
    const int carried_count = ctx.node.input_size() - 2;
    Outputs carried;
    for (int i = 0; i < carried_count; ++i) {
      RETURN_IF_ERROR(RequiredInput(ctx, 2 + i, "v_initial").status());
      carried.push_back(ctx.inputs[2 + i]);
    }
    const int scan_count = body->output_size() - 1 - carried_count;
    if (body->input_size() != 2 + carried_count || scan_count < 0) {
      return absl::InvalidArgumentError(StrCat(
          "body has ", body->input_size(), " inputs and ", body->output_size(), " outputs; with ", carried_count,
          " loop-carried values it needs ", 2 + carried_count, " inputs and at least ", 1 + carried_count, " outputs"));
    }
    if (ctx.node.output_size() > carried_count + scan_count) {
      return absl::InvalidArgumentError(StrCat("has ", ctx.node.output_size(), " outputs; the body yields ",
                                               carried_count, " loop-carried values and ", scan_count,
                                               " scan outputs"));
    }
    std::vector<Outputs> scans(scan_count);
    int64_t scan_elements = 0;
    int64_t iteration = 0;
    for (; (!trip_count || iteration < *trip_count) && cond; ++iteration) {
      if (iteration >= kMaxLoopIterations) {
        return absl::ResourceExhaustedError(StrCat("stopped after ", kMaxLoopIterations, " iterations"));
      }
      Outputs body_inputs = {Int64Scalar(iteration), BoolScalar(cond)};
      body_inputs.insert(body_inputs.end(), carried.begin(), carried.end());
      absl::StatusOr<Outputs> body_outputs = RunSubgraph(*body, path, scope, std::move(body_inputs));
      if (!body_outputs.ok()) return Prefixed(body_outputs.status(), StrCat("iteration ", iteration));
      if (has_cond) {
        ASSIGN_OR_RETURN(cond, SingleBool(*(*body_outputs)[0], "the body's cond output"));
      }
      for (int i = 0; i < carried_count; ++i) carried[i] = (*body_outputs)[1 + i];
      for (int j = 0; j < scan_count; ++j) {
        scan_elements += (*body_outputs)[1 + carried_count + j]->element_count();
        scans[j].push_back((*body_outputs)[1 + carried_count + j]);
      }
      RETURN_IF_ERROR(CheckValueSize(scan_elements, "the scan outputs"));
    }
    Outputs outputs = std::move(carried);
    for (int j = 0; j < scan_count; ++j) {
      ASSIGN_OR_RETURN(Tensor stacked, StackScanOutput(scans[j], body->output(1 + carried_count + j)));
      outputs.push_back(Share(std::move(stacked)));
    }
    return outputs;
  }

  // One Loop scan output: the per-iteration values stacked along a new axis 0. They must agree in type and
  // dims. With no iterations, the body output's declared type must be fully static to give the result.
  static absl::StatusOr<Tensor> StackScanOutput(const Outputs& values, const onnx::ValueInfoProto& declared) {
    if (values.empty()) {
      const auto& type = declared.type().tensor_type();
      std::vector<int64_t> dims = {0};
      bool known = type.elem_type() != 0 && type.has_shape();
      for (const auto& dim : type.shape().dim()) {
        known = known && dim.has_dim_value();
        dims.push_back(dim.dim_value());
      }
      if (!known) {
        return absl::UnimplementedError(
            StrCat("scan output '", declared.name(), "' after zero iterations: its declared type is not fully static"));
      }
      return Tensor::Zeros(type.elem_type(), std::move(dims));
    }
    const Tensor& first = *values.front();
    std::vector<const Tensor*> parts;
    for (const Value& value : values) {
      if (value->type() != first.type() || value->dims() != first.dims()) {
        return absl::InvalidArgumentError(StrCat("scan output '", declared.name(), "' is ", Describe(*value),
                                                 " in iteration ", parts.size(), " but ", Describe(first),
                                                 " in iteration 0"));
      }
      parts.push_back(value.get());
    }
    std::vector<int64_t> out_dims = {static_cast<int64_t>(values.size())};
    out_dims.insert(out_dims.end(), first.dims().begin(), first.dims().end());
    // Stacking is concatenation along axis 0 of the values seen as [1, dims...].
    return ConcatenateAlong(parts, 0, std::move(out_dims));
  }

  int64_t opset_;
  const ExtraKernels* extra_;
};

// The first node of `graph` (or of its subgraphs) that the runner has no kernel for, as "op X (graph P)".
std::optional<std::string> FirstUnsupportedNodeIn(const onnx::GraphProto& graph, const std::string& path, int64_t opset,
                                                  const ExtraKernels* extra) {
  for (const onnx::NodeProto& node : graph.node()) {
    const std::string& op = node.op_type();
    const bool known = IsDefaultDomain(node.domain()) && (op == kIfOp || op == kLoopOp || Kernels().count(op) > 0 ||
                                                          (extra != nullptr && extra->Handles(node, opset)));
    if (!known) {
      return StrCat("op ", op, IsDefaultDomain(node.domain()) ? "" : StrCat(" of domain '", node.domain(), "'"),
                    " (graph ", path, ")");
    }
    std::optional<std::string> inner;
    ForEachSubgraph(node, [&](const std::string& attribute, const onnx::GraphProto& subgraph) {
      if (!inner.has_value()) {
        inner = FirstUnsupportedNodeIn(subgraph, SubgraphPath(path, node, attribute, subgraph), opset, extra);
      }
    });
    if (inner.has_value()) return inner;
  }
  return std::nullopt;
}

// The model's default-domain opset, when the runner implements it.
absl::StatusOr<int64_t> RunnableOpset(const onnx::ModelProto& model) {
  ASSIGN_OR_RETURN(const int64_t opset, DefaultOpset(model));
  if (opset < kMinOpset || opset > kMaxOpset) {
    return absl::UnimplementedError(
        StrCat("opset ", opset, " (the model runner implements opsets ", kMinOpset, " to ", kMaxOpset, ")"));
  }
  return opset;
}

// A fed tensor must match the graph input's declared element type and static dims.
absl::Status CheckFeed(const onnx::ValueInfoProto& input, const Tensor& fed) {
  if (!input.type().has_tensor_type()) return absl::OkStatus();
  const auto& type = input.type().tensor_type();
  bool matches = type.elem_type() == 0 || type.elem_type() == fed.type();
  if (type.has_shape()) {
    matches = matches && type.shape().dim_size() == fed.rank();
    for (int d = 0; matches && d < type.shape().dim_size(); ++d) {
      const auto& dim = type.shape().dim(d);
      matches = !dim.has_dim_value() || dim.dim_value() == fed.dims()[d];
    }
  }
  if (!matches) {
    return absl::InvalidArgumentError(
        StrCat("input '", input.name(), "' is fed ", Describe(fed), ", which its declaration does not allow"));
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<std::string> FirstUnsupportedNode(const onnx::ModelProto& model, const ExtraKernels* extra) {
  absl::StatusOr<int64_t> opset = RunnableOpset(model);
  if (!opset.ok()) return std::string(opset.status().message());
  return FirstUnsupportedNodeIn(model.graph(), kMainGraphPath, *opset, extra);
}

absl::StatusOr<std::map<std::string, Tensor>> RunModel(const onnx::ModelProto& model,
                                                       const std::map<std::string, Tensor>& inputs,
                                                       const ExtraKernels* extra) {
  ASSIGN_OR_RETURN(const int64_t opset, RunnableOpset(model));
  const onnx::GraphProto& graph = model.graph();
  Scope scope(kMainGraphPath, nullptr);

  // Graph inputs: fed values first. An initializer of the same name is then only a default.
  std::unordered_map<std::string, const onnx::ValueInfoProto*> graph_inputs;
  for (const auto& input : graph.input()) graph_inputs.emplace(input.name(), &input);
  for (const auto& [name, tensor] : inputs) {
    auto input = graph_inputs.find(name);
    if (input == graph_inputs.end()) {
      return absl::InvalidArgumentError(StrCat("'", name, "' is fed but is not an input of graph ", kMainGraphPath));
    }
    RETURN_IF_ERROR(CheckFeed(*input->second, tensor));
    RETURN_IF_ERROR(scope.Define(name, Share(tensor.Clone())));
  }
  for (const auto& initializer : graph.initializer()) {
    if (inputs.count(initializer.name())) continue;  // overridden (only possible for a graph input)
    ASSIGN_OR_RETURN(Tensor value, TensorFromProto(initializer, StrCat("initializer '", initializer.name(), "' (graph ",
                                                                       kMainGraphPath, ")")));
    RETURN_IF_ERROR(scope.Define(initializer.name(), Share(std::move(value))));
  }
  for (const auto& input : graph.input()) {
    if (scope.Find(input.name()) == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("graph input '", input.name(), "' is neither fed nor given by an initializer"));
    }
  }

  const Runner runner(opset, extra);
  RETURN_IF_ERROR(runner.RunNodes(graph, scope));
  std::map<std::string, Tensor> outputs;
  for (const auto& output : graph.output()) {
    const Value* value = scope.Find(output.name());
    if (value == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("graph ", kMainGraphPath, ": output '", output.name(), "' is never defined"));
    }
    outputs.emplace(output.name(), (*value)->Clone());
  }
  return outputs;
}

}  // namespace onnx_legalize
