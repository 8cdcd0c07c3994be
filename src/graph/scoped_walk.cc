#include "graph/scoped_walk.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "graph/labels.h"

namespace onnx_legalize {
namespace {

class ScopedWalk {
 public:
  ScopedWalk(const onnx::ModelProto& model, const ExternalDataReader* external_data,
             std::vector<std::unique_ptr<GraphScope>>& scopes, ScopedNodeVisitor visit)
      : overridable_(model.ir_version() >= 4), external_data_(external_data), scopes_(scopes), visit_(visit) {}

  absl::Status Graph(const onnx::GraphProto& graph, const onnx::GraphProto* inferred, std::string path,
                     const GraphLocator& locator, const GraphScope* outer) {
    scopes_.push_back(
        std::make_unique<GraphScope>(graph, std::move(path), outer, overridable_, inferred, external_data_));
    GraphScope& scope = *scopes_.back();
    for (int i = 0; i < graph.node_size(); ++i) {
      const onnx::NodeProto& node = graph.node(i);
      RETURN_IF_ERROR(visit_(node, scope, locator));
      // Shape inference adds value_info, never nodes: the inferred twin has the same structure.
      const onnx::NodeProto* inferred_node =
          inferred != nullptr && i < inferred->node_size() ? &inferred->node(i) : nullptr;
      RETURN_IF_ERROR(Subgraphs(node, inferred_node, locator, scope));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Subgraphs(const onnx::NodeProto& node, const onnx::NodeProto* inferred_node, const GraphLocator& locator,
                         const GraphScope& scope) {
    for (int a = 0; a < node.attribute_size(); ++a) {
      const onnx::AttributeProto& attribute = node.attribute(a);
      const onnx::AttributeProto* twin =
          inferred_node != nullptr && a < inferred_node->attribute_size() ? &inferred_node->attribute(a) : nullptr;
      auto walk = [&](const onnx::GraphProto& subgraph, const onnx::GraphProto* inferred_subgraph, int index) {
        return Graph(subgraph, inferred_subgraph, SubgraphPath(scope.path(), node, attribute.name(), subgraph),
                     locator.Into(node, attribute.name(), index), &scope);
      };
      if (attribute.has_g()) {
        RETURN_IF_ERROR(walk(attribute.g(), twin != nullptr && twin->has_g() ? &twin->g() : nullptr, 0));
      }
      for (int g = 0; g < attribute.graphs_size(); ++g) {
        RETURN_IF_ERROR(
            walk(attribute.graphs(g), twin != nullptr && g < twin->graphs_size() ? &twin->graphs(g) : nullptr, g));
      }
    }
    return absl::OkStatus();
  }

  const bool overridable_;  // IR 4 on: an initializer that is also an input may be overridden
  const ExternalDataReader* external_data_;
  std::vector<std::unique_ptr<GraphScope>>& scopes_;
  ScopedNodeVisitor visit_;
};

}  // namespace

absl::Status WalkScopedGraphs(const onnx::ModelProto& model, const onnx::ModelProto* inferred,
                              const ExternalDataReader* external_data, std::vector<std::unique_ptr<GraphScope>>& scopes,
                              ScopedNodeVisitor visit) {
  ScopedWalk walk(model, external_data, scopes, visit);
  return walk.Graph(model.graph(), inferred != nullptr ? &inferred->graph() : nullptr, kMainGraphPath, GraphLocator{},
                    nullptr);
}

}  // namespace onnx_legalize
