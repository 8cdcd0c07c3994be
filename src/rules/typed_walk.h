// The walk the planners share: one inference of the whole model, in which every removed op is typed by its
// rule (rules/typed_stand_ins.h), then every node of every graph with the scope that names its values.
//
// The removed-op rules and DynamicSlice plan their nodes in this one walk, each node by the planner it
// belongs to, and each planner records the values it folds in the node's scope (GraphScope::AddConstant).
// A node sees every fold planned before it, whichever planner made it: a chain of folds of any length and
// order folds through (GivenTensorFill -> DynamicSlice -> ImageScaler), as one walk of one family would.
#ifndef ONNX_LEGALIZE_SRC_RULES_TYPED_WALK_H_
#define ONNX_LEGALIZE_SRC_RULES_TYPED_WALK_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph_scope.h"
#include "graph/scoped_walk.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Calls `visit` for every node of `model` as WalkScopedGraphs does, with the types one inference of the whole
// model (removed ops typed by their rules) gives the values the model does not declare. The inferred copy is
// released on return: the scopes (appended to `scopes`, which owns them) must not be asked for types after it.
// `external_data` is the scopes' reader of external data.
absl::Status WalkTypedModel(const onnx::ModelProto& model, const ExternalDataReader* external_data,
                            std::vector<std::unique_ptr<GraphScope>>& scopes, ScopedNodeVisitor visit);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_RULES_TYPED_WALK_H_
