#include "eval/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/float16.h"
#include "core/status_macros.h"
#include "eval/kernels/registry.h"
#include "eval/slice_kernels.h"
#include "eval/typed_elements.h"
#include "graph/graph_scope.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

using onnx::TensorProto;

// The node being run and the values it may read.
struct NodeRun {
  const onnx::NodeProto& node;
  int64_t opset;
  std::vector<const Tensor*> inputs;  // null for an omitted optional input
};

std::string NodeName(const onnx::NodeProto& node) {
  return absl::StrCat(node.op_type(), " producing '", node.output_size() > 0 ? node.output(0) : "", "'");
}

absl::Status Fail(const NodeRun& run, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(NodeName(run.node), ": ", why));
}

const onnx::AttributeProto* Attribute(const onnx::NodeProto& node, absl::string_view name) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

absl::StatusOr<const Tensor*> Input(const NodeRun& run, size_t index) {
  if (index >= run.inputs.size() || run.inputs[index] == nullptr) {
    return Fail(run, absl::StrCat("input ", index, " is missing"));
  }
  return run.inputs[index];
}

// ---------------------------------------------------------------------------------- float types

// Calls `body` with a value of the C++ type of a float or double tensor, to select a template.
template <typename Body>
absl::StatusOr<Tensor> WithFloatType(const NodeRun& run, DataType type, Body&& body) {
  if (type == TensorProto::FLOAT) return body(float{});
  if (type == TensorProto::DOUBLE) return body(double{});
  return Fail(run, absl::StrCat("element type ", DataTypeName(type), " is not float or double"));
}

// ------------------------------------------------------------------------------------------ broadcasting

// numpy's multidirectional broadcasting of `shapes` (Add-7 onwards, Where-9).
absl::StatusOr<std::vector<int64_t>> BroadcastDims(const NodeRun& run,
                                                   const std::vector<const std::vector<int64_t>*>& shapes) {
  size_t rank = 0;
  for (const auto* dims : shapes) rank = std::max(rank, dims->size());
  std::vector<int64_t> out(rank, 1);
  for (const auto* dims : shapes) {
    const size_t offset = rank - dims->size();
    for (size_t i = 0; i < dims->size(); ++i) {
      const int64_t d = (*dims)[i];
      int64_t& o = out[offset + i];
      if (d == o || d == 1) continue;
      if (o != 1) {
        return Fail(run, absl::StrCat("shapes [", absl::StrJoin(*shapes[0], ","), "] ... do not broadcast"));
      }
      o = d;
    }
  }
  return out;
}

// For each element of `out_dims` (row-major), the element of an operand of `dims` it reads.
std::vector<int64_t> BroadcastIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& out_dims) {
  const size_t rank = out_dims.size();
  const size_t offset = rank - dims.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[offset + i] = dims[i] == 1 ? 0 : stride;
    stride *= dims[i];
  }
  int64_t count = 1;
  for (int64_t d : out_dims) count *= d;
  std::vector<int64_t> index(static_cast<size_t>(count));
  std::vector<int64_t> counter(rank, 0);
  int64_t source = 0;
  for (int64_t e = 0; e < count; ++e) {
    index[static_cast<size_t>(e)] = source;
    for (size_t axis = rank; axis-- > 0;) {
      if (++counter[axis] < out_dims[axis]) {
        source += strides[axis];
        break;
      }
      source -= strides[axis] * (out_dims[axis] - 1);
      counter[axis] = 0;
    }
  }
  return index;
}

template <typename T, typename Op>
absl::StatusOr<Tensor> Binary(const NodeRun& run, const Tensor& a, const Tensor& b, Op op) {
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, BroadcastDims(run, {&a.dims(), &b.dims()}));
  const std::vector<T> x = ElementsOf<T>(a);
  const std::vector<T> y = ElementsOf<T>(b);
  const std::vector<int64_t> ia = BroadcastIndex(a.dims(), dims);
  const std::vector<int64_t> ib = BroadcastIndex(b.dims(), dims);
  std::vector<T> out(ia.size());
  for (size_t e = 0; e < out.size(); ++e) out[e] = op(x[ia[e]], y[ib[e]]);
  return TensorOf(a.type(), std::move(dims), out);
}

// -------------------------------------------------------------------------------------------------- ops

absl::StatusOr<Tensor> RunArithmetic(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* a, Input(run, 0));
  ASSIGN_OR_RETURN(const Tensor* b, Input(run, 1));
  if (a->type() != b->type()) return Fail(run, "operands of different element types");
  if (run.opset < 7) return Fail(run, "legacy broadcasting (opset < 7) is not supported");
  const std::string& op = run.node.op_type();
  return WithFloatType(run, a->type(), [&](auto zero) -> absl::StatusOr<Tensor> {
    using T = decltype(zero);
    if (op == "Add") return Binary<T>(run, *a, *b, [](T x, T y) { return x + y; });
    if (op == "Sub") return Binary<T>(run, *a, *b, [](T x, T y) { return x - y; });
    if (op == "Mul") return Binary<T>(run, *a, *b, [](T x, T y) { return x * y; });
    return Binary<T>(run, *a, *b, [](T x, T y) { return x / y; });
  });
}

template <typename Function>
absl::StatusOr<Tensor> RunUnary(const NodeRun& run, Function function) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  return WithFloatType(run, x->type(), [&](auto zero) -> absl::StatusOr<Tensor> {
    using T = decltype(zero);
    std::vector<T> values = ElementsOf<T>(*x);
    for (T& v : values) v = static_cast<T>(function(v));
    return TensorOf(x->type(), x->dims(), values);
  });
}

// Softplus-1: ln(exp(x) + 1), in the form that neither overflows for large x nor loses small results.
template <typename T>
T Softplus(T x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

absl::StatusOr<float> FloatAttribute(const NodeRun& run, absl::string_view name, float fallback) {
  const onnx::AttributeProto* attribute = Attribute(run.node, name);
  if (attribute == nullptr) return fallback;
  if (attribute->type() != onnx::AttributeProto::FLOAT) return Fail(run, absl::StrCat(name, " is not a float"));
  return attribute->f();
}

absl::StatusOr<Tensor> RunThresholdedRelu(const NodeRun& run) {
  ASSIGN_OR_RETURN(const float alpha, FloatAttribute(run, "alpha", 1.0f));
  return RunUnary(run, [alpha](auto x) { return x > alpha ? x : decltype(x){0}; });
}

absl::StatusOr<Tensor> RunGreater(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* a, Input(run, 0));
  ASSIGN_OR_RETURN(const Tensor* b, Input(run, 1));
  if (a->type() != b->type()) return Fail(run, "operands of different element types");
  ASSIGN_OR_RETURN(Tensor greater, WithFloatType(run, a->type(), [&](auto zero) -> absl::StatusOr<Tensor> {
                     using T = decltype(zero);
                     return Binary<T>(run, *a, *b, [](T x, T y) { return static_cast<T>(x > y ? 1 : 0); });
                   }));
  // As bool: one byte per element.
  std::vector<uint8_t> flags;
  if (greater.type() == TensorProto::FLOAT) {
    for (float v : ElementsOf<float>(greater)) flags.push_back(v != 0 ? 1 : 0);
  } else {
    for (double v : ElementsOf<double>(greater)) flags.push_back(v != 0 ? 1 : 0);
  }
  return TensorOf(TensorProto::BOOL, greater.dims(), flags);
}

absl::StatusOr<Tensor> RunWhere(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* condition, Input(run, 0));
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 1));
  ASSIGN_OR_RETURN(const Tensor* y, Input(run, 2));
  if (condition->type() != TensorProto::BOOL) return Fail(run, "condition is not bool");
  if (x->type() != y->type()) return Fail(run, "X and Y have different element types");
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, BroadcastDims(run, {&condition->dims(), &x->dims(), &y->dims()}));
  const std::vector<int64_t> ic = BroadcastIndex(condition->dims(), dims);
  const std::vector<int64_t> ix = BroadcastIndex(x->dims(), dims);
  const std::vector<int64_t> iy = BroadcastIndex(y->dims(), dims);
  const int64_t size = ElementSize(x->type());
  if (size == 0) return Fail(run, "strings are not supported");
  std::string bytes(ic.size() * static_cast<size_t>(size), '\0');
  for (size_t e = 0; e < ic.size(); ++e) {
    const bool take_x = condition->bytes()[static_cast<size_t>(ic[e])] != 0;
    const char* source = take_x ? x->bytes().data() + ix[e] * size : y->bytes().data() + iy[e] * size;
    std::memcpy(bytes.data() + e * static_cast<size_t>(size), source, static_cast<size_t>(size));
  }
  return Tensor::FromBytes(x->type(), std::move(dims), std::move(bytes));
}

absl::StatusOr<std::vector<int64_t>> IntsAttribute(const NodeRun& run, absl::string_view name) {
  const onnx::AttributeProto* attribute = Attribute(run.node, name);
  if (attribute == nullptr) return Fail(run, absl::StrCat("attribute ", name, " is missing"));
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

absl::StatusOr<Tensor> RunSlice(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* data, Input(run, 0));
  if (run.opset < 10) {
    ASSIGN_OR_RETURN(std::vector<int64_t> starts, IntsAttribute(run, "starts"));
    ASSIGN_OR_RETURN(std::vector<int64_t> ends, IntsAttribute(run, "ends"));
    std::optional<Tensor> axes;
    if (Attribute(run.node, "axes") != nullptr) {
      ASSIGN_OR_RETURN(std::vector<int64_t> values, IntsAttribute(run, "axes"));
      axes = Tensor::FromInt64s(values);
    }
    return Slice(*data, Tensor::FromInt64s(starts), Tensor::FromInt64s(ends), axes ? &*axes : nullptr, nullptr);
  }
  ASSIGN_OR_RETURN(const Tensor* starts, Input(run, 1));
  ASSIGN_OR_RETURN(const Tensor* ends, Input(run, 2));
  const Tensor* axes = run.inputs.size() > 3 ? run.inputs[3] : nullptr;
  const Tensor* steps = run.inputs.size() > 4 ? run.inputs[4] : nullptr;
  return Slice(*data, *starts, *ends, axes, steps);
}

// Sorted, non-negative, distinct axes of a tensor of rank `rank`.
absl::StatusOr<std::vector<int64_t>> NormalizedAxes(const NodeRun& run, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) return Fail(run, absl::StrCat("axis ", axis, " is outside the rank ", rank));
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return Fail(run, "an axis is named twice");
  return axes;
}

// The mean of `x` over `axes` (sorted, distinct), kept as dims of 1: summed in the element type, in
// row-major order, then divided by the count.
template <typename T>
absl::StatusOr<Tensor> MeanOver(const Tensor& x, const std::vector<int64_t>& axes) {
  std::vector<int64_t> dims = x.dims();
  for (int64_t axis : axes) dims[static_cast<size_t>(axis)] = 1;
  const std::vector<int64_t> target = BroadcastIndex(dims, x.dims());
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<T> sums(static_cast<size_t>(count), T{0});
  const std::vector<T> values = ElementsOf<T>(x);
  // BroadcastIndex maps each element of x to the reduced element it belongs to.
  for (size_t e = 0; e < values.size(); ++e) sums[static_cast<size_t>(target[e])] += values[e];
  const int64_t reduced = count == 0 ? 0 : x.element_count() / count;
  for (T& sum : sums) sum /= static_cast<T>(reduced);
  return TensorOf(x.type(), std::move(dims), sums);
}

// MeanVarianceNormalization-9, as its function body in onnx defines it:
// (X - E[X]) / (Sqrt(E[X^2] - E[X]^2) + 1e-9), E over `axes` (default [0, 2, 3]).
absl::StatusOr<Tensor> RunMeanVarianceNormalization(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  std::vector<int64_t> axes = {0, 2, 3};
  if (Attribute(run.node, "axes") != nullptr) {
    ASSIGN_OR_RETURN(axes, IntsAttribute(run, "axes"));
  }
  ASSIGN_OR_RETURN(axes, NormalizedAxes(run, axes, x->rank()));
  return WithFloatType(run, x->type(), [&](auto zero) -> absl::StatusOr<Tensor> {
    using T = decltype(zero);
    std::vector<T> squares = ElementsOf<T>(*x);
    for (T& v : squares) v = v * v;
    ASSIGN_OR_RETURN(Tensor squared, TensorOf(x->type(), x->dims(), squares));
    ASSIGN_OR_RETURN(Tensor mean, MeanOver<T>(*x, axes));
    ASSIGN_OR_RETURN(Tensor mean_of_squares, MeanOver<T>(squared, axes));
    const std::vector<T> m = ElementsOf<T>(mean);
    const std::vector<T> m2 = ElementsOf<T>(mean_of_squares);
    const std::vector<int64_t> index = BroadcastIndex(mean.dims(), x->dims());
    const std::vector<T> values = ElementsOf<T>(*x);
    std::vector<T> out(values.size());
    const T epsilon = static_cast<T>(1e-9);
    for (size_t e = 0; e < out.size(); ++e) {
      const T mu = m[static_cast<size_t>(index[e])];
      const T variance = m2[static_cast<size_t>(index[e])] - mu * mu;
      out[e] = (values[e] - mu) / (std::sqrt(variance) + epsilon);
    }
    return TensorOf(x->type(), x->dims(), out);
  });
}

absl::StatusOr<Tensor> RunNot(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  if (x->type() != TensorProto::BOOL) return Fail(run, "input is not bool");
  std::string bytes(x->bytes());
  for (char& b : bytes) b = b != 0 ? '\0' : '\1';
  return Tensor::FromBytes(TensorProto::BOOL, x->dims(), std::move(bytes));
}

// Transpose of a fixed-size element type by `perm` (default: reversed axes).
absl::StatusOr<Tensor> RunTranspose(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  const int64_t rank = x->rank();
  std::vector<int64_t> perm;
  if (Attribute(run.node, "perm") != nullptr) {
    ASSIGN_OR_RETURN(perm, IntsAttribute(run, "perm"));
  } else {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < rank; ++i) {
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[static_cast<size_t>(i)] != i) {
      return Fail(run, absl::StrCat("perm [", absl::StrJoin(perm, ","), "] is no permutation of rank ", rank));
    }
  }
  const size_t size = static_cast<size_t>(ElementSize(x->type()));
  if (size == 0) return Fail(run, "strings are not supported");
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i)
    dims[static_cast<size_t>(i)] = x->dims()[static_cast<size_t>(perm[static_cast<size_t>(i)])];
  std::vector<int64_t> in_strides(static_cast<size_t>(rank), 1);
  for (int64_t i = rank - 2; i >= 0; --i) {
    in_strides[static_cast<size_t>(i)] = in_strides[static_cast<size_t>(i + 1)] * x->dims()[static_cast<size_t>(i + 1)];
  }
  std::string bytes(x->bytes().size(), '\0');
  std::vector<int64_t> counter(static_cast<size_t>(rank), 0);
  for (int64_t e = 0; e < x->element_count(); ++e) {
    int64_t source = 0;
    for (int64_t i = 0; i < rank; ++i)
      source += counter[static_cast<size_t>(i)] * in_strides[static_cast<size_t>(perm[static_cast<size_t>(i)])];
    std::memcpy(bytes.data() + static_cast<size_t>(e) * size, x->bytes().data() + static_cast<size_t>(source) * size,
                size);
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++counter[static_cast<size_t>(i)] < dims[static_cast<size_t>(i)]) break;
      counter[static_cast<size_t>(i)] = 0;
    }
  }
  return Tensor::FromBytes(x->type(), std::move(dims), std::move(bytes));
}

absl::StatusOr<Tensor> RunShape(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  return Tensor::FromInt64s(x->dims());
}

absl::StatusOr<Tensor> RunCast(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  const onnx::AttributeProto* to = Attribute(run.node, "to");
  if (to == nullptr) return Fail(run, "attribute to is missing");
  // Through double: exact for every float and every int64 a shape holds.
  std::vector<double> values;
  switch (x->type()) {
    case TensorProto::FLOAT:
      for (float v : ElementsOf<float>(*x)) values.push_back(v);
      break;
    case TensorProto::DOUBLE: values = ElementsOf<double>(*x); break;
    case TensorProto::FLOAT16:
      for (uint16_t v : ElementsOf<uint16_t>(*x)) values.push_back(Float16ToFloat(v));
      break;
    case TensorProto::INT32:
      for (int32_t v : ElementsOf<int32_t>(*x)) values.push_back(v);
      break;
    case TensorProto::INT64:
      for (int64_t v : ElementsOf<int64_t>(*x)) values.push_back(static_cast<double>(v));
      break;
    default: return Fail(run, absl::StrCat("casting from ", DataTypeName(x->type()), " is not supported"));
  }
  if (x->type() == to->i()) return x->Clone();
  switch (to->i()) {
    case TensorProto::FLOAT: {
      // Beyond float's range a conversion is undefined: such doubles become infinities, as IEEE rounding says.
      std::vector<float> floats;
      floats.reserve(values.size());
      for (double v : values) {
        floats.push_back(std::fabs(v) > 3.4028234663852886e38 && std::isfinite(v) ? (v > 0 ? INFINITY : -INFINITY)
                                                                                  : static_cast<float>(v));
      }
      return TensorOf(TensorProto::FLOAT, x->dims(), floats);
    }
    case TensorProto::DOUBLE: return TensorOf(TensorProto::DOUBLE, x->dims(), values);
    case TensorProto::FLOAT16: {
      // Rounded once, to the nearest float16 (ties to even): a replacement casts float results only, so
      // the value is a float and no double rounding happens.
      if (x->type() != TensorProto::FLOAT) return Fail(run, "casting to float16 is supported from float only");
      std::vector<uint16_t> halves;
      halves.reserve(values.size());
      for (double v : values) halves.push_back(FloatToFloat16(static_cast<float>(v)));
      return TensorOf(TensorProto::FLOAT16, x->dims(), halves);
    }
    case TensorProto::INT64: {
      std::vector<int64_t> ints;
      for (double v : values) {
        if (!(std::fabs(v) < 9.2e18)) return Fail(run, absl::StrCat(v, " does not fit int64"));
        ints.push_back(static_cast<int64_t>(v));
      }
      return TensorOf(TensorProto::INT64, x->dims(), ints);
    }
    default: return Fail(run, absl::StrCat("casting to type ", to->i(), " is not supported"));
  }
}

absl::StatusOr<Tensor> RunConstantOfShape(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* shape, Input(run, 0));
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, shape->ToInt64s("shape"));
  Tensor value;
  if (const onnx::AttributeProto* attribute = Attribute(run.node, "value")) {
    ASSIGN_OR_RETURN(value, TensorFromProto(attribute->t(), "value"));
  } else {
    ASSIGN_OR_RETURN(value, TensorOf(TensorProto::FLOAT, {1}, std::vector<float>{0.0f}));
  }
  if (value.element_count() != 1 || value.is_string()) return Fail(run, "value must hold one number");
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, "ConstantOfShape's output"));
  std::string bytes;
  bytes.reserve(static_cast<size_t>(count) * value.bytes().size());
  for (int64_t e = 0; e < count; ++e) bytes.append(value.bytes());
  return Tensor::FromBytes(value.type(), std::move(dims), std::move(bytes));
}

absl::StatusOr<Tensor> RunConcat(const NodeRun& run) {
  // Only what the replacements need: 1-D tensors of one fixed-size type, along axis 0.
  std::string bytes;
  int64_t length = 0;
  DataType type = 0;
  for (size_t i = 0; i < run.inputs.size(); ++i) {
    ASSIGN_OR_RETURN(const Tensor* part, Input(run, i));
    if (part->rank() != 1 || part->is_string()) return Fail(run, "only 1-D numeric tensors are concatenated");
    if (type != 0 && part->type() != type) return Fail(run, "inputs of different element types");
    type = part->type();
    bytes.append(part->bytes());
    length += part->element_count();
  }
  return Tensor::FromBytes(type, {length}, std::move(bytes));
}

int64_t IntAttributeOr(const NodeRun& run, absl::string_view name, int64_t fallback) {
  const onnx::AttributeProto* attribute = Attribute(run.node, name);
  return attribute == nullptr ? fallback : attribute->i();
}

// Flatten (1, 9, 11, 13): [product of dims before axis, product of the rest]; a negative axis from 11.
absl::StatusOr<Tensor> RunFlatten(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  const int64_t rank = x->rank();
  int64_t axis = IntAttributeOr(run, "axis", 1);
  if (axis < 0 && run.opset >= 11) axis += rank;
  if (axis < 0 || axis > rank) return Fail(run, absl::StrCat("axis ", axis, " is outside [0, ", rank, "]"));
  int64_t rows = 1;
  for (int64_t d = 0; d < axis; ++d) rows *= x->dims()[static_cast<size_t>(d)];
  const int64_t columns = rows == 0 ? 0 : x->element_count() / rows;
  return Tensor::FromBytes(x->type(), {rows, columns}, std::string(x->bytes()));
}

// Reshape: `shape` attribute before opset 5, an input from 5; 0 copies the input's dim, -1 is inferred.
absl::StatusOr<Tensor> RunReshape(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  std::vector<int64_t> shape;
  if (run.opset < 5) {
    ASSIGN_OR_RETURN(shape, IntsAttribute(run, "shape"));
  } else {
    ASSIGN_OR_RETURN(const Tensor* given, Input(run, 1));
    if (given->type() != TensorProto::INT64) return Fail(run, "shape is not int64");
    shape = ElementsOf<int64_t>(*given);
  }
  int64_t known = 1;
  int inferred = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && d < x->dims().size()) shape[d] = x->dims()[d];
    if (shape[d] == -1) {
      if (inferred >= 0) return Fail(run, "shape holds -1 twice");
      inferred = static_cast<int>(d);
      continue;
    }
    if (shape[d] < 0) return Fail(run, absl::StrCat("shape holds ", shape[d]));
    known *= shape[d];
  }
  if (inferred >= 0 && known != 0) shape[static_cast<size_t>(inferred)] = x->element_count() / known;
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  if (count != x->element_count()) {
    return Fail(
        run, absl::StrCat("shape [", absl::StrJoin(shape, ","), "] does not hold ", x->element_count(), " elements"));
  }
  return Tensor::FromBytes(x->type(), std::move(shape), std::string(x->bytes()));
}

// Gemm: alpha * A' B' + beta * C, with A' and B' transposed as asked, C broadcast to [M, N] (with the
// `broadcast` attribute before opset 7, unidirectionally from 7; optional from 11). Each output sums its K
// products in order, then alpha and beta apply.
absl::StatusOr<Tensor> RunGemm(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* a, Input(run, 0));
  ASSIGN_OR_RETURN(const Tensor* b, Input(run, 1));
  const Tensor* c = run.inputs.size() > 2 ? run.inputs[2] : nullptr;
  if (c == nullptr && run.opset < 11) return Fail(run, "input C is missing (optional only from opset 11)");
  if (a->rank() != 2 || b->rank() != 2) return Fail(run, "A and B must be matrices");
  if (a->type() != b->type() || (c != nullptr && c->type() != a->type())) {
    return Fail(run, "inputs of different element types");
  }
  const bool trans_a = IntAttributeOr(run, "transA", 0) != 0;
  const bool trans_b = IntAttributeOr(run, "transB", 0) != 0;
  const int64_t m = a->dims()[trans_a ? 1 : 0], k = a->dims()[trans_a ? 0 : 1];
  const int64_t n = b->dims()[trans_b ? 0 : 1];
  if (b->dims()[trans_b ? 1 : 0] != k) return Fail(run, "A's columns and B's rows differ");
  std::vector<int64_t> c_index;
  if (c != nullptr) {
    if (run.opset < 7 && IntAttributeOr(run, "broadcast", 0) == 0 && c->dims() != std::vector<int64_t>{m, n}) {
      return Fail(run, "C is not [M, N] and broadcast is 0");
    }
    const std::vector<int64_t> out_dims = {m, n};
    ASSIGN_OR_RETURN(const std::vector<int64_t> dims, BroadcastDims(run, {&c->dims(), &out_dims}));
    if (dims != out_dims) return Fail(run, "C does not broadcast to [M, N]");
    c_index = BroadcastIndex(c->dims(), out_dims);
  }
  return WithFloatType(run, a->type(), [&](auto zero) -> absl::StatusOr<Tensor> {
    using T = decltype(zero);
    const T alpha = static_cast<T>(FloatAttribute(run, "alpha", 1.0f).value_or(1.0f));
    const T beta = static_cast<T>(FloatAttribute(run, "beta", 1.0f).value_or(1.0f));
    const std::vector<T> x = ElementsOf<T>(*a);
    const std::vector<T> y = ElementsOf<T>(*b);
    const std::vector<T> bias = c != nullptr ? ElementsOf<T>(*c) : std::vector<T>();
    std::vector<T> out(static_cast<size_t>(m * n));
    for (int64_t row = 0; row < m; ++row) {
      for (int64_t column = 0; column < n; ++column) {
        T sum = 0;
        for (int64_t i = 0; i < k; ++i) {
          const T left = x[static_cast<size_t>(trans_a ? i * m + row : row * k + i)];
          const T right = y[static_cast<size_t>(trans_b ? column * k + i : i * n + column)];
          sum += left * right;
        }
        const size_t at = static_cast<size_t>(row * n + column);
        out[at] = alpha * sum;
        if (c != nullptr) out[at] += beta * bias[static_cast<size_t>(c_index[at])];
      }
    }
    return TensorOf(a->type(), {m, n}, out);
  });
}

// Pad, constant mode: `paddings` (Pad-1) or `pads` (Pad-2) and `value` attributes, the pads and the value
// as inputs from Pad-11. [begin of each axis..., end of each axis...], none negative.
absl::StatusOr<Tensor> RunPad(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  const onnx::AttributeProto* mode = Attribute(run.node, "mode");
  if (mode != nullptr && mode->s() != "constant") return Fail(run, "only mode 'constant' is evaluated");
  std::vector<int64_t> pads;
  std::optional<Tensor> fill;
  if (run.opset < 11) {
    ASSIGN_OR_RETURN(pads, IntsAttribute(run, run.opset < 2 ? "paddings" : "pads"));
    ASSIGN_OR_RETURN(const float value, FloatAttribute(run, "value", 0.0f));
    ASSIGN_OR_RETURN(Tensor filled, WithFloatType(run, x->type(), [&](auto zero) -> absl::StatusOr<Tensor> {
                       using T = decltype(zero);
                       return TensorOf(x->type(), {}, std::vector<T>{static_cast<T>(value)});
                     }));
    fill = std::move(filled);
  } else {
    ASSIGN_OR_RETURN(const Tensor* given, Input(run, 1));
    if (given->type() != TensorProto::INT64) return Fail(run, "pads are not int64");
    pads = ElementsOf<int64_t>(*given);
    const Tensor* value = run.inputs.size() > 2 ? run.inputs[2] : nullptr;
    if (value != nullptr) {
      if (value->type() != x->type() || value->element_count() != 1)
        return Fail(run, "constant_value is no scalar of X's type");
      fill = value->Clone();
    } else {
      ASSIGN_OR_RETURN(Tensor zero, Tensor::Zeros(x->type(), {}));
      fill = std::move(zero);
    }
  }
  const size_t rank = x->dims().size();
  if (pads.size() != 2 * rank) return Fail(run, absl::StrCat(pads.size(), " pads for rank ", rank));
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[d + rank] < 0) return Fail(run, "negative pads are not evaluated");
    dims[d] = x->dims()[d] + pads[d] + pads[d + rank];
  }
  const size_t size = static_cast<size_t>(ElementSize(x->type()));
  if (size == 0) return Fail(run, "strings are not supported");
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::string bytes;
  bytes.reserve(static_cast<size_t>(count) * size);
  for (int64_t e = 0; e < count; ++e) bytes.append(fill->bytes());
  // Each input element to its place: its index plus the begin pads.
  std::vector<int64_t> counter(rank, 0);
  for (int64_t e = 0; e < x->element_count(); ++e) {
    int64_t target = 0;
    for (size_t d = 0; d < rank; ++d) target = target * dims[d] + counter[d] + pads[d];
    std::memcpy(bytes.data() + static_cast<size_t>(target) * size, x->bytes().data() + static_cast<size_t>(e) * size,
                size);
    for (size_t d = rank; d-- > 0;) {
      if (++counter[d] < x->dims()[d]) break;
      counter[d] = 0;
    }
  }
  return Tensor::FromBytes(x->type(), std::move(dims), std::move(bytes));
}

absl::StatusOr<Tensor> RunConstant(const NodeRun& run) {
  absl::StatusOr<Tensor> value = ConstantNodeValue(run.node);
  if (!value.ok()) return Fail(run, value.status().message());
  return value;
}

absl::StatusOr<Tensor> RunIdentity(const NodeRun& run) {
  ASSIGN_OR_RETURN(const Tensor* x, Input(run, 0));
  return x->Clone();
}

// Resize and Upsample, which an Upsample-1 or an Upsample at opset 10+ becomes, and ReduceMean (MVN-1's, whose
// axes are an input from opset 18), by the model runner's kernel (checked against ONNX Runtime op by op): the
// rules' references are their own code, so the two computations stay independent.
absl::StatusOr<Tensor> RunByModelRunnerKernel(const NodeRun& run) {
  const onnx_legalize::Kernel* kernel = FindKernel(run.node.op_type());
  if (kernel == nullptr) return Fail(run, absl::StrCat("the model runner has no ", run.node.op_type(), " kernel"));
  KernelContext context{run.node, {}, run.opset};
  for (const Tensor* input : run.inputs) {
    context.inputs.push_back(input == nullptr ? nullptr : std::make_shared<const Tensor>(input->Clone()));
  }
  absl::StatusOr<Outputs> outputs = (*kernel)(context);
  if (!outputs.ok()) return Fail(run, outputs.status().message());
  if (outputs->empty() || (*outputs)[0] == nullptr)
    return Fail(run, absl::StrCat(run.node.op_type(), " gave no output"));
  return (*outputs)[0]->Clone();
}

using Kernel = std::function<absl::StatusOr<Tensor>(const NodeRun&)>;

const std::unordered_map<std::string, Kernel>& Kernels() {
  static const auto* kernels = new std::unordered_map<std::string, Kernel>{
      {"Constant", RunConstant},
      {"Identity", RunIdentity},
      {"Add", RunArithmetic},
      {"Sub", RunArithmetic},
      {"Mul", RunArithmetic},
      {"Div", RunArithmetic},
      {"Tanh", [](const NodeRun& run) { return RunUnary(run, [](auto x) { return std::tanh(x); }); }},
      {"Softplus", [](const NodeRun& run) { return RunUnary(run, [](auto x) { return Softplus(x); }); }},
      {"Sqrt", [](const NodeRun& run) { return RunUnary(run, [](auto x) { return std::sqrt(x); }); }},
      {"ThresholdedRelu", RunThresholdedRelu},
      {"Greater", RunGreater},
      {"Where", RunWhere},
      {"Not", RunNot},
      {"Transpose", RunTranspose},
      {"Slice", RunSlice},
      {"ReduceMean", RunByModelRunnerKernel},
      {"MeanVarianceNormalization", RunMeanVarianceNormalization},
      {"Shape", RunShape},
      {"Cast", RunCast},
      {"ConstantOfShape", RunConstantOfShape},
      {"Concat", RunConcat},
      {"Flatten", RunFlatten},
      {"Reshape", RunReshape},
      {"Resize", RunByModelRunnerKernel},
      {"Upsample", RunByModelRunnerKernel},
      {"Gemm", RunGemm},
      {"Pad", RunPad},
  };
  return *kernels;
}

}  // namespace

absl::Status RunNodes(const std::vector<onnx::NodeProto>& nodes, int64_t opset, std::map<std::string, Tensor>& values) {
  for (const onnx::NodeProto& node : nodes) {
    if (!IsDefaultDomain(node.domain())) {
      return absl::UnimplementedError(absl::StrCat(NodeName(node), ": domain '", node.domain(), "' is not evaluated"));
    }
    auto kernel = Kernels().find(node.op_type());
    if (kernel == Kernels().end()) {
      return absl::UnimplementedError(
          absl::StrCat(NodeName(node), ": the evaluator does not implement ", node.op_type()));
    }
    if (node.output_size() != 1) return absl::InvalidArgumentError(absl::StrCat(NodeName(node), ": not one output"));
    NodeRun run{node, opset, {}};
    for (const std::string& input : node.input()) {
      if (input.empty()) {
        run.inputs.push_back(nullptr);
        continue;
      }
      auto value = values.find(input);
      if (value == values.end()) {
        return absl::InvalidArgumentError(absl::StrCat(NodeName(node), ": reads '", input, "', which nothing defines"));
      }
      run.inputs.push_back(&value->second);
    }
    ASSIGN_OR_RETURN(Tensor output, kernel->second(run));
    values.insert_or_assign(node.output(0), std::move(output));
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize
