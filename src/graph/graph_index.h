// The graphs of a model by locator, and the nodes of each graph by first output, built once: what the applying
// steps of a plan look up, in time linear in the model's size.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_GRAPH_INDEX_H_
#define ONNX_LEGALIZE_SRC_GRAPH_GRAPH_INDEX_H_

#include <string>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/graph_locator.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The graphs of a model by locator (after an opset move that renamed `renamed`), and the nodes of each graph
// by first output; built on first use. Valid while no node list changes and no first output is renamed: the
// node table views the nodes' own strings (no copy of 40,000 names for a model of 20,000 DynamicSlices).
class GraphIndex {
 public:
  GraphIndex(onnx::ModelProto& model, const RenamedOutputs& renamed) : model_(model), renamed_(renamed) {}

  // The graph `locator` names; Internal when a step names no node or no subgraph of it.
  absl::StatusOr<onnx::GraphProto*> Resolve(const GraphLocator& locator) {
    onnx::GraphProto* graph = model_.mutable_graph();
    std::string key;
    for (const GraphLocator::Step& step : locator.steps) {
      absl::StrAppend(&key, step.node_output.size(), ":", step.node_output, "/", step.attribute, "/", step.graph_index,
                      ";");
      auto cached = resolved_.find(key);
      if (cached != resolved_.end()) {
        graph = cached->second;
        continue;
      }
      const std::string& owner_output = OwnerOutputAfterMove(step, renamed_);
      const int owner = NodeIndex(*graph, owner_output);
      onnx::GraphProto* inner = owner < 0 ? nullptr : SubgraphOf(*graph->mutable_node(owner), step);
      if (inner == nullptr) {
        return absl::InternalError(absl::StrCat("a plan's graph is gone: no node whose first output is '", owner_output,
                                                "' holds graph ", step.graph_index, " of attribute '", step.attribute,
                                                "'"));
      }
      graph = inner;
      resolved_.emplace(key, graph);
    }
    return graph;
  }

  // The index of the first node of `graph` whose first output is `output`, or -1.
  int NodeIndex(const onnx::GraphProto& graph, const std::string& output) {
    auto [it, inserted] = nodes_.try_emplace(&graph);
    if (inserted) {
      it->second.reserve(static_cast<size_t>(graph.node_size()));
      for (int i = 0; i < graph.node_size(); ++i) {
        if (graph.node(i).output_size() > 0) it->second.emplace(graph.node(i).output(0), i);
      }
    }
    auto found = it->second.find(output);
    return found == it->second.end() ? -1 : found->second;
  }

 private:
  onnx::ModelProto& model_;
  const RenamedOutputs& renamed_;
  std::unordered_map<std::string, onnx::GraphProto*> resolved_;
  std::unordered_map<const onnx::GraphProto*, absl::flat_hash_map<absl::string_view, int>> nodes_;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_GRAPH_INDEX_H_
