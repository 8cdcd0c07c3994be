// The walk every planner makes over a model: each graph, main graph and subgraphs of If/Loop/Scan alike,
// with the scope that says what its names are, and where it sits.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_SCOPED_WALK_H_
#define ONNX_LEGALIZE_SRC_GRAPH_SCOPED_WALK_H_

#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "graph/graph_locator.h"
#include "graph/graph_scope.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/external_data_reader.h"

namespace onnx_legalize {

// What the walk shows of one node.
using ScopedNodeVisitor =
    absl::FunctionRef<absl::Status(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator)>;

// Calls `visit` for every node of `model`, depth first: the nodes of a graph in order, each followed by the
// graphs its attributes hold. Each graph gets a GraphScope (appended to `scopes`, which owns them; they view
// `model` and `inferred`) whose outer scope is that of the graph holding it, and whose path is "main" or
// its parent's path and its own segment (SubgraphPath). A node's subgraphs are walked after the node is
// visited, so a value the visitor records with AddConstant is a constant inside them.
// `inferred` (optional) is `model` after shape inference, graph for graph the same structure; its types
// fill in what the model does not declare. `external_data` is the scopes' reader of external data.
// Stops at the first error `visit` returns, and returns it.
absl::Status WalkScopedGraphs(const onnx::ModelProto& model, const onnx::ModelProto* inferred,
                              const ExternalDataReader* external_data, std::vector<std::unique_ptr<GraphScope>>& scopes,
                              ScopedNodeVisitor visit);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_SCOPED_WALK_H_
