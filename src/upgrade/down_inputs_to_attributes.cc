// Moving down across the opsets that turned attributes into inputs (Slice 10, Pad and Clip 11, Dropout 12), where
// onnx 1.23's converter has no down-adapter: the node goes back to the older version when each such input is a
// constant, read into the attribute it was, and the inputs are taken off.
//
// Each step has two halves. The check (why a node cannot cross) runs on the caller's model before the converter
// does (upgrade/down_forms.cc), and finds every such input a constant: an initializer the caller cannot feed, or a
// Constant node's value. The adapter then runs on the skeleton inside the converter and reads the same constants
// there; one it cannot find (a large constant the skeleton holds only as a placeholder) is a NoFormException.
//
// Why each is exact: the older version's attribute is the same value; the one widening is of a float16 or float
// Pad value or Clip bound to the float attribute, which holds each exactly (a double must be a float's value, or
// the node is refused). A Clip bound left out is the lowest (highest) value of the data's type at 11 and the lowest
// (highest) float at 6: the same for float data only, so on other data (float16, double, or a type shape inference
// did not find) each bound must be given.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/float16.h"
#include "core/tensor.h"
#include "onnx/defs/tensor_util.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// The constant value of `node`'s input `index` (`name`), or why it is none.
absl::StatusOr<Tensor> ConstantInput(const NodeProto& node, int index, const char* name,
                                     const ConstantOf& constant_of) {
  const TensorProto* constant = constant_of(node.input(index));
  if (constant == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("its ", name,
                                                      " is computed at run time or fed by the caller, where the older "
                                                      "version takes a constant attribute"));
  }
  absl::StatusOr<Tensor> value = TensorFromProto(*constant, name);
  if (!value.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("its ", name, " cannot be read (", value.status().message(), ")"));
  }
  return value;
}

// Why input `index` is not a constant of integers (or nullopt; an absent input passes).
WhyNot NotConstantInts(const NodeProto& node, int index, const char* name, const ConstantOf& constant_of) {
  if (!HasInput(node, index)) return std::nullopt;
  absl::StatusOr<Tensor> value = ConstantInput(node, index, name, constant_of);
  if (!value.ok()) return std::string(value.status().message());
  absl::StatusOr<std::vector<int64_t>> ints = value->ToInt64s(name);
  if (!ints.ok()) return absl::StrCat("its ", name, " cannot be read (", ints.status().message(), ")");
  return std::nullopt;
}

// A one-element tensor's value, as a double; nullopt for more elements or a type other than float16, float, double
// and bool.
std::optional<double> OneValue(const Tensor& tensor) {
  if (tensor.element_count() != 1) return std::nullopt;
  const char* data = tensor.bytes().data();
  switch (tensor.type()) {
    case TensorProto::FLOAT: {
      float value = 0;
      std::memcpy(&value, data, sizeof(value));
      return value;
    }
    case TensorProto::DOUBLE: {
      double value = 0;
      std::memcpy(&value, data, sizeof(value));
      return value;
    }
    case TensorProto::FLOAT16: {
      uint16_t bits = 0;
      std::memcpy(&bits, data, sizeof(bits));
      return Float16ToFloat(bits);
    }
    case TensorProto::BOOL: return data[0] != 0 ? 1.0 : 0.0;
    default: return std::nullopt;
  }
}

// Why input `index` is not a constant scalar that a float attribute holds exactly (or nullopt when it is absent).
WhyNot NotConstantFloat(const NodeProto& node, int index, const char* name, const ConstantOf& constant_of) {
  if (!HasInput(node, index)) return std::nullopt;
  absl::StatusOr<Tensor> value = ConstantInput(node, index, name, constant_of);
  if (!value.ok()) return std::string(value.status().message());
  const std::optional<double> one = OneValue(*value);
  if (!one.has_value()) return absl::StrCat("its ", name, " is not one float16, float or double value");
  if (!std::isnan(*one) && static_cast<double>(static_cast<float>(*one)) != *one) {
    return absl::StrCat("its ", name, " (", *one, ") has no exact float, which the older version's attribute is");
  }
  return std::nullopt;
}

// In the skeleton (onnx's IR):

double Scalar(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node, size_t index, const char* name) {
  const onnx::Tensor& tensor = ConstantTensor(graph, node, index, name);
  switch (tensor.elem_type()) {
    case TensorProto::FLOAT: return onnx::ParseData<float>(&tensor).at(0);
    case TensorProto::DOUBLE: return onnx::ParseData<double>(&tensor).at(0);
    case TensorProto::FLOAT16: {  // held as int32_data, or as raw bytes
      uint16_t bits = 0;
      if (tensor.is_raw_data()) {
        std::memcpy(&bits, tensor.raw().data(), std::min(tensor.raw().size(), sizeof(bits)));
      } else {
        bits = static_cast<uint16_t>(tensor.int32s().at(0));
      }
      return Float16ToFloat(bits);
    }
    case TensorProto::BOOL:
      return tensor.is_raw_data() ? static_cast<double>(tensor.raw().at(0) != 0)
                                  : static_cast<double>(tensor.int32s().at(0) != 0);
    default: throw NoFormException(node, absl::StrCat("its ", name, " is not a float value"));
  }
}

// Takes inputs `first` on off the node, and each Constant node that fed only them out of the graph.
void TakeOffInputsFrom(onnx::Node* node, size_t first) {
  while (node->inputs().size() > first) TakeOffInput(node, node->inputs().size() - 1);
}

}  // namespace

const onnx::Tensor& ConstantTensor(const std::shared_ptr<onnx::Graph>& main_graph, onnx::Node* node, size_t index,
                                   const char* name) {
  onnx::Value* value = node->inputs()[index];
  onnx::Node* producer = value->node();
  if (producer->kind() == onnx::kConstant && producer->hasAttribute(onnx::kvalue)) return producer->t(onnx::kvalue);
  for (onnx::Graph* graph : {value->owningGraph(), main_graph.get()}) {
    for (const onnx::Tensor& initializer : graph->initializers()) {
      if (initializer.name() == value->uniqueName()) return initializer;
    }
  }
  throw NoFormException(node, absl::StrCat("its ", name,
                                           " is a constant that the converter's view of the model holds as a "
                                           "placeholder (a large one, or one made in another part of the graph than "
                                           "the part converted with the node), which cannot be read back"));
}

std::vector<int64_t> ConstantInts(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node, size_t index,
                                  const char* name) {
  const onnx::Tensor& tensor = ConstantTensor(graph, node, index, name);
  if (tensor.elem_type() == TensorProto::INT64) return onnx::ParseData<int64_t>(&tensor);
  const std::vector<int32_t> narrow = onnx::ParseData<int32_t>(&tensor);  // int32 is the one other type they take
  return {narrow.begin(), narrow.end()};
}

void TakeOffInput(onnx::Node* node, size_t index) {
  onnx::Value* input = node->inputs()[index];
  node->removeInput(index);
  if (input->uses().empty() && input->node()->kind() == onnx::kConstant) input->node()->destroy();
}

std::optional<std::vector<float>> FloatValues(const TensorProto& tensor) {
  absl::StatusOr<Tensor> values = TensorFromProto(tensor);
  if (!values.ok() || values->type() != TensorProto::FLOAT) return std::nullopt;
  std::vector<float> floats(static_cast<size_t>(values->element_count()));
  // An empty tensor (a Resize's roi, say) has no bytes to copy, and memcpy must not see its null pointers.
  if (!floats.empty()) std::memcpy(floats.data(), values->bytes().data(), floats.size() * sizeof(float));
  return floats;
}

WhyNot SliceInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of) {
  for (auto [index, name] : {std::pair<int, const char*>{1, "starts"}, {2, "ends"}, {3, "axes"}}) {
    if (WhyNot why = NotConstantInts(node, index, name, constant_of)) return why;
  }
  if (!HasInput(node, 4)) return std::nullopt;
  absl::StatusOr<Tensor> steps = ConstantInput(node, 4, "steps", constant_of);
  if (!steps.ok()) return std::string(steps.status().message());
  absl::StatusOr<std::vector<int64_t>> values = steps->ToInt64s("steps");
  if (!values.ok()) return absl::StrCat("its steps cannot be read (", values.status().message(), ")");
  for (int64_t step : *values) {
    if (step != 1) return absl::StrCat("its steps (", step, ") are the newer version's alone");
  }
  return std::nullopt;
}

onnx::Node* SliceInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
  node->is_(onnx::kstarts, ConstantInts(graph, node, 1, "starts"));
  node->is_(onnx::kends, ConstantInts(graph, node, 2, "ends"));
  if (HasInput(node, 3)) node->is_(onnx::kaxes, ConstantInts(graph, node, 3, "axes"));
  TakeOffInputsFrom(node, 1);  // steps, all 1 (SliceInputsAreConstant)
  return node;
}

WhyNot PadInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of) {
  if (WhyNot pads = NotConstantInts(node, 1, "pads", constant_of)) return pads;
  return NotConstantFloat(node, 2, "constant_value", constant_of);
}

onnx::Node* PadInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
  node->is_(onnx::kpads, ConstantInts(graph, node, 1, "pads"));
  if (HasInput(node, 2)) node->f_(onnx::kvalue, Scalar(graph, node, 2, "constant_value"));
  TakeOffInputsFrom(node, 1);
  return node;
}

WhyNot ClipInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of) {
  if (WhyNot min = NotConstantFloat(node, 1, "min", constant_of)) return min;
  return NotConstantFloat(node, 2, "max", constant_of);
}

onnx::Node* ClipInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
  if ((!HasInput(node, 1) || !HasInput(node, 2)) && node->inputs()[0]->elemType() != TensorProto::FLOAT) {
    throw NoFormException(
        node,
        "Clip-11 without min or max clamps at the lowest or highest value of its data's type, and Clip-6 at the "
        "float's: alike only for float data, which this Clip's input is not known to be");
  }
  if (HasInput(node, 1)) node->f_(onnx::kmin, Scalar(graph, node, 1, "min"));
  if (HasInput(node, 2)) node->f_(onnx::kmax, Scalar(graph, node, 2, "max"));
  TakeOffInputsFrom(node, 1);
  return node;
}

// onnx's own Upsample 9 -> 8 takes the scales of any initializer of that name into Upsample-7's attribute, also of
// one the caller may override (a graph input from IR 4 on), and drops that input: an override would be refused, and
// one the caller relied on lost. Only a constant crosses.
WhyNot UpsampleScalesAreConstant(const NodeProto& node, const ConstantOf& constant_of) {
  if (!HasInput(node, 1)) return std::string("it has no scales");
  absl::StatusOr<Tensor> value = ConstantInput(node, 1, "scales", constant_of);
  if (!value.ok()) return std::string(value.status().message());
  return std::nullopt;
}

WhyNot DropoutInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of) {
  // Dropout-12 says its mask is all true where it does not train; before 12 the spec leaves it open, and ONNX
  // Runtime's Dropout-10 writes it all false (run_downgrades.py: test_dropout_default_mask).
  if (node.output_size() > 1 && !node.output(1).empty()) {
    return std::string("its mask output is read, which only the newer version defines where it does not train");
  }
  if (WhyNot ratio = NotConstantFloat(node, 1, "ratio", constant_of)) return ratio;
  if (!HasInput(node, 2)) return std::nullopt;
  absl::StatusOr<Tensor> training = ConstantInput(node, 2, "training_mode", constant_of);
  const std::optional<double> value = training.ok() ? OneValue(*training) : std::nullopt;
  if (!value.has_value() || *value != 0) {
    return std::string("its training_mode may be true, and only the newer version drops values in a run");
  }
  return std::nullopt;
}

onnx::Node* DropoutInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
  if (HasInput(node, 1)) node->f_(onnx::kratio, Scalar(graph, node, 1, "ratio"));
  TakeOffInputsFrom(node, 1);  // training_mode, false (DropoutInputsAreConstant)
  return node;
}

}  // namespace onnx_legalize::opset_upgrade
