#include "graph/graph_validation.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "graph/external_reference.h"
#include "graph/graph_scope.h"
#include "graph/labels.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/subgraphs.h"
#include "onnx/defs/schema.h"

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
// Of external data, the reference is checked here when `external_references` (graph/external_reference.h: a
// model in memory may point anywhere), the bytes where they are read (their length is in external_data).
absl::Status ValidateTensorSizes(const onnx::TensorProto& tensor, const std::string& what, bool external_references) {
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
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    return external_references ? ParseExternalDataRef(tensor, what).status() : absl::OkStatus();
  }
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

// An initializer agrees with what its graph declares of it as an input: the same element type, and where the
// declaration has a shape, the same rank and each declared size. onnx's strict inference finds the same
// contradictions, but only in the initializers it sees: the light copy it checks (graph/model_skeleton.h)
// leaves the large ones out, and the declaration alone would stand for them. A data_type no onnx knows is
// refused here for the same reason.
absl::Status CheckInitializerDeclared(const onnx::TensorProto& initializer, const onnx::ValueInfoProto* declared,
                                      const std::string& what) {
  const int32_t type = initializer.data_type();
  if (type == onnx::TensorProto::UNDEFINED || !onnx::TensorProto_DataType_IsValid(type)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": data_type ", type, " is no element type onnx knows"));
  }
  if (declared == nullptr || !declared->type().has_tensor_type()) return absl::OkStatus();
  const onnx::TypeProto::Tensor& tensor = declared->type().tensor_type();
  const std::string dims = absl::StrCat("[", absl::StrJoin(initializer.dims(), ", "), "]");
  if (tensor.elem_type() != 0 && tensor.elem_type() != type) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is ", DataTypeName(type), " ", dims,
                                                   ", but the graph input of that name is declared ",
                                                   DataTypeName(tensor.elem_type())));
  }
  if (!tensor.has_shape()) return absl::OkStatus();
  bool agrees = tensor.shape().dim_size() == initializer.dims_size();
  for (int d = 0; agrees && d < tensor.shape().dim_size(); ++d) {
    const onnx::TensorShapeProto::Dimension& dim = tensor.shape().dim(d);
    agrees = !dim.has_dim_value() || dim.dim_value() == initializer.dims(d);
  }
  if (agrees) return absl::OkStatus();
  std::vector<std::string> declared_dims;
  for (const auto& dim : tensor.shape().dim()) {
    declared_dims.push_back(dim.has_dim_value()   ? absl::StrCat(dim.dim_value())
                            : dim.has_dim_param() ? dim.dim_param()
                                                  : "?");
  }
  return absl::InvalidArgumentError(absl::StrCat(what, " has dims ", dims,
                                                 ", but the graph input of that name is declared with dims [",
                                                 absl::StrJoin(declared_dims, ", "), "]"));
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

// One initializer of the graph at `path`, whose graph inputs are `inputs`: its sizes (ValidateTensorSizes) and, with
// `declaration`, its agreement with its declaration as an input (CheckInitializerDeclared).
absl::Status ValidateInitializer(const onnx::TensorProto& initializer,
                                 const absl::flat_hash_map<absl::string_view, const onnx::ValueInfoProto*>& inputs,
                                 const std::string& path, bool external_references, bool declaration) {
  const std::string what = InGraph(absl::StrCat("initializer '", initializer.name(), "'"), path);
  RETURN_IF_ERROR(ValidateTensorSizes(initializer, what, external_references));
  if (!declaration) return absl::OkStatus();
  auto declared = inputs.find(initializer.name());
  return CheckInitializerDeclared(initializer, declared == inputs.end() ? nullptr : declared->second, what);
}

// What one walk checks besides the structure every graph must have.
struct WalkRules {
  // The default-domain opset to check nodes against their schemas at; none: no schema checks.
  std::optional<int64_t> schema_opset;
  // What only onnx's converter needs: graph inputs and initializers named, inputs listed once, every
  // attribute typed.
  bool converter_names = false;
  // Each initializer agrees with its own declaration as a graph input (CheckInitializerDeclared): what onnx's
  // check of the light copy cannot see. Legalize's validation, not the converter's.
  bool initializer_declarations = false;
  // Every external data reference readable (graph/external_reference.h). Legalize's validation, not the
  // converter's: the driver's copies stand in for large initializers with references of no location.
  bool external_references = false;
};

// The walk over a graph and, depth first, its subgraphs. Names are defined as the walk meets them, so a node
// sees the graph's inputs and initializers, the outputs of the nodes before it, and the names of the
// graphs enclosing its own.
class Validator {
 public:
  explicit Validator(const WalkRules& rules) : rules_(rules) {}

  absl::Status Graph(const onnx::GraphProto& graph, const std::string& path, const Names* outer, int depth) const {
    // The upgrade recurses through subgraphs as this walk does: the bound keeps both off the end of the stack.
    if (depth > kMaxSubgraphDepth) {
      return absl::InvalidArgumentError(absl::StrCat("graph ", path, " is nested ", depth, " levels deep; at most ",
                                                     kMaxSubgraphDepth, " are supported"));
    }
    Names names;
    names.outer = outer;
    names.defined.reserve(CountDefinedNames(graph));
    RETURN_IF_ERROR(DefineInputs(graph, path, names));
    RETURN_IF_ERROR(DefineInitializers(graph, path, names));
    for (int i = 0; i < graph.node_size(); ++i) RETURN_IF_ERROR(Node(graph.node(i), i, path, depth, names));
    // The converter dereferences a null value (SIGSEGV) for a main-graph output that nothing produces.
    return CheckOutputsDefined(graph, path, names);
  }

 private:
  absl::Status DefineInputs(const onnx::GraphProto& graph, const std::string& path, Names& names) const {
    for (const auto& input : graph.input()) {
      const bool added = names.defined.insert(input.name()).second;
      if (!rules_.converter_names) continue;
      if (input.name().empty())
        return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": an input has no name"));
      if (!added) {
        return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": input '", input.name(), "' is listed twice"));
      }
    }
    return absl::OkStatus();
  }

  // One value per initializer name: of two, a fold would read whichever it met first, and a runtime perhaps
  // the other. (An initializer may also be a graph input: a default the caller overrides.)
  absl::Status DefineInitializers(const onnx::GraphProto& graph, const std::string& path, Names& names) const {
    absl::flat_hash_set<absl::string_view> initializers;
    initializers.reserve(static_cast<size_t>(graph.initializer_size()) +
                         static_cast<size_t>(graph.sparse_initializer_size()));
    auto add = [&](const std::string& name) -> absl::Status {
      if (name.empty() && rules_.converter_names) {
        return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": an initializer has no name"));
      }
      if (!name.empty() && !initializers.insert(name).second) {
        return absl::InvalidArgumentError(absl::StrCat("graph ", path, ": initializer '", name, "' is defined twice"));
      }
      names.defined.insert(name);
      return absl::OkStatus();
    };
    absl::flat_hash_map<absl::string_view, const onnx::ValueInfoProto*> inputs;
    for (const auto& input : graph.input()) inputs.emplace(input.name(), &input);
    for (const auto& initializer : graph.initializer()) {
      RETURN_IF_ERROR(add(initializer.name()));
      RETURN_IF_ERROR(
          ValidateInitializer(initializer, inputs, path, rules_.external_references, rules_.initializer_declarations));
    }
    for (const auto& sparse : graph.sparse_initializer()) RETURN_IF_ERROR(add(sparse.values().name()));
    return absl::OkStatus();
  }

  absl::Status Node(const onnx::NodeProto& node, int i, const std::string& path, int depth, Names& names) const {
    RETURN_IF_ERROR(CheckInputsAndAttributes(node, i, path, names));
    if (rules_.schema_opset.has_value()) {
      RETURN_IF_ERROR(CheckAgainstSchema(
          node, [&] { return InGraph(NodeLabelAt(node, i), path); }, rules_.schema_opset));
    }
    RETURN_IF_ERROR(Subgraphs(node, path, depth, names));
    for (const auto& output : node.output()) {
      if (output.empty() || names.defined.insert(output).second) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "graph ", path, ": '", output, "' is defined twice (again as an output of ", NodeLabelAt(node, i), ")"));
    }
    return absl::OkStatus();
  }

  // A node's inputs defined before it (by `names`; which also catches cycles, since ONNX requires nodes in
  // topological order), its attributes named once and typed (ApplyDynamicSlices finds a subgraph again by its owner's
  // first output, the attribute's name and the graph's index: graph/graph_locator.h, so each of the three
  // must name one thing), its tensors' sizes consistent.
  absl::Status CheckInputsAndAttributes(const onnx::NodeProto& node, int i, const std::string& path,
                                        const Names& names) const {
    const std::string label = InGraph(NodeLabelAt(node, i), path);
    for (const auto& input : node.input()) {
      if (input.empty() || names.Visible(input)) continue;
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": input '", input,
                       "' is not defined by any graph input, initializer or earlier node (an undefined name, "
                       "nodes out of topological order, or a cycle)"));
    }
    absl::flat_hash_set<absl::string_view> attribute_names;
    for (const auto& attribute : node.attribute()) {
      auto invalid = [&](absl::string_view why) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": attribute '", attribute.name(), "' ", why));
      };
      if (!attribute_names.insert(attribute.name()).second) return invalid("appears twice");
      if (attribute.has_g() && attribute.graphs_size() > 0) return invalid("holds both g and graphs");
      if (rules_.converter_names && attribute.type() == onnx::AttributeProto::UNDEFINED) return invalid("has no type");
      if (attribute.has_t()) {
        RETURN_IF_ERROR(ValidateTensorSizes(attribute.t(), absl::StrCat(label, ": attribute '", attribute.name(), "'"),
                                            rules_.external_references));
      }
    }
    if (HoldsSubgraph(node) && (node.output_size() == 0 || node.output(0).empty())) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": holds a subgraph but has no output to name it by"));
    }
    return absl::OkStatus();
  }

  absl::Status Subgraphs(const onnx::NodeProto& node, const std::string& path, int depth, const Names& names) const {
    for (const auto& attribute : node.attribute()) {
      if (attribute.has_g()) {
        RETURN_IF_ERROR(
            Graph(attribute.g(), SubgraphPath(path, node, attribute.name(), attribute.g()), &names, depth + 1));
      }
      for (int g = 0; g < attribute.graphs_size(); ++g) {
        // An unnamed graph of a list is told from its siblings by its index.
        const onnx::GraphProto& subgraph = attribute.graphs(g);
        std::string subgraph_path = SubgraphPath(path, node, attribute.name(), subgraph);
        if (subgraph.name().empty()) absl::StrAppend(&subgraph_path, "[", g, "]");
        RETURN_IF_ERROR(Graph(subgraph, subgraph_path, &names, depth + 1));
      }
    }
    return absl::OkStatus();
  }

  const WalkRules rules_;
};

}  // namespace

absl::Status ValidateGraphs(const onnx::ModelProto& model) {
  if (!model.has_graph()) return absl::InvalidArgumentError("the model has no graph");
  // The default-domain opset the nodes' schemas are looked up at; none when the imports do not name one
  // clearly (Legalize refuses such a model on its own terms).
  WalkRules rules;
  rules.initializer_declarations = true;
  rules.external_references = true;
  const absl::StatusOr<int64_t> imported = DefaultOpset(model);
  if (imported.ok() && *imported <= std::numeric_limits<int>::max()) rules.schema_opset = *imported;
  return Validator(rules).Graph(model.graph(), kMainGraphPath, nullptr, 0);
}

absl::Status ValidateInitializers(const onnx::GraphProto& graph, const std::string& path) {
  absl::flat_hash_map<absl::string_view, const onnx::ValueInfoProto*> inputs;
  for (const auto& input : graph.input()) inputs.emplace(input.name(), &input);
  for (const auto& initializer : graph.initializer()) {
    RETURN_IF_ERROR(ValidateInitializer(initializer, inputs, path, /*external_references=*/true, /*declaration=*/true));
  }
  absl::Status status;
  for (const auto& node : graph.node()) {
    ForEachSubgraph(node, [&](const std::string& attribute, const onnx::GraphProto& subgraph) {
      if (status.ok()) status = ValidateInitializers(subgraph, SubgraphPath(path, node, attribute, subgraph));
    });
    RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

absl::Status ValidateGraphsForConverter(const onnx::GraphProto& graph) {
  WalkRules rules;
  rules.converter_names = true;
  return Validator(rules).Graph(graph, kMainGraphPath, nullptr, 0);
}

}  // namespace onnx_legalize
