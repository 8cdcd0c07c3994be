// A small, test-only interpreter for ONNX models, so that a pass test can execute a model before and after
// legalization on the same inputs and compare the outputs bit for bit (as onnxruntime's TransformerTester
// does for its graph transformers).
//
// It runs the main graph's nodes in the order they are listed (ONNX requires a topological order, so a
// node that reads a value no earlier node produced is an error, which also catches a pass that breaks the
// order). Slice and DynamicSlice are evaluated with src/slice_kernels.h, the kernels verification trusts;
// the runner only wires them up.
//
// Supported, in the default domain, in the versions opsets 7..17 use (the model's default-domain
// opset_import picks the version, and version-specific rules are enforced: Unsqueeze/Squeeze/Slice take
// attributes or inputs by version, negative axes are rejected before opset 11, Constant value_* needs 12):
//   Constant (value, value_float(s), value_int(s), value_string(s)), Identity, Relu (float),
//   Add/Sub/Mul (float/int32/int64; same dims, or one operand with a single element of no greater rank),
//   Neg (float/int32/int64), Shape (start/end from 15), Gather (axis 0, any data type and rank, int32/int64
//   indices of any rank incl. scalar and, from opset 11, negative), Unsqueeze, Squeeze, Concat,
//   Cast (between float/int32/int64, and to the same type), Reshape (0, -1, allowzero from 14),
//   DynamicSlice, Slice (Slice-1 attributes below opset 10, inputs from 10), If, Loop (M, cond,
//   loop-carried values, scan outputs stacked along a new axis 0). Subgraphs read outer-scope values.
// Anything else is Unimplemented naming the op. Errors name the node and the graph it is in.
#ifndef ONNX_LEGALIZE_TESTS_GRAPH_RUNNER_H_
#define ONNX_LEGALIZE_TESTS_GRAPH_RUNNER_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "tensor.h"

namespace onnx_legalize::testing {

// Runs `model`'s main graph on `inputs` (keyed by graph-input name) and returns its graph outputs by name.
//
// An initializer supplies its value unless `inputs` feeds the same name, which it may only when that name
// is also a graph input: from IR 4 that makes the initializer an overridable default, and in IR 3 every
// initializer is listed as an input, so feeding one overrides it too. Feeding a name that is not a graph
// input, omitting a graph input that has no initializer, or feeding a tensor whose type or static dims
// differ from the input's declaration is InvalidArgument.
absl::StatusOr<std::map<std::string, Tensor>> RunModel(const onnx::ModelProto& model,
                                                       const std::map<std::string, Tensor>& inputs);

}  // namespace onnx_legalize::testing

#endif  // ONNX_LEGALIZE_TESTS_GRAPH_RUNNER_H_
