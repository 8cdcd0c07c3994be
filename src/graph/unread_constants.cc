#include "graph/unread_constants.h"

#include <unordered_map>
#include <unordered_set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "graph/graph_index.h"
#include "graph/names.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

// Removes the elements whose index is marked, keeping the others in order; elements move, none is copied.
template <typename T>
void EraseMarked(google::protobuf::RepeatedPtrField<T>& field, const std::vector<bool>& marked) {
  int kept = 0;
  for (int i = 0; i < field.size(); ++i) {
    if (i < static_cast<int>(marked.size()) && marked[i]) continue;
    if (i != kept) field.SwapElements(i, kept);
    ++kept;
  }
  while (field.size() > kept) field.RemoveLast();
}

}  // namespace

absl::Status RemoveUnreadConstants(const MaybeUnused& maybe_unused, onnx::ModelProto& model,
                                   const RenamedOutputs& renamed) {
  // Views of the model's names: nothing below changes the model until the removals at the end.
  absl::flat_hash_set<absl::string_view> referenced;
  ForEachReadName(model.graph(), [&](const std::string& name) { referenced.insert(name); });
  struct Removals {
    std::unordered_map<std::string, int> initializer_index, input_index;
    std::vector<bool> initializers, inputs, nodes;
  };
  GraphIndex graphs(model, renamed);
  std::unordered_map<onnx::GraphProto*, Removals> removals;
  std::unordered_set<std::string> removed;
  for (auto& [locator, name] : maybe_unused) {
    if (referenced.count(name) || removed.count(name)) continue;
    GraphLocator scope = locator;
    while (true) {
      ASSIGN_OR_RETURN(onnx::GraphProto * resolved, graphs.Resolve(scope));
      onnx::GraphProto& graph = *resolved;
      auto [it, inserted] = removals.try_emplace(&graph);
      Removals& r = it->second;
      if (inserted) {
        for (int i = 0; i < graph.initializer_size(); ++i) r.initializer_index.emplace(graph.initializer(i).name(), i);
        for (int i = 0; i < graph.input_size(); ++i) r.input_index.emplace(graph.input(i).name(), i);
        r.initializers.assign(static_cast<size_t>(graph.initializer_size()), false);
        r.inputs.assign(static_cast<size_t>(graph.input_size()), false);
        r.nodes.assign(static_cast<size_t>(graph.node_size()), false);
      }
      auto initializer = r.initializer_index.find(name);
      if (initializer != r.initializer_index.end()) {
        r.initializers[static_cast<size_t>(initializer->second)] = true;
        auto input = r.input_index.find(name);
        if (input != r.input_index.end()) r.inputs[static_cast<size_t>(input->second)] = true;
        removed.insert(name);
        break;
      }
      const int node = graphs.NodeIndex(graph, name);
      if (node >= 0 && graph.node(node).op_type() == kConstantOp) {
        r.nodes[static_cast<size_t>(node)] = true;
        removed.insert(name);
        break;
      }
      if (scope.steps.empty()) break;
      scope.steps.pop_back();
    }
  }
  for (auto& [graph, r] : removals) {
    EraseMarked(*graph->mutable_initializer(), r.initializers);
    EraseMarked(*graph->mutable_input(), r.inputs);
    EraseMarked(*graph->mutable_node(), r.nodes);
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize
