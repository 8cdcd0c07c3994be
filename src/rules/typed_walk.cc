#include "rules/typed_walk.h"

#include "google/protobuf/arena.h"
#include "graph/model_skeleton.h"
#include "graph/opsets.h"
#include "rules/typed_stand_ins.h"

namespace onnx_legalize {

absl::Status WalkTypedModel(const onnx::ModelProto& model, const ExternalDataReader* external_data,
                            std::vector<std::unique_ptr<GraphScope>>& scopes, ScopedNodeVisitor visit) {
  // Only planning reads the inferred types: released on return, before the rest of Legalize copies the model
  // again. A model whose default opset cannot be read has no removed op to type (its planners refuse it).
  google::protobuf::Arena arena;
  const absl::StatusOr<int64_t> opset = DefaultOpset(model);
  const onnx::ModelProto* inferred =
      InferTypesOnSkeleton(model, arena, opset.ok() ? RemovedOpsTypedForInference(*opset) : InferenceStandIns{});
  return WalkScopedGraphs(model, inferred, external_data, scopes, visit);
}

}  // namespace onnx_legalize
