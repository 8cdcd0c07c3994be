// The model runner's kernels by op type, as rules/registry.h lists the removed ops: each kernel file adds its
// op family's kernels with one function, and this file's .cc calls each once.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_REGISTRY_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_REGISTRY_H_

#include <string>
#include <unordered_map>

#include "eval/kernels/kernel.h"

namespace onnx_legalize {

using KernelTable = std::unordered_map<std::string, Kernel>;

// The kernel for a default-domain op type, or null when the runner has none.
const Kernel* FindKernel(const std::string& op_type);
// The kernel for an op of `domain` ("" or "ai.onnx" for the default one, "ai.onnx.ml"), or null.
const Kernel* FindKernel(const std::string& domain, const std::string& op_type);

// The table's key for an op of a domain other than the default one: "ai.onnx.ml:ArrayFeatureExtractor".
std::string DomainKey(const std::string& domain, const std::string& op_type);

// One per kernel file, in the order registry.cc calls them.
void AddConstantKernels(KernelTable& table);       // constant.cc: Constant, ConstantOfShape, Identity, Dropout
void AddShapeKernels(KernelTable& table);          // shape_ops.cc: Shape, Size, Reshape, Flatten, (Un)Squeeze, ...
void AddDataMovementKernels(KernelTable& table);   // data_movement.cc: Concat, Split, Gather, Transpose, Tile, ...
void AddOneHotKernels(KernelTable& table);         // one_hot.cc: OneHot
void AddSliceKernels(KernelTable& table);          // slice.cc: Slice, DynamicSlice
void AddCastKernels(KernelTable& table);           // cast.cc: Cast
void AddElementwiseKernels(KernelTable& table);    // elementwise.cc: Add, Sub, Mul, Div, Pow, Sum, Max, ... Sqrt
void AddActivationKernels(KernelTable& table);     // activation.cc: Relu, LeakyRelu, PRelu, Elu, ..., Clip
void AddLogicalKernels(KernelTable& table);        // logical.cc: Equal, Less, Greater, Not, And, Or, Where
void AddSoftmaxKernels(KernelTable& table);        // softmax.cc: Softmax, LogSoftmax
void AddGemmKernels(KernelTable& table);           // gemm.cc: Gemm, MatMul
void AddConvKernels(KernelTable& table);           // conv.cc: Conv, ConvTranspose (conv_transpose.cc)
void AddPoolKernels(KernelTable& table);           // pool.cc: MaxPool, AveragePool, GlobalAveragePool, ...
void AddNormalizationKernels(KernelTable& table);  // normalization.cc: BatchNormalization, InstanceNorm..., LRN
void AddReduceKernels(KernelTable& table);         // reduce.cc: ReduceMean, ..., ArgMax, ArgMin
void AddPadKernels(KernelTable& table);            // pad.cc: Pad
void AddResizeKernels(KernelTable& table);         // resize.cc: Upsample, Resize
void AddSequenceKernels(KernelTable& table);       // range_topk.cc: Range, TopK
void AddTextKernels(KernelTable& table);           // text.cc: StringNormalizer
void AddMlKernels(KernelTable& table);             // ml.cc: ai.onnx.ml's ArrayFeatureExtractor, Normalizer
void AddQuantizeKernels(KernelTable& table);       // quantize.cc: QuantizeLinear, DequantizeLinear
void AddRecurrentKernels(KernelTable& table);      // recurrent.cc: RNN, GRU, LSTM
void AddTreeEnsembleKernels(KernelTable& table);  // tree_ensemble.cc: ai.onnx.ml's TreeEnsembleRegressor, ...Classifier

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_REGISTRY_H_
