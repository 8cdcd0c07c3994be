// ApplyRemovedOps: writes each verified change where the removed node stands. The node's place goes to the
// replacement's nodes (a fold's: none), and the values they read become initializers, or Constant nodes in
// IR 3 subgraphs, whose inputs (which IR 3 requires of every initializer) are fixed by their owner.
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "graph/constant_writer.h"
#include "graph/graph_locator.h"
#include "graph/graph_scope.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/unread_constants.h"
#include "pass/removed_ops_pass.h"

namespace onnx_legalize {
namespace {

// Fresh names: new to every graph of the model, and to each other.
class ModelNames final : public NameSource {
 public:
  explicit ModelNames(const onnx::ModelProto& model) { names_.ReserveAll(model.graph()); }
  std::string Fresh(const std::string& base) override { return names_.Make(base); }

 private:
  FreshNames names_;
};

}  // namespace

absl::Status ApplyRemovedOps(RemovedOpPlan& plan, onnx::ModelProto& model, int64_t target,
                             const RenamedOutputs& renamed) {
  ModelNames names(model);
  const ConstantWriter writer(model.ir_version());
  // Every replacement is built first: a graph's node list is rebuilt once, after its changes are known.
  struct Edit {
    std::vector<onnx::NodeProto> nodes;
  };
  std::map<onnx::GraphProto*, std::unordered_map<std::string, Edit>> edits;  // by graph, by first output
  MaybeUnused maybe_unused;                                                  // what the folds stop reading
  for (RemovedOpChange& change : plan.changes) {
    ASSIGN_OR_RETURN(onnx::GraphProto * resolved, ResolveGraph(model, change.graph, renamed));
    onnx::GraphProto& graph = *resolved;
    const bool is_main = change.graph.steps.empty();
    Edit edit;
    std::vector<std::pair<std::string, Tensor>> constants;
    if (change.action == Action::kFolded) {
      for (const std::string& input : change.node.input()) {
        if (!input.empty()) maybe_unused.emplace_back(change.graph, input);
      }
      for (int i = 0; i < change.node.output_size(); ++i) {
        // Unread once written when a DynamicSlice folded through it (a GivenTensorFill, sliced).
        maybe_unused.emplace_back(change.graph, change.node.output(i));
        constants.emplace_back(change.node.output(i), std::move(change.folded[static_cast<size_t>(i)]));
      }
    } else {
      std::string became;
      ASSIGN_OR_RETURN(Replacement replacement, change.rule->Replace(change.AsParsedNode(), target, names, became));
      change.became = became;
      constants = std::move(replacement.constants);
      edit.nodes = std::move(replacement.nodes);
    }
    std::vector<onnx::NodeProto> constant_nodes;
    for (auto& [name, value] : constants) {
      if (writer.WritesConstantNode(is_main)) {
        constant_nodes.push_back(writer.ConstantNode(name, std::move(value)));
      } else {
        writer.DefineInitializer(graph, name, std::move(value));
      }
    }
    edit.nodes.insert(edit.nodes.begin(), std::make_move_iterator(constant_nodes.begin()),
                      std::make_move_iterator(constant_nodes.end()));
    if (!edit.nodes.empty()) {
      // The replacement's last node, which produces the removed node's output, keeps its name and doc
      // string, so that tools and people that name nodes still find it.
      onnx::NodeProto& last = edit.nodes.back();
      last.set_name(change.node.name());
      last.set_doc_string(change.node.doc_string());
    }
    edits[&graph].emplace(change.node.output(0), std::move(edit));
  }
  // Inner graphs are edited in place (nested messages do not move when an outer list is rebuilt: the outer
  // rebuild swaps node messages, which keeps each node's subgraphs where they are).
  for (auto& [graph, by_output] : edits) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> rebuilt;
    rebuilt.Reserve(graph->node_size());
    for (onnx::NodeProto& node : *graph->mutable_node()) {
      auto edit = node.output_size() > 0 ? by_output.find(node.output(0)) : by_output.end();
      if (edit == by_output.end()) {
        rebuilt.Add()->Swap(&node);
        continue;
      }
      for (onnx::NodeProto& replacement : edit->second.nodes) rebuilt.Add()->Swap(&replacement);
    }
    graph->mutable_node()->Swap(&rebuilt);
  }
  // A Crop of a weight leaves the weight unread, as a DynamicSlice of one does.
  if (!maybe_unused.empty()) RETURN_IF_ERROR(RemoveUnreadConstants(maybe_unused, model, renamed));
  return absl::OkStatus();
}

}  // namespace onnx_legalize
