#include "driver/opset_move_changes.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "graph/subgraphs.h"
#include "onnx/defs/schema.h"

namespace onnx_legalize {
namespace {

// A node's key: its graph and its name where no other node of the graph has it (the splice keeps the caller's node
// and its name, also where a down-adapter hands its output to a node it adds after it, Shape -> Shape, Slice), else
// its first output, which onnx's converter keeps (the splice keeps what it renames), or its position where it has
// none.
std::string KeyOf(const std::string& path, const onnx::NodeProto& node, int index, bool name_is_unique) {
  if (name_is_unique) return absl::StrCat(path, "\x1fname\x1f", node.name());
  const std::string& first = node.output_size() > 0 ? node.output(0) : std::string();
  return absl::StrCat(path, "\x1f", first.empty() ? absl::StrCat("#", index) : first);
}

// Its inputs and attributes (but subgraphs, which are compared node by node), attributes in name order: the converter
// writes a node's attributes anew.
std::string BodyOf(const onnx::NodeProto& node) {
  std::string body;
  for (const std::string& input : node.input()) absl::StrAppend(&body, input, "\x1f");
  std::map<std::string, std::string> attributes;
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.type() == onnx::AttributeProto::GRAPH || attribute.type() == onnx::AttributeProto::GRAPHS) continue;
    attributes[attribute.name()] = attribute.SerializeAsString();
  }
  for (const auto& [name, bytes] : attributes) absl::StrAppend(&body, "\x1e", name, "\x1f", bytes);
  return body;
}

// The version of `op_type` in effect at default opset `opset`; 0 where onnx defines none (DynamicSlice).
int64_t VersionAt(const std::string& op_type, int64_t opset) {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(opset), kDefaultDomain);
  return schema == nullptr ? 0 : schema->since_version();
}

// Walks the default-domain nodes of `graph` and the graphs in them, each with its graph's path, in node order (a
// node's subgraphs right after it), and whether its name is its own in its graph.
template <typename Visit>
void ForEachDefaultDomainNode(const onnx::GraphProto& graph, const std::string& path, const Visit& visit) {
  std::map<std::string, int> nodes_named;
  for (const onnx::NodeProto& node : graph.node()) ++nodes_named[node.name()];
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    const bool name_is_unique = !node.name().empty() && nodes_named[node.name()] == 1;
    if (IsDefaultDomain(node.domain())) visit(node, path, i, name_is_unique);
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.type() == onnx::AttributeProto::GRAPH) {
        ForEachDefaultDomainNode(attribute.g(), SubgraphPath(path, node, attribute.name(), attribute.g()), visit);
      }
    }
  }
}

}  // namespace

NodesBeforeMove::NodesBeforeMove(const onnx::ModelProto& before, int64_t from) : from_(from) {
  ForEachDefaultDomainNode(before.graph(), kMainGraphPath,
                           [this](const onnx::NodeProto& node, const std::string& path, int index, bool unique) {
                             const std::string key = KeyOf(path, node, index, unique);
                             if (prints_.count(key) > 0) return;
                             prints_.emplace(key, Print{node.op_type(), InGraph(NodeLabel(node), path), BodyOf(node)});
                             order_.push_back(key);
                           });
}

std::vector<OpsetMoveChange> NodesBeforeMove::Changes(const onnx::ModelProto& after, int64_t to) const {
  std::vector<OpsetMoveChange> changes;
  std::map<std::tuple<std::string, int64_t, int64_t, std::string>, size_t> index_of;
  const auto count = [&](const std::string& op_type, int64_t before, int64_t moved, const std::string& op_type_after,
                         const std::string& how, const std::string& label) {
    auto [it, inserted] = index_of.emplace(std::make_tuple(op_type, before, moved, how), changes.size());
    if (inserted) changes.push_back({op_type, before, moved, op_type_after, how, 0, label});
    changes[it->second].nodes += 1;
  };
  std::set<std::string> found;
  ForEachDefaultDomainNode(
      after.graph(), kMainGraphPath, [&](const onnx::NodeProto& node, const std::string& path, int index, bool unique) {
        const std::string key = KeyOf(path, node, index, unique);
        auto print = prints_.find(key);
        const int64_t version_after = VersionAt(node.op_type(), to);
        if (print == prints_.end() || !found.insert(key).second) {
          count(node.op_type(), 0, version_after, node.op_type(), "added", InGraph(NodeLabel(node), path));
          return;
        }
        const Print& before = print->second;
        const int64_t version_before = VersionAt(before.op_type, from_);
        if (before.op_type != node.op_type()) {
          count(before.op_type, version_before, version_after, node.op_type(),
                absl::StrCat("replaced by ", node.op_type()), before.label);
        } else if (before.body != BodyOf(node)) {
          count(before.op_type, version_before, version_after, node.op_type(), "rewritten", before.label);
        } else if (version_before != version_after) {
          count(before.op_type, version_before, version_after, node.op_type(), "version", before.label);
        }
      });
  for (const std::string& key : order_) {
    if (found.count(key) > 0) continue;
    const Print& before = prints_.at(key);
    count(before.op_type, VersionAt(before.op_type, from_), 0, "", "removed", before.label);
  }
  return changes;
}

}  // namespace onnx_legalize
