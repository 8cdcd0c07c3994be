// The walk every step of era/ makes: each graph of a model, main graph first, then the subgraphs of its nodes
// depth first, with the path messages name it by.
#ifndef ONNX_LEGALIZE_SRC_ERA_ERA_WALK_H_
#define ONNX_LEGALIZE_SRC_ERA_ERA_WALK_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "graph/labels.h"
#include "graph/subgraphs.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

inline void ForEachGraphOf(onnx::GraphProto& graph, const std::string& path,
                           absl::FunctionRef<void(onnx::GraphProto&, const std::string&)> visit) {
  visit(graph, path);
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    ForEachMutableSubgraph(node, [&](const std::string& attribute, onnx::GraphProto& subgraph) {
      ForEachGraphOf(subgraph, SubgraphPath(path, node, attribute, subgraph), visit);
    });
  }
}

inline void ForEachGraphOf(onnx::ModelProto& model,
                           absl::FunctionRef<void(onnx::GraphProto&, const std::string&)> visit) {
  // mutable_graph() would give a model without a graph an empty one: a walk must not change the model.
  if (!model.has_graph()) return;
  ForEachGraphOf(*model.mutable_graph(), kMainGraphPath, visit);
}

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_ERA_ERA_WALK_H_
