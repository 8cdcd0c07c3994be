// ApplyDynamicSlices: writes a verified plan into the model. Everything that could go wrong with the model was decided
// while planning; what fails here is a plan that does not fit the model (a broken invariant: Internal).
//
// Linear in the model's size: graphs are resolved and nodes found through indexes built once, and each
// graph's node, initializer and input lists are rebuilt once, not edited element by element (a model
// with 20,000 DynamicSlices would otherwise cost 20,000 scans and erasures).
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "graph/constant_writer.h"
#include "graph/graph_index.h"
#include "graph/model_skeleton.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/unread_constants.h"
#include "rules/dynamic_slice.h"

namespace onnx_legalize {
namespace {

// What the plan does to one graph's node list: nodes removed, Constant nodes put before a node.
struct NodeEdits {
  onnx::GraphProto* graph = nullptr;
  std::vector<bool> removed;
  std::map<int, std::vector<onnx::NodeProto>> before;

  void Apply() {
    auto& nodes = *graph->mutable_node();
    google::protobuf::RepeatedPtrField<onnx::NodeProto> rebuilt;
    rebuilt.Reserve(nodes.size());
    for (int i = 0; i < nodes.size(); ++i) {
      auto inserted = before.find(i);
      if (inserted != before.end()) {
        for (onnx::NodeProto& constant : inserted->second) rebuilt.Add()->Swap(&constant);
      }
      if (!removed[static_cast<size_t>(i)]) rebuilt.Add()->Swap(nodes.Mutable(i));
    }
    nodes.Swap(&rebuilt);
  }
};

void RewriteToSlice(const DynamicSliceChange& change, onnx::NodeProto& node) {
  node.set_op_type(kSliceOp);
  // A DynamicSlice may be written in domain "ai.onnx"; onnx's checker accepts that spelling only where
  // the model imports it by that name too, so the new node uses the canonical "".
  node.set_domain(kDefaultDomain);
  if (change.slice_version == 1) {
    // Slice-1: y = Slice<starts, ends[, axes]>(data)
    node.clear_input();
    node.add_input(change.data);
    auto add_ints = [&](const char* name, const std::vector<int64_t>& values) {
      onnx::AttributeProto* attribute = node.add_attribute();
      attribute->set_name(name);
      attribute->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : values) attribute->add_ints(v);
    };
    add_ints("starts", change.attribute_starts);
    add_ints("ends", change.attribute_ends);
    if (!change.axes.name.empty()) add_ints("axes", change.attribute_axes);
    return;
  }
  // Slice-10+: y = Slice(data, starts, ends[, axes]); no steps, which default to 1.
  node.clear_input();
  node.add_input(change.data);
  node.add_input(change.starts.name);
  node.add_input(change.ends.name);
  if (!change.new_axes_name.empty()) {
    node.add_input(change.new_axes_name);
  } else if (!change.axes.name.empty()) {
    node.add_input(change.axes.name);
  }
}

// Whether ApplyDynamicSlices(kDefer) leaves a stub for a folded value: what BuildModelSkeleton would leave out.
bool DefersFold(const DynamicSliceChange& change, bool is_main) {
  return is_main && !change.folded->is_string() &&
         static_cast<int64_t>(change.folded->bytes().size()) > kSkeletonKeepBytes;
}

// Every change written: folds replaced by their values, rewrites by Slice nodes (with their normalized axes);
// returns the constants the changes stop reading.
absl::StatusOr<MaybeUnused> WriteChanges(DynamicSlicePlan& plan, onnx::ModelProto& model, FoldedValues folded,
                                         const RenamedOutputs& renamed) {
  ConstantWriter writer(model.ir_version());
  MaybeUnused maybe_unused;
  {
    // Node positions are those of the unchanged lists until every change is recorded. Every change's node
    // is found before anything is written, so that a plan that does not fit the model changes nothing.
    GraphIndex graphs(model, renamed);
    std::vector<std::pair<onnx::GraphProto*, int>> places;
    places.reserve(plan.changes.size());
    for (const DynamicSliceChange& change : plan.changes) {
      ASSIGN_OR_RETURN(onnx::GraphProto * graph, graphs.Resolve(change.graph));
      const int index = graphs.NodeIndex(*graph, change.output);
      if (index < 0) {
        return absl::InternalError(absl::StrCat("the DynamicSlice planned for output '", change.output,
                                                "' is not in graph ", change.graph_path, " any more"));
      }
      places.emplace_back(graph, index);
    }
    std::unordered_map<const onnx::GraphProto*, NodeEdits> edits;
    std::vector<std::pair<size_t, NodeEdits*>> by_depth;
    for (size_t c = 0; c < plan.changes.size(); ++c) {
      DynamicSliceChange& change = plan.changes[c];
      onnx::GraphProto& graph = *places[c].first;
      const int index = places[c].second;
      const bool is_main = change.graph.steps.empty();
      NodeEdits& graph_edits = edits[&graph];
      if (graph_edits.graph == nullptr) {
        graph_edits.graph = &graph;
        graph_edits.removed.assign(static_cast<size_t>(graph.node_size()), false);
        by_depth.emplace_back(change.graph.steps.size(), &graph_edits);
      }
      onnx::NodeProto& node = *graph.mutable_node(index);
      if (change.action == Action::kFolded) {
        for (const auto& input : node.input()) {
          if (!input.empty()) maybe_unused.emplace_back(change.graph, input);
        }
        // The node's place goes to a Constant node (IR 3 subgraphs) or to nothing (an initializer).
        graph_edits.removed[static_cast<size_t>(index)] = true;
        if (change.streamed) {  // in the main graph, never strings: an initializer's stub
          writer.DefineStub(graph, change.output, change.data_type.elem_type, change.streamed_dims);
        } else if (writer.WritesConstantNode(is_main)) {
          graph_edits.before[index].push_back(writer.ConstantNode(change.output, *change.folded));
        } else {
          writer.DefineInitializer(graph, change.output, *change.folded,
                                   folded == FoldedValues::kDefer && DefersFold(change, is_main));
        }
        continue;
      }
      if (change.new_axes != nullptr) {
        maybe_unused.emplace_back(change.graph, change.axes.name);
        if (writer.WritesConstantNode(is_main)) {
          graph_edits.before[index].push_back(writer.ConstantNode(change.new_axes_name, *change.new_axes));
        } else {
          writer.DefineInitializer(graph, change.new_axes_name, *change.new_axes);
        }
      }
      if (change.slice_version == 1) {
        for (const IndexInput* input : {&change.starts, &change.ends, &change.axes}) {
          if (!input->name.empty()) maybe_unused.emplace_back(change.graph, input->name);
        }
      }
      RewriteToSlice(change, node);
    }
    // Inner graphs first: rebuilding an outer node list moves the nodes that hold them.
    std::stable_sort(by_depth.begin(), by_depth.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [depth, graph_edits] : by_depth) graph_edits->Apply();
  }
  return maybe_unused;
}

}  // namespace

absl::Status ApplyDynamicSlices(DynamicSlicePlan& plan, onnx::ModelProto& model, FoldedValues folded,
                                const RenamedOutputs& renamed) {
  ASSIGN_OR_RETURN(const MaybeUnused maybe_unused, WriteChanges(plan, model, folded, renamed));
  // Rewrites to Slice-10+ with their own inputs leave nothing to look up.
  if (!maybe_unused.empty()) RETURN_IF_ERROR(RemoveUnreadConstants(maybe_unused, model, renamed));
  return absl::OkStatus();
}

void FillDeferredFolds(DynamicSlicePlan& plan, onnx::ModelProto& model) {
  // A folded value another change reads (a DynamicSlice of a fold) is the plan's still: copy it then.
  std::unordered_set<const Tensor*> read;
  for (const DynamicSliceChange& change : plan.changes) {
    for (const Tensor* input :
         {change.data_constant, change.starts.constant, change.ends.constant, change.axes.constant}) {
      if (input != nullptr) read.insert(input);
    }
  }
  std::unordered_map<std::string, onnx::TensorProto*> stubs;
  for (onnx::TensorProto& initializer : *model.mutable_graph()->mutable_initializer()) {
    if (initializer.data_location() == onnx::TensorProto::EXTERNAL && initializer.external_data_size() == 0) {
      stubs.emplace(initializer.name(), &initializer);
    }
  }
  for (DynamicSliceChange& change : plan.changes) {
    if (change.action != Action::kFolded || !change.graph.steps.empty() || change.folded == nullptr) continue;
    auto stub = stubs.find(change.output);
    if (stub == stubs.end()) continue;
    onnx::TensorProto value = read.count(change.folded.get()) > 0
                                  ? TensorToProto(change.folded->Clone(), change.output)
                                  : TensorToProto(std::move(*change.folded), change.output);
    stub->second->Swap(&value);
  }
}

}  // namespace onnx_legalize
