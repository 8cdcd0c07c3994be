#include "graph/graph_validation.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "eval/tensor.h"
#include "graph/graph_scope.h"
#include "graph/labels.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx/defs/schema.h"
#include "status_macros.h"

namespace onnx_legalize {
namespace {

// The names visible in one graph: its own, and through `outer` those of the enclosing graphs. Views of the
// model's own strings in a flat table: no copy and no allocation per name, which on a graph of 40,000 nodes
// is most of the cost of the walk.
struct Names {
  const Names* outer = nullptr;
  absl::flat_hash_set<absl::string_view> defined;

  bool Visible(absl::string_view name) const {
    for (const Names* names = this; names != nullptr; names = names->outer) {
      if (names->defined.count(name)) return true;
    }
    return false;
  }
};

// The number of values a tensor of `type` holds per element in its typed field, and which field: complex
// numbers are (real, imaginary) pairs; float16/bfloat16/bool/8- and 16-bit integers live in int32_data,
// uint32 in uint64_data (onnx.proto).
int64_t TypedFieldSize(const onnx::TensorProto& tensor) {
  switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::COMPLEX64: return tensor.float_data_size();
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX128: return tensor.double_data_size();
    case onnx::TensorProto::INT64: return tensor.int64_data_size();
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64: return tensor.uint64_data_size();
    case onnx::TensorProto::STRING: return tensor.string_data_size();
    default: return tensor.int32_data_size();
  }
}

// A tensor's dims and the amount of data it holds agree: dims non-negative, their product and byte size
// within int64, raw_data (or the typed field) exactly as long as the dims say. Checks sizes only, so it
// costs nothing per byte of a large weight, and allocates nothing whatever the dims claim. The data
// itself (bool bytes, typed values that do not fit) is decoded, and checked, only where it is read.
// External data is checked where it is read (its length is in external_data, not here).
absl::Status ValidateTensorSizes(const onnx::TensorProto& tensor, const std::string& what) {
  const std::vector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, what));
  const DataType type = tensor.data_type();
  const bool is_string = type == onnx::TensorProto::STRING;
  // Unknown element types (UNDEFINED, or newer than this onnx) are left to whoever reads them.
  if (!is_string && ElementSize(type) == 0) return absl::OkStatus();
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, ElementSize(type), &bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", DataTypeName(type), " tensor of ", count, " elements: its byte size overflows int64"));
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) return absl::OkStatus();
  if (tensor.has_raw_data()) {
    if (is_string || static_cast<int64_t>(tensor.raw_data().size()) != bytes) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": raw_data has ", tensor.raw_data().size(), " bytes, but ",
                                                     DataTypeName(type), " [", absl::StrJoin(dims, ", "), "] needs ",
                                                     is_string ? "string_data" : absl::StrCat(bytes)));
    }
    return absl::OkStatus();
  }
  const bool is_complex = type == onnx::TensorProto::COMPLEX64 || type == onnx::TensorProto::COMPLEX128;
  const int64_t values = is_complex ? 2 * count : count;  // count * 2 fits: count * 16 bytes did
  if (TypedFieldSize(tensor) != values) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": holds ", TypedFieldSize(tensor), " values, but ",
                                                   DataTypeName(type), " [", absl::StrJoin(dims, ", "), "] needs ",
                                                   values));
  }
  return absl::OkStatus();
}

// InvalidArgument for an output of `graph` (shown as graph `where`) that no name `names` sees defines.
absl::Status CheckOutputsDefined(const onnx::GraphProto& graph, const std::string& where, const Names& names) {
  for (const auto& output : graph.output()) {
    if (!names.Visible(output.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph ", where, ": output '", output.name(), "' is produced by no node, input or initializer"));
    }
  }
  return absl::OkStatus();
}

// onnx's version converter trusts a node to match its schema. It indexes inputs and outputs unchecked
// (Upsample_9_10 reads inputs()[1]: a heap overflow on an Upsample with one input), and reads a known
// attribute as the type the schema gives it (an Upsample 'mode' typed INTS is read as a string: a bad
// downcast), and turns a required attribute it does not find into a node that is no longer valid (an
// Unsqueeze-9 without 'axes' became an Unsqueeze-13 with one input); all found by the legalize fuzzer. So a
// default-domain node outside its schema's input or output count, without a required attribute, or with a
// known attribute of another type, must not reach it. DynamicSlice's signature is
// the planner's to check (with its own messages); ops onnx does not define at `opset` are left to the
// converter, which refuses them; attributes the schema does not know are not read by it.
absl::Status CheckAgainstSchema(const onnx::NodeProto& node, absl::FunctionRef<std::string()> label,
                                std::optional<int64_t> opset) {
  if (!opset.has_value() || !IsDefaultDomain(node.domain()) || node.op_type() == kDynamicSliceOp) {
    return absl::OkStatus();
  }
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(*opset), kDefaultDomain);
  if (schema == nullptr) return absl::OkStatus();
  auto check = [&](int count, int min, int max, const char* what) -> absl::Status {
    if (count >= min && count <= max) return absl::OkStatus();
    const std::string takes = max == std::numeric_limits<int>::max() ? absl::StrCat("at least ", min)
                              : min == max                           ? absl::StrCat(min)
                                                                     : absl::StrCat(min, " to ", max);
    return absl::InvalidArgumentError(absl::StrCat(label(), ": has ", count, " ", what, "; ", node.op_type(), "-",
                                                   schema->since_version(), " has ", takes));
  };
  RETURN_IF_ERROR(check(node.input_size(), schema->min_input(), schema->max_input(), "inputs"));
  RETURN_IF_ERROR(check(node.output_size(), schema->min_output(), schema->max_output(), "outputs"));
  for (const auto& [name, declared] : schema->attributes()) {
    if (!declared.required) continue;
    const bool present = std::any_of(node.attribute().begin(), node.attribute().end(),
                                     [&name = name](const onnx::AttributeProto& a) { return a.name() == name; });
    if (!present) {
      return absl::InvalidArgumentError(absl::StrCat(label(), ": has no attribute '", name, "', which ", node.op_type(),
                                                     "-", schema->since_version(), " requires"));
    }
  }
  for (const auto& attribute : node.attribute()) {
    const auto known = schema->attributes().find(attribute.name());
    if (known == schema->attributes().end() || attribute.type() == onnx::AttributeProto::UNDEFINED ||
        attribute.type() == known->second.type) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(label(), ": attribute '", attribute.name(), "' is ",
                                                   onnx::AttributeProto_AttributeType_Name(attribute.type()), "; ",
                                                   node.op_type(), "-", schema->since_version(), " takes ",
                                                   onnx::AttributeProto_AttributeType_Name(known->second.type)));
  }
  return absl::OkStatus();
}

// One node of a graph: its inputs defined before it (by `names`), its attributes named once (ApplyPlan finds a
// subgraph again by its owner's first output, the attribute's name and the graph's index: rules/dynamic_slice.h's
// GraphLocator, so each of the three must name one thing), its tensors' sizes consistent.
absl::Status CheckNodeInputsAndAttributes(const onnx::NodeProto& node, int i, const std::string& path,
                                          const Names& names) {
  for (const auto& input : node.input()) {
    if (input.empty() || names.Visible(input)) continue;
    return absl::InvalidArgumentError(
        absl::StrCat(InGraph(NodeLabelAt(node, i), path), ": input '", input,
                     "' is not defined by any graph input, initializer or earlier node (an undefined name, "
                     "nodes out of topological order, or a cycle)"));
  }
  absl::flat_hash_set<absl::string_view> attribute_names;
  bool holds_subgraph = false;
  for (const auto& attribute : node.attribute()) {
    if (!attribute_names.insert(attribute.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(InGraph(NodeLabelAt(node, i), path), ": attribute '", attribute.name(), "' appears twice"));
    }
    if (attribute.has_g() && attribute.graphs_size() > 0) {
      return absl::InvalidArgumentError(absl::StrCat(InGraph(NodeLabelAt(node, i), path), ": attribute '",
                                                     attribute.name(), "' holds both g and graphs"));
    }
    holds_subgraph = holds_subgraph || attribute.has_g() || attribute.graphs_size() > 0;
    if (attribute.has_t()) {
      RETURN_IF_ERROR(ValidateTensorSizes(
          attribute.t(), absl::StrCat(InGraph(NodeLabelAt(node, i), path), ": attribute '", attribute.name(), "'")));
    }
  }
  if (holds_subgraph && (node.output_size() == 0 || node.output(0).empty())) {
    return absl::InvalidArgumentError(
        absl::StrCat(InGraph(NodeLabelAt(node, i), path), ": holds a subgraph but has no output to name it by"));
  }
  return absl::OkStatus();
}

absl::Status ValidateGraph(const onnx::GraphProto& graph, const std::string& path, const Names* outer, int depth,
                           std::optional<int64_t> opset) {
  if (depth > kMaxSubgraphDepth) {
    return absl::InvalidArgumentError(absl::StrCat("graph ", path, " is nested ", depth, " levels deep; at most ",
                                                   kMaxSubgraphDepth, " are supported"));
  }
  Names names;
  names.outer = outer;
  names.defined.reserve(CountDefinedNames(graph));
  auto define = [&](const std::string& name, absl::FunctionRef<std::string()> what) -> absl::Status {
    if (name.empty()) return absl::OkStatus();
    if (!names.defined.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph ", path, ": '", name, "' is defined twice (again as ", what(), ")"));
    }
    return absl::OkStatus();
  };
  for (const auto& input : graph.input()) names.defined.insert(input.name());
  // One value per initializer name: of two, a fold would read whichever it met first, and a runtime
  // perhaps the other. (An initializer may also be a graph input: a default the caller overrides.)
  absl::flat_hash_set<absl::string_view> initializers;
  initializers.reserve(static_cast<size_t>(graph.initializer_size()) +
                       static_cast<size_t>(graph.sparse_initializer_size()));
  auto add_initializer = [&](const std::string& name) -> absl::Status {
    if (!name.empty() && !initializers.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": initializer '", name, "' is defined twice"));
    }
    names.defined.insert(name);
    return absl::OkStatus();
  };
  for (const auto& initializer : graph.initializer()) {
    RETURN_IF_ERROR(add_initializer(initializer.name()));
    RETURN_IF_ERROR(
        ValidateTensorSizes(initializer, absl::StrCat("initializer '", initializer.name(), "' (graph ", path, ")")));
  }
  for (const auto& sparse : graph.sparse_initializer()) RETURN_IF_ERROR(add_initializer(sparse.values().name()));

  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    RETURN_IF_ERROR(CheckNodeInputsAndAttributes(node, i, path, names));
    RETURN_IF_ERROR(CheckAgainstSchema(
        node, [&] { return InGraph(NodeLabelAt(node, i), path); }, opset));
    absl::Status subgraphs_ok = absl::OkStatus();
    ForEachSubgraph(node, [&](const std::string& attribute, const onnx::GraphProto& subgraph) {
      if (!subgraphs_ok.ok()) return;
      subgraphs_ok = ValidateGraph(subgraph, SubgraphPath(path, node, attribute, subgraph), &names, depth + 1, opset);
    });
    RETURN_IF_ERROR(subgraphs_ok);
    for (const auto& output : node.output()) {
      RETURN_IF_ERROR(define(output, [&] { return absl::StrCat("an output of ", NodeLabelAt(node, i)); }));
    }
  }
  return CheckOutputsDefined(graph, path, names);
}

// ValidateGraphsForConverter's walk: names are defined graph by graph (every node output of a graph before
// any input is looked up), and messages name nodes and graphs as the opset upgrade does.
absl::Status ValidateGraphForConverter(const onnx::GraphProto& graph, const std::string& path, const Names* outer,
                                       int depth) {
  // The upgrade recurses through subgraphs as this walk does: a bound keeps both off the end of the stack
  // when it is called on a model that ValidateGraphs has not seen.
  if (depth > kMaxSubgraphDepth) {
    return absl::InvalidArgumentError(absl::StrCat("graph ", path, " is nested ", depth, " levels deep; at most ",
                                                   kMaxSubgraphDepth, " are supported"));
  }
  Names names;
  names.outer = outer;
  names.defined.reserve(CountDefinedNames(graph));
  for (const auto& v : graph.input()) {
    if (v.name().empty()) return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": an input has no name"));
    if (!names.defined.insert(v.name()).second) {
      return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": input '", v.name(), "' is listed twice"));
    }
  }
  absl::flat_hash_set<absl::string_view> initializers;
  auto add_initializer = [&](const std::string& name) -> absl::Status {
    if (name.empty()) return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": an initializer has no name"));
    if (!initializers.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": initializer '", name, "' is defined twice"));
    }
    names.defined.insert(name);  // an initializer may also be a graph input (a default the caller overrides)
    return absl::OkStatus();
  };
  for (const auto& t : graph.initializer()) RETURN_IF_ERROR(add_initializer(t.name()));
  for (const auto& t : graph.sparse_initializer()) RETURN_IF_ERROR(add_initializer(t.values().name()));
  for (const auto& node : graph.node()) {
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      if (!names.defined.insert(out).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(InGraph(NodeLabel(node), path), ": output '", out, "' is already defined in this graph"));
      }
    }
  }
  for (const auto& node : graph.node()) {
    for (const auto& in : node.input()) {
      if (!in.empty() && !names.Visible(in)) {
        return absl::InvalidArgumentError(
            absl::StrCat(InGraph(NodeLabel(node), path), ": input '", in, "' is produced by nothing"));
      }
    }
    for (const auto& attr : node.attribute()) {
      if (attr.type() == onnx::AttributeProto::UNDEFINED) {
        return absl::InvalidArgumentError(
            absl::StrCat(InGraph(NodeLabel(node), path), ": attribute '", attr.name(), "' has no type"));
      }
      if (attr.type() == onnx::AttributeProto::GRAPH) {
        RETURN_IF_ERROR(
            ValidateGraphForConverter(attr.g(), SubgraphPath(path, node, attr.name(), attr.g()), &names, depth + 1));
      }
      for (int i = 0; i < attr.graphs_size(); ++i) {
        // An unnamed graph of a list is told from its siblings by its index.
        const onnx::GraphProto& subgraph = attr.graphs(i);
        const std::string sub = SubgraphPath(path, node, attr.name(), subgraph);
        RETURN_IF_ERROR(ValidateGraphForConverter(
            subgraph, subgraph.name().empty() ? absl::StrCat(sub, "[", i, "]") : sub, &names, depth + 1));
      }
    }
  }
  // The converter dereferences a null value (SIGSEGV) for a main-graph output that nothing produces. The
  // checks above keep "" out of every scope, so an output without a name is one.
  return CheckOutputsDefined(graph, path, names);
}

}  // namespace

absl::Status ValidateGraphs(const onnx::ModelProto& model) {
  if (!model.has_graph()) return absl::InvalidArgumentError("the model has no graph");
  // The default-domain opset the nodes' schemas are looked up at; none when the imports do not name one
  // clearly (Legalize refuses such a model on its own terms).
  std::optional<int64_t> opset;
  const absl::StatusOr<int64_t> imported = DefaultOpset(model);
  if (imported.ok() && *imported <= std::numeric_limits<int>::max()) opset = *imported;
  return ValidateGraph(model.graph(), kMainGraphPath, nullptr, 0, opset);
}

absl::Status ValidateGraphsForConverter(const onnx::GraphProto& graph) {
  return ValidateGraphForConverter(graph, kMainGraphPath, nullptr, 0);
}

}  // namespace onnx_legalize
