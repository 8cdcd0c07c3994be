// One graph's view of the names it can see: what produces each value, which values are constants, and what
// is known of each value's type, with lookups that fall through to the enclosing graphs (a subgraph of
// If/Loop/Scan sees its outer scopes' names).
#ifndef ONNX_LEGALIZE_SRC_GRAPH_GRAPH_SCOPE_H_
#define ONNX_LEGALIZE_SRC_GRAPH_GRAPH_SCOPE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "graph/subgraphs.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/external_data_reader.h"

namespace onnx_legalize {

// What is known of a value's type: its element type (0 when unknown) and, when its rank is known, its dims
// (-1 for a dim of unknown size).
struct ValueType {
  DataType elem_type = 0;
  std::optional<std::vector<int64_t>> dims;
};

class GraphScope {
 public:
  // `graph` (and `inferred`) must outlive the scope and not change while it is queried. `outer` is the
  // enclosing graph's scope (null for the main graph) and must outlive this one.
  // `initializers_are_overridable`: from IR 4 on, an initializer that is also a graph input is a default
  // the caller may override, so it is no constant. In IR 3 every initializer is listed as an input by
  // rule, and all of them are constants.
  // `inferred` (optional) is the same graph after shape inference, consulted for types it adds.
  // `external_data` (optional, not owned) reads constants stored as external data; without it they are
  // not constants (their type and dims stay known).
  GraphScope(const onnx::GraphProto& graph, std::string path, const GraphScope* outer,
             bool initializers_are_overridable, const onnx::GraphProto* inferred = nullptr,
             const ExternalDataReader* external_data = nullptr);

  const onnx::GraphProto& graph() const { return graph_; }
  const std::string& path() const { return path_; }
  const GraphScope* outer() const { return outer_; }

  // The constant value of `name` as seen from this graph: a non-overridable initializer, the output of a
  // Constant node, or a value recorded with AddConstant, here or in an outer scope. Null when `name` is
  // not a constant (a graph input, an overridable initializer, a computed value, unknown). Initializers
  // are decoded on first use only, so weights no fold needs are never read; one stored as external data
  // is read from its file then, through the scope's reader. An error when a constant's TensorProto is
  // malformed or its external data cannot be read.
  // A large constant of a heap-allocated graph views the graph's bytes (TensorViewFromProto): the tensor
  // may be read only while that TensorProto's raw_data stays where it is (a Swap between heap messages
  // keeps it there).
  absl::StatusOr<const Tensor*> FindConstant(const std::string& name) const;

  // True when `name`, looked up as FindConstant looks it up, is an initializer or Constant value stored
  // as external data and not decoded yet: with a reader, FindConstant would read it from its file; without
  // one it is no constant, and this says why. Reads nothing.
  bool IsExternalData(const std::string& name) const;

  // The dims of constant `name`, without decoding it (nullopt when not a constant). Lets a caller
  // bound work before it decodes a tensor.
  std::optional<std::vector<int64_t>> ConstantDims(const std::string& name) const;

  // Records the value a node of this graph computes from constants (a folded DynamicSlice), so that
  // later nodes here and in nested graphs see it as a constant.
  void AddConstant(const std::string& name, std::shared_ptr<const Tensor> value);

  // What is known of `name`'s type, from this graph or an outer one: initializers, Constant nodes, graph
  // inputs/outputs, value_info, shape inference.
  ValueType FindType(const std::string& name) const;

 private:
  // True when `name` is defined in this graph (input, initializer or node output), which hides whatever an
  // outer graph calls so; false in a scope without an outer one, where there is nothing to hide.
  bool HidesOuter(const std::string& name) const;
  const onnx::TensorProto* FindConstantProtoHere(const std::string& name) const;
  absl::StatusOr<Tensor> DecodeExternal(const onnx::TensorProto& proto, const std::string& what) const;
  std::optional<ValueType> FindTypeHere(const std::string& name) const;

  const onnx::GraphProto& graph_;
  std::string path_;
  const GraphScope* outer_;
  const onnx::GraphProto* inferred_;
  const ExternalDataReader* external_data_;

  // Keyed by views of the graph's (and the inferred graph's) own strings: the tables cost no copy of a
  // name, which on a graph of tens of thousands of nodes is most of building them. Hence the graphs must
  // not change while the scope is queried (planning only reads them).
  absl::flat_hash_map<absl::string_view, const onnx::TensorProto*> constant_initializers_;
  absl::flat_hash_map<absl::string_view, const onnx::NodeProto*> constant_nodes_;
  absl::flat_hash_map<absl::string_view, const onnx::ValueInfoProto*> declared_types_;
  absl::flat_hash_map<absl::string_view, const onnx::ValueInfoProto*> inferred_types_;
  absl::flat_hash_map<absl::string_view, const onnx::TensorProto*> all_initializers_;
  absl::flat_hash_set<absl::string_view> defined_here_;  // empty without an outer scope
  // Initializers and Constant outputs stored as external data that no reader can read: not constants.
  absl::flat_hash_set<absl::string_view> unreadable_external_;
  // Decoded constants, filled lazily by FindConstant and by AddConstant.
  mutable std::unordered_map<std::string, std::shared_ptr<const Tensor>> decoded_;
};

// The value a Constant node holds, from `value` or one of the value_* attributes; InvalidArgument when the
// node holds none, several, or a sparse_value (which the folder does not read).
absl::StatusOr<Tensor> ConstantNodeValue(const onnx::NodeProto& node);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_GRAPH_SCOPE_H_
