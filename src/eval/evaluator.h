// The library's evaluator: runs a short list of standard ONNX nodes (a removed op's replacement) on given
// tensors, node by node, with the semantics of the default-domain opset they are written for.
//
// It knows exactly the ops the replacements use, for float and double data (what the removed ops' old
// spec admits and ONNX Runtime ran): Constant, Identity, Add, Sub, Mul, Div (numpy broadcasting), Tanh,
// Softplus, Sqrt, Greater, Not, Where, Transpose, ThresholdedRelu (10), Slice (attributes below opset 10, inputs from
// 10), ReduceMean (axes attribute, keepdims), MeanVarianceNormalization (9), Shape, Cast (float16 to and from float
// too), ConstantOfShape, Concat, Flatten, Reshape, Gemm (each sum in order), Pad (constant mode; pads and value by
// version), and Resize by the model runner's kernel (eval/kernels/). Anything else is Unimplemented naming the op.
//
// Verification compares what this evaluator computes from a replacement against a removed op's own
// reference kernel (rules/), which is written from the old operator's spec and calls none of this: two
// independent computations of one value.
#ifndef ONNX_LEGALIZE_SRC_EVAL_EVALUATOR_H_
#define ONNX_LEGALIZE_SRC_EVAL_EVALUATOR_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Runs `nodes` in order at default opset `opset`. `values` holds the tensors the nodes read that they do
// not compute themselves (the removed node's inputs, the replacement's constants); every output a node
// computes is added to it. Errors name the node (op and first output) and what was wrong.
absl::Status RunNodes(const std::vector<onnx::NodeProto>& nodes, int64_t opset, std::map<std::string, Tensor>& values);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_EVALUATOR_H_
