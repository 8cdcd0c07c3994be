// Declarations the era's exporters wrote that onnx's checker and ONNX Runtime refuse, written as they must be:
//  - A graph without a name. onnx's checker requires every graph to have one, and Windows ML's own
//    preprocessing models (and converters that never set it) have none; ONNX Runtime runs them. The main graph
//    is named "main_graph" (PyTorch's name for it), a subgraph what messages already call it
//    (graph/subgraphs.h's SubgraphPathSegment: "<node>.<attribute>"), so every path stays as it was.
//  - A ZipMap's output declared as a map. WinMLTools 0.1 and OnnxMLTools 1.2 (Custom Vision's and CoreML's
//    classifiers of 2018) declared it map(string, tensor(float)); ZipMap makes a sequence of maps, one per
//    row of scores, in every version, and onnx 1.23's inference and ONNX Runtime refuse the model with the map
//    ("type case mismatch", "does not match expected type (seq(map(string,tensor(float))))"). The declaration
//    is written as the schema types the output, seq(map(K, tensor(float))) with K what the class labels are; a
//    graph output so written is an interface change (Report::interface_changes).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "era/era_walk.h"
#include "era/legacy_repairs.h"
#include "graph/attributes.h"
#include "graph/op_names.h"
#include "graph/subgraphs.h"
#include "graph/type_text.h"

namespace onnx_legalize {
namespace {

constexpr char kMainGraphName[] = "main_graph";

void NameGraph(onnx::GraphProto& graph, const std::string& name, const std::string& path, LegacyRepairs& repairs) {
  graph.set_name(name);
  repairs.Add(LegacyRepair{path, "", "",
                           absl::StrCat("a graph without a name, which onnx's checker requires: named '", name, "'")},
              [&graph] { graph.clear_name(); });
}

void NameUnnamedGraphs(onnx::ModelProto& model, LegacyRepairs& repairs) {
  if (!model.has_graph()) return;
  if (model.graph().name().empty()) NameGraph(*model.mutable_graph(), kMainGraphName, kMainGraphPath, repairs);
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      ForEachMutableSubgraph(node, [&](const std::string& attribute, onnx::GraphProto& subgraph) {
        if (!subgraph.name().empty()) return;
        NameGraph(subgraph, SubgraphPathSegment(node, attribute, subgraph),
                  SubgraphPath(path, node, attribute, subgraph), repairs);
      });
    }
  });
}

// The type ZipMap's schema gives its output: a sequence of maps from its class labels' type to float, or null
// for a node that names no labels (the check refuses it).
std::optional<onnx::TypeProto> ZipMapOutputType(const onnx::NodeProto& node) {
  int32_t key = onnx::TensorProto::UNDEFINED;
  if (FindAttribute(node, "classlabels_strings") != nullptr) key = onnx::TensorProto::STRING;
  if (FindAttribute(node, "classlabels_int64s") != nullptr) key = onnx::TensorProto::INT64;
  if (key == onnx::TensorProto::UNDEFINED) return std::nullopt;
  onnx::TypeProto type;
  onnx::TypeProto::Map& map = *type.mutable_sequence_type()->mutable_elem_type()->mutable_map_type();
  map.set_key_type(key);
  map.mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return type;
}

// Writes `declared` (a graph output's or value_info's type, a map) as `schema_type`, recording it.
void DeclareAsSchemaTypes(onnx::ValueInfoProto& declared, const onnx::TypeProto& schema_type, bool graph_output,
                          const onnx::NodeProto& node, const std::string& path, LegacyRepairs& repairs) {
  onnx::TypeProto before = declared.type();
  *declared.mutable_type() = schema_type;
  LegacyRepair repair{path, node.op_type(), node.name(),
                      absl::StrCat(graph_output ? "graph output '" : "value_info of '", declared.name(), "' declared ",
                                   TypeText(before), ", written as ZipMap makes it, ", TypeText(schema_type))};
  if (graph_output) {
    repair.interface_change = InterfaceChange{declared.name(), TypeText(before), TypeText(schema_type),
                                              "ZipMap makes a sequence of maps, one per row of scores; its exporter "
                                              "declared one map"};
  }
  repairs.Add(std::move(repair), [&declared, before = std::move(before)] { *declared.mutable_type() = before; });
}

void DeclareZipMapOutputsAsSequences(onnx::ModelProto& model, LegacyRepairs& repairs) {
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (const onnx::NodeProto& node : graph.node()) {
      if (node.op_type() != kZipMapOp || node.domain() != kMlDomain || node.output_size() != 1) continue;
      const std::optional<onnx::TypeProto> schema_type = ZipMapOutputType(node);
      if (!schema_type.has_value()) continue;
      for (onnx::ValueInfoProto& output : *graph.mutable_output()) {
        if (output.name() == node.output(0) && output.type().has_map_type()) {
          DeclareAsSchemaTypes(output, *schema_type, /*graph_output=*/true, node, path, repairs);
        }
      }
      for (onnx::ValueInfoProto& value : *graph.mutable_value_info()) {
        if (value.name() == node.output(0) && value.type().has_map_type()) {
          DeclareAsSchemaTypes(value, *schema_type, /*graph_output=*/false, node, path, repairs);
        }
      }
    }
  });
}

}  // namespace

void RepairDeclarations(onnx::ModelProto& model, LegacyRepairs& repairs) {
  NameUnnamedGraphs(model, repairs);
  DeclareZipMapOutputsAsSequences(model, repairs);
}

}  // namespace onnx_legalize
