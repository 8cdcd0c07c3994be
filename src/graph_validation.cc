#include "graph_validation.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph_scope.h"
#include "status_macros.h"

namespace onnx_legalize {
namespace {

// The names visible in one graph: its own, and through `outer` those of the enclosing graphs.
struct Names {
  const Names* outer = nullptr;
  std::unordered_set<std::string> defined;

  bool Visible(const std::string& name) const {
    for (const Names* names = this; names != nullptr; names = names->outer) {
      if (names->defined.count(name)) return true;
    }
    return false;
  }
};

std::string NodeLabel(const onnx::NodeProto& node, int index) {
  if (!node.name().empty()) return absl::StrCat(node.op_type(), " '", node.name(), "'");
  return absl::StrCat(node.op_type(), " node #", index);
}

absl::Status ValidateGraph(const onnx::GraphProto& graph, const std::string& path, const Names* outer,
                           int depth) {
  if (depth > kMaxSubgraphDepth) {
    return absl::InvalidArgumentError(absl::StrCat("graph ", path, " is nested ", depth,
                                                   " levels deep; at most ", kMaxSubgraphDepth,
                                                   " are supported"));
  }
  Names names;
  names.outer = outer;
  auto define = [&](const std::string& name, const std::string& what) -> absl::Status {
    if (name.empty()) return absl::OkStatus();
    if (!names.defined.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph ", path, ": '", name, "' is defined twice (again as ", what, ")"));
    }
    return absl::OkStatus();
  };
  for (const auto& input : graph.input()) names.defined.insert(input.name());
  for (const auto& initializer : graph.initializer()) names.defined.insert(initializer.name());
  for (const auto& sparse : graph.sparse_initializer()) names.defined.insert(sparse.values().name());

  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    for (const auto& input : node.input()) {
      if (input.empty() || names.Visible(input)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node, i), " (graph ", path, "): input '", input,
          "' is not defined by any graph input, initializer or earlier node (an undefined name, "
          "nodes out of topological order, or a cycle)"));
    }
    absl::Status subgraphs_ok = absl::OkStatus();
    ForEachSubgraph(node, [&](const std::string& attribute, const onnx::GraphProto& subgraph) {
      if (!subgraphs_ok.ok()) return;
      subgraphs_ok = ValidateGraph(
          subgraph, absl::StrCat(path, "/", SubgraphPathSegment(node, attribute, subgraph)), &names,
          depth + 1);
    });
    RETURN_IF_ERROR(subgraphs_ok);
    for (const auto& output : node.output()) {
      RETURN_IF_ERROR(define(output, absl::StrCat("an output of ", NodeLabel(node, i))));
    }
  }
  for (const auto& output : graph.output()) {
    if (!names.Visible(output.name())) {
      return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": output '", output.name(),
                                                     "' is produced by no node, input or initializer"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateGraphs(const onnx::ModelProto& model) {
  if (!model.has_graph()) return absl::InvalidArgumentError("the model has no graph");
  return ValidateGraph(model.graph(), kMainGraphPath, nullptr, 0);
}

}  // namespace onnx_legalize
