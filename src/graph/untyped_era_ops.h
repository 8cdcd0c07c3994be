// The ops of ONNX's first opsets whose schemas in onnx 1.12 have no inference function (Relu-1, Add-1,
// BatchNormalization-1, InstanceNormalization-1, ...: onnx types them only from opset 6 or 7 on). In a model
// of those opsets they would stop every type after them; the planners' inference (rules/typed_stand_ins.cc)
// and the opset move's skeleton (upgrade/skeleton.cc) type their first output as the first input is typed:
// its element type always (every such op but Cast constrains both to one type), and its shape where the op
// keeps it: the elementwise ops (Add-1 to Div-1 broadcast B onto A, or take equal shapes), normalizations,
// Dropout. The others (Concat-1, Gemm-1, Pad-1, Reshape-1, Split-1, ...) keep the element type only.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_UNTYPED_ERA_OPS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_UNTYPED_ERA_OPS_H_

#include <cstdint>
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

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_UNTYPED_ERA_OPS_H_
