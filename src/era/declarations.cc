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
//  - An ai.onnx.ml op's tensor output declared of an element type its schema never makes. WinMLTools 0.1's
//    CoreML conversions declared FeatureVectorizer's output double (CoreML's own type), where the op makes
//    float in every version; onnx 1.23's inference refuses the model ("Inferred elem type differs from
//    existing elem type: (FLOAT) vs (DOUBLE)"). Where the schema allows that output exactly one element type, the
//    declaration is written with it, its shape kept: an interface change when it is a graph output.
//  - A recurrent op's Y declared without its num_directions axis. PyTorch 0.3 declared a single-layer RNN's,
//    GRU's or LSTM's Y as its own framework's output, [seq_length, batch, hidden]; ONNX's Y is [seq_length,
//    num_directions, batch, hidden] in every version, and onnx's strict inference refuses the model ("Inferred
//    shape and existing shape differ in rank"). Where no node reads Y (the graph output does), the declaration is
//    the exporter's mistake and not the graph's: it is written with num_directions, 1 for one direction, at axis
//    1, an interface change when Y is a graph output. A Y that a node reads at rank 3 (the stacked exports, whose
//    next layer takes it as X) and a bidirectional Y are left to the check, which refuses them.
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "era/era_walk.h"
#include "era/legacy_repairs.h"
#include "graph/attributes.h"
#include "graph/op_names.h"
#include "graph/subgraphs.h"
#include "graph/type_text.h"
#include "graph/untyped_era_ops.h"
#include "onnx/defs/data_type_utils.h"
#include "onnx/defs/schema.h"

namespace onnx_legalize {
namespace {

constexpr char kMainGraphName[] = "main_graph";

void NameGraph(onnx::GraphProto& graph, const std::string& name, const std::string& path, LegacyRepairs& repairs) {
  // Undone as it was: unset, or written empty (a failed legalization leaves the caller's bytes as they were).
  const bool written = graph.has_name();
  graph.set_name(name);
  repairs.Add(LegacyRepair{path, "", "",
                           absl::StrCat("a graph without a name, which onnx's checker requires: named '", name, "'")},
              [&graph, written] {
                graph.clear_name();
                if (written) graph.set_name("");
              });
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

// Why a declaration was written anew, in the words of the report.
struct Redeclaration {
  const char* as;   // "as ZipMap makes it"
  const char* why;  // InterfaceChange::why
};

constexpr Redeclaration kZipMapSequence{"as ZipMap makes it",
                                        "ZipMap makes a sequence of maps, one per row of scores; its exporter declared "
                                        "one map"};
constexpr Redeclaration kMlSchemaElemType{"with the element type its schema makes",
                                          "the op makes this element type in every version; its exporter declared "
                                          "another (CoreML's)"};
constexpr Redeclaration kRecurrentY{"with the num_directions axis the op's Y has",
                                    "Y has the num_directions axis, [seq_length, num_directions, batch_size, "
                                    "hidden_size]; its exporter declared its own framework's output, without it"};

// Writes `declared` (a graph output's or value_info's type) as `schema_type`, recording it.
void DeclareAsSchemaTypes(onnx::ValueInfoProto& declared, const onnx::TypeProto& schema_type, bool graph_output,
                          const onnx::NodeProto& node, const std::string& path, const Redeclaration& redeclaration,
                          LegacyRepairs& repairs) {
  onnx::TypeProto before = declared.type();
  *declared.mutable_type() = schema_type;
  LegacyRepair repair{path, node.op_type(), node.name(),
                      absl::StrCat(graph_output ? "graph output '" : "value_info of '", declared.name(), "' declared ",
                                   TypeText(before), ", written ", redeclaration.as, ", ", TypeText(schema_type))};
  if (graph_output) {
    repair.interface_change =
        InterfaceChange{declared.name(), TypeText(before), TypeText(schema_type), redeclaration.why};
  }
  repairs.Add(std::move(repair), [&declared, before = std::move(before)] { *declared.mutable_type() = before; });
}

// Calls `declare(value, graph_output)` on each declaration of `name` in `graph`: its graph outputs, then its
// value_info.
void ForEachDeclarationOf(onnx::GraphProto& graph, const std::string& name,
                          absl::FunctionRef<void(onnx::ValueInfoProto&, bool)> declare) {
  for (onnx::ValueInfoProto& output : *graph.mutable_output()) {
    if (output.name() == name) declare(output, /*graph_output=*/true);
  }
  for (onnx::ValueInfoProto& value : *graph.mutable_value_info()) {
    if (value.name() == name) declare(value, /*graph_output=*/false);
  }
}

void DeclareZipMapOutputsAsSequences(onnx::ModelProto& model, LegacyRepairs& repairs) {
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (const onnx::NodeProto& node : graph.node()) {
      if (node.op_type() != kZipMapOp || node.domain() != kMlDomain || node.output_size() != 1) continue;
      const std::optional<onnx::TypeProto> schema_type = ZipMapOutputType(node);
      if (!schema_type.has_value()) continue;
      ForEachDeclarationOf(graph, node.output(0), [&](onnx::ValueInfoProto& declared, bool graph_output) {
        if (declared.type().has_map_type()) {
          DeclareAsSchemaTypes(declared, *schema_type, graph_output, node, path, kZipMapSequence, repairs);
        }
      });
    }
  });
}

// The ai.onnx.ml opset `model` imports (after RepairOpsetImports), or 1.
int MlOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
    if (import.domain() == kMlDomain && import.version() > 0) return static_cast<int>(import.version());
  }
  return 1;
}

// The one element type the schema of ai.onnx.ml `node` allows its output `index`, or UNDEFINED when it allows
// several, or none is known.
int32_t SchemaFixedElemType(const onnx::NodeProto& node, int index, int ml_opset) {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), ml_opset, kMlDomain);
  if (schema == nullptr || index >= static_cast<int>(schema->outputs().size())) return onnx::TensorProto::UNDEFINED;
  const onnx::DataTypeSet& types = schema->outputs()[static_cast<size_t>(index)].GetTypes();
  if (types.size() != 1) return onnx::TensorProto::UNDEFINED;
  const onnx::TypeProto type = onnx::Utils::DataTypeUtils::ToTypeProto(*types.begin());
  return type.has_tensor_type() ? type.tensor_type().elem_type() : onnx::TensorProto::UNDEFINED;
}

void DeclareMlOutputsOfTheirSchemasElemType(onnx::ModelProto& model, LegacyRepairs& repairs) {
  const int ml_opset = MlOpset(model);
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (const onnx::NodeProto& node : graph.node()) {
      if (node.domain() != kMlDomain) continue;
      for (int i = 0; i < node.output_size(); ++i) {
        if (node.output(i).empty()) continue;
        const int32_t made = SchemaFixedElemType(node, i, ml_opset);
        if (made == onnx::TensorProto::UNDEFINED) continue;
        ForEachDeclarationOf(graph, node.output(i), [&](onnx::ValueInfoProto& declared, bool graph_output) {
          const onnx::TypeProto& type = declared.type();
          if (!type.has_tensor_type() || !type.tensor_type().has_elem_type() ||
              type.tensor_type().elem_type() == made) {
            return;
          }
          onnx::TypeProto schema_type = type;
          schema_type.mutable_tensor_type()->set_elem_type(made);
          DeclareAsSchemaTypes(declared, schema_type, graph_output, node, path, kMlSchemaElemType, repairs);
        });
      }
    }
  });
}

// Whether a node of `graph`, or of a graph in it, reads `name`.
bool ReadByANode(const onnx::GraphProto& graph, const std::string& name) {
  bool read = false;
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& input : node.input()) read = read || input == name;
    ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
      read = read || ReadByANode(subgraph, name);
    });
  }
  return read;
}

bool OneDirection(const onnx::NodeProto& node) {
  const onnx::AttributeProto* direction = FindAttribute(node, "direction");
  return direction == nullptr || direction->s() != "bidirectional";
}

// `declared` (a tensor of rank 3) with num_directions, 1, inserted at axis 1.
onnx::TypeProto WithOneDirection(const onnx::TypeProto& declared) {
  onnx::TypeProto type = declared;
  onnx::TensorShapeProto& shape = *type.mutable_tensor_type()->mutable_shape();
  shape.add_dim();
  for (int axis = 3; axis > 1; --axis) *shape.mutable_dim(axis) = shape.dim(axis - 1);
  shape.mutable_dim(1)->Clear();
  shape.mutable_dim(1)->set_dim_value(1);
  return type;
}

void DeclareRecurrentYWithItsDirections(onnx::ModelProto& model, LegacyRepairs& repairs) {
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (const onnx::NodeProto& node : graph.node()) {
      if (!IsRecurrentOp(node.op_type()) || !IsDefaultDomain(node.domain()) || node.output_size() < 1) continue;
      const std::string& y = node.output(0);
      if (y.empty() || !OneDirection(node) || ReadByANode(graph, y)) continue;
      ForEachDeclarationOf(graph, y, [&](onnx::ValueInfoProto& declared, bool graph_output) {
        const onnx::TypeProto& type = declared.type();
        if (type.has_tensor_type() && type.tensor_type().has_shape() && type.tensor_type().shape().dim_size() == 3) {
          DeclareAsSchemaTypes(declared, WithOneDirection(type), graph_output, node, path, kRecurrentY, repairs);
        }
      });
    }
  });
}

}  // namespace

void RepairDeclarations(onnx::ModelProto& model, LegacyRepairs& repairs) {
  NameUnnamedGraphs(model, repairs);
  DeclareZipMapOutputsAsSequences(model, repairs);
  DeclareMlOutputsOfTheirSchemasElemType(model, repairs);
  DeclareRecurrentYWithItsDirections(model, repairs);
}

}  // namespace onnx_legalize
