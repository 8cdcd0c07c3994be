// The splice: the converted skeleton put back into the caller's graphs.
//
// Why the converter's output is not the result (read from onnx 1.23.2 common/ir_pb_converter.cc,
// common/ir.h and the adapters): it goes through onnx's IR, which keeps only nodes, values and initializers:
// model-local functions, training_info, sparse initializers, metadata_props of graphs and nodes, attribute
// references, tensor doc strings and the non-tensor types of node outputs are dropped (1.12's also dropped
// external-data references and truncated dims above 2^31); a node an adapter replaces (Upsample-9 ->
// Resize-10, Scatter-10 -> ScatterElements-11) loses its name and doc_string.
//
// So each graph's node list is rebuilt from the converted one: tagged nodes are copies of the original
// NodeProto with only op-relevant fields (inputs, outputs, changed attributes) taken from the converter;
// stand-ins become the original nodes again; converter-made nodes are new, converter-made values get names
// that occur nowhere in the model, converter-made initializers become Constant nodes. Graph inputs, outputs,
// initializers, value_info, doc strings and everything at model level are the caller's. What the adapters
// got wrong is put right on the way (upgrade/fixes/).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/base/casts.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "onnx/defs/schema.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// Converter-made value names defined in one converted graph -> their final names.
struct SpliceScope {
  const SpliceScope* parent = nullptr;
  std::unordered_map<std::string, std::string> made;
};

absl::StatusOr<std::string> DecodeName(const std::string& code, const SpliceScope& scope, const SpliceContext& ctx) {
  if (code.empty()) return code;
  if (const std::string* original = ctx.skeleton.codec.Decode(code)) return *original;
  for (const SpliceScope* s = &scope; s != nullptr; s = s->parent) {
    auto it = s->made.find(code);
    if (it != s->made.end()) return it->second;
  }
  return absl::InternalError(absl::StrCat("the converted model refers to value '", code, "', which nothing defines"));
}

bool SameAttributeValue(const AttributeProto& a, const AttributeProto& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case AttributeProto::FLOAT: {
      // onnx's IR holds floats as doubles; the round trip is exact, so compare bits.
      return absl::bit_cast<uint32_t>(a.f()) == absl::bit_cast<uint32_t>(b.f());
    }
    case AttributeProto::INT: return a.i() == b.i();
    case AttributeProto::STRING: return a.s() == b.s();
    case AttributeProto::FLOATS: {
      if (a.floats_size() != b.floats_size()) return false;
      for (int i = 0; i < a.floats_size(); ++i) {
        if (absl::bit_cast<uint32_t>(a.floats(i)) != absl::bit_cast<uint32_t>(b.floats(i))) return false;
      }
      return true;
    }
    case AttributeProto::INTS: return std::equal(a.ints().begin(), a.ints().end(), b.ints().begin(), b.ints().end());
    case AttributeProto::STRINGS:
      return std::equal(a.strings().begin(), a.strings().end(), b.strings().begin(), b.strings().end());
    default:
      // Tensors, types: no upward adapter rewrites them; the caller's copy keeps fields the IR drops.
      return true;
  }
}

std::string FormalInputName(const std::string& op_type, int64_t version, int index) {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(version), "");
  if (schema == nullptr || schema->inputs().empty()) return absl::StrCat("in", index);
  const auto& inputs = schema->inputs();
  const size_t i = std::min(static_cast<size_t>(index), inputs.size() - 1);
  return inputs[i].GetName();
}

absl::Status SpliceGraph(const GraphProto& converted, const GraphProto& original, const std::string& path,
                         const SpliceScope* parent, SpliceContext& ctx,
                         google::protobuf::RepeatedPtrField<NodeProto>* out_nodes);

// Copies the original graph attribute and rebuilds its node list from the converted one.
absl::Status SpliceGraphAttribute(const AttributeProto& original, const AttributeProto& converted,
                                  const std::string& path, const SpliceScope& scope, SpliceContext& ctx,
                                  AttributeProto* out) {
  *out = original;
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  RETURN_IF_ERROR(SpliceGraph(converted.g(), original.g(), path, &scope, ctx, &nodes));
  out->mutable_g()->mutable_node()->Swap(&nodes);
  return absl::OkStatus();
}

// The records of the original graph's nodes, and which record produces each original output name.
struct OwnRecords {
  std::set<int64_t> records;
  std::unordered_map<std::string, int64_t> by_output;  // original output name -> record
};

OwnRecords CollectOwnRecords(const GraphProto& original, const SpliceContext& ctx) {
  OwnRecords own;
  auto owned = ctx.skeleton.records_by_owner.find(&original);
  if (owned == ctx.skeleton.records_by_owner.end()) return own;
  for (int64_t r : owned->second) {
    own.records.insert(r);
    for (const auto& o : ctx.skeleton.records[static_cast<size_t>(r)].original->output()) {
      if (!o.empty()) own.by_output[o] = r;
    }
  }
  return own;
}

// The record an untagged converted node stands for when an adapter replaced the original node: the
// replacement produces the original outputs (ExposeReplacedOutputs). The last of its outputs that names an
// unmatched record decides; -1 when none does.
int64_t ReplacedRecord(const NodeProto& node, const OwnRecords& own, const std::set<int64_t>& seen,
                       const SpliceContext& ctx) {
  int64_t r = -1;
  for (const auto& o : node.output()) {
    const std::string* name = ctx.skeleton.codec.Decode(o);
    if (name == nullptr) continue;
    auto it = own.by_output.find(*name);
    if (it != own.by_output.end() && seen.count(it->second) == 0) r = it->second;
  }
  return r;
}

// A replacement must produce exactly the original's outputs, in order; a stand-in is never replaced.
absl::Status CheckReplacementOutputs(const NodeProto& node, const NodeRecord& record, const std::string& where,
                                     const SpliceContext& ctx) {
  const NodeProto& orig = *record.original;
  bool same = orig.output_size() == node.output_size() && !record.opaque;
  for (int k = 0; same && k < node.output_size(); ++k) {
    const std::string* name = ctx.skeleton.codec.Decode(node.output(k));
    same = (name != nullptr && *name == orig.output(k)) || (orig.output(k).empty() && node.output(k).empty());
  }
  if (!same) {
    return absl::InternalError(absl::StrCat(InGraph(NodeLabel(orig), where), ": the converter replaced it by a ",
                                            node.op_type(), " whose outputs do not match"));
  }
  return absl::OkStatus();
}

// Which converted node stands for which original node of this graph: per converted node its record, or -1
// for a node the converter made. Tagged nodes match first, then replacements; every record of the graph must
// be matched.
absl::StatusOr<std::vector<int64_t>> MatchConvertedNodes(const GraphProto& converted, const GraphProto& original,
                                                         const std::string& where, const SpliceContext& ctx) {
  std::vector<int64_t> record_of(converted.node_size(), -1);
  const OwnRecords own = CollectOwnRecords(original, ctx);
  std::set<int64_t> seen;
  for (int i = 0; i < converted.node_size(); ++i) {
    const int64_t r = NameCodec::NodeIndex(converted.node(i).name());
    if (r >= 0 && own.records.count(r) > 0 && seen.insert(r).second) record_of[i] = r;
  }
  for (int i = 0; i < converted.node_size(); ++i) {
    if (record_of[i] >= 0) continue;
    const NodeProto& node = converted.node(i);
    const int64_t r = ReplacedRecord(node, own, seen, ctx);
    if (r < 0) continue;
    RETURN_IF_ERROR(CheckReplacementOutputs(node, ctx.skeleton.records[static_cast<size_t>(r)], where, ctx));
    record_of[i] = r;
    seen.insert(r);
  }
  for (int64_t r : own.records) {
    if (seen.count(r) == 0) {
      // Moving down, onnx's adapters that take a Constant input back into an attribute (Unsqueeze, ReduceSum, Split
      // 13 -> 12) destroy the Constant once nothing reads it. (What still read it would be undefined: onnx's check
      // of the result refuses that.)
      const NodeProto& original = *ctx.skeleton.records[static_cast<size_t>(r)].original;
      if (ctx.move.Down() && original.op_type() == kConstantOp && IsDefaultDomain(original.domain())) continue;
      return absl::InternalError(
          absl::StrCat(InGraph(NodeLabel(*ctx.skeleton.records[static_cast<size_t>(r)].original), where),
                       ": the converter removed it"));
    }
  }
  return record_of;
}

// Converted value -> (node, input index) of its first consumer.
using FirstUses = std::unordered_map<std::string, std::pair<int, int>>;

FirstUses CollectFirstUses(const GraphProto& converted) {
  FirstUses first_use;
  for (int i = 0; i < converted.node_size(); ++i) {
    for (int k = 0; k < converted.node(i).input_size(); ++k) {
      first_use.emplace(converted.node(i).input(k), std::make_pair(i, k));
    }
  }
  return first_use;
}

// The name a converter-made value is given before it is made unique: after its first consumer and the
// consumer's formal input ("y_starts" for the starts of Slice producing y), or after its producer when
// nothing reads it.
std::string MadeValueBaseName(const std::string& code, const std::string& producer_op, const GraphProto& converted,
                              const FirstUses& first_use, const SpliceContext& ctx) {
  auto it = first_use.find(code);
  if (it == first_use.end()) return absl::StrCat(absl::AsciiStrToLower(producer_op), "_output");
  const NodeProto& consumer = converted.node(it->second.first);
  std::string stem = absl::AsciiStrToLower(consumer.op_type());
  if (consumer.output_size() > 0) {
    if (const std::string* name = ctx.skeleton.codec.Decode(consumer.output(0))) stem = *name;
  }
  return absl::StrCat(stem, "_", FormalInputName(consumer.op_type(), ctx.move.to, it->second.second));
}

// Initializers the converter made (Pad 10->11's pads); they become Constant nodes before their first consumer.
struct MadeInitializers {
  std::map<int, std::vector<const TensorProto*>> before;  // converted node index -> tensors
  std::vector<const TensorProto*> unused;
};

// Final names for converter-made values, in node order, into scope.made (initializers first, then node
// outputs: the order fixes which name gets which suffix); returns the converter-made initializers.
MadeInitializers NameMadeValues(const GraphProto& converted, SpliceContext& ctx, SpliceScope& scope) {
  const FirstUses first_use = CollectFirstUses(converted);
  auto name_made = [&](const std::string& code, const std::string& producer_op) {
    if (code.empty() || ctx.skeleton.codec.Decode(code) != nullptr || scope.made.count(code) > 0) return;
    scope.made[code] = ctx.fresh.Make(MadeValueBaseName(code, producer_op, converted, first_use, ctx));
  };
  MadeInitializers made;
  for (const auto& t : converted.initializer()) {
    if (ctx.skeleton.codec.Decode(t.name()) != nullptr) continue;
    name_made(t.name(), kConstantOp);
    auto it = first_use.find(t.name());
    if (it != first_use.end()) {
      made.before[it->second.first].push_back(&t);
    } else {
      made.unused.push_back(&t);
    }
  }
  for (int i = 0; i < converted.node_size(); ++i) {
    for (const auto& o : converted.node(i).output()) name_made(o, converted.node(i).op_type());
  }
  return made;
}

// A converter-made initializer as a Constant node, appended to out_nodes.
void EmitMadeInitializer(const TensorProto& t, const SpliceScope& scope,
                         google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  NodeProto* c = out_nodes->Add();
  c->add_output(scope.made.at(t.name()));
  c->set_op_type(kConstantOp);
  AttributeProto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(AttributeProto::TENSOR);
  *a->mutable_t() = t;
  a->mutable_t()->clear_name();
}

absl::StatusOr<std::vector<std::string>> DecodeNames(const google::protobuf::RepeatedPtrField<std::string>& codes,
                                                     const SpliceScope& scope, const SpliceContext& ctx) {
  std::vector<std::string> names;
  for (const auto& code : codes) {
    ASSIGN_OR_RETURN(std::string name, DecodeName(code, scope, ctx));
    names.push_back(std::move(name));
  }
  return names;
}

// A converter-made node: the converter's node under final names.
absl::Status SpliceMadeNode(const NodeProto& conv, const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs, const std::string& where, NodeProto* node) {
  node->set_op_type(conv.op_type());
  if (conv.has_domain() && !conv.domain().empty()) node->set_domain(conv.domain());
  for (auto& n : inputs) node->add_input(n);
  for (auto& n : outputs) node->add_output(n);
  for (const auto& attr : conv.attribute()) {
    if (attr.type() == AttributeProto::GRAPH || attr.type() == AttributeProto::GRAPHS) {
      return absl::InternalError(
          absl::StrCat("graph ", where, ": the converter made a ", conv.op_type(), " node with a subgraph"));
    }
    *node->add_attribute() = attr;
  }
  return absl::OkStatus();
}

// Stand-in: the original node (already in `node`), only its subgraphs converted.
absl::Status SpliceStandIn(const NodeProto& conv, const NodeProto& orig, const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const std::string& path, const SpliceScope& scope,
                           SpliceContext& ctx, NodeProto* node) {
  if (!std::equal(inputs.begin(), inputs.end(), orig.input().begin(), orig.input().end()) ||
      !std::equal(outputs.begin(), outputs.end(), orig.output().begin(), orig.output().end())) {
    return absl::InternalError(
        absl::StrCat(InGraph(NodeLabel(orig), path), ": the converter rewired a node it must not touch"));
  }
  for (int k = 0; k < orig.attribute_size(); ++k) {
    // Recurse with the caller's attribute: node records point into the caller's graphs.
    const AttributeProto& attr = orig.attribute(k);
    if (attr.type() != AttributeProto::GRAPH) continue;
    const AttributeProto* conv_attr = nullptr;
    for (const auto& a : conv.attribute()) {
      if (a.name() == attr.name()) conv_attr = &a;
    }
    if (conv_attr == nullptr) {
      return absl::InternalError(
          absl::StrCat(InGraph(NodeLabel(orig), path), ": subgraph '", attr.name(), "' went missing in the converter"));
    }
    const std::string subgraph_path = SubgraphPath(path, orig, attr.name(), attr.g());
    RETURN_IF_ERROR(SpliceGraphAttribute(attr, *conv_attr, subgraph_path, scope, ctx, node->mutable_attribute(k)));
  }
  return absl::OkStatus();
}

// The attributes of a converted node: the caller's, in the caller's order, where the converter kept them
// (the converter's value where it changed one, subgraphs spliced), then those the converter added.
absl::Status SpliceConvertedAttributes(const NodeProto& conv, const NodeRecord& record, const std::string& path,
                                       const SpliceScope& scope, SpliceContext& ctx, NodeProto* node) {
  const NodeProto& orig = *record.original;
  node->clear_attribute();
  std::unordered_map<std::string, const AttributeProto*> conv_attrs;
  for (const auto& a : conv.attribute()) conv_attrs[a.name()] = &a;
  std::unordered_set<std::string> kept;
  for (const auto& attr : orig.attribute()) {
    if (record.hidden_attributes.count(attr.name()) > 0) {
      *node->add_attribute() = attr;
      kept.insert(attr.name());
      continue;
    }
    auto it = conv_attrs.find(attr.name());
    if (it == conv_attrs.end()) continue;  // an adapter removed it (turned it into an input)
    kept.insert(attr.name());
    if (attr.type() == AttributeProto::GRAPH) {
      const std::string subgraph_path = SubgraphPath(path, orig, attr.name(), attr.g());
      RETURN_IF_ERROR(SpliceGraphAttribute(attr, *it->second, subgraph_path, scope, ctx, node->add_attribute()));
    } else if (SameAttributeValue(attr, *it->second)) {
      *node->add_attribute() = attr;
    } else {
      *node->add_attribute() = *it->second;
    }
  }
  for (const auto& a : conv.attribute()) {
    if (kept.count(a.name()) > 0) continue;
    if (a.type() == AttributeProto::GRAPH) {
      return absl::InternalError(
          absl::StrCat(InGraph(NodeLabel(orig), path), ": the converter added subgraph '", a.name(), "'"));
    }
    // The Pad-2 `value` default we spelled out for the converter is not an attribute of the caller's node.
    *node->add_attribute() = a;
  }
  return absl::OkStatus();
}

// A converted node: the caller's NodeProto (already in `node`) with the converter's op-relevant fields. The
// op type stays the original's unless an adapter replaced the node (Upsample -> Resize); Hardmax shown as
// Softmax keeps its own.
absl::Status SpliceConvertedNode(const NodeProto& conv, int64_t record_index, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs, const std::string& path,
                                 const SpliceScope& scope, SpliceContext& ctx, NodeProto* node) {
  const NodeRecord& record = ctx.skeleton.records[static_cast<size_t>(record_index)];
  const bool replaced = NameCodec::NodeIndex(conv.name()) != record_index;
  if (replaced) node->set_op_type(conv.op_type());
  node->clear_input();
  node->clear_output();
  for (auto& n : inputs) node->add_input(n);
  for (auto& n : outputs) node->add_output(n);
  RETURN_IF_ERROR(SpliceConvertedAttributes(conv, record, path, scope, ctx, node));
  KeepResize10Coordinates(record, ctx.move, node);
  return absl::OkStatus();
}

// Per emitted node, what FixAdapterResults needs to know of it.
struct EmittedNodes {
  std::vector<int64_t> record;              // the record it stands for, or -1 for a converter-made node
  std::vector<const NodeProto*> converted;  // the skeleton's converted node, or null; for type look-ups
};

// Appends one node per converted node to out_nodes, each converter-made initializer as a Constant just
// before its first consumer.
absl::Status EmitNodes(const GraphProto& converted, const std::vector<int64_t>& record_of,
                       const MadeInitializers& made_initializers, const std::string& path, const SpliceScope& scope,
                       SpliceContext& ctx, google::protobuf::RepeatedPtrField<NodeProto>* out_nodes,
                       EmittedNodes* emitted) {
  for (int i = 0; i < converted.node_size(); ++i) {
    auto before = made_initializers.before.find(i);
    if (before != made_initializers.before.end()) {
      for (const TensorProto* t : before->second) {
        EmitMadeInitializer(*t, scope, out_nodes);
        emitted->record.push_back(-1);
        emitted->converted.push_back(nullptr);
      }
    }
    const NodeProto& conv = converted.node(i);
    ASSIGN_OR_RETURN(const std::vector<std::string> inputs, DecodeNames(conv.input(), scope, ctx));
    ASSIGN_OR_RETURN(const std::vector<std::string> outputs, DecodeNames(conv.output(), scope, ctx));
    NodeProto* node = out_nodes->Add();
    emitted->record.push_back(record_of[i]);
    emitted->converted.push_back(&conv);
    if (record_of[i] < 0) {
      RETURN_IF_ERROR(SpliceMadeNode(conv, inputs, outputs, path, node));
      continue;
    }
    const NodeRecord& record = ctx.skeleton.records[static_cast<size_t>(record_of[i])];
    *node = *record.original;
    if (record.opaque) {
      RETURN_IF_ERROR(SpliceStandIn(conv, *record.original, inputs, outputs, path, scope, ctx, node));
    } else {
      RETURN_IF_ERROR(SpliceConvertedNode(conv, record_of[i], inputs, outputs, path, scope, ctx, node));
    }
  }
  return absl::OkStatus();
}

// Sanity: the converted graph still ends in the caller's outputs.
absl::Status CheckGraphOutputs(const GraphProto& converted, const GraphProto& original, const std::string& where,
                               const SpliceScope& scope, const SpliceContext& ctx) {
  for (int k = 0; k < original.output_size(); ++k) {
    if (k >= converted.output_size()) {
      return absl::InternalError(
          absl::StrCat("graph ", where, ": the converter dropped output '", original.output(k).name(), "'"));
    }
    ASSIGN_OR_RETURN(std::string name, DecodeName(converted.output(k).name(), scope, ctx));
    if (name != original.output(k).name()) {
      return absl::InternalError(absl::StrCat("graph ", where, ": output '", original.output(k).name(), "' became '",
                                              name, "' in the converter"));
    }
  }
  return absl::OkStatus();
}

absl::Status SpliceGraph(const GraphProto& converted, const GraphProto& original, const std::string& path,
                         const SpliceScope* parent, SpliceContext& ctx,
                         google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  SpliceScope scope;
  scope.parent = parent;
  ASSIGN_OR_RETURN(const std::vector<int64_t> record_of, MatchConvertedNodes(converted, original, path, ctx));
  const MadeInitializers made_initializers = NameMadeValues(converted, ctx, scope);
  for (const TensorProto* t : made_initializers.unused) EmitMadeInitializer(*t, scope, out_nodes);

  // Nodes already in out_nodes (the unused initializers among them) stand for no record.
  EmittedNodes emitted;
  emitted.record.assign(static_cast<size_t>(out_nodes->size()), -1);
  emitted.converted.assign(static_cast<size_t>(out_nodes->size()), nullptr);
  RETURN_IF_ERROR(EmitNodes(converted, record_of, made_initializers, path, scope, ctx, out_nodes, &emitted));

  RETURN_IF_ERROR(FixAdapterResults(path, emitted.record, emitted.converted, ctx, out_nodes));
  return CheckGraphOutputs(converted, original, path, scope, ctx);
}

}  // namespace

absl::StatusOr<google::protobuf::RepeatedPtrField<NodeProto>> SpliceMainGraph(const GraphProto& converted,
                                                                              const GraphProto& original,
                                                                              const Move& move,
                                                                              const Skeleton& skeleton,
                                                                              RenamedOutputs& renamed) {
  SpliceContext ctx{move, skeleton, {}, renamed};
  ctx.fresh.ReserveAll(original);
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  RETURN_IF_ERROR(SpliceGraph(converted, original, kMainGraphPath, nullptr, ctx, &nodes));
  return nodes;
}

}  // namespace onnx_legalize::opset_upgrade
