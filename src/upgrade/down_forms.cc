// Whether every node of a model has a form at a lower opset, before onnx's converter is asked to move the model
// there: the converter would throw at the first node it cannot move, in its own words and naming no node.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "onnx/common/version.h"
#include "onnx/defs/schema.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// What keeps a node from moving down to move.to: it needs a down-adapter for each change its op's schema made between
// move.to and move.from, and must be what each adapter takes.
struct Obstacle {
  int64_t lowest;   // the lowest opset, above move.to, that the node can be moved to
  std::string why;  // why not below it
};

std::optional<Obstacle> FirstObstacle(const NodeProto& node, const Move& move, const StepConverter& converter,
                                      const ConstantOf& constant_of, const ElementTypeOf& type_of) {
  for (int64_t version = move.from; version > move.to; --version) {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(version), "");
    if (schema == nullptr) return std::nullopt;  // not defined at move.from: CheckOpKnownAtSourceOpset names it
    if (schema->since_version() != version) continue;
    const bool adapted = converter.AdaptsDown(node.op_type(), version);  // ours may write it in older ops
    if (!adapted && onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(version - 1), "") == nullptr) {
      return Obstacle{version, absl::StrCat(node.op_type(), " exists only from opset ", version)};
    }
    if (!adapted) {
      return Obstacle{version, absl::StrCat("onnx " ONNX_VERSION_STRING "'s version converter has no way to move ",
                                            node.op_type(), "-", version, " back to opset ", version - 1)};
    }
    WhyNot why = WhyCannotCrossBack(node, version, constant_of);
    if (!why.has_value()) why = WhyElementTypesCannotCrossBack(node, version, type_of);
    if (why.has_value()) return Obstacle{version, absl::StrCat(*why, " (", node.op_type(), "-", version, ")")};
  }
  return std::nullopt;
}

// What the search for nodes without a form at move.to looks with, and what it has found.
struct FormSearch {
  const Move& move;
  const StepConverter& converter;
  bool initializers_are_overridable;  // the model's IR >= 4 (ConstantsOf)
  ElementTypeOf type_of;
  ComputedConstants& computed;
  std::vector<NodeWithoutForm> found;
  std::vector<int> found_in_main;  // per node found, its index in the main graph, or -1 in a subgraph
};

// Every default-domain node of `graph` and the graphs in it (depth first, in node order) that has no form at
// move.to, into search.found.
void CollectNodesWithoutForm(const GraphProto& graph, const std::string& path, const ConstantOf& outer,
                             FormSearch& search) {
  const Move& move = search.move;
  const bool is_main = outer == nullptr;
  ConstantOf constant_of = ConstantsOf(graph, outer, search.initializers_are_overridable);
  if (is_main) constant_of = search.computed.Over(std::move(constant_of));
  for (int index = 0; index < graph.node_size(); ++index) {
    const NodeProto& node = graph.node(index);
    for (const AttributeProto& attribute : node.attribute()) {
      if (attribute.type() == AttributeProto::GRAPH) {
        CollectNodesWithoutForm(attribute.g(), SubgraphPath(path, node, attribute.name(), attribute.g()), constant_of,
                                search);
      }
    }
    if (!IsDefaultDomain(node.domain())) continue;
    if (move.pass_through.passes_through && move.pass_through.passes_through(node, move.from)) continue;
    if (node.op_type() == kDynamicSliceOp) continue;
    std::optional<Obstacle> obstacle = FirstObstacle(node, move, search.converter, constant_of, search.type_of);
    if (!obstacle.has_value()) continue;
    search.found.push_back(
        {path, node.name(), node.op_type(), NodeLabel(node), obstacle->lowest, std::move(obstacle->why)});
    search.found_in_main.push_back(is_main ? index : -1);
  }
}

}  // namespace

ConstantOf ConstantsOf(const GraphProto& graph, const ConstantOf& outer, bool initializers_are_overridable) {
  auto own = std::make_shared<std::unordered_map<std::string, const TensorProto*>>();
  std::unordered_set<std::string> inputs;
  if (initializers_are_overridable) {
    for (const ValueInfoProto& input : graph.input()) inputs.insert(input.name());
  }
  for (const TensorProto& initializer : graph.initializer()) {
    if (inputs.count(initializer.name()) == 0) own->emplace(initializer.name(), &initializer);
  }
  for (const NodeProto& node : graph.node()) {
    if (node.op_type() != kConstantOp || !IsDefaultDomain(node.domain()) || node.output_size() != 1) continue;
    for (const AttributeProto& attribute : node.attribute()) {
      if (attribute.name() == "value" && attribute.has_t()) (*own)[node.output(0)] = &attribute.t();
    }
  }
  return [own, outer](const std::string& name) -> const TensorProto* {
    auto found = own->find(name);
    if (found != own->end()) return found->second;
    return outer ? outer(name) : nullptr;
  };
}

std::vector<NodeWithoutForm> NodesWithoutFormAt(const ModelProto& model, const Move& move,
                                                const StepConverter& converter, bool first_only,
                                                ComputedConstants& computed) {
  FormSearch search{move,
                    converter,
                    model.ir_version() >= 4,
                    [&computed](const std::string& name) { return computed.ElementType(name); },
                    computed,
                    {},
                    {}};
  CollectNodesWithoutForm(model.graph(), kMainGraphPath, nullptr, search);
  // The nodes that go with the values computed from constants need no form (known once every node was looked at).
  const std::vector<bool> goes = computed.NodesThatGo();
  std::vector<NodeWithoutForm> found;
  for (size_t i = 0; i < search.found.size(); ++i) {
    const int index = search.found_in_main[i];
    if (index >= 0 && goes[static_cast<size_t>(index)]) continue;
    found.push_back(std::move(search.found[i]));
    if (first_only) break;
  }
  return found;
}

absl::Status CheckEveryNodeHasAFormAt(const ModelProto& model, const Move& move, const StepConverter& converter,
                                      ComputedConstants& computed) {
  const std::vector<NodeWithoutForm> found = NodesWithoutFormAt(model, move, converter, /*first_only=*/true, computed);
  if (found.empty()) return absl::OkStatus();
  const NodeWithoutForm& node = found.front();
  return NoFormAtOpsetError(
      move.to, absl::StrCat(InGraph(node.label, node.graph_path), " has no form at opset ", move.to, ": ", node.why,
                            "; the lowest opset it can be moved to is ", node.lowest_opset));
}

}  // namespace onnx_legalize::opset_upgrade
