#include "eval/kernels/sequence.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "eval/kernels/kernel_support.h"
#include "eval/typed_elements.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;
using ::onnx::TensorProto;

// The sequence ops came with opset 11 and have not changed since (to 17).
constexpr int64_t kSequenceOpset = 11;

constexpr absl::string_view kSequenceOps[] = {"SequenceEmpty",      "SequenceConstruct", "SequenceInsert",
                                              "SequenceAt",         "SequenceErase",     "SequenceLength",
                                              "ConcatFromSequence", "SplitToSequence"};

SequenceOpValue OfSequence(DataType type, std::vector<Value> tensors) {
  auto sequence = std::make_shared<TensorSequence>();
  sequence->type = type;
  sequence->tensors = std::move(tensors);
  return {nullptr, std::move(sequence)};
}

SequenceOpValue OfTensor(Tensor tensor) { return {Share(std::move(tensor)), nullptr}; }

absl::StatusOr<const TensorSequence*> SequenceInput(const std::vector<SequenceOpValue>& inputs, size_t index) {
  if (index >= inputs.size() || inputs[index].sequence == nullptr) {
    return absl::InvalidArgumentError(StrCat("input ", index, " must be a sequence"));
  }
  return inputs[index].sequence.get();
}

// A tensor input; null when the node omits it.
absl::StatusOr<const Tensor*> TensorInput(const std::vector<SequenceOpValue>& inputs, size_t index) {
  if (index >= inputs.size() || (inputs[index].tensor == nullptr && inputs[index].sequence == nullptr)) return nullptr;
  if (inputs[index].tensor == nullptr) return absl::InvalidArgumentError(StrCat("input ", index, " must be a tensor"));
  return inputs[index].tensor.get();
}

// A position into a sequence of `size` tensors: a single int32 or int64, in [-size, size - 1], or up to `size`
// when `end_allowed` (SequenceInsert); negative ones count from the end.
absl::StatusOr<int64_t> Position(const Tensor& position, int64_t size, bool end_allowed) {
  if ((position.type() != TensorProto::INT64 && position.type() != TensorProto::INT32) ||
      position.element_count() != 1) {
    return absl::InvalidArgumentError(StrCat("position must be a single int32 or int64, got ", Describe(position)));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> values, position.ToInt64s("position"));
  const int64_t high = end_allowed ? size : size - 1;
  if (values[0] < -size || values[0] > high) {
    return absl::InvalidArgumentError(
        StrCat("position ", values[0], " is out of range for a sequence of ", size, " tensors"));
  }
  return values[0] < 0 ? values[0] + size : values[0];
}

absl::Status ExpectType(const TensorSequence& sequence, const Tensor& tensor) {
  if (tensor.type() != sequence.type) {
    return absl::InvalidArgumentError(
        StrCat("tensor ", Describe(tensor), " does not match the sequence's type ", DataTypeName(sequence.type)));
  }
  return absl::OkStatus();
}

absl::StatusOr<SequenceOpValue> RunSequenceEmpty(const onnx::NodeProto& node) {
  ASSIGN_OR_RETURN(const int64_t dtype, IntAttributeOr(node, "dtype", TensorProto::FLOAT));
  if (ElementSize(static_cast<DataType>(dtype)) == 0 && dtype != TensorProto::STRING) {
    return absl::InvalidArgumentError(StrCat("dtype ", dtype, " is not a tensor element type"));
  }
  return OfSequence(static_cast<DataType>(dtype), {});
}

absl::StatusOr<SequenceOpValue> RunSequenceConstruct(const std::vector<SequenceOpValue>& inputs) {
  std::vector<Value> tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSIGN_OR_RETURN(const Tensor* tensor, TensorInput(inputs, i));
    if (tensor == nullptr) return absl::InvalidArgumentError(StrCat("input ", i, " is missing"));
    if (tensor->type() != inputs[0].tensor->type()) {
      return absl::InvalidArgumentError(StrCat("input ", i, " is ", Describe(*tensor), ", input 0 ",
                                               Describe(*inputs[0].tensor), ": the types differ"));
    }
    tensors.push_back(inputs[i].tensor);
  }
  if (tensors.empty()) return absl::InvalidArgumentError("needs at least one input");
  const DataType type = tensors[0]->type();  // read before the tensors move into the sequence
  return OfSequence(type, std::move(tensors));
}

absl::StatusOr<SequenceOpValue> RunSequenceInsert(const std::vector<SequenceOpValue>& inputs) {
  ASSIGN_OR_RETURN(const TensorSequence* sequence, SequenceInput(inputs, 0));
  ASSIGN_OR_RETURN(const Tensor* tensor, TensorInput(inputs, 1));
  if (tensor == nullptr) return absl::InvalidArgumentError("input 1 (tensor) is missing");
  RETURN_IF_ERROR(ExpectType(*sequence, *tensor));
  const auto size = static_cast<int64_t>(sequence->tensors.size());
  int64_t at = size;  // appended by default
  ASSIGN_OR_RETURN(const Tensor* position, TensorInput(inputs, 2));
  if (position != nullptr) {
    ASSIGN_OR_RETURN(at, Position(*position, size, /*end_allowed=*/true));
  }
  std::vector<Value> tensors = sequence->tensors;
  tensors.insert(tensors.begin() + at, inputs[1].tensor);
  return OfSequence(sequence->type, std::move(tensors));
}

absl::StatusOr<SequenceOpValue> RunSequenceAt(const std::vector<SequenceOpValue>& inputs) {
  ASSIGN_OR_RETURN(const TensorSequence* sequence, SequenceInput(inputs, 0));
  ASSIGN_OR_RETURN(const Tensor* position, TensorInput(inputs, 1));
  if (position == nullptr) return absl::InvalidArgumentError("input 1 (position) is missing");
  ASSIGN_OR_RETURN(const int64_t at,
                   Position(*position, static_cast<int64_t>(sequence->tensors.size()), /*end_allowed=*/false));
  return SequenceOpValue{sequence->tensors[static_cast<size_t>(at)], nullptr};
}

absl::StatusOr<SequenceOpValue> RunSequenceErase(const std::vector<SequenceOpValue>& inputs) {
  ASSIGN_OR_RETURN(const TensorSequence* sequence, SequenceInput(inputs, 0));
  const auto size = static_cast<int64_t>(sequence->tensors.size());
  int64_t at = size - 1;  // the last by default
  ASSIGN_OR_RETURN(const Tensor* position, TensorInput(inputs, 1));
  if (position != nullptr) {
    ASSIGN_OR_RETURN(at, Position(*position, size, /*end_allowed=*/false));
  }
  if (at < 0) return absl::InvalidArgumentError("cannot erase from an empty sequence");
  std::vector<Value> tensors = sequence->tensors;
  tensors.erase(tensors.begin() + at);
  return OfSequence(sequence->type, std::move(tensors));
}

absl::StatusOr<SequenceOpValue> RunSequenceLength(const std::vector<SequenceOpValue>& inputs) {
  ASSIGN_OR_RETURN(const TensorSequence* sequence, SequenceInput(inputs, 0));
  ASSIGN_OR_RETURN(Tensor length,
                   TensorOf<int64_t>(TensorProto::INT64, {}, {static_cast<int64_t>(sequence->tensors.size())}));
  return OfTensor(std::move(length));
}

// ConcatFromSequence: Concat of the tensors along `axis`, or with new_axis 1 their stack along a new axis
// `axis` (which may then be the rank itself, [-rank - 1, rank]).
absl::StatusOr<SequenceOpValue> RunConcatFromSequence(const onnx::NodeProto& node,
                                                      const std::vector<SequenceOpValue>& inputs) {
  ASSIGN_OR_RETURN(const TensorSequence* sequence, SequenceInput(inputs, 0));
  ASSIGN_OR_RETURN(const std::optional<int64_t> axis_attr, IntAttribute(node, "axis"));
  if (!axis_attr) return absl::InvalidArgumentError("attribute 'axis' is missing");
  ASSIGN_OR_RETURN(const int64_t new_axis, IntAttributeOr(node, "new_axis", 0));
  if (new_axis != 0 && new_axis != 1) return absl::InvalidArgumentError(StrCat("new_axis is ", new_axis));
  if (sequence->tensors.empty()) return absl::InvalidArgumentError("cannot concatenate an empty sequence");
  const Tensor& first = *sequence->tensors[0];
  const int64_t rank = first.rank() + new_axis;
  if (rank == 0) return absl::InvalidArgumentError("cannot concatenate scalars");
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(*axis_attr, rank, "axis"));
  std::vector<const Tensor*> parts;
  std::vector<int64_t> out_dims = first.dims();
  if (new_axis == 1) out_dims.insert(out_dims.begin() + axis, 1);
  out_dims[static_cast<size_t>(axis)] = 0;
  for (const Value& part : sequence->tensors) {
    bool compatible = part->rank() == first.rank();
    for (int64_t d = 0; compatible && d < first.rank(); ++d) {
      compatible = (new_axis == 0 && d == axis) || part->dims()[d] == first.dims()[d];
    }
    if (!compatible) {
      return absl::InvalidArgumentError(
          StrCat("cannot concatenate ", Describe(*part), " with ", Describe(first), " along axis ", axis));
    }
    out_dims[static_cast<size_t>(axis)] += new_axis == 1 ? 1 : part->dims()[axis];
    parts.push_back(part.get());
  }
  // Stacking is concatenation along `axis` of the tensors seen with a 1 inserted there: the same runs of bytes.
  ASSIGN_OR_RETURN(Tensor result, ConcatenateAlong(parts, axis, std::move(out_dims)));
  return OfTensor(std::move(result));
}

// SplitToSequence: `input` cut along `axis` into parts of the lengths `split` lists (1-D, adding up to the
// dim), of `split` elements each with a shorter last one (a scalar), or without `split` into parts of one,
// whose axis keepdims 0 removes.
absl::StatusOr<SequenceOpValue> RunSplitToSequence(const onnx::NodeProto& node,
                                                   const std::vector<SequenceOpValue>& inputs) {
  ASSIGN_OR_RETURN(const Tensor* x, TensorInput(inputs, 0));
  if (x == nullptr) return absl::InvalidArgumentError("input 0 (input) is missing");
  if (x->is_string()) return absl::UnimplementedError(StrCat("SplitToSequence of ", Describe(*x), " (strings)"));
  if (x->rank() == 0) return absl::InvalidArgumentError("cannot split a scalar");
  ASSIGN_OR_RETURN(const int64_t axis_attr, IntAttributeOr(node, "axis", 0));
  ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_attr, x->rank(), "axis"));
  ASSIGN_OR_RETURN(const int64_t keepdims, IntAttributeOr(node, "keepdims", 1));
  const int64_t dim = x->dims()[axis];
  std::vector<int64_t> lengths;
  ASSIGN_OR_RETURN(const Tensor* split, TensorInput(inputs, 1));
  if (split == nullptr) {
    lengths.assign(static_cast<size_t>(dim), 1);
  } else {
    ASSIGN_OR_RETURN(const std::vector<int64_t> values, split->ToInt64s("split"));
    if (split->rank() == 0) {
      if (values[0] <= 0) return absl::InvalidArgumentError(StrCat("split is ", values[0], ", not positive"));
      for (int64_t start = 0; start < dim; start += values[0]) lengths.push_back(std::min(values[0], dim - start));
    } else {
      int64_t total = 0;
      for (const int64_t length : values) {
        if (length < 0) return absl::InvalidArgumentError(StrCat("split has a negative length ", length));
        total += length;
      }
      if (split->rank() != 1 || total != dim) {
        return absl::InvalidArgumentError(
            StrCat("split ", Describe(*split), " does not add up to the axis's ", dim, " elements"));
      }
      lengths = values;
    }
  }
  const bool squeeze = split == nullptr && keepdims == 0;
  const int64_t outer = DimsProduct(x->dims(), 0, static_cast<size_t>(axis));
  const int64_t inner = DimsProduct(x->dims(), static_cast<size_t>(axis) + 1, x->dims().size());
  const int64_t element_size = ElementSize(x->type());
  const int64_t row = dim * inner * element_size;
  std::vector<Value> parts;
  parts.reserve(lengths.size());
  int64_t start = 0;
  for (const int64_t length : lengths) {
    std::vector<int64_t> dims = x->dims();
    if (squeeze) {
      dims.erase(dims.begin() + axis);
    } else {
      dims[static_cast<size_t>(axis)] = length;
    }
    std::string bytes;
    bytes.reserve(static_cast<size_t>(outer * length * inner * element_size));
    for (int64_t o = 0; o < outer; ++o) {
      bytes.append(x->bytes(), o * row + start * inner * element_size, length * inner * element_size);
    }
    ASSIGN_OR_RETURN(Tensor part, Tensor::FromBytes(x->type(), std::move(dims), std::move(bytes)));
    parts.push_back(Share(std::move(part)));
    start += length;
  }
  return OfSequence(x->type(), std::move(parts));
}

}  // namespace

bool IsSequenceOp(const onnx::NodeProto& node) {
  if (!IsDefaultDomain(node.domain())) return false;
  for (const absl::string_view op : kSequenceOps) {
    if (node.op_type() == op) return true;
  }
  return false;
}

absl::StatusOr<SequenceOpValue> RunSequenceOp(const onnx::NodeProto& node, int64_t opset,
                                              const std::vector<SequenceOpValue>& inputs) {
  const std::string& op = node.op_type();
  if (opset < kSequenceOpset) {
    return absl::InvalidArgumentError(
        StrCat(op, " is defined from opset ", kSequenceOpset, "; the model imports ", opset));
  }
  if (op == "SequenceEmpty") return RunSequenceEmpty(node);
  if (op == "SequenceConstruct") return RunSequenceConstruct(inputs);
  if (op == "SequenceInsert") return RunSequenceInsert(inputs);
  if (op == "SequenceAt") return RunSequenceAt(inputs);
  if (op == "SequenceErase") return RunSequenceErase(inputs);
  if (op == "SequenceLength") return RunSequenceLength(inputs);
  if (op == "ConcatFromSequence") return RunConcatFromSequence(node, inputs);
  if (op == "SplitToSequence") return RunSplitToSequence(node, inputs);
  return absl::InvalidArgumentError(StrCat(op, " is not a sequence op"));
}

}  // namespace onnx_legalize
