// The ops of ONNX's first opsets whose schemas in onnx 1.23 have no inference function (Relu-1, Add-1,
// BatchNormalization-1, InstanceNormalization-1, ...: onnx types them only from opset 6 or 7 on). In a model
// of those opsets they would stop every type after them; the planners' inference (rules/typed_stand_ins.cc)
// and the opset move's skeleton (upgrade/skeleton.cc) type their first output as the first input is typed:
// its element type always (every such op but Cast constrains both to one type), and its shape where the op
// keeps it: the elementwise ops (Add-1 to Div-1 broadcast B onto A, or take equal shapes), normalizations,
// Dropout. The others (Concat-1, Gemm-1, Pad-1, Reshape-1, Split-1, ...) keep the element type only.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_UNTYPED_ERA_OPS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_UNTYPED_ERA_OPS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Whether `node` (default domain, default opset `opset`) is one of those ops, with a first input and output.
inline bool IsUntypedEraNode(const onnx::NodeProto& node, int64_t opset) {
  if (node.input_size() == 0 || node.input(0).empty() || node.output_size() == 0 || node.op_type() == "Cast") {
    return false;
  }
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), "");
  return schema != nullptr && !schema->has_type_and_shape_inference_function();
}

// Whether such an op's first output has its first input's shape.
inline bool UntypedEraOpKeepsShape(const std::string& op_type) {
  static const auto* ops = new std::set<std::string>{"Abs",       "Add",         "BatchNormalization",
                                                     "Ceil",      "Clip",        "Div",
                                                     "Dropout",   "Elu",         "Exp",
                                                     "Floor",     "HardSigmoid", "InstanceNormalization",
                                                     "LeakyRelu", "Log",         "Max",
                                                     "Mean",      "Min",         "Mul",
                                                     "Neg",       "PRelu",       "Reciprocal",
                                                     "Relu",      "Selu",        "Sigmoid",
                                                     "Sqrt",      "Sub",         "Sum",
                                                     "Tanh"};
  return ops->count(op_type) > 0;
}

// Concat-1's output shape from its inputs' (`axis` 1 when absent, as Concat-1 defaulted): the first input's
// dims with the axis dim summed over all inputs; that dim unknown (-1) when any input's is. Empty when an
// input's shape is not known or the ranks differ.
inline std::vector<int64_t> ConcatenatedDims(const std::vector<std::vector<int64_t>>& inputs, int64_t axis) {
  if (inputs.empty()) return {};
  const int64_t rank = static_cast<int64_t>(inputs[0].size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {};
  std::vector<int64_t> dims = inputs[0];
  int64_t sum = 0;
  for (const std::vector<int64_t>& input : inputs) {
    if (static_cast<int64_t>(input.size()) != rank) return {};
    const int64_t dim = input[static_cast<size_t>(axis)];
    sum = sum < 0 || dim < 0 ? -1 : sum + dim;
  }
  dims[static_cast<size_t>(axis)] = sum;
  return dims;
}

// Reshape-1's output dims from its input's (-1 for an unknown dim) and its `shape` attribute: a 0 copies the
// input's dim at that index, one -1 takes what the other dims leave of the input's element count. nullopt when
// that is not known or does not divide.
inline std::optional<std::vector<int64_t>> ReshapedDims(const std::vector<int64_t>& input,
                                                        const std::vector<int64_t>& shape) {
  std::vector<int64_t> dims = shape;
  int64_t known = 1;
  int inferred = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 0) {
      if (d >= input.size()) return std::nullopt;
      dims[d] = input[d];
    }
    if (dims[d] == -1 && shape[d] == -1) {
      if (inferred >= 0) return std::nullopt;
      inferred = static_cast<int>(d);
      continue;
    }
    if (dims[d] < 0) return std::nullopt;
    known *= dims[d];
  }
  if (inferred < 0) return dims;
  int64_t count = 1;
  for (int64_t dim : input) {
    if (dim < 0) return std::nullopt;
    count *= dim;
  }
  if (known == 0 || count % known != 0) return std::nullopt;
  dims[static_cast<size_t>(inferred)] = count / known;
  return dims;
}

// RNN, GRU and LSTM of opsets 1-6 (PyTorch 0.3's and CoreML's recurrent layers): every output has X's element
// type. onnx (1.12 and 1.23 alike) types none of GRU-1's; RNN-1's, LSTM-1's and GRU-3's inference gives every
// output X's element type, and dims only with output_sequence=1.
inline bool IsRecurrentOp(const std::string& op_type) {
  return op_type == "RNN" || op_type == "GRU" || op_type == "LSTM";
}

// Output `output` of such a node from X's dims [seq_length, batch_size, input_size] (-1 for an unknown dim):
// Y [seq_length, num_directions, batch_size, hidden_size], Y_h and Y_c [num_directions, batch_size,
// hidden_size]. nullopt when X is not of rank 3 or the node has no hidden_size.
inline std::optional<std::vector<int64_t>> RecurrentOutputDims(const onnx::NodeProto& node,
                                                               const std::vector<int64_t>& x, int output) {
  int64_t hidden_size = -1;
  int64_t directions = 1;
  for (const auto& attribute : node.attribute()) {
    if (attribute.name() == "hidden_size") hidden_size = attribute.i();
    if (attribute.name() == "direction" && attribute.s() == "bidirectional") directions = 2;
  }
  if (x.size() != 3 || hidden_size <= 0) return std::nullopt;
  if (output == 0) return std::vector<int64_t>{x[0], directions, x[1], hidden_size};
  return std::vector<int64_t>{directions, x[1], hidden_size};
}

// An input's dims as what types it says (-1 for an unknown dim), or nullopt when its shape is not known.
using EraInputDims = std::function<std::optional<std::vector<int64_t>>(int input)>;

// The output dims of a Concat-1 (its inputs' dims, the axis dim summed), a Gemm-1 ([M, N] of A [M, K] or, with
// transA, [K, M]; B likewise with transB) or a Reshape-1 (`shape`, its 0s copied from the input and its -1
// computed), where the inputs' shapes tell (`input_dims`); nullopt otherwise. The opset move's skeleton and the
// planners' inference both type the outputs of these ops with it, each from the types it has.
inline std::optional<std::vector<int64_t>> EraOutputDims(const onnx::NodeProto& node, const EraInputDims& input_dims) {
  std::map<std::string, const onnx::AttributeProto*> attributes;  // the last of a name, as onnx reads them
  for (const auto& attribute : node.attribute()) attributes[attribute.name()] = &attribute;
  auto int_attribute = [&](const char* name) {
    auto it = attributes.find(name);
    return it == attributes.end() ? int64_t{0} : it->second->i();
  };
  if (node.op_type() == "Concat") {
    auto axis = attributes.find("axis");  // 1 when absent, Concat-1's default
    std::vector<std::vector<int64_t>> inputs;
    for (int i = 0; i < node.input_size(); ++i) {
      std::optional<std::vector<int64_t>> dims = input_dims(i);
      if (!dims.has_value()) return std::nullopt;
      inputs.push_back(*std::move(dims));
    }
    std::vector<int64_t> dims = ConcatenatedDims(inputs, axis == attributes.end() ? 1 : axis->second->i());
    if (dims.empty()) return std::nullopt;
    return dims;
  }
  if (node.op_type() == "Gemm" && node.input_size() >= 2) {
    const std::optional<std::vector<int64_t>> a = input_dims(0);
    const std::optional<std::vector<int64_t>> b = input_dims(1);
    if (!a.has_value() || !b.has_value() || a->size() != 2 || b->size() != 2) return std::nullopt;
    return std::vector<int64_t>{(*a)[int_attribute("transA") != 0 ? 1 : 0], (*b)[int_attribute("transB") != 0 ? 0 : 1]};
  }
  if (node.op_type() == "Reshape" && attributes.count("shape") > 0) {
    const std::optional<std::vector<int64_t>> x = input_dims(0);
    if (!x.has_value()) return std::nullopt;
    const auto& shape = attributes["shape"]->ints();
    return ReshapedDims(*x, std::vector<int64_t>(shape.begin(), shape.end()));
  }
  return std::nullopt;
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_UNTYPED_ERA_OPS_H_
