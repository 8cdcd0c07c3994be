// The removed ops as onnx's shape inference sees them in the planners' typed copy of a model.
//
// onnx 1.12 has no schema for the ops ONNX 1.5 removed, so its inference gave no type to their outputs,
// nor to anything computed from them: in a CoreML-era network (ImageScaler at the input, a Crop on every
// residual branch, Affine at the output) nothing past the ImageScaler had a type, and the planners
// refused what they could not type. Here each removed node is shown to inference as a stand-in of a
// private domain whose inference function is its rule's (RemovedOpRule::OutputType; DynamicSlice keeps its
// data's element type and rank), so that one inference of the whole model types every value, through chains
// of removed ops of any length and order, in the main graph and in subgraphs.
#ifndef ONNX_LEGALIZE_SRC_RULES_TYPED_STAND_INS_H_
#define ONNX_LEGALIZE_SRC_RULES_TYPED_STAND_INS_H_

#include <cstdint>

#include "graph/model_skeleton.h"

namespace onnx_legalize {

// How InferTypesOnSkeleton shows the removed ops of a model importing default opset `opset`. Registers the
// stand-ins' schemas with onnx (once per process) on first use.
InferenceStandIns RemovedOpsTypedForInference(int64_t opset);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_TYPED_STAND_INS_H_
