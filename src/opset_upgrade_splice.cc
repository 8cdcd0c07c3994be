// The splice: the converted skeleton put back into the caller's graphs.
//
// Why the converter's output is not the result (read from onnx v1.12.0 common/ir_pb_converter.cc,
// common/ir.h and the adapters): it goes through onnx's IR, which keeps only nodes, tensor-typed values and
// initializers: model-local functions, training_info, sparse initializers, non-tensor types,
// external-data references, tensor doc strings and every field newer than the IR are dropped, and dims
// above 2^31 are truncated; a node an adapter replaces (Upsample-9 -> Resize-10, Scatter-10 ->
// ScatterElements-11) loses its name and doc_string.
//
// So each graph's node list is rebuilt from the converted one: tagged nodes are copies of the original
// NodeProto with only op-relevant fields (inputs, outputs, changed attributes) taken from the converter;
// stand-ins become the original nodes again; converter-made nodes are new, converter-made values get names
// that occur nowhere in the model, converter-made initializers become Constant nodes. Graph inputs, outputs,
// initializers, value_info, doc strings and everything at model level are the caller's. What the adapters
// got wrong is put right on the way (opset_upgrade_adapter_fixes.cc).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "onnx/defs/schema.h"
#include "op_names.h"
#include "opset_upgrade_internal.h"
#include "opset_upgrade_labels.h"
#include "status_macros.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// Converter-made value names defined in one converted graph -> their final names.
struct SpliceScope {
  const SpliceScope* parent = nullptr;
  std::unordered_map<std::string, std::string> made;
};

absl::StatusOr<std::string> DecodeName(const std::string& code, const SpliceScope& scope, const Context& ctx) {
  if (code.empty()) return code;
  if (const std::string* original = ctx.codec.Decode(code)) return *original;
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
      float fa = a.f(), fb = b.f();
      return std::memcmp(&fa, &fb, sizeof(float)) == 0;
    }
    case AttributeProto::INT:
      return a.i() == b.i();
    case AttributeProto::STRING:
      return a.s() == b.s();
    case AttributeProto::FLOATS: {
      if (a.floats_size() != b.floats_size()) return false;
      for (int i = 0; i < a.floats_size(); ++i) {
        float fa = a.floats(i), fb = b.floats(i);
        if (std::memcmp(&fa, &fb, sizeof(float)) != 0) return false;
      }
      return true;
    }
    case AttributeProto::INTS:
      return std::equal(a.ints().begin(), a.ints().end(), b.ints().begin(), b.ints().end());
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
                         const SpliceScope* parent, Context& ctx,
                         google::protobuf::RepeatedPtrField<NodeProto>* out_nodes);

// Copies the original graph attribute and rebuilds its node list from the converted one.
absl::Status SpliceGraphAttribute(const AttributeProto& original, const AttributeProto& converted,
                                  const std::string& path, const SpliceScope& scope, Context& ctx,
                                  AttributeProto* out) {
  *out = original;
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  RETURN_IF_ERROR(SpliceGraph(converted.g(), original.g(), path, &scope, ctx, &nodes));
  out->mutable_g()->mutable_node()->Swap(&nodes);
  return absl::OkStatus();
}

absl::Status SpliceGraph(const GraphProto& converted, const GraphProto& original, const std::string& path,
                         const SpliceScope* parent, Context& ctx,
                         google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  const std::string where = GraphLabel(path);
  SpliceScope scope;
  scope.parent = parent;

  // Which converted node stands for which original node of this graph.
  std::vector<int64_t> record_of(converted.node_size(), -1);
  std::unordered_map<std::string, int64_t> record_by_output;  // original output name -> record
  std::set<int64_t> own_records;
  auto owned = ctx.records_by_owner.find(&original);
  if (owned != ctx.records_by_owner.end()) {
    for (int64_t r : owned->second) {
      own_records.insert(r);
      for (const auto& o : ctx.records[static_cast<size_t>(r)].original->output()) {
        if (!o.empty()) record_by_output[o] = r;
      }
    }
  }
  std::set<int64_t> seen;
  for (int i = 0; i < converted.node_size(); ++i) {
    const int64_t r = NameCodec::NodeIndex(converted.node(i).name());
    if (r >= 0 && own_records.count(r) > 0 && seen.insert(r).second) record_of[i] = r;
  }
  // A node an adapter replaced: the replacement produces the original outputs (ExposeReplacedOutputs).
  for (int i = 0; i < converted.node_size(); ++i) {
    if (record_of[i] >= 0) continue;
    const NodeProto& node = converted.node(i);
    int64_t r = -1;
    for (const auto& o : node.output()) {
      const std::string* name = ctx.codec.Decode(o);
      if (name == nullptr) continue;
      auto it = record_by_output.find(*name);
      if (it != record_by_output.end() && seen.count(it->second) == 0) r = it->second;
    }
    if (r < 0) continue;
    const NodeProto& orig = *ctx.records[static_cast<size_t>(r)].original;
    bool same = orig.output_size() == node.output_size() && !ctx.records[static_cast<size_t>(r)].opaque;
    for (int k = 0; same && k < node.output_size(); ++k) {
      const std::string* name = ctx.codec.Decode(node.output(k));
      same = (name != nullptr && *name == orig.output(k)) || (orig.output(k).empty() && node.output(k).empty());
    }
    if (!same) {
      return absl::InternalError(absl::StrCat("node ", NodeLabel(orig), " (graph ", where,
                                              "): the converter replaced it by a ", node.op_type(),
                                              " whose outputs do not match"));
    }
    record_of[i] = r;
    seen.insert(r);
  }
  for (int64_t r : own_records) {
    if (seen.count(r) == 0) {
      return absl::InternalError(absl::StrCat("node ", NodeLabel(*ctx.records[static_cast<size_t>(r)].original),
                                              " (graph ", where, "): the converter removed it"));
    }
  }

  // Final names for converter-made values, in node order. A value is named after its first consumer and the
  // consumer's formal input ("y_starts" for the starts of Slice producing y).
  std::unordered_map<std::string, std::pair<int, int>> first_use;  // converted value -> (node, input index)
  for (int i = 0; i < converted.node_size(); ++i) {
    for (int k = 0; k < converted.node(i).input_size(); ++k) first_use.emplace(converted.node(i).input(k), std::make_pair(i, k));
  }
  auto base_name = [&](const std::string& code, const std::string& producer_op) {
    auto it = first_use.find(code);
    if (it == first_use.end()) return absl::StrCat(absl::AsciiStrToLower(producer_op), "_output");
    const NodeProto& consumer = converted.node(it->second.first);
    std::string stem = absl::AsciiStrToLower(consumer.op_type());
    if (consumer.output_size() > 0) {
      if (const std::string* name = ctx.codec.Decode(consumer.output(0))) stem = *name;
    }
    return absl::StrCat(stem, "_", FormalInputName(consumer.op_type(), ctx.to, it->second.second));
  };
  auto name_made = [&](const std::string& code, const std::string& producer_op) {
    if (code.empty() || ctx.codec.Decode(code) != nullptr || scope.made.count(code) > 0) return;
    scope.made[code] = ctx.fresh.Make(base_name(code, producer_op));
  };
  // Initializers the converter made (Pad 10->11's pads) become Constant nodes before their first consumer.
  std::map<int, std::vector<const TensorProto*>> made_initializers_before;  // converted node index -> tensors
  std::vector<const TensorProto*> made_initializers_unused;
  for (const auto& t : converted.initializer()) {
    if (ctx.codec.Decode(t.name()) != nullptr) continue;
    name_made(t.name(), kConstantOp);
    auto it = first_use.find(t.name());
    if (it != first_use.end()) {
      made_initializers_before[it->second.first].push_back(&t);
    } else {
      made_initializers_unused.push_back(&t);
    }
  }
  for (int i = 0; i < converted.node_size(); ++i) {
    for (const auto& o : converted.node(i).output()) name_made(o, converted.node(i).op_type());
  }

  auto emit_initializer = [&](const TensorProto& t) {
    NodeProto* c = out_nodes->Add();
    c->add_output(scope.made.at(t.name()));
    c->set_op_type(kConstantOp);
    AttributeProto* a = c->add_attribute();
    a->set_name("value");
    a->set_type(AttributeProto::TENSOR);
    *a->mutable_t() = t;
    a->mutable_t()->clear_name();
  };
  for (const TensorProto* t : made_initializers_unused) emit_initializer(*t);

  // Per emitted node: the record it stands for (or -1 for a converter-made node), for FixAdapterResults.
  std::vector<int64_t> emitted_record;
  for (int i = 0; i < out_nodes->size(); ++i) emitted_record.push_back(-1);
  std::vector<std::string> conv_input0;  // skeleton name of input 0 of each emitted node, for type look-ups
  for (int i = 0; i < out_nodes->size(); ++i) conv_input0.emplace_back();

  for (int i = 0; i < converted.node_size(); ++i) {
    auto before = made_initializers_before.find(i);
    if (before != made_initializers_before.end()) {
      for (const TensorProto* t : before->second) {
        emit_initializer(*t);
        emitted_record.push_back(-1);
        conv_input0.emplace_back();
      }
    }
    const NodeProto& conv = converted.node(i);
    std::vector<std::string> inputs, outputs;
    for (const auto& in : conv.input()) {
      ASSIGN_OR_RETURN(std::string name, DecodeName(in, scope, ctx));
      inputs.push_back(std::move(name));
    }
    for (const auto& o : conv.output()) {
      ASSIGN_OR_RETURN(std::string name, DecodeName(o, scope, ctx));
      outputs.push_back(std::move(name));
    }
    NodeProto* node = out_nodes->Add();
    emitted_record.push_back(record_of[i]);
    conv_input0.push_back(conv.input_size() > 0 ? conv.input(0) : std::string());
    if (record_of[i] < 0) {  // converter-made
      node->set_op_type(conv.op_type());
      if (conv.has_domain() && !conv.domain().empty()) node->set_domain(conv.domain());
      for (auto& n : inputs) node->add_input(n);
      for (auto& n : outputs) node->add_output(n);
      for (const auto& attr : conv.attribute()) {
        if (attr.type() == AttributeProto::GRAPH || attr.type() == AttributeProto::GRAPHS) {
          return absl::InternalError(absl::StrCat("graph ", where, ": the converter made a ", conv.op_type(),
                                                  " node with a subgraph"));
        }
        *node->add_attribute() = attr;
      }
      continue;
    }
    const NodeRecord& record = ctx.records[static_cast<size_t>(record_of[i])];
    const NodeProto& orig = *record.original;
    *node = orig;
    if (record.opaque) {
      // Stand-in: the original node, only its subgraphs converted.
      if (!std::equal(inputs.begin(), inputs.end(), orig.input().begin(), orig.input().end()) ||
          !std::equal(outputs.begin(), outputs.end(), orig.output().begin(), orig.output().end())) {
        return absl::InternalError(absl::StrCat("node ", NodeLabel(orig), " (graph ", where,
                                                "): the converter rewired a node it must not touch"));
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
          return absl::InternalError(absl::StrCat("node ", NodeLabel(orig), " (graph ", where, "): subgraph '",
                                                  attr.name(), "' went missing in the converter"));
        }
        RETURN_IF_ERROR(SpliceGraphAttribute(attr, *conv_attr, SubgraphPath(path, orig, attr.name()), scope, ctx,
                                             node->mutable_attribute(k)));
      }
      continue;
    }
    // A converted node: the caller's NodeProto with the converter's op-relevant fields. The op type stays
    // the original's unless an adapter replaced the node (Upsample -> Resize); Hardmax shown as Softmax
    // keeps its own.
    const bool replaced = NameCodec::NodeIndex(conv.name()) != record_of[i];
    if (replaced) node->set_op_type(conv.op_type());
    node->clear_input();
    node->clear_output();
    for (auto& n : inputs) node->add_input(n);
    for (auto& n : outputs) node->add_output(n);
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
        RETURN_IF_ERROR(SpliceGraphAttribute(attr, *it->second, SubgraphPath(path, orig, attr.name()), scope, ctx,
                                             node->add_attribute()));
      } else if (SameAttributeValue(attr, *it->second)) {
        *node->add_attribute() = attr;
      } else {
        *node->add_attribute() = *it->second;
      }
    }
    for (const auto& a : conv.attribute()) {
      if (kept.count(a.name()) > 0) continue;
      if (a.type() == AttributeProto::GRAPH) {
        return absl::InternalError(absl::StrCat("node ", NodeLabel(orig), " (graph ", where,
                                                "): the converter added subgraph '", a.name(), "'"));
      }
      // The Pad-2 `value` default we spelled out for the converter is not an attribute of the caller's node.
      *node->add_attribute() = a;
    }
    KeepResize10Coordinates(orig, ctx, node);
  }

  RETURN_IF_ERROR(FixAdapterResults(where, emitted_record, conv_input0, ctx, out_nodes));

  // Sanity: the converted graph still ends in the caller's outputs.
  for (int k = 0; k < original.output_size(); ++k) {
    if (k >= converted.output_size()) {
      return absl::InternalError(absl::StrCat("graph ", where, ": the converter dropped output '",
                                              original.output(k).name(), "'"));
    }
    ASSIGN_OR_RETURN(std::string name, DecodeName(converted.output(k).name(), scope, ctx));
    if (name != original.output(k).name()) {
      return absl::InternalError(absl::StrCat("graph ", where, ": output '", original.output(k).name(),
                                              "' became '", name, "' in the converter"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SpliceMainGraph(const GraphProto& converted, const GraphProto& original, Context& ctx,
                             google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  return SpliceGraph(converted, original, "", nullptr, ctx, out_nodes);
}

}  // namespace onnx_legalize::opset_upgrade
