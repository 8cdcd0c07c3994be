// Stand-ins: ops of a private domain that take a node's place in the copy of a model that onnx's version
// converter sees (upgrade/skeleton.cc). onnx (1.12 and 1.23 alike) has no DynamicSlice (it was dropped in
// 1.5), so its shape inference stops at every DynamicSlice: nothing after one has a type, and adapters that
// need a rank or shape (Resize 10->11, Gemm and the broadcasts 6->7) go wrong or stop. DynamicSlice keeps its
// data's element type and rank, and its stand-in says so.
#ifndef ONNX_LEGALIZE_SRC_UPGRADE_STAND_IN_SCHEMA_H_
#define ONNX_LEGALIZE_SRC_UPGRADE_STAND_IN_SCHEMA_H_

#include "onnx/onnx_pb.h"
#include "upgrade/opset_upgrade.h"

namespace onnx_legalize {

// The stand-ins' domain, which no model uses; imported at version 1 where stand-ins appear.
inline constexpr char kStandInDomain[] = "onnx_legalize.hidden";

// DynamicSlice's stand-in: any inputs, one output of its first input's element type and rank, every dim
// unknown (nothing when the first input's type is not known). No version converter adapter meets it.
inline constexpr char kRankKeepingStandInOp[] = "RankKeepingStandIn";

// Registers kRankKeepingStandInOp's schema with onnx, once per process. Must run before onnx's version
// converter builds its table of schemas (StepConverter::ConvertStep looks every node up there, stand-ins
// included, and throws on one missing) and before shape inference sees a stand-in.
void RegisterStandInSchemas();

// True for a DynamicSlice, or another removed op that keeps its input's element type and rank
// (`pass_through.keeps_rank`: ImageScaler, Crop, ...), in the default domain, with a data input and one
// output: what kRankKeepingStandInOp stands for. (The planner refuses any other; the opset upgrade, which
// may be called without it, shows such a node as the inert stand-in.)
bool ShownAsRankKeepingStandIn(const onnx::NodeProto& node, const PassThroughOps& pass_through);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_UPGRADE_STAND_IN_SCHEMA_H_
