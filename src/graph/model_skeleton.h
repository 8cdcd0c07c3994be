// A light copy of a model for onnx's checker and shape inference, which take or build whole copies: large
// initializers are left out (their names stay defined as typed graph inputs), so checking a model of
// gigabytes costs what its graph costs, not what its weights cost.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_MODEL_SKELETON_H_
#define ONNX_LEGALIZE_SRC_GRAPH_MODEL_SKELETON_H_

#include <cstdint>
#include <functional>
#include <string>

#include "google/protobuf/arena.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Initializers up to this size keep their data: shape-computing inputs (Reshape's shape, Slice's starts,
// ...) are small, and shape inference reads them.
inline constexpr int64_t kSkeletonKeepBytes = int64_t{64} * 1024;

// Whether BuildModelSkeleton leaves `initializer` out (declares it as a graph input instead): its data passes
// kSkeletonKeepBytes or is stored as external data.
bool SkeletonLeavesOut(const onnx::TensorProto& initializer);

// `model` with every initializer (in every graph) whose data passes kSkeletonKeepBytes or is stored as
// external data replaced by a graph input of the same name, element type and shape, built into `skeleton`
// (empty), which may live on an arena: a copy made for one check or one inference, then dropped, is built and
// freed much faster there than object by object.
void BuildModelSkeleton(const onnx::ModelProto& model, onnx::ModelProto& skeleton);

// Nodes onnx has no schema for, shown to shape inference as nodes of a private domain that type their outputs
// (the removed ops: rules/typed_stand_ins.h). `show` rewrites a node of the skeleton in place and says whether
// it did; the skeleton then imports `domain` at version 1. Empty `show`: every node is shown as it is.
struct InferenceStandIns {
  std::string domain;
  std::function<bool(onnx::NodeProto& node)> show;
};

// A skeleton of `model` on `arena` after onnx's shape inference, only to learn ranks and types the model
// does not declare, with the nodes `stand_ins` shows rewritten (at any depth of subgraphs). Inference is a
// best effort here: where it throws, the skeleton is returned without it (a model it cannot handle is still
// legalized, with fewer known ranks). The skeleton's graphs have the model's nodes in the model's order, and
// their subgraphs at the same attribute positions.
onnx::ModelProto* InferTypesOnSkeleton(const onnx::ModelProto& model, google::protobuf::Arena& arena,
                                       const InferenceStandIns& stand_ins = {});

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_MODEL_SKELETON_H_
