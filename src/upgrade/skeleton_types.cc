// What the skeleton (after onnx's shape inference) says of the types of its values: repeated into subgraphs
// for the converter, whose IR types no captured value, and gathered for the adapter fixes (upgrade/fixes/),
// which need the element types and sizes the adapters saw.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "graph/subgraphs.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {

// onnx's IR gives a value a subgraph captures from an enclosing graph no type (a dummy "Captured" node),
// while adapters in the subgraph read its shape (Softmax 12->13 on an outer value): repeat the enclosing
// graphs' knowledge as value_info of the subgraph.
void AddCaptureTypes(GraphProto* graph, const std::unordered_map<std::string, onnx::TypeProto>& outer) {
  const std::unordered_set<std::string> local = DefinedNames(*graph);
  std::unordered_map<std::string, onnx::TypeProto> visible = outer;
  auto note = [&](const ValueInfoProto& vi) {
    if (vi.has_type()) visible[vi.name()] = vi.type();
  };
  std::unordered_set<std::string> typed;
  for (const auto& v : graph->value_info()) typed.insert(v.name());
  for (const auto& v : graph->input()) typed.insert(v.name());
  for (const auto& v : graph->output()) typed.insert(v.name());
  std::vector<std::string> captured;  // in order of first use, for a deterministic skeleton
  auto use = [&](const std::string& name) {
    if (!name.empty() && local.count(name) == 0 && typed.count(name) == 0 && outer.count(name) > 0) {
      typed.insert(name);
      captured.push_back(name);
    }
  };
  for (const auto& node : graph->node()) {
    for (const auto& in : node.input()) use(in);
  }
  for (const auto& v : graph->output()) use(v.name());
  for (const auto& name : captured) {
    ValueInfoProto* vi = graph->add_value_info();
    vi->set_name(name);
    *vi->mutable_type() = outer.at(name);
  }
  for (const auto& v : graph->input()) note(v);
  for (const auto& v : graph->output()) note(v);
  for (const auto& v : graph->value_info()) note(v);
  for (const auto& t : graph->initializer()) {
    visible[t.name()] = TypedPlaceholder(t.name(), t.data_type(), t.dims()).type();
  }
  for (auto& node : *graph->mutable_node()) {
    ForEachMutableSubgraph(node,
                           [&](const std::string&, GraphProto& subgraph) { AddCaptureTypes(&subgraph, visible); });
  }
}

namespace {

// Fills types.elem_types from the declarations of `graph` and its subgraphs.
void CollectElemTypes(const GraphProto& graph, KnownTypes& types) {
  auto note = [&](const std::string& name, int32_t type) {
    if (type == TensorProto::UNDEFINED || types.ambiguous_types.count(name) > 0) return;
    auto [it, inserted] = types.elem_types.emplace(name, type);
    if (!inserted && it->second != type) {
      types.elem_types.erase(it);
      types.ambiguous_types.insert(name);
    }
  };
  auto note_vi = [&](const ValueInfoProto& vi) {
    if (vi.type().has_tensor_type()) note(vi.name(), vi.type().tensor_type().elem_type());
  };
  for (const auto& v : graph.input()) note_vi(v);
  for (const auto& v : graph.output()) note_vi(v);
  for (const auto& v : graph.value_info()) note_vi(v);
  for (const auto& t : graph.initializer()) note(t.name(), t.data_type());
  for (const auto& node : graph.node()) {
    ForEachSubgraph(node, [&](const std::string&, const GraphProto& subgraph) { CollectElemTypes(subgraph, types); });
  }
}

// The inputs of the Softmax and LogSoftmax nodes of the skeleton (Hardmax shows as Softmax), which the
// 12->13 adapter restructures.
void CollectSoftmaxInputs(const GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    if ((node.op_type() == kSoftmax || node.op_type() == kLogSoftmax) && node.domain() != kStandInDomain &&
        node.input_size() > 0) {
      names.insert(node.input(0));
    }
    ForEachSubgraph(node,
                    [&](const std::string&, const GraphProto& subgraph) { CollectSoftmaxInputs(subgraph, names); });
  }
}

// The inputs (X and slope) of the skeleton's PRelu nodes, whose slope the 6->7 step may have to reshape.
void CollectPReluInputs(const GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    if (node.op_type() == kPRelu && node.domain() != kStandInDomain) {
      for (const auto& input : node.input()) names.insert(input);
    }
    ForEachSubgraph(node, [&](const std::string&, const GraphProto& subgraph) { CollectPReluInputs(subgraph, names); });
  }
}

// The inputs of the skeleton's Scan nodes, whose batch the 8->9 step must know (KeepScan8BatchOfOne).
void CollectScanInputs(const GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    if (node.op_type() == kScan && node.domain() != kStandInDomain) {
      for (const auto& input : node.input()) names.insert(input);
    }
    ForEachSubgraph(node, [&](const std::string&, const GraphProto& subgraph) { CollectScanInputs(subgraph, names); });
  }
}

// The inputs of the skeleton's two-input nodes with an axis, legacy broadcasts among them (whose dims
// AlignLegacyBroadcasts reads).
void CollectLegacyBroadcastInputs(const GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    bool broadcast_at_axis = false;
    for (const auto& a : node.attribute()) broadcast_at_axis = broadcast_at_axis || a.name() == "axis";
    if (broadcast_at_axis && node.domain() != kStandInDomain && node.input_size() == 2) {
      for (const auto& input : node.input()) names.insert(input);
    }
    ForEachSubgraph(
        node, [&](const std::string&, const GraphProto& subgraph) { CollectLegacyBroadcastInputs(subgraph, names); });
  }
}

// The inputs of the Shape nodes of `graph` and the graphs in it, into `names`: moving down, a Pad's pads computed from
// the shape of a value of fixed dims are a constant (upgrade/computed_constants.cc).
void CollectShapeInputs(const GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    if (node.op_type() == kShape && node.input_size() == 1) names.insert(node.input(0));
    ForEachSubgraph(node, [&](const std::string&, const GraphProto& subgraph) { CollectShapeInputs(subgraph, names); });
  }
}

// Fills types.known_dims for the `wanted` names from the skeleton's declarations; `defined` gathers which of
// them the graphs seen so far define (inputs, initializers, node outputs). An initializer's dims count only
// where it is no graph input (there it is a default the caller may override with another shape).
void CollectKnownDims(const GraphProto& graph, const std::unordered_set<std::string>& wanted, KnownTypes& types,
                      std::unordered_set<std::string>& defined) {
  auto forget = [&](const std::string& name) {
    types.known_dims.erase(name);
    types.ambiguous_dims.insert(name);
  };
  auto define = [&](const std::string& name) {
    if (wanted.count(name) > 0 && !defined.insert(name).second) forget(name);
  };
  auto note = [&](const std::string& name, std::vector<int64_t> dims) {
    if (wanted.count(name) == 0 || types.ambiguous_dims.count(name) > 0) return;
    auto [it, inserted] = types.known_dims.emplace(name, dims);
    if (inserted) return;
    if (it->second.size() != dims.size()) return forget(name);
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] < 0) continue;
      if (it->second[k] >= 0 && it->second[k] != dims[k]) return forget(name);
      it->second[k] = dims[k];
    }
  };
  auto note_vi = [&](const ValueInfoProto& vi) {
    if (wanted.count(vi.name()) == 0) return;
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
    }
    note(vi.name(), std::move(dims));
  };
  std::unordered_set<std::string> wanted_inputs;
  for (const auto& v : graph.input()) {
    if (wanted.count(v.name()) > 0) wanted_inputs.insert(v.name());
    define(v.name());
  }
  for (const auto& t : graph.initializer()) {
    if (wanted_inputs.count(t.name()) == 0) define(t.name());
  }
  for (const auto& node : graph.node()) {
    for (const auto& o : node.output()) define(o);
  }
  for (const auto& v : graph.input()) note_vi(v);
  for (const auto& v : graph.output()) note_vi(v);
  for (const auto& v : graph.value_info()) note_vi(v);
  for (const auto& t : graph.initializer()) {
    if (wanted.count(t.name()) > 0 && wanted_inputs.count(t.name()) == 0) {
      note(t.name(), std::vector<int64_t>(t.dims().begin(), t.dims().end()));
    }
  }
  for (const auto& node : graph.node()) {
    ForEachSubgraph(node, [&](const std::string&, const GraphProto& subgraph) {
      CollectKnownDims(subgraph, wanted, types, defined);
    });
  }
}

}  // namespace

KnownTypes CollectKnownTypes(const GraphProto& graph, const Move& move) {
  KnownTypes types;
  CollectElemTypes(graph, types);
  std::unordered_set<std::string> wanted, defined;  // the values whose dims an adapter fix reads
  if (move.Crosses(13)) CollectSoftmaxInputs(graph, wanted);
  if (move.Crosses(7)) CollectPReluInputs(graph, wanted);
  if (move.from == 8 && move.Crosses(9)) CollectScanInputs(graph, wanted);
  if (move.from < 7 && move.Crosses(7)) CollectLegacyBroadcastInputs(graph, wanted);
  if (move.Down()) CollectShapeInputs(graph, wanted);
  if (!wanted.empty()) CollectKnownDims(graph, wanted, types, defined);
  return types;
}

}  // namespace onnx_legalize::opset_upgrade
