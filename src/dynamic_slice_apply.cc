// ApplyPlan: writes a verified plan into the model. Cannot fail: everything that could go wrong was
// decided while planning.
#include <algorithm>
#include <map>
#include <unordered_set>

#include "dynamic_slice_pass.h"
#include "op_names.h"

namespace onnx_legalize {
namespace {

onnx::GraphProto& ResolveGraph(onnx::ModelProto& model, const GraphLocator& locator) {
  onnx::GraphProto* graph = model.mutable_graph();
  for (const GraphLocator::Step& step : locator.steps) {
    onnx::NodeProto* owner = nullptr;
    for (auto& node : *graph->mutable_node()) {
      if (node.output_size() > 0 && node.output(0) == step.node_output) owner = &node;
    }
    for (auto& attribute : *owner->mutable_attribute()) {
      if (attribute.name() != step.attribute) continue;
      graph = attribute.has_g() ? attribute.mutable_g() : attribute.mutable_graphs(step.graph_index);
    }
  }
  return *graph;
}

int FindNodeByOutput(const onnx::GraphProto& graph, const std::string& output) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (node.output_size() > 0 && node.output(0) == output) return i;
  }
  return -1;
}

void RemoveNode(onnx::GraphProto& graph, int index) {
  auto* nodes = graph.mutable_node();
  nodes->erase(nodes->begin() + index);
}

// How a new constant value enters a graph. An initializer, as the issue of folding asks, except in IR 3
// subgraphs: IR 3 requires every initializer to be a graph input too, and the inputs of an If branch or a
// Loop/Scan body are fixed by their owner, so there the value becomes a Constant node instead.
class ConstantWriter {
 public:
  explicit ConstantWriter(int64_t ir_version) : ir3_(ir_version < 4) {}

  // Defines `name` = `value` in `graph`; `before` is the index of the node that will read it (where a
  // Constant node goes). Returns how many nodes were inserted before `before`.
  int Define(onnx::GraphProto& graph, bool is_main_graph, const std::string& name, const Tensor& value,
             int before) {
    if (ir3_ && !is_main_graph) {
      onnx::NodeProto constant;
      constant.set_op_type(kConstantOp);
      constant.add_output(name);
      onnx::AttributeProto* attribute = constant.add_attribute();
      attribute->set_name("value");
      attribute->set_type(onnx::AttributeProto::TENSOR);
      *attribute->mutable_t() = TensorToProto(value.Clone(), name);
      auto* nodes = graph.mutable_node();
      nodes->Add(std::move(constant));
      std::rotate(nodes->begin() + before, nodes->end() - 1, nodes->end());
      return 1;
    }
    *graph.add_initializer() = TensorToProto(value.Clone(), name);
    if (ir3_) {
      onnx::ValueInfoProto* input = graph.add_input();
      input->set_name(name);
      auto* tensor_type = input->mutable_type()->mutable_tensor_type();
      tensor_type->set_elem_type(value.type());
      auto* shape = tensor_type->mutable_shape();
      for (int64_t dim : value.dims()) shape->add_dim()->set_dim_value(dim);
    }
    return 0;
  }

 private:
  bool ir3_;
};

void RewriteToSlice(const PlannedChange& change, onnx::NodeProto& node) {
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

void CollectReferences(const onnx::GraphProto& graph, std::unordered_set<std::string>& referenced) {
  for (const auto& output : graph.output()) referenced.insert(output.name());
  for (const auto& node : graph.node()) {
    referenced.insert(node.input().begin(), node.input().end());
    ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      CollectReferences(subgraph, referenced);
    });
  }
}

// Removes the definition of `name` from `graph` when it is an initializer (with its IR 3 graph input) or
// a Constant node; returns whether it found one.
bool RemoveConstantDefinition(onnx::GraphProto& graph, const std::string& name) {
  auto* initializers = graph.mutable_initializer();
  for (int i = 0; i < initializers->size(); ++i) {
    if (initializers->Get(i).name() != name) continue;
    initializers->erase(initializers->begin() + i);
    auto* inputs = graph.mutable_input();
    for (int j = 0; j < inputs->size(); ++j) {
      if (inputs->Get(j).name() == name) {
        inputs->erase(inputs->begin() + j);
        break;
      }
    }
    return true;
  }
  const int node = FindNodeByOutput(graph, name);
  if (node >= 0 && graph.node(node).op_type() == kConstantOp) {
    RemoveNode(graph, node);
    return true;
  }
  return false;
}

}  // namespace

void ApplyPlan(Plan& plan, onnx::ModelProto& model) {
  ConstantWriter writer(model.ir_version());
  // Constants that a change stops reading, with the graph it was read from (looked up outward).
  std::vector<std::pair<GraphLocator, std::string>> maybe_unused;

  for (PlannedChange& change : plan.changes) {
    onnx::GraphProto& graph = ResolveGraph(model, change.graph);
    const bool is_main = change.graph.steps.empty();
    int index = FindNodeByOutput(graph, change.output);
    onnx::NodeProto& node = *graph.mutable_node(index);
    if (change.action == Action::kFolded) {
      for (const auto& input : node.input()) {
        if (!input.empty()) maybe_unused.emplace_back(change.graph, input);
      }
      // The node's place goes to a Constant node (IR 3 subgraphs) or to nothing (an initializer).
      RemoveNode(graph, index);
      writer.Define(graph, is_main, change.output, *change.folded, index);
      continue;
    }
    if (change.new_axes != nullptr) {
      maybe_unused.emplace_back(change.graph, change.axes.name);
      index += writer.Define(graph, is_main, change.new_axes_name, *change.new_axes, index);
    }
    if (change.slice_version == 1) {
      for (const IndexInput* input : {&change.starts, &change.ends, &change.axes}) {
        if (!input->name.empty()) maybe_unused.emplace_back(change.graph, input->name);
      }
    }
    RewriteToSlice(change, *graph.mutable_node(index));
  }

  std::unordered_set<std::string> referenced;
  CollectReferences(model.graph(), referenced);
  std::unordered_set<std::string> removed;
  for (auto& [locator, name] : maybe_unused) {
    if (referenced.count(name) || removed.count(name)) continue;
    // The constant lives in the reading graph or an enclosing one: look outward.
    GraphLocator scope = locator;
    while (true) {
      if (RemoveConstantDefinition(ResolveGraph(model, scope), name)) {
        removed.insert(name);
        break;
      }
      if (scope.steps.empty()) break;
      scope.steps.pop_back();
    }
  }
}

}  // namespace onnx_legalize
