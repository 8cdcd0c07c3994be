// Attribute types recovered. IR version 1 had no AttributeProto.type: an attribute was told by the one value
// field it set, and PyTorch 0.2 wrote its models so. onnx's checker now wants the type ("Attribute 'x' has no
// type"), and the runtimes read a value by it. Each untyped attribute gets the type of the one field it sets;
// one that sets none (an empty list) gets the type its op's schema declares for it.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "era/era_walk.h"
#include "era/legacy_repairs.h"
#include "graph/opsets.h"
#include "onnx/defs/schema.h"

namespace onnx_legalize {
namespace {

using onnx::AttributeProto;

// The types of the value fields `attribute` sets.
std::vector<AttributeProto::AttributeType> TypesOfSetFields(const AttributeProto& attribute) {
  std::vector<AttributeProto::AttributeType> types;
  if (attribute.has_f()) types.push_back(AttributeProto::FLOAT);
  if (attribute.has_i()) types.push_back(AttributeProto::INT);
  if (attribute.has_s()) types.push_back(AttributeProto::STRING);
  if (attribute.has_t()) types.push_back(AttributeProto::TENSOR);
  if (attribute.has_g()) types.push_back(AttributeProto::GRAPH);
  if (attribute.has_sparse_tensor()) types.push_back(AttributeProto::SPARSE_TENSOR);
  if (attribute.has_tp()) types.push_back(AttributeProto::TYPE_PROTO);
  if (attribute.floats_size() > 0) types.push_back(AttributeProto::FLOATS);
  if (attribute.ints_size() > 0) types.push_back(AttributeProto::INTS);
  if (attribute.strings_size() > 0) types.push_back(AttributeProto::STRINGS);
  if (attribute.tensors_size() > 0) types.push_back(AttributeProto::TENSORS);
  if (attribute.graphs_size() > 0) types.push_back(AttributeProto::GRAPHS);
  if (attribute.sparse_tensors_size() > 0) types.push_back(AttributeProto::SPARSE_TENSORS);
  if (attribute.type_protos_size() > 0) types.push_back(AttributeProto::TYPE_PROTOS);
  return types;
}

// The type `node`'s schema at the opset its domain is imported at declares for `attribute`, or UNDEFINED.
AttributeProto::AttributeType DeclaredType(const onnx::NodeProto& node, const std::string& attribute,
                                           const OpsetImports& opsets) {
  auto import = opsets.find(NormalizedDomain(node.domain()));
  if (import == opsets.end()) return AttributeProto::UNDEFINED;
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(import->second), import->first);
  if (schema == nullptr) return AttributeProto::UNDEFINED;
  auto declared = schema->attributes().find(attribute);
  if (declared == schema->attributes().end()) return AttributeProto::UNDEFINED;
  return static_cast<AttributeProto::AttributeType>(declared->second.type);
}

// Takes back the types RecoverInGraph wrote: UNDEFINED where the field was there, no field where it was not.
void Untype(const std::vector<std::pair<AttributeProto*, bool>>& typed) {
  for (const auto& [attribute, had_field] : typed) {
    if (had_field) {
      attribute->set_type(AttributeProto::UNDEFINED);
    } else {
      attribute->clear_type();
    }
  }
}

absl::Status RecoverInGraph(onnx::GraphProto& graph, const std::string& path, const OpsetImports& opsets,
                            LegacyRepairs& repairs) {
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    // Each attribute typed here, and whether it held the type field (set to UNDEFINED) or none: taking the
    // repair back restores which, so that a failed Legalize leaves every byte as it was.
    std::vector<std::pair<AttributeProto*, bool>> typed;
    std::vector<std::string> recovered;
    for (AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.type() != AttributeProto::UNDEFINED || !attribute.ref_attr_name().empty()) continue;
      const std::vector<AttributeProto::AttributeType> set = TypesOfSetFields(attribute);
      const std::string where = absl::StrCat(InGraph(NodeLabel(node), path), ": attribute '", attribute.name(), "'");
      auto untype_this_node = [&typed] { Untype(typed); };
      if (set.size() > 1) {
        untype_this_node();
        return absl::InvalidArgumentError(
            absl::StrCat(where, " has no type and sets ", set.size(), " value fields; an attribute holds one value"));
      }
      const AttributeProto::AttributeType type =
          set.size() == 1 ? set[0] : DeclaredType(node, attribute.name(), opsets);
      if (type == AttributeProto::UNDEFINED) {
        untype_this_node();
        return absl::InvalidArgumentError(absl::StrCat(
            where, " has no type and sets no value, and no schema of its op declares it: its type cannot be told"));
      }
      typed.emplace_back(&attribute, attribute.has_type());
      attribute.set_type(type);
      recovered.push_back(absl::StrCat(attribute.name(), " ", AttributeProto::AttributeType_Name(type)));
    }
    if (typed.empty()) continue;
    repairs.Add(LegacyRepair{path, node.op_type(), node.name(),
                             absl::StrCat("attribute types, which IR 1 did not write, recovered from the value each "
                                          "sets: ",
                                          absl::StrJoin(recovered, ", "))},
                [typed] { Untype(typed); });
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RecoverAttributeTypes(onnx::ModelProto& model, LegacyRepairs& repairs) {
  ASSIGN_OR_RETURN(const OpsetImports opsets, ModelOpsetImports(model));
  absl::Status recovered;
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    if (recovered.ok()) recovered = RecoverInGraph(graph, path, opsets, repairs);
  });
  return recovered;
}

}  // namespace onnx_legalize
