// The skeleton: the copy of the caller's model that onnx 1.23's version converter sees, small and safe for
// it, from which upgrade/splice.cc later takes only what the converter changed.
//
// Why the converter must not see the model itself (read from onnx 1.23.2 convert.cc,
// common/ir_pb_converter.cc, common/ir.h and the adapters):
//   - it looks every default-domain node's op_type up in a table of all schemas by name alone: an op with no
//     schema (DynamicSlice, ImageScaler, ...) fails its assertion; 1.12's loop, which StepConverter replays in
//     chunks, also looked up nodes of other domains (a custom "Slice" was "converted" as Slice) and spun
//     forever on the experimental ConstantFill, both of which 1.23's skips;
//   - its IR copies all initializer data twice, while no upward adapter reads the values of constant inputs
//     (only the downward AxesInputToAttribute, AxisInputToAttribute and Split_13_12 do), so the converter never
//     needs initializer data; shape inference can use small ones;
//   - a node an adapter replaces (Upsample-9 -> Resize-10, Scatter-10 -> ScatterElements-11) loses its name
//     and its output is renamed unless it is a graph output.
//
// So in the skeleton every value name is replaced by "v<k>" and every node is named "n<k>", its index in a
// table of the original nodes (upgrade/names.h); nodes the converter must not touch (DynamicSlice,
// other domains, large Constants) become an inert stand-in (Not, an op whose only schema is its first, in a
// domain where it has none, so shape inference skips it) that keeps their inputs, outputs and subgraphs (a
// DynamicSlice's stand-in has a schema there, whose inference keeps its data's element type and rank); large
// or external initializers become typed placeholders (graph inputs in the main graph, value_info in subgraphs,
// where graph inputs are positional); the outputs of nodes an adapter replaces are exposed as graph outputs
// so that the IR hands their names to the replacement.
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "graph/untyped_era_ops.h"
#include "onnx/common/version.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "upgrade/internal.h"
#include "upgrade/stand_in_schema.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// Constants (initializers, Constant nodes) whose payload is larger than this reach the converter only as a
// type and shape: the converter copies tensor data through its IR, and no upward adapter reads it. Smaller
// ones stay so that shape inference can read shape-like values (Reshape's shape, ...).
constexpr int64_t kMaxInlineConstantBytes = 4096;

// The skeleton's IR version: >= 4 so that initializers need not be graph inputs; the IR does not matter to
// the converter otherwise, and the caller's model keeps its own.
constexpr int64_t kSkeletonIrVersion = 8;

int64_t PayloadBytes(const TensorProto& t) {
  int64_t bytes = static_cast<int64_t>(t.raw_data().size());
  bytes += int64_t{4} * (t.float_data_size() + t.int32_data_size());
  bytes += int64_t{8} * (t.int64_data_size() + t.double_data_size() + t.uint64_data_size());
  for (const auto& s : t.string_data()) bytes += static_cast<int64_t>(s.size());
  return bytes;
}

absl::Status BuildSkeletonGraph(const GraphProto& graph, const std::string& path, bool is_main, const Move& move,
                                Skeleton& skeleton, GraphProto* out);

absl::Status BuildSkeletonNode(const NodeProto& node, const GraphProto& owner, const std::string& path,
                               const Move& move, Skeleton& skeleton, GraphProto* out) {
  const size_t index = skeleton.records.size();
  skeleton.records.push_back(NodeRecord{&node, &owner, false, {}, path});
  skeleton.records_by_owner[&owner].push_back(static_cast<int64_t>(index));

  const bool opaque = ShownAsStandIn(node, move);
  const TensorProto* constant = ConstantValue(node);
  if (!opaque) RETURN_IF_ERROR(CheckOpKnownAtSourceOpset(node, path, move));

  NodeProto* s = out->add_node();
  s->set_name(NameCodec::NodeTag(index));
  for (const auto& in : node.input()) s->add_input(skeleton.codec.Encode(in));
  for (const auto& o : node.output()) s->add_output(skeleton.codec.Encode(o));
  if (opaque) {
    s->set_op_type(ShownAsRankKeepingStandIn(node, move.pass_through) ? kRankKeepingStandInOp : kStandInOp);
    s->set_domain(kStandInDomain);
    if (constant != nullptr && node.output_size() == 1) {
      *out->add_value_info() = TypedPlaceholder(s->output(0), constant->data_type(), constant->dims());
    }
  } else {
    s->set_op_type(OpTypeShownToConverter(node, move));
  }
  for (const auto& attr : node.attribute()) {
    if (attr.type() == AttributeProto::GRAPH) {
      AttributeProto* a = s->add_attribute();
      a->set_name(attr.name());
      a->set_type(AttributeProto::GRAPH);
      RETURN_IF_ERROR(BuildSkeletonGraph(attr.g(), SubgraphPath(path, node, attr.name(), attr.g()), false, move,
                                         skeleton, a->mutable_g()));
      continue;
    }
    if (attr.type() == AttributeProto::GRAPHS && attr.graphs_size() > 0) {
      // The converter recurses into GRAPH attributes only; no default-domain op has GRAPHS.
      return absl::UnimplementedError(absl::StrCat(InGraph(NodeLabel(node), path), ": attribute '", attr.name(),
                                                   "' holds a list of graphs, which cannot be converted"));
    }
    // Sparse tensors make the converter's IR import throw; no adapter reads them.
    const bool hide = opaque || attr.type() == AttributeProto::SPARSE_TENSOR ||
                      attr.type() == AttributeProto::SPARSE_TENSORS || attr.type() == AttributeProto::GRAPHS;
    if (hide) {
      skeleton.records[index].hidden_attributes.insert(attr.name());
      continue;
    }
    *s->add_attribute() = attr;
  }
  skeleton.records[index].opaque = opaque;
  return absl::OkStatus();
}

// Appends to `out` the skeleton of `graph` (at `path`; `is_main` for the main graph), recording its nodes in
// skeleton.records.
absl::Status BuildSkeletonGraph(const GraphProto& graph, const std::string& path, bool is_main, const Move& move,
                                Skeleton& skeleton, GraphProto* out) {
  out->set_name(graph.name());
  std::unordered_set<std::string> input_names;
  for (const auto& v : graph.input()) {
    ValueInfoProto* vi = out->add_input();
    *vi = v;
    vi->clear_doc_string();
    vi->set_name(skeleton.codec.Encode(v.name()));
    input_names.insert(v.name());
  }
  for (const auto& v : graph.output()) {
    ValueInfoProto* vi = out->add_output();
    *vi = v;
    vi->clear_doc_string();
    vi->set_name(skeleton.codec.Encode(v.name()));
  }
  for (const auto& v : graph.value_info()) {
    ValueInfoProto* vi = out->add_value_info();
    *vi = v;
    vi->clear_doc_string();
    vi->set_name(skeleton.codec.Encode(v.name()));
  }
  // A constant the converter need not copy becomes a typed placeholder: a graph input in the main graph, and
  // a value_info entry in a subgraph (whose inputs are positional; the converter treats the unresolved name
  // as a capture from the enclosing scope).
  auto placeholder = [&](const std::string& name, int32_t elem_type,
                         const google::protobuf::RepeatedField<int64_t>& dims) {
    ValueInfoProto vi = TypedPlaceholder(skeleton.codec.Encode(name), elem_type, dims);
    if (!is_main) {
      *out->add_value_info() = std::move(vi);
    } else if (input_names.count(name) == 0) {
      *out->add_input() = std::move(vi);
    }
  };
  for (const auto& t : graph.initializer()) {
    if (InlineConstant(t)) {
      TensorProto* copy = out->add_initializer();
      *copy = t;
      copy->clear_doc_string();
      copy->set_name(skeleton.codec.Encode(t.name()));
    } else {
      placeholder(t.name(), t.data_type(), t.dims());
    }
  }
  for (const auto& t : graph.sparse_initializer()) placeholder(t.values().name(), t.values().data_type(), t.dims());
  for (const auto& node : graph.node()) RETURN_IF_ERROR(BuildSkeletonNode(node, graph, path, move, skeleton, out));
  return absl::OkStatus();
}

// After shape inference: the outputs of nodes an adapter replaces by a new node become graph outputs, so
// that onnx's IR (Value::replaceAllUsesWith) gives the replacement the original output names (CastLike moved down:
// upgrade/down_replacements.cc).
void ExposeReplacedOutputs(const Move& move, GraphProto* graph) {
  std::unordered_set<std::string> outputs;
  for (const auto& v : graph->output()) outputs.insert(v.name());
  for (auto& node : *graph->mutable_node()) {
    ForEachMutableSubgraph(node,
                           [&](const std::string&, GraphProto& subgraph) { ExposeReplacedOutputs(move, &subgraph); });
    const bool replaced =
        (node.op_type() == kUpsample && move.Crosses(10)) || (node.op_type() == kScatter && move.Crosses(11)) ||
        (node.op_type() == kCastLike && move.CrossesDown(15)) ||
        (node.op_type() == kHardSwish && move.CrossesDown(14)) || (node.op_type() == kResize && move.CrossesDown(10)) ||
        (node.op_type() == kMish && move.CrossesDown(18)) || (node.op_type() == kEqual && move.CrossesDown(11)) ||
        (node.op_type() == kUnsqueeze && move.CrossesDown(11));
    if (!replaced || node.domain() == kStandInDomain) continue;
    for (const auto& o : node.output()) {
      if (!o.empty() && outputs.insert(o).second) graph->add_output()->set_name(o);
    }
  }
}

// Moving down: a copy of each small constant a subgraph reads from an enclosing graph (an initializer, or a Constant
// node's value), as an initializer of the subgraph under the same name. onnx's IR gives a captured value a dummy
// producer in the subgraph and no link to the enclosing graph, and the converter hands an adapter the subgraph alone,
// while the down-adapters that take an input into an attribute or count indices from the front read its value
// (upgrade/down_inputs_to_attributes.cc ConstantTensor): PyTorch writes an If's branches reading the main graph's
// Constants. The splice takes no initializer of the skeleton back (upgrade/splice.cc): the caller's graphs keep theirs.
void CopyCapturedConstants(GraphProto* graph, const std::unordered_map<std::string, const TensorProto*>& outer) {
  std::unordered_set<std::string> local = DefinedNames(*graph);
  std::vector<std::string> captured;  // in order of first use, for a deterministic skeleton
  for (const auto& node : graph->node()) {
    for (const auto& in : node.input()) {
      if (outer.count(in) > 0 && local.insert(in).second) captured.push_back(in);
    }
  }
  for (const std::string& name : captured) {
    TensorProto* copy = graph->add_initializer();
    *copy = *outer.at(name);
    copy->set_name(name);
  }
  // What the graphs in this one see: the enclosing graphs' constants, but those this one hides, and its own (every
  // constant left in the skeleton is small: large ones are stand-ins and placeholders).
  std::unordered_map<std::string, const TensorProto*> visible;
  for (const auto& [name, constant] : outer) {
    if (local.count(name) == 0) visible.emplace(name, constant);
  }
  std::unordered_set<std::string> inputs;
  for (const auto& v : graph->input()) inputs.insert(v.name());
  for (const auto& t : graph->initializer()) {
    if (inputs.count(t.name()) == 0) visible[t.name()] = &t;  // one that is also an input may be fed otherwise
  }
  for (const auto& node : graph->node()) {
    const TensorProto* value = ConstantValue(node);
    if (value != nullptr && node.output_size() == 1) visible[node.output(0)] = value;
  }
  for (auto& node : *graph->mutable_node()) {
    ForEachMutableSubgraph(
        node, [&](const std::string&, GraphProto& subgraph) { CopyCapturedConstants(&subgraph, visible); });
  }
}

// Runs onnx's shape inference on `model` when it succeeds; leaves the model as it is when it throws (a model
// whose declared types contradict inference is still converted where no adapter needs them).
void InferShapesIfConsistent(ModelProto& model) {
  ModelProto inferred = model;
  try {
    onnx::shape_inference::InferShapes(inferred);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (...) {
    return;
  }
  model.Swap(&inferred);
}

// The type onnx's inference gave `name` in `graph` (an input, output or value_info entry), or null.
const onnx::TypeProto* InferredType(const GraphProto& graph, const std::string& name) {
  for (const auto* values : {&graph.input(), &graph.value_info(), &graph.output()}) {
    for (const ValueInfoProto& value : *values) {
      if (value.name() == name && value.has_type() && value.type().has_tensor_type() &&
          value.type().tensor_type().elem_type() != 0) {
        return &value.type();
      }
    }
  }
  return nullptr;
}

// The known dims of `name` (-1 for an unknown one), or nullopt when its shape is not known.
std::optional<std::vector<int64_t>> InferredDims(const GraphProto& graph, const std::string& name) {
  const onnx::TypeProto* type = InferredType(graph, name);
  if (type == nullptr || !type->tensor_type().has_shape()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& dim : type->tensor_type().shape().dim()) dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  return dims;
}

// Declares every output of a recurrent op of the first opsets (graph/untyped_era_ops.h) from its X, `x`: X's
// element type, and Y's and Y_h's dims where X's are known (a CoreML GRU's Y_h feeds an FC, whose Softmax's
// 12 -> 13 adapter reads the rank). The number declared.
int DeclareRecurrentOutputs(GraphProto& graph, const NodeProto& node, const onnx::TypeProto& x) {
  const std::optional<std::vector<int64_t>> x_dims = InferredDims(graph, node.input(0));
  int declared = 0;
  for (int k = 0; k < node.output_size(); ++k) {
    if (node.output(k).empty() || InferredType(graph, node.output(k)) != nullptr) continue;
    ValueInfoProto* value = graph.add_value_info();
    value->set_name(node.output(k));
    onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(x.tensor_type().elem_type());
    if (std::optional<std::vector<int64_t>> dims =
            x_dims.has_value() ? RecurrentOutputDims(node, *x_dims, k) : std::nullopt) {
      for (int64_t dim : *dims) {
        auto* added = tensor->mutable_shape()->add_dim();
        if (dim >= 0) added->set_dim_value(dim);
      }
    }
    ++declared;
  }
  return declared;
}

// Declares the first output of each main-graph node onnx 1.23 cannot type at `opset` (graph/untyped_era_ops.h)
// whose first input inference typed (every output of a recurrent op); the number declared.
int DeclareUntypedEraOutputs(GraphProto& graph, int64_t opset) {
  int declared = 0;
  for (const NodeProto& node : graph.node()) {
    if (!IsDefaultDomain(node.domain()) || !IsUntypedEraNode(node, opset)) continue;
    if (InferredType(graph, node.output(0)) != nullptr) continue;
    const onnx::TypeProto* input = InferredType(graph, node.input(0));
    if (input == nullptr) continue;
    if (IsRecurrentOp(node.op_type())) {
      declared += DeclareRecurrentOutputs(graph, node, *input);
      continue;
    }
    ValueInfoProto* value = graph.add_value_info();
    value->set_name(node.output(0));
    onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(input->tensor_type().elem_type());
    if (UntypedEraOpKeepsShape(node.op_type()) && input->tensor_type().has_shape()) {
      *tensor->mutable_shape() = input->tensor_type().shape();
    } else if (std::optional<std::vector<int64_t>> dims =
                   EraOutputDims(node, [&](int i) { return InferredDims(graph, node.input(i)); })) {
      for (int64_t dim : *dims) {
        auto* added = tensor->mutable_shape()->add_dim();
        if (dim >= 0) added->set_dim_value(dim);
      }
    }
    ++declared;
  }
  return declared;
}

// Whether any declaration of `name` in `graph` (inference may have added one with an element type alone) has a
// shape.
bool ShapeDeclared(const GraphProto& graph, const std::string& name) {
  for (const auto* values : {&graph.input(), &graph.value_info(), &graph.output()}) {
    for (const ValueInfoProto& value : *values) {
      if (value.name() == name && value.type().has_tensor_type() && value.type().tensor_type().has_shape()) return true;
    }
  }
  return false;
}

// Declares the rank of each main-graph Reshape output (Reshape-5 on, the shape an input) that inference left
// without a shape, where the shape input's length is known: the output has that many dims, each unknown. onnx's
// Reshape-5 and -13 (1.12 and 1.23 alike; Reshape-14 on infer the rank) infer nothing from a shape computed at
// run time (PyTorch's detectors reshape to [batch, -1, 2] so), and the adapters after one read its rank: Resize
// 10 -> 11 sizes its roi by it, Softmax 12 -> 13 keeps a Softmax over the last axis as it is (1.12's stopped
// without it: "input shape is unknown"). The number declared.
int DeclareReshapeRanks(GraphProto& graph) {
  int declared = 0;
  for (const NodeProto& node : graph.node()) {
    if (!IsDefaultDomain(node.domain()) || node.op_type() != kReshape || node.input_size() != 2) continue;
    if (ShapeDeclared(graph, node.output(0))) continue;
    const onnx::TypeProto* data = InferredType(graph, node.input(0));
    const std::optional<std::vector<int64_t>> shape_dims = InferredDims(graph, node.input(1));
    if (data == nullptr || !shape_dims.has_value() || shape_dims->size() != 1 || (*shape_dims)[0] < 0) continue;
    ValueInfoProto* value = graph.add_value_info();
    value->set_name(node.output(0));
    onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(data->tensor_type().elem_type());
    onnx::TensorShapeProto* shape = tensor->mutable_shape();
    for (int64_t d = 0; d < (*shape_dims)[0]; ++d) shape->add_dim();
    ++declared;
  }
  return declared;
}

// Shape inference through the ops of opsets 1-6 that onnx cannot type, and through Reshapes to shapes computed
// at run time: inference, then their outputs declared from their inputs, again while that declares more (each
// round types the model up to the next such node). Some adapters (the 6 -> 7 legacy broadcasts, Softmax 12 ->
// 13) read the shapes.
void InferShapesThroughEraOps(ModelProto& model, int64_t opset) {
  InferShapesIfConsistent(model);
  auto declare_more = [&] {
    const int era = opset < 7 ? DeclareUntypedEraOutputs(*model.mutable_graph(), opset) : 0;
    return era + DeclareReshapeRanks(*model.mutable_graph());
  };
  // Each round declares values not declared before, so the rounds are at most the nodes.
  for (int round = 0; round <= model.graph().node_size() && declare_more() > 0; ++round) {
    InferShapesIfConsistent(model);
  }
}

}  // namespace

bool InlineConstant(const TensorProto& t) {
  return t.data_location() != TensorProto::EXTERNAL && t.external_data_size() == 0 && !t.has_segment() &&
         PayloadBytes(t) <= kMaxInlineConstantBytes;
}

ValueInfoProto TypedPlaceholder(const std::string& name, int32_t elem_type,
                                const google::protobuf::RepeatedField<int64_t>& dims) {
  ValueInfoProto vi;
  vi.set_name(name);
  auto* tensor_type = vi.mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  auto* shape = tensor_type->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  return vi;
}

const TensorProto* ConstantValue(const NodeProto& node) {
  if (node.op_type() != kConstantOp || !IsDefaultDomain(node.domain())) return nullptr;
  for (const auto& attr : node.attribute()) {
    if (attr.name() == "value" && attr.has_t()) return &attr.t();
  }
  return nullptr;
}

bool ShownAsStandIn(const NodeProto& node, const Move& move) {
  if (!IsDefaultDomain(node.domain()) || node.op_type() == kDynamicSliceOp) return true;
  // The removed ops pass through untouched, as DynamicSlice does; their rules rewrite them afterwards.
  if (move.pass_through.passes_through && move.pass_through.passes_through(node, move.from)) return true;
  const TensorProto* constant = ConstantValue(node);
  return constant != nullptr && !InlineConstant(*constant);  // Constant never changes meaning
}

absl::Status CheckOpKnownAtSourceOpset(const NodeProto& node, const std::string& where, const Move& move) {
  if (onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(move.from), "") != nullptr) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat(InGraph(NodeLabel(node), where), ": op '", node.op_type(), "' is not defined in default opset ",
                   move.from, " of onnx " ONNX_VERSION_STRING ", so it cannot be moved to opset ", move.to));
}

namespace {

// Sets every dim of `type` (tensors, at any depth of sequences and optionals) that has no size to 1.
void SizeUnsizedDims(onnx::TypeProto& type) {
  if (type.has_tensor_type() && type.tensor_type().has_shape()) {
    for (auto& dim : *type.mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (!dim.has_dim_value()) dim.set_dim_value(1);
    }
  }
  if (type.has_sequence_type()) SizeUnsizedDims(*type.mutable_sequence_type()->mutable_elem_type());
  if (type.has_optional_type()) SizeUnsizedDims(*type.mutable_optional_type()->mutable_elem_type());
}

void SizeUnsizedDims(GraphProto& graph) {
  for (auto* values : {graph.mutable_input(), graph.mutable_output(), graph.mutable_value_info()}) {
    for (ValueInfoProto& value : *values) SizeUnsizedDims(*value.mutable_type());
  }
  for (NodeProto& node : *graph.mutable_node()) {
    ForEachMutableSubgraph(node, [](const std::string&, GraphProto& subgraph) { SizeUnsizedDims(subgraph); });
  }
}

}  // namespace

absl::StatusOr<Skeleton> BuildSkeleton(const ModelProto& model, const Move& move) {
  Skeleton skeleton;
  ModelProto& shown = skeleton.model;
  shown.set_ir_version(kSkeletonIrVersion);
  auto* default_import = shown.add_opset_import();
  default_import->set_domain("");
  default_import->set_version(move.from);
  auto* hidden_import = shown.add_opset_import();
  hidden_import->set_domain(kStandInDomain);
  hidden_import->set_version(1);
  RETURN_IF_ERROR(BuildSkeletonGraph(model.graph(), kMainGraphPath, true, move, skeleton, shown.mutable_graph()));
  InferShapesThroughEraOps(shown, move.from);
  AddCaptureTypes(shown.mutable_graph(), {});
  skeleton.types = CollectKnownTypes(shown.graph(), move);
  // onnx's 6->7 adapters of Gemm and of the legacy broadcasts (1.12 and 1.23 alike) assert that every dim of their
  // operands is a number (assertNotParams), though they only read ranks and check that the operands broadcast: a
  // symbolic batch, as every exporter of the time wrote it, stopped the move. The converter sees such dims as 1,
  // which broadcasts with anything; no adapter writes a dim it reads into the model (1.23's Softmax 12->13 takes
  // the shape at run time), and Softmax's fix reads the dims collected above, before the substitution.
  if (move.from < 7 && move.Crosses(7)) SizeUnsizedDims(*shown.mutable_graph());
  if (move.Down()) CopyCapturedConstants(shown.mutable_graph(), {});
  ExposeReplacedOutputs(move, shown.mutable_graph());
  return skeleton;
}

}  // namespace onnx_legalize::opset_upgrade
