// UpgradeDefaultOpset: onnx 1.12's version converter, wrapped.
//
// What onnx::version_conversion::ConvertVersion (1.12) does, and why it is not called on the model itself
// (read from onnx v1.12.0 convert.cc, common/ir_pb_converter.cc, common/ir.h and the adapters):
//   - it looks every node's op_type up in a table of all schemas by name alone (`all_schemas.at`): an op with
//     no schema (DynamicSlice, ImageScaler, ...) throws std::out_of_range, a node of another domain whose
//     op_type is also a default-domain op name (a custom "Slice") would be "converted" as that op, and the
//     experimental ConstantFill sends it into an endless loop;
//   - it goes through onnx's IR, which keeps only nodes, tensor-typed values and initializers: model-local
//     functions, training_info, sparse initializers, non-tensor types, external-data references, tensor doc
//     strings and every field newer than the IR are dropped; dims above 2^31 are truncated; all initializer
//     data is copied twice;
//   - values it creates are named with a per-graph counter ("7", "12"), which collides with the numeric
//     names old PyTorch exports are full of, and across nested graphs;
//   - a node an adapter replaces (Upsample-9 -> Resize-10, Scatter-10 -> ScatterElements-11) loses its name
//     and doc_string, and its output is renamed unless it is a graph output;
//   - it runs no shape inference, yet Softmax/LogSoftmax 12->13 need the input's shape (they throw without
//     it), Resize 10->11 needs its rank, Gemm and broadcasting 6->7 need shapes;
//   - it dies with SIGSEGV when a main-graph output is produced by nothing.
//   - adapter bugs that change meaning: Pad 10->11 throws when the optional `value` attribute is absent;
//     Clip 10->11 and Pad 10->11 always make float min/max/constant_value inputs, invalid for double and
//     float16 data; Resize 10->11 keeps Resize-11's defaults (half_pixel, round_prefer_floor) where Resize-10
//     meant asymmetric coordinates and floor; Softmax 12->13 writes symbolic dims as -1 and unknown ones as
//     uninitialized memory (Dimension() leaves `dim` unset) into a Reshape constant, and that Reshape (no
//     allowzero at 13) copies a 0-sized dim from its 2-D input; Hardmax 12->13 is registered as compatible
//     though its axis semantics changed exactly like Softmax's.
//   - no upward adapter reads the values of constant inputs (only the downward AxesInputToAttribute and
//     Split_13_12 do), so the converter never needs initializer data; shape inference can use small ones.
//
// So the converter gets a skeleton, and its result is spliced back:
//   skeleton: every value name is replaced by "v<k>" (never numeric, so a converter-made name can never be
//     mistaken for one of ours), every node is named "n<k>" (its index in a table of the original nodes);
//     nodes the converter must not touch (DynamicSlice, other domains, large Constants) become an inert
//     stand-in (an op with a single schema version 1, in an unregistered domain so shape inference skips it)
//     that keeps their inputs, outputs and subgraphs; large or external initializers become typed
//     placeholders (graph inputs in the main graph, value_info in subgraphs, where graph inputs are
//     positional); the outputs of nodes an adapter replaces are exposed as graph outputs so that the IR hands
//     their names to the replacement.
//   splice: each graph's node list is rebuilt from the converted one: tagged nodes are copies of the original
//     NodeProto with only op-relevant fields (inputs, outputs, changed attributes) taken from the converter;
//     stand-ins become the original nodes again; converter-made nodes are new, converter-made values get
//     names that occur nowhere in the model, converter-made initializers become Constant nodes. Graph
//     inputs, outputs, initializers, value_info, doc strings and everything at model level are the caller's.
#include "opset_upgrade.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph_validation.h"
#include "onnx/common/ir.h"
#include "onnx/common/ir_pb_converter.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"
#include "opset_upgrade_labels.h"
#include "status_macros.h"

namespace onnx_legalize {
namespace {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::ModelProto;
using onnx::NodeProto;
using onnx::TensorProto;
using onnx::ValueInfoProto;

constexpr char kDynamicSlice[] = "DynamicSlice";
constexpr char kConstant[] = "Constant";
constexpr char kShape[] = "Shape";
constexpr char kFlatten[] = "Flatten";
constexpr char kReshape[] = "Reshape";
constexpr char kResize[] = "Resize";
constexpr char kUpsample[] = "Upsample";
constexpr char kScatter[] = "Scatter";
constexpr char kSoftmax[] = "Softmax";
constexpr char kLogSoftmax[] = "LogSoftmax";
constexpr char kHardmax[] = "Hardmax";
constexpr char kClip[] = "Clip";
constexpr char kPad[] = "Pad";

// The stand-in for nodes the converter must not touch. Softsign has a single schema (since version 1), so
// no adapter can match it on the way up; the converter still recurses into its graph attributes. Its domain
// is registered nowhere, so shape inference skips it instead of inferring Softsign.
constexpr char kStandInOp[] = "Softsign";
constexpr char kStandInDomain[] = "onnx_legalize.hidden";

// The skeleton's IR version: >= 4 so that initializers need not be graph inputs; the IR does not matter to
// the converter otherwise, and the caller's model keeps its own.
constexpr int64_t kSkeletonIrVersion = 8;

// Constants (initializers, Constant nodes) whose payload is larger than this reach the converter only as a
// type and shape: the converter copies tensor data through its IR, and no upward adapter reads it. Smaller
// ones stay so that shape inference can read shape-like values (Reshape's shape, ...).
constexpr int64_t kMaxInlineConstantBytes = 4096;

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

using opset_upgrade::GraphLabel;
using opset_upgrade::NodeLabel;
using opset_upgrade::SubgraphPath;

// ---------------------------------------------------------------------------------------------------------
// Names.

// Original value names <-> skeleton names "v<k>". Node tags "n<k>" index the node table.
class NameCodec {
 public:
  std::string Encode(const std::string& name) {
    if (name.empty()) return name;
    auto [it, inserted] = codes_.emplace(name, decoded_.size());
    if (inserted) decoded_.push_back(name);
    return absl::StrCat("v", it->second);
  }
  // The original name, or nullptr for a name the converter made.
  const std::string* Decode(const std::string& code) const {
    int64_t index = ParseIndex(code, 'v');
    if (index < 0 || index >= static_cast<int64_t>(decoded_.size())) return nullptr;
    return &decoded_[static_cast<size_t>(index)];
  }
  static std::string NodeTag(size_t index) { return absl::StrCat("n", index); }
  // The node-table index of a tag, or -1.
  static int64_t NodeIndex(const std::string& tag) { return ParseIndex(tag, 'n'); }

 private:
  static int64_t ParseIndex(const std::string& code, char prefix) {
    if (code.size() < 2 || code[0] != prefix) return -1;
    if (code[1] == '0' && code.size() > 2) return -1;
    for (size_t i = 1; i < code.size(); ++i) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(code[i]))) return -1;
    }
    int64_t value = 0;
    if (!absl::SimpleAtoi(code.substr(1), &value)) return -1;
    return value;
  }

  std::unordered_map<std::string, size_t> codes_;
  std::vector<std::string> decoded_;
};

// Hands out value names that occur nowhere in the model (any graph) and were not handed out before.
class FreshNames {
 public:
  void Reserve(const std::string& name) {
    if (!name.empty()) taken_.insert(name);
  }
  std::string Make(const std::string& base) {
    std::string candidate = base;
    for (int64_t k = 1; taken_.count(candidate) > 0; ++k) candidate = absl::StrCat(base, "_", k);
    taken_.insert(candidate);
    return candidate;
  }

 private:
  std::unordered_set<std::string> taken_;
};

void ReserveGraphNames(const GraphProto& graph, FreshNames& names) {
  for (const auto& v : graph.input()) names.Reserve(v.name());
  for (const auto& v : graph.output()) names.Reserve(v.name());
  for (const auto& v : graph.value_info()) names.Reserve(v.name());
  for (const auto& t : graph.initializer()) names.Reserve(t.name());
  for (const auto& t : graph.sparse_initializer()) names.Reserve(t.values().name());
  for (const auto& node : graph.node()) {
    for (const auto& n : node.input()) names.Reserve(n);
    for (const auto& n : node.output()) names.Reserve(n);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) ReserveGraphNames(attr.g(), names);
      for (const auto& g : attr.graphs()) ReserveGraphNames(g, names);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Skeleton.

struct NodeRecord {
  const NodeProto* original = nullptr;
  const GraphProto* owner = nullptr;  // the original graph holding the node
  bool opaque = false;                // shown to the converter as a stand-in
  std::set<std::string> hidden_attributes;  // attributes the skeleton does not carry; restored verbatim
};

struct Context {
  int64_t from = 0;
  int64_t to = 0;
  NameCodec codec;
  FreshNames fresh;
  std::vector<NodeRecord> records;
  std::unordered_map<const GraphProto*, std::vector<int64_t>> records_by_owner;  // in node order
  // Element types of skeleton values (by skeleton name) as the skeleton (after shape inference) states them;
  // a name typed differently in two scopes is left out.
  std::unordered_map<std::string, int32_t> elem_types;
  std::unordered_set<std::string> ambiguous_types;
  // Sizes of skeleton values as the skeleton (after shape inference) declares them, per dim its dim_value or
  // -1 (unknown, symbolic or negative); a name declared with two ranks or two values for a dim, or defined in
  // two graphs (sibling branches), is left out.
  std::unordered_map<std::string, std::vector<int64_t>> known_dims;
  std::unordered_set<std::string> ambiguous_dims;
};

bool Crosses(const Context& ctx, int64_t version) { return ctx.from < version && ctx.to >= version; }

int64_t PayloadBytes(const TensorProto& t) {
  int64_t bytes = static_cast<int64_t>(t.raw_data().size());
  bytes += 4 * (t.float_data_size() + t.int32_data_size());
  bytes += 8 * (t.int64_data_size() + t.double_data_size() + t.uint64_data_size());
  for (const auto& s : t.string_data()) bytes += static_cast<int64_t>(s.size());
  return bytes;
}

bool InlineConstant(const TensorProto& t) {
  return t.data_location() != TensorProto::EXTERNAL && t.external_data_size() == 0 && !t.has_segment() &&
         PayloadBytes(t) <= kMaxInlineConstantBytes;
}

ValueInfoProto TypedPlaceholder(const std::string& name, int32_t elem_type, const google::protobuf::RepeatedField<int64_t>& dims) {
  ValueInfoProto vi;
  vi.set_name(name);
  auto* tensor_type = vi.mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  auto* shape = tensor_type->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  return vi;
}

const TensorProto* ConstantValue(const NodeProto& node) {
  if (node.op_type() != kConstant || !IsDefaultDomain(node.domain())) return nullptr;
  for (const auto& attr : node.attribute()) {
    if (attr.name() == "value" && attr.has_t()) return &attr.t();
  }
  return nullptr;
}

absl::Status BuildSkeletonGraph(const GraphProto& graph, const std::string& path, bool is_main, Context& ctx,
                                GraphProto* out);

absl::Status BuildSkeletonNode(const NodeProto& node, const GraphProto& owner, const std::string& path, Context& ctx,
                               GraphProto* out) {
  const size_t index = ctx.records.size();
  ctx.records.push_back(NodeRecord{&node, &owner, false, {}});
  ctx.records_by_owner[&owner].push_back(static_cast<int64_t>(index));
  const std::string where = GraphLabel(path);

  bool opaque = !IsDefaultDomain(node.domain()) || node.op_type() == kDynamicSlice;
  const TensorProto* constant = ConstantValue(node);
  if (constant != nullptr && !InlineConstant(*constant)) opaque = true;  // Constant never changes meaning
  if (!opaque && onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(ctx.from), "") == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("node ", NodeLabel(node), " (graph ", where, "): op '",
                                                      node.op_type(), "' is not defined in default opset ", ctx.from,
                                                      " of onnx 1.12, so it cannot be moved to opset ", ctx.to));
  }

  NodeProto* s = out->add_node();
  s->set_name(NameCodec::NodeTag(index));
  for (const auto& in : node.input()) s->add_input(ctx.codec.Encode(in));
  for (const auto& o : node.output()) s->add_output(ctx.codec.Encode(o));
  if (opaque) {
    s->set_op_type(kStandInOp);
    s->set_domain(kStandInDomain);
    if (constant != nullptr && node.output_size() == 1) {
      *out->add_value_info() = TypedPlaceholder(s->output(0), constant->data_type(), constant->dims());
    }
  } else {
    s->set_op_type(node.op_type());
    // Hardmax 12->13 is registered in onnx 1.12 as compatible, but Hardmax-13 reads `axis` as one axis where
    // Hardmax-1/11 flatten to 2-D at it, exactly like Softmax: let Softmax's adapter restructure it.
    if (node.op_type() == kHardmax && Crosses(ctx, 13)) s->set_op_type(kSoftmax);
  }
  for (const auto& attr : node.attribute()) {
    if (attr.type() == AttributeProto::GRAPH) {
      AttributeProto* a = s->add_attribute();
      a->set_name(attr.name());
      a->set_type(AttributeProto::GRAPH);
      RETURN_IF_ERROR(BuildSkeletonGraph(attr.g(), SubgraphPath(path, node, attr.name()), false, ctx, a->mutable_g()));
      continue;
    }
    if (attr.type() == AttributeProto::GRAPHS && attr.graphs_size() > 0) {
      // The converter recurses into GRAPH attributes only; no default-domain op has GRAPHS.
      return absl::UnimplementedError(absl::StrCat("node ", NodeLabel(node), " (graph ", where, "): attribute '",
                                                   attr.name(), "' holds a list of graphs, which cannot be converted"));
    }
    // Sparse tensors make the converter's IR import throw; no adapter reads them.
    const bool hide = opaque || attr.type() == AttributeProto::SPARSE_TENSOR ||
                      attr.type() == AttributeProto::SPARSE_TENSORS || attr.type() == AttributeProto::GRAPHS;
    if (hide) {
      ctx.records[index].hidden_attributes.insert(attr.name());
      continue;
    }
    *s->add_attribute() = attr;
  }
  // Pad-2 defaults `value` to 0, but onnx 1.12's Pad 10->11 adapter reads it unconditionally (and throws).
  if (!opaque && node.op_type() == kPad && Crosses(ctx, 11)) {
    bool constant_mode = true, has_value = false;
    for (const auto& attr : node.attribute()) {
      if (attr.name() == "mode") constant_mode = attr.s() == "constant";
      if (attr.name() == "value") has_value = true;
    }
    if (constant_mode && !has_value) {
      AttributeProto* a = s->add_attribute();
      a->set_name("value");
      a->set_type(AttributeProto::FLOAT);
      a->set_f(0.0f);
    }
  }
  ctx.records[index].opaque = opaque;
  return absl::OkStatus();
}

absl::Status BuildSkeletonGraph(const GraphProto& graph, const std::string& path, bool is_main, Context& ctx,
                                GraphProto* out) {
  out->set_name(graph.name());
  std::unordered_set<std::string> input_names;
  for (const auto& v : graph.input()) {
    ValueInfoProto* vi = out->add_input();
    *vi = v;
    vi->clear_doc_string();
    vi->set_name(ctx.codec.Encode(v.name()));
    input_names.insert(v.name());
  }
  for (const auto& v : graph.output()) {
    ValueInfoProto* vi = out->add_output();
    *vi = v;
    vi->clear_doc_string();
    vi->set_name(ctx.codec.Encode(v.name()));
  }
  for (const auto& v : graph.value_info()) {
    ValueInfoProto* vi = out->add_value_info();
    *vi = v;
    vi->clear_doc_string();
    vi->set_name(ctx.codec.Encode(v.name()));
  }
  // A constant the converter need not copy becomes a typed placeholder: a graph input in the main graph, and
  // a value_info entry in a subgraph (whose inputs are positional; the converter treats the unresolved name
  // as a capture from the enclosing scope).
  auto placeholder = [&](const std::string& name, int32_t elem_type, const google::protobuf::RepeatedField<int64_t>& dims) {
    ValueInfoProto vi = TypedPlaceholder(ctx.codec.Encode(name), elem_type, dims);
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
      copy->set_name(ctx.codec.Encode(t.name()));
    } else {
      placeholder(t.name(), t.data_type(), t.dims());
    }
  }
  for (const auto& t : graph.sparse_initializer()) placeholder(t.values().name(), t.values().data_type(), t.dims());
  for (const auto& node : graph.node()) RETURN_IF_ERROR(BuildSkeletonNode(node, graph, path, ctx, out));
  return absl::OkStatus();
}

// After shape inference: the outputs of nodes an adapter replaces by a new node become graph outputs, so
// that onnx's IR (Value::replaceAllUsesWith) gives the replacement the original output names.
void ExposeReplacedOutputs(const Context& ctx, GraphProto* graph) {
  std::unordered_set<std::string> outputs;
  for (const auto& v : graph->output()) outputs.insert(v.name());
  for (auto& node : *graph->mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) ExposeReplacedOutputs(ctx, attr.mutable_g());
    }
    const bool replaced = (node.op_type() == kUpsample && Crosses(ctx, 10)) || (node.op_type() == kScatter && Crosses(ctx, 11));
    if (!replaced || node.domain() == kStandInDomain) continue;
    for (const auto& o : node.output()) {
      if (!o.empty() && outputs.insert(o).second) graph->add_output()->set_name(o);
    }
  }
}

// onnx's IR gives a value a subgraph captures from an enclosing graph no type (a dummy "Captured" node),
// while adapters in the subgraph read its shape (Softmax 12->13 on an outer value): repeat the enclosing
// graphs' knowledge as value_info of the subgraph.
void AddCaptureTypes(GraphProto* graph, const std::unordered_map<std::string, onnx::TypeProto>& outer) {
  std::unordered_set<std::string> local;
  std::unordered_map<std::string, onnx::TypeProto> visible = outer;
  auto note = [&](const ValueInfoProto& vi) {
    if (vi.has_type()) visible[vi.name()] = vi.type();
  };
  for (const auto& v : graph->input()) local.insert(v.name());
  for (const auto& t : graph->initializer()) local.insert(t.name());
  for (const auto& node : graph->node()) {
    for (const auto& o : node.output()) local.insert(o);
  }
  std::unordered_set<std::string> typed;
  for (const auto& v : graph->value_info()) typed.insert(v.name());
  for (const auto& v : graph->input()) typed.insert(v.name());
  for (const auto& v : graph->output()) typed.insert(v.name());
  std::vector<std::string> captured;  // in order of first use, for a deterministic skeleton
  auto use = [&](const std::string& name) {
    if (!name.empty() && local.count(name) == 0 && typed.count(name) == 0 && outer.count(name) > 0) {
      typed.insert(name);
      captured.push_back(name);
    }
  };
  for (const auto& node : graph->node()) {
    for (const auto& in : node.input()) use(in);
  }
  for (const auto& v : graph->output()) use(v.name());
  for (const auto& name : captured) {
    ValueInfoProto* vi = graph->add_value_info();
    vi->set_name(name);
    *vi->mutable_type() = outer.at(name);
  }
  for (const auto& v : graph->input()) note(v);
  for (const auto& v : graph->output()) note(v);
  for (const auto& v : graph->value_info()) note(v);
  for (const auto& t : graph->initializer()) {
    visible[t.name()] = TypedPlaceholder(t.name(), t.data_type(), t.dims()).type();
  }
  for (auto& node : *graph->mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) AddCaptureTypes(attr.mutable_g(), visible);
    }
  }
}

void CollectElemTypes(const GraphProto& graph, Context& ctx) {
  auto note = [&](const std::string& name, int32_t type) {
    if (type == TensorProto::UNDEFINED || ctx.ambiguous_types.count(name) > 0) return;
    auto [it, inserted] = ctx.elem_types.emplace(name, type);
    if (!inserted && it->second != type) {
      ctx.elem_types.erase(it);
      ctx.ambiguous_types.insert(name);
    }
  };
  auto note_vi = [&](const ValueInfoProto& vi) {
    if (vi.type().has_tensor_type()) note(vi.name(), vi.type().tensor_type().elem_type());
  };
  for (const auto& v : graph.input()) note_vi(v);
  for (const auto& v : graph.output()) note_vi(v);
  for (const auto& v : graph.value_info()) note_vi(v);
  for (const auto& t : graph.initializer()) note(t.name(), t.data_type());
  for (const auto& node : graph.node()) {
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectElemTypes(attr.g(), ctx);
    }
  }
}

// The inputs of the Softmax and LogSoftmax nodes of the skeleton (Hardmax shows as Softmax), which the
// 12->13 adapter restructures.
void CollectSoftmaxInputs(const GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    if ((node.op_type() == kSoftmax || node.op_type() == kLogSoftmax) && node.domain() != kStandInDomain &&
        node.input_size() > 0) {
      names.insert(node.input(0));
    }
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectSoftmaxInputs(attr.g(), names);
    }
  }
}

// Fills ctx.known_dims for the `wanted` names from the skeleton's declarations; `defined` gathers which of
// them the graphs seen so far define (inputs, initializers, node outputs). An initializer's dims count only
// where it is no graph input (there it is a default the caller may override with another shape).
void CollectKnownDims(const GraphProto& graph, const std::unordered_set<std::string>& wanted, Context& ctx,
                      std::unordered_set<std::string>& defined) {
  auto forget = [&](const std::string& name) {
    ctx.known_dims.erase(name);
    ctx.ambiguous_dims.insert(name);
  };
  auto define = [&](const std::string& name) {
    if (wanted.count(name) > 0 && !defined.insert(name).second) forget(name);
  };
  auto note = [&](const std::string& name, std::vector<int64_t> dims) {
    if (wanted.count(name) == 0 || ctx.ambiguous_dims.count(name) > 0) return;
    auto [it, inserted] = ctx.known_dims.emplace(name, dims);
    if (inserted) return;
    if (it->second.size() != dims.size()) return forget(name);
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] < 0) continue;
      if (it->second[k] >= 0 && it->second[k] != dims[k]) return forget(name);
      it->second[k] = dims[k];
    }
  };
  auto note_vi = [&](const ValueInfoProto& vi) {
    if (wanted.count(vi.name()) == 0) return;
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
    }
    note(vi.name(), std::move(dims));
  };
  std::unordered_set<std::string> wanted_inputs;
  for (const auto& v : graph.input()) {
    if (wanted.count(v.name()) > 0) wanted_inputs.insert(v.name());
    define(v.name());
  }
  for (const auto& t : graph.initializer()) {
    if (wanted_inputs.count(t.name()) == 0) define(t.name());
  }
  for (const auto& node : graph.node()) {
    for (const auto& o : node.output()) define(o);
  }
  for (const auto& v : graph.input()) note_vi(v);
  for (const auto& v : graph.output()) note_vi(v);
  for (const auto& v : graph.value_info()) note_vi(v);
  for (const auto& t : graph.initializer()) {
    if (wanted.count(t.name()) > 0 && wanted_inputs.count(t.name()) == 0) {
      note(t.name(), std::vector<int64_t>(t.dims().begin(), t.dims().end()));
    }
  }
  for (const auto& node : graph.node()) {
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectKnownDims(attr.g(), wanted, ctx, defined);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Conversion in chunks.
//
// onnx 1.12's IR names every value it creates (Value's constructor calls Graph::getNextUnique) and checks
// each candidate name against every node of the graph (Graph::isNameUnique), so importing a graph of n
// nodes costs O(n^2): a 6,000-node chain took ~19 s. The converter is therefore run on the main graph in
// chunks of at most kChunkNodes nodes, each its own onnx::Graph, with the same result as one conversion of
// the whole graph:
//   - only nodes the converter would touch enter a chunk: nodes whose op has a schema change in
//     (from, to] (convert_graph hands them to an adapter), nodes with subgraphs (it recurses into them),
//     and, conservatively, nodes holding tensors (the IR rebuilds them). Every other node is left as it
//     is, as the converter leaves it. A run of such nodes inside a chunk is marked by a fence, an inert
//     stand-in without inputs or outputs, so that nodes an adapter inserts before or after its node
//     land on the same side of them as in one conversion;
//   - the steps run in the converter's order: version by version, and within a version node by node,
//     chunk after chunk (DefaultVersionConverter::convert_graph, replayed by StepConverter below);
//   - a value one chunk produces and another reads is a Value in each of their graphs: before a chunk
//     converts, its boundary values take the element type and sizes the whole graph's IR would give them
//     now, and after it converts they hand back what its adapters made of them (an adapter may change the
//     sizes of its inputs, Scan 8->9 does);
//   - no upward adapter of onnx 1.12 reads another node or a graph-wide property but through these
//     values, and values adapters make never leave their chunk (they feed the adapted node); their names
//     get a chunk prefix, since every chunk's IR counts from 1.

// Nodes the converter touches per chunk. A chunk's import costs O(k^2) in its node count k, a chunk's
// fixed cost (building, importing and exporting a small model) favours larger chunks; 64 balances the two
// (measured in bench/, see README).
constexpr int64_t kChunkNodes = 64;

constexpr char kFencePrefix[] = "fence";

// DefaultVersionConverter with its step loop exposed: convert_graph for one version step, unchanged in
// effect (it is private in onnx 1.12), and the test it applies to decide whether a node meets an adapter.
class StepConverter : public onnx::version_conversion::DefaultVersionConverter {
 public:
  // Whether convert_graph hands a node of `op_type` to an adapter at some step from `from` to `to`.
  bool Adapts(const std::string& op_type, int64_t from, int64_t to) const {
    if (op_type == "Undefined" || op_type == "Captured") return false;
    auto op = all_schemas.find(op_type);
    if (op == all_schemas.end()) return true;  // convert_graph would throw: let it, in a chunk
    auto versions = op->second.find("");
    if (versions == op->second.end()) return false;
    for (int64_t v = from + 1; v <= to; ++v) {
      if (versions->second.count(v) > 0) return true;
    }
    return false;
  }

  // convert_graph(g, curr, curr + 1).
  void ConvertStep(const std::shared_ptr<onnx::Graph>& g, int64_t curr) const {
    const onnx::OpSetID curr_id(curr);
    const onnx::OpSetID next_id(curr + 1);
    size_t domain_index = 0;
    for (size_t i = 0; i < g->opset_versions_mutable().size(); ++i) {
      if (g->opset_versions_mutable()[i].domain().empty()) domain_index = i;
    }
    onnx::graph_node_list_iterator it = g->begin();
    while (it != g->end()) {
      onnx::Node* node = *it;
      const std::string op_name = node->kind().toString();
      // (convert_graph spins forever on ConstantFill; such a node never reaches the converter here.)
      if (op_name == "ConstantFill") throw std::runtime_error("ConstantFill reached the converter");
      if (op_name != "Undefined" && op_name != "Captured") {
        const auto& domains = all_schemas.at(op_name);
        const auto versions = domains.find("");
        if (versions != domains.end() && versions->second.count(curr + 1) > 0) {
          node = adapter_lookup(node, curr_id, next_id).adapt(g, node);
          it = onnx::graph_node_list_iterator(node, onnx::kNextDirection);
        }
        for (const auto& attr : node->attributeNames()) {
          if (node->kindOf(attr) == onnx::AttributeKind::g) ConvertStep(node->g(attr), curr);
        }
      }
      ++it;
    }
    g->opset_versions_mutable()[domain_index].incrementVersion(1);
  }
};

// What onnx's IR knows of a value's type: an element type and, maybe, sizes.
struct IrType {
  int32_t elem_type = TensorProto::UNDEFINED;
  bool has_sizes = false;
  std::vector<onnx::Dimension> sizes;
};

// graphProtoToGraph's reading of a shape (dims pass through int, as there). An unknown dim is onnx 1.12's
// Dimension(), which sets only is_unknown and leaves `dim` and `is_int` uninitialized, and the Softmax 12->13
// adapter copies `dim` into its Reshape constant whatever the dim is: set them here as a symbolic dim has
// them, so that a chunk's adapter reads -1 rather than leftover memory (graphProtoToGraph's own import, used
// for whole-graph conversion, still leaves them uninitialized).
std::vector<onnx::Dimension> IrSizes(const onnx::TensorShapeProto& shape) {
  std::vector<onnx::Dimension> sizes;
  for (const auto& dim : shape.dim()) {
    if (dim.has_dim_value()) {
      sizes.emplace_back(static_cast<int64_t>(static_cast<int>(dim.dim_value())));
    } else if (dim.has_dim_param()) {
      sizes.emplace_back(dim.dim_param());
    } else {
      sizes.emplace_back();
      sizes.back().is_int = false;
      sizes.back().dim = -1;
    }
  }
  return sizes;
}

// graphProtoToGraph's reading of a value_info entry over what is known already.
void Overlay(const ValueInfoProto& info, IrType& type) {
  const auto& tensor_type = info.type().tensor_type();
  if (tensor_type.has_elem_type()) type.elem_type = tensor_type.elem_type();
  if (tensor_type.has_shape()) {
    type.has_sizes = true;
    type.sizes = IrSizes(tensor_type.shape());
  }
}

IrType TypeOf(const onnx::Value* value) {
  IrType type;
  type.elem_type = value->elemType();
  type.has_sizes = value->has_sizes();
  if (type.has_sizes) type.sizes = value->sizes();
  return type;
}

void SetType(onnx::Value* value, const IrType& type) {
  value->setElemType(type.elem_type);
  if (type.has_sizes) {
    value->setSizes(type.sizes);
  } else {
    value->wipeSizes();
  }
}

// Every name the subgraphs of `node` refer to (a superset of what they capture from outside).
void CollectSubgraphReferences(const GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    for (const auto& in : node.input()) names.insert(in);
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectSubgraphReferences(attr.g(), names);
      for (const auto& g : attr.graphs()) CollectSubgraphReferences(g, names);
    }
  }
  for (const auto& out : graph.output()) names.insert(out.name());
}

// Whether a subgraph of the main graph reads the output of a Softmax or LogSoftmax (Hardmax shows as
// Softmax) that the 12->13 adapter restructures. That adapter collects the output's uses, subgraph reads
// included (Value::uses), and renames it (Value::setUniqueName renames captures in every subgraph): what it
// does then depends on nodes anywhere in the graph, so such a graph is converted whole.
bool SubgraphReadsARestructuredValue(const GraphProto& graph, const Context& ctx) {
  if (!Crosses(ctx, 13)) return false;
  std::unordered_set<std::string> restructured;
  for (const auto& node : graph.node()) {
    if (node.op_type() != kSoftmax && node.op_type() != kLogSoftmax) continue;
    if (node.domain() == kStandInDomain) continue;
    for (const auto& out : node.output()) restructured.insert(out);
  }
  if (restructured.empty()) return false;
  std::unordered_set<std::string> read;
  for (const auto& node : graph.node()) {
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectSubgraphReferences(attr.g(), read);
    }
  }
  for (const auto& name : read) {
    if (restructured.count(name) > 0) return true;
  }
  return false;
}

// Whether the converter would leave every node as it is: no node of the main graph holds a subgraph,
// meets an adapter between the two opsets (by op type, as convert_graph decides) or holds a tensor, so a
// conversion in chunks would convert nothing and hand every node back unchanged. FailedPrecondition, as
// BuildSkeletonNode says it, for a default-domain op onnx 1.12 does not know at the model's opset.
absl::StatusOr<bool> NothingToConvert(const GraphProto& graph, const Context& ctx, const StepConverter& converter) {
  std::unordered_map<std::string, bool> adapts;
  for (const auto& node : graph.node()) {
    for (const auto& attr : node.attribute()) {
      if (attr.has_g() || attr.graphs_size() > 0) return false;
    }
    const TensorProto* constant = ConstantValue(node);
    const bool opaque = !IsDefaultDomain(node.domain()) || node.op_type() == kDynamicSlice ||
                        (constant != nullptr && !InlineConstant(*constant));
    if (opaque) continue;  // a stand-in, which no adapter meets
    auto [it, inserted] = adapts.emplace(node.op_type(), false);
    if (inserted) {
      if (onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(ctx.from), "") == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            "node ", NodeLabel(node), " (graph main): op '", node.op_type(), "' is not defined in default opset ",
            ctx.from, " of onnx 1.12, so it cannot be moved to opset ", ctx.to));
      }
      it->second = converter.Adapts(node.op_type(), ctx.from, ctx.to);
    }
    if (it->second) return false;
    for (const auto& attr : node.attribute()) {
      if (attr.has_t() || attr.tensors_size() > 0) return false;
    }
  }
  return true;
}

struct Chunk {
  ModelProto model;                // what the converter imports
  std::vector<std::string> inputs;   // boundary values read here, made elsewhere
  std::vector<std::string> outputs;  // boundary values made here, read elsewhere (or graph outputs)
  std::shared_ptr<onnx::Graph> graph;
  // Fence name -> the skeleton nodes it stands for [first, last).
  std::unordered_map<std::string, std::pair<int, int>> fences;
};

// The skeleton's main graph converted from ctx.from to ctx.to in chunks of at most `chunk_nodes` converted
// nodes; returns a graph whose nodes, converter-made initializers and outputs are those one conversion of
// the whole skeleton would give (up to the names of converter-made values).
absl::StatusOr<GraphProto> ConvertMainGraphInChunks(const ModelProto& skeleton, const Context& ctx,
                                                    const StepConverter& converter, int64_t chunk_nodes) {
  const GraphProto& graph = skeleton.graph();
  const int n = graph.node_size();

  // Which nodes the converter touches, and their chunks.
  std::vector<int> chunk_of(static_cast<size_t>(n), -1);
  std::unordered_map<std::string, bool> adapts;
  int chunks = 0;
  int64_t in_chunk = 0;
  for (int i = 0; i < n; ++i) {
    const NodeProto& node = graph.node(i);
    bool touched = false;
    for (const auto& attr : node.attribute()) {
      touched = touched || attr.has_g() || attr.graphs_size() > 0 || attr.has_t() || attr.tensors_size() > 0;
    }
    if (!touched) {
      auto [it, inserted] = adapts.emplace(node.op_type(), false);
      if (inserted) it->second = converter.Adapts(node.op_type(), ctx.from, ctx.to);
      touched = it->second;
    }
    if (!touched) continue;
    if (in_chunk == 0) ++chunks;
    chunk_of[static_cast<size_t>(i)] = chunks - 1;
    in_chunk = (in_chunk + 1) % chunk_nodes;
  }

  // Where each value is made and read: node index of its producer, and whether anything outside the
  // producer's chunk reads it.
  constexpr int kNotANode = -1;
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i) {
    for (const auto& out : graph.node(i).output()) {
      if (!out.empty()) producer.emplace(out, i);
    }
  }
  auto chunk_making = [&](const std::string& name) {
    auto it = producer.find(name);
    return it == producer.end() ? kNotANode : chunk_of[static_cast<size_t>(it->second)];
  };
  std::unordered_set<std::string> read_outside;  // read outside the chunk that makes it
  for (const auto& out : graph.output()) read_outside.insert(out.name());
  for (int i = 0; i < n; ++i) {
    const NodeProto& node = graph.node(i);
    const int here = chunk_of[static_cast<size_t>(i)];
    std::unordered_set<std::string> captured;
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectSubgraphReferences(attr.g(), captured);
    }
    auto note = [&](const std::string& name) {
      if (name.empty()) return;
      const int maker = chunk_making(name);
      if (maker >= 0 && maker != here) read_outside.insert(name);
    };
    for (const auto& in : node.input()) note(in);
    for (const auto& name : captured) note(name);
  }

  // The IR's view of every boundary value before conversion, as graphProtoToGraph would build it from the
  // whole skeleton: inputs, initializers (IR >= 4), then graph outputs and value_info over them.
  std::unordered_map<std::string, IrType> types;
  std::unordered_set<std::string> graph_inputs;
  for (const auto& v : graph.input()) {
    graph_inputs.insert(v.name());
    IrType type;
    Overlay(v, type);
    types[v.name()] = type;
  }
  for (const auto& t : graph.initializer()) {
    if (graph_inputs.count(t.name()) > 0) continue;
    IrType type;
    type.elem_type = t.data_type();
    type.has_sizes = true;
    for (int64_t d : t.dims()) type.sizes.emplace_back(d);
    types[t.name()] = type;
  }
  for (const auto& v : graph.output()) Overlay(v, types[v.name()]);
  std::unordered_map<std::string, std::vector<const ValueInfoProto*>> value_info;
  for (const auto& v : graph.value_info()) {
    Overlay(v, types[v.name()]);
    value_info[v.name()].push_back(&v);
  }

  // Build and import the chunks.
  // Each chunk spans [first_of[c], last_of[c]]; the nodes between its own are untouched ones.
  std::vector<int> first_of(static_cast<size_t>(chunks), -1), last_of(static_cast<size_t>(chunks), -1);
  for (int i = 0; i < n; ++i) {
    const int c = chunk_of[static_cast<size_t>(i)];
    if (c < 0) continue;
    if (first_of[static_cast<size_t>(c)] < 0) first_of[static_cast<size_t>(c)] = i;
    last_of[static_cast<size_t>(c)] = i;
  }
  std::vector<Chunk> parts(static_cast<size_t>(chunks));
  {
    for (int c = 0; c < chunks; ++c) {
      Chunk& part = parts[static_cast<size_t>(c)];
      part.model.set_ir_version(skeleton.ir_version());
      *part.model.mutable_opset_import() = skeleton.opset_import();
      GraphProto* g = part.model.mutable_graph();
      g->set_name(graph.name());
      std::unordered_set<std::string> made, read;
      std::vector<const std::string*> read_order;
      const int last = last_of[static_cast<size_t>(c)];
      for (int j = first_of[static_cast<size_t>(c)]; j <= last;) {
        if (chunk_of[static_cast<size_t>(j)] != c) {
          const int first = j;
          while (chunk_of[static_cast<size_t>(j)] != c) ++j;
          const std::string fence = absl::StrCat(kFencePrefix, first);
          part.fences[fence] = {first, j};
          NodeProto* f = g->add_node();
          f->set_name(fence);
          f->set_op_type(kStandInOp);
          f->set_domain(kStandInDomain);
          continue;
        }
        const NodeProto& node = graph.node(j);
        for (const auto& in : node.input()) {
          if (!in.empty() && made.count(in) == 0 && read.insert(in).second) read_order.push_back(&in);
        }
        for (const auto& out : node.output()) {
          if (!out.empty()) made.insert(out);
        }
        *g->add_node() = node;
        ++j;
      }
      // Everything read from outside, initializers included, comes in as a graph input whose type is set
      // below: no upward adapter tells an initializer from an input (both are kParam values to the IR),
      // and so every boundary value is one whose type can be kept in step with the other chunks.
      for (const std::string* name : read_order) {
        g->add_input()->set_name(*name);
        part.inputs.push_back(*name);
      }
      for (const auto& node : g->node()) {
        for (const auto& out : node.output()) {
          if (out.empty()) continue;
          if (read_outside.count(out) > 0) {
            g->add_output()->set_name(out);
            part.outputs.push_back(out);
          }
          auto vi = value_info.find(out);
          if (vi == value_info.end()) continue;
          for (const ValueInfoProto* v : vi->second) *g->add_value_info() = *v;
        }
      }
      part.graph = std::shared_ptr<onnx::Graph>(onnx::ImportModelProto(part.model));
      if (part.graph == nullptr) return absl::InternalError("onnx's IR did not import a chunk of the graph");
      part.model.clear_graph();
    }
  }

  // Step by step, chunk by chunk, as convert_graph goes through the whole graph. A node output nothing
  // declares is UNDEFINED without sizes, as graphProtoToGraph leaves it.
  const IrType unknown;
  auto type_of = [&](const std::string& name) -> const IrType& {
    auto it = types.find(name);
    return it == types.end() ? unknown : it->second;
  };
  for (int64_t version = ctx.from; version < ctx.to; ++version) {
    for (Chunk& part : parts) {
      for (onnx::Value* v : part.graph->inputs()) SetType(v, type_of(v->uniqueName()));
      for (onnx::Value* v : part.graph->outputs()) SetType(v, type_of(v->uniqueName()));
      converter.ConvertStep(part.graph, version);
      for (onnx::Value* v : part.graph->inputs()) types[v->uniqueName()] = TypeOf(v);
      for (onnx::Value* v : part.graph->outputs()) types[v->uniqueName()] = TypeOf(v);
    }
  }

  // Export and merge: untouched nodes as they are, each chunk's nodes where its first node stood, fences
  // replaced by the nodes they stand for, converter-made names prefixed with the chunk.
  GraphProto merged;
  merged.set_name(graph.name());
  *merged.mutable_output() = graph.output();
  std::vector<GraphProto> exported(parts.size());
  for (size_t c = 0; c < parts.size(); ++c) {
    ModelProto out;
    onnx::ExportModelProto(&out, parts[c].graph);
    parts[c].graph.reset();
    exported[c].Swap(out.mutable_graph());
    const GraphProto& g = exported[c];
    bool same = g.output_size() == static_cast<int>(parts[c].outputs.size()) &&
                g.input_size() == static_cast<int>(parts[c].inputs.size());
    for (int k = 0; same && k < g.output_size(); ++k) same = g.output(k).name() == parts[c].outputs[k];
    for (int k = 0; same && k < g.input_size(); ++k) same = g.input(k).name() == parts[c].inputs[k];
    if (!same) return absl::InternalError("the converter renamed a value that crosses chunks of the graph");
  }
  auto rename = [&](std::string* name, size_t c) {
    if (!name->empty() && ctx.codec.Decode(*name) == nullptr) *name = absl::StrCat("c", c, "_", *name);
  };
  for (size_t c = 0; c < exported.size(); ++c) {
    for (const auto& t : exported[c].initializer()) {
      if (ctx.codec.Decode(t.name()) != nullptr) continue;
      TensorProto* copy = merged.add_initializer();
      *copy = t;
      rename(copy->mutable_name(), c);
    }
  }
  for (int i = 0; i < n; ++i) {
    const int c = chunk_of[static_cast<size_t>(i)];
    if (c < 0) {
      *merged.add_node() = graph.node(i);
      continue;
    }
    const Chunk& part = parts[static_cast<size_t>(c)];
    for (auto& node : *exported[static_cast<size_t>(c)].mutable_node()) {
      auto fence = part.fences.find(node.name());
      if (fence != part.fences.end() && node.domain() == kStandInDomain) {
        for (int j = fence->second.first; j < fence->second.second; ++j) *merged.add_node() = graph.node(j);
        continue;
      }
      for (auto& in : *node.mutable_input()) rename(&in, static_cast<size_t>(c));
      for (auto& out : *node.mutable_output()) rename(&out, static_cast<size_t>(c));
      merged.add_node()->Swap(&node);
    }
    i = last_of[static_cast<size_t>(c)];  // the chunk's span is emitted
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------------------
// Splice.

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

// IEEE half from float, round to nearest even.
uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (abs < 0x38800000u) {                                                // subnormal half or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14..24
    uint32_t half = mant >> (shift);
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

// Rewrites a float scalar/vector tensor to `elem_type` (double or float16).
void RetypeFloatTensor(TensorProto* t, int32_t elem_type) {
  std::vector<float> values(t->float_data().begin(), t->float_data().end());
  if (t->raw_data().size() % sizeof(float) == 0 && !t->raw_data().empty()) {
    values.resize(t->raw_data().size() / sizeof(float));
    std::memcpy(values.data(), t->raw_data().data(), t->raw_data().size());
  }
  t->clear_float_data();
  t->clear_raw_data();
  t->set_data_type(elem_type);
  for (float v : values) {
    if (elem_type == TensorProto::DOUBLE) {
      t->add_double_data(static_cast<double>(v));
    } else {
      t->add_int32_data(FloatToHalf(v));
    }
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
    name_made(t.name(), kConstant);
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
    c->set_op_type(kConstant);
    AttributeProto* a = c->add_attribute();
    a->set_name("value");
    a->set_type(AttributeProto::TENSOR);
    *a->mutable_t() = t;
    a->mutable_t()->clear_name();
  };
  for (const TensorProto* t : made_initializers_unused) emit_initializer(*t);

  // Per emitted node: the record it stands for (or -1 for a converter-made node), for the fixes below.
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
    // Resize-10 (and Upsample) scale with asymmetric coordinates and take the floor for nearest; Resize-11
    // defaults to half_pixel / round_prefer_floor and onnx 1.12's adapter does not say otherwise.
    const bool resize10 = orig.op_type() == kUpsample || (orig.op_type() == kResize && ctx.from <= 10);
    if (resize10 && node->op_type() == kResize && Crosses(ctx, 11)) {
      bool has_ctm = false, has_nearest = false;
      std::string mode = "nearest";
      for (const auto& a : node->attribute()) {
        if (a.name() == "coordinate_transformation_mode") has_ctm = true;
        if (a.name() == "nearest_mode") has_nearest = true;
        if (a.name() == "mode") mode = a.s();
      }
      if (!has_ctm) {
        AttributeProto* a = node->add_attribute();
        a->set_name("coordinate_transformation_mode");
        a->set_type(AttributeProto::STRING);
        a->set_s("asymmetric");
      }
      if (mode == "nearest" && !has_nearest) {
        AttributeProto* a = node->add_attribute();
        a->set_name("nearest_mode");
        a->set_type(AttributeProto::STRING);
        a->set_s("floor");
      }
    }
  }

  // Fixes that need producers and consumers.
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < out_nodes->size(); ++i) {
    for (const auto& o : out_nodes->Get(i).output()) {
      if (!o.empty() && !producer.emplace(o, i).second) {
        return absl::InternalError(absl::StrCat("graph ", where, ": value '", o, "' is defined twice after conversion"));
      }
    }
  }
  auto made_producer = [&](const std::string& name, const char* op_type) -> int {
    auto it = producer.find(name);
    if (it == producer.end() || emitted_record[static_cast<size_t>(it->second)] >= 0) return -1;
    return out_nodes->Get(it->second).op_type() == op_type ? it->second : -1;
  };
  // Nodes the fixes add, by the index of the node they go before; inserted after the loop, in one pass.
  std::map<int, std::vector<NodeProto>> insert_before;
  for (int i = 0; i < out_nodes->size(); ++i) {
    if (emitted_record[static_cast<size_t>(i)] < 0) continue;
    const NodeProto& orig = *ctx.records[static_cast<size_t>(emitted_record[static_cast<size_t>(i)])].original;
    const NodeProto& node = out_nodes->Get(i);
    // Softmax 12->13 rebuilds the 2-D coercion as Flatten -> Softmax -> Reshape(constant shape), the constant
    // being the IR's Dimension::dim of each dim of the input: -1 for a symbolic dim, and for an unknown one
    // (no dim_value, no dim_param) whatever its uninitialized `dim` holds (see IrSizes), often a plausible
    // positive size ([1,2,?,?] became [1,2,2,2]); dims above 2^31 are truncated. So the constant is kept only
    // where the skeleton declares every dim of the input with a positive size equal to it; otherwise the
    // Reshape takes the Flatten input's shape at run time.
    // A 0 in that shape: Reshape (allowzero=0, the only kind at 13) copies the dim at that index from its
    // data, the 2-D [A, B] = [d0*..*d(a-1), da*..] of Flatten at axis a, which is right only for dim 0 when
    // a >= 1 (A is 0 then) and dim 1 when a <= 1 (B is 0 then); any other zero-sized dim fails the Reshape or
    // makes a wrong shape. From opset 14 allowzero=1 takes the shape as it is; at 13, unless every other dim
    // is declared non-zero, the Reshape is guarded: y = If(Cast<to=BOOL>(Size(x))) { Reshape(..) } else
    // { Identity(x) } (an empty input is its own Softmax/LogSoftmax/Hardmax: same type, same shape).
    if ((orig.op_type() == kSoftmax || orig.op_type() == kLogSoftmax || orig.op_type() == kHardmax) &&
        Crosses(ctx, 13) && node.input_size() == 1 && node.output_size() == 1) {
      const int flatten = made_producer(node.input(0), kFlatten);
      int reshape = -1;
      for (int j = i + 1; j < out_nodes->size() && flatten >= 0; ++j) {
        const NodeProto& n = out_nodes->Get(j);
        if (emitted_record[static_cast<size_t>(j)] < 0 && n.op_type() == kReshape && n.input_size() == 2 &&
            n.input(0) == node.output(0)) {
          reshape = j;
          break;
        }
      }
      if (flatten >= 0 && reshape >= 0) {
        const int shape = made_producer(out_nodes->Get(reshape).input(1), kConstant);
        const TensorProto* value = shape >= 0 ? ConstantValue(out_nodes->Get(shape)) : nullptr;
        // The input's rank as the adapter saw it, and what the skeleton declares of its dims.
        const int64_t rank = value != nullptr && value->dims_size() == 1 ? value->dims(0) : -1;
        const std::string& input = conv_input0[static_cast<size_t>(flatten)];
        auto known_it = ctx.known_dims.find(input);
        const bool have_known = known_it != ctx.known_dims.end() && rank > 0 &&
                                static_cast<int64_t>(known_it->second.size()) == rank;
        auto known_positive = [&](int64_t k) { return have_known && known_it->second[static_cast<size_t>(k)] > 0; };
        bool exact = have_known && value->raw_data().empty() && value->int64_data_size() == rank;
        for (int k = 0; exact && k < rank; ++k) {
          exact = known_positive(k) && value->int64_data(k) == known_it->second[static_cast<size_t>(k)];
        }
        if (shape >= 0 && !exact) {
          const std::string x = out_nodes->Get(flatten).input(0);
          NodeProto* s = out_nodes->Mutable(shape);
          s->clear_attribute();
          s->set_op_type(kShape);
          s->add_input(x);
          NodeProto* r = out_nodes->Mutable(reshape);
          int64_t axis = 1;
          for (const auto& a : out_nodes->Get(flatten).attribute()) {
            if (a.name() == "axis") axis = a.i();
          }
          bool guard = rank < 0;
          for (int64_t k = 0; !guard && k < rank; ++k) {
            guard = !known_positive(k) && !(k == 0 && axis >= 1) && !(k == 1 && axis <= 1);
          }
          if (ctx.to >= 14) {
            AttributeProto* a = r->add_attribute();
            a->set_name("allowzero");
            a->set_type(AttributeProto::INT);
            a->set_i(1);
          } else if (guard) {
            const std::string y = r->output(0);
            auto type_it = ctx.elem_types.find(input);
            auto branch = [&](const std::string& name, const char* op_type, const std::vector<std::string>& ins) {
              AttributeProto a;
              a.set_name(name);
              a.set_type(AttributeProto::GRAPH);
              GraphProto* g = a.mutable_g();
              g->set_name(absl::StrCat(y, "_", name));
              NodeProto* n = g->add_node();
              n->set_op_type(op_type);
              for (const auto& in : ins) n->add_input(in);
              n->add_output(ctx.fresh.Make(absl::StrCat(y, name == "then_branch" ? "_reshaped" : "_empty")));
              ValueInfoProto* o = g->add_output();
              o->set_name(n->output(0));
              if (type_it != ctx.elem_types.end()) o->mutable_type()->mutable_tensor_type()->set_elem_type(type_it->second);
              return a;
            };
            AttributeProto then_branch = branch("then_branch", kReshape, {r->input(0), r->input(1)});
            AttributeProto else_branch = branch("else_branch", "Identity", {x});
            std::vector<NodeProto>& before = insert_before[reshape];
            NodeProto size;
            size.set_op_type("Size");
            size.add_input(x);
            size.add_output(ctx.fresh.Make(y + "_size"));
            NodeProto cast;
            cast.set_op_type("Cast");
            cast.add_input(size.output(0));
            cast.add_output(ctx.fresh.Make(y + "_nonempty"));
            AttributeProto* to = cast.add_attribute();
            to->set_name("to");
            to->set_type(AttributeProto::INT);
            to->set_i(TensorProto::BOOL);
            r->set_op_type("If");
            r->clear_input();
            r->add_input(cast.output(0));
            r->clear_attribute();
            *r->add_attribute() = std::move(then_branch);
            *r->add_attribute() = std::move(else_branch);
            before.push_back(std::move(size));
            before.push_back(std::move(cast));
          }
        }
      }
    }
    // Legacy broadcasting (opset <= 6, broadcast=1, axis=a) aligns B with A starting at axis a, so B needs
    // rank(A) - a - rank(B) trailing ones. onnx 1.12's 6->7 adapter unsqueezes B at [rank(B) .. rank(A)-1],
    // rank(A) - rank(B) of them, a too many: drop the last a.
    if (Crosses(ctx, 7) && ctx.from < 7 && node.input_size() == 2 &&
        (orig.op_type() == "Add" || orig.op_type() == "Sub" || orig.op_type() == "Mul" ||
         orig.op_type() == "Div" || orig.op_type() == "Pow")) {
      int64_t axis = 0;
      bool legacy = false;
      for (const auto& a : orig.attribute()) {
        if (a.name() == "axis") axis = a.i();
        if (a.name() == "broadcast") legacy = a.i() != 0;
      }
      const int unsqueeze = made_producer(node.input(1), "Unsqueeze");
      if (legacy && axis > 0 && unsqueeze >= 0) {
        NodeProto* u = out_nodes->Mutable(unsqueeze);
        google::protobuf::RepeatedField<int64_t>* axes = nullptr;
        for (auto& a : *u->mutable_attribute()) {
          if (a.name() == "axes") axes = a.mutable_ints();
        }
        if (axes == nullptr && u->input_size() == 2) {
          const int c = made_producer(u->input(1), kConstant);
          if (c >= 0) {
            for (auto& a : *out_nodes->Mutable(c)->mutable_attribute()) {
              if (a.name() == "value" && a.has_t() && a.t().raw_data().empty() && a.t().dims_size() == 1 &&
                  a.t().int64_data_size() > axis) {
                axes = a.mutable_t()->mutable_int64_data();
                a.mutable_t()->set_dims(0, a.t().int64_data_size() - axis);
              }
            }
          }
        }
        if (axes == nullptr || axes->size() <= axis) {
          return absl::FailedPreconditionError(absl::StrCat("node ", NodeLabel(orig), " (graph ", where,
                                                            "): cannot express its legacy broadcast at axis ", axis));
        }
        axes->Truncate(static_cast<int>(axes->size() - axis));
      }
    }
    // Clip 10->11 and Pad 10->11 make float inputs from the float attributes; Clip-11 and Pad-11 want them
    // of the data's type.
    std::vector<int> typed_inputs;
    if (orig.op_type() == kClip && Crosses(ctx, 11) && ctx.from < 11) typed_inputs = {1, 2};
    if (orig.op_type() == kPad && Crosses(ctx, 11) && ctx.from < 11) typed_inputs = {2};
    if (!typed_inputs.empty()) {
      auto type_it = ctx.elem_types.find(conv_input0[static_cast<size_t>(i)]);
      const int32_t elem_type = type_it == ctx.elem_types.end() ? TensorProto::UNDEFINED : type_it->second;
      if (elem_type == TensorProto::DOUBLE || elem_type == TensorProto::FLOAT16) {
        for (int k : typed_inputs) {
          if (k >= node.input_size()) continue;
          const int c = made_producer(node.input(k), kConstant);
          if (c < 0) continue;
          NodeProto* constant = out_nodes->Mutable(c);
          for (auto& a : *constant->mutable_attribute()) {
            if (a.name() == "value" && a.has_t() && a.t().data_type() == TensorProto::FLOAT) {
              RetypeFloatTensor(a.mutable_t(), elem_type);
            }
          }
        }
      }
    }
  }
  if (!insert_before.empty()) {
    google::protobuf::RepeatedPtrField<NodeProto> merged;
    for (int i = 0; i < out_nodes->size(); ++i) {
      auto it = insert_before.find(i);
      if (it != insert_before.end()) {
        for (NodeProto& n : it->second) merged.Add()->Swap(&n);
      }
      merged.Add()->Swap(out_nodes->Mutable(i));
    }
    out_nodes->Swap(&merged);
  }

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

// ---------------------------------------------------------------------------------------------------------

absl::StatusOr<int> DefaultOpsetIndex(const ModelProto& model) {
  int index = -1;
  for (int i = 0; i < model.opset_import_size(); ++i) {
    if (!IsDefaultDomain(model.opset_import(i).domain())) continue;
    if (index >= 0) {
      return absl::InvalidArgumentError("the model imports the default domain twice ('' and 'ai.onnx')");
    }
    index = i;
  }
  if (index < 0) return absl::InvalidArgumentError("the model imports no default-domain opset");
  return index;
}

absl::Status UpgradeImpl(ModelProto& model, int64_t target, int64_t chunk_nodes) {
  if (target < 1 || target > kMaxConvertibleOpset) {
    return absl::InvalidArgumentError(absl::StrCat("target opset ", target, " is outside [1, ", kMaxConvertibleOpset,
                                                   "], what onnx 1.12's version converter knows"));
  }
  ASSIGN_OR_RETURN(const int opset_index, DefaultOpsetIndex(model));
  const int64_t from = model.opset_import(opset_index).version();
  if (from < 1) return absl::InvalidArgumentError(absl::StrCat("the model's default opset ", from, " is not valid"));
  if (target < from) {
    return absl::InvalidArgumentError(absl::StrCat("target opset ", target, " is below the model's default opset ",
                                                   from, "; only upgrades are supported"));
  }
  const int64_t ir_version = std::max<int64_t>(model.ir_version(), MinIrVersionForOpset(target));
  if (target == from) {
    model.set_ir_version(ir_version);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(ValidateGraphsForConverter(model.graph()));

  Context ctx;
  ctx.from = from;
  ctx.to = target;
  // The stand-in must stay out of every adapter's reach.
  for (int64_t v = from + 1; v <= target; ++v) {
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(kStandInOp, static_cast<int>(v), "");
    if (s == nullptr || s->since_version() > from) {
      return absl::InternalError(absl::StrCat("stand-in op ", kStandInOp, " changes at opset ", v));
    }
  }

  static const StepConverter* const converter = new StepConverter();
  if (chunk_nodes > 0) {
    ASSIGN_OR_RETURN(const bool untouched, NothingToConvert(model.graph(), ctx, *converter));
    if (untouched) {
      model.mutable_opset_import(opset_index)->set_version(target);
      model.set_ir_version(ir_version);
      return absl::OkStatus();
    }
  }

  ModelProto skeleton;
  skeleton.set_ir_version(kSkeletonIrVersion);
  auto* default_import = skeleton.add_opset_import();
  default_import->set_domain("");
  default_import->set_version(from);
  auto* hidden_import = skeleton.add_opset_import();
  hidden_import->set_domain(kStandInDomain);
  hidden_import->set_version(1);
  RETURN_IF_ERROR(BuildSkeletonGraph(model.graph(), "", true, ctx, skeleton.mutable_graph()));

  // Shape inference, best effort: adapters read ranks and shapes, but a model whose declared types
  // contradict inference is still converted where no adapter needs them.
  {
    ModelProto inferred = skeleton;
    bool ok = true;
    try {
      onnx::shape_inference::InferShapes(inferred);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (...) {
      ok = false;
    }
    if (ok) skeleton.Swap(&inferred);
  }
  AddCaptureTypes(skeleton.mutable_graph(), {});
  CollectElemTypes(skeleton.graph(), ctx);
  if (Crosses(ctx, 13)) {
    std::unordered_set<std::string> softmax_inputs, defined;
    CollectSoftmaxInputs(skeleton.graph(), softmax_inputs);
    if (!softmax_inputs.empty()) CollectKnownDims(skeleton.graph(), softmax_inputs, ctx, defined);
  }
  ExposeReplacedOutputs(ctx, skeleton.mutable_graph());

  GraphProto converted;
  try {
    if (chunk_nodes > 0 && !SubgraphReadsARestructuredValue(skeleton.graph(), ctx)) {
      ASSIGN_OR_RETURN(converted, ConvertMainGraphInChunks(skeleton, ctx, *converter, chunk_nodes));
    } else {
      // What onnx::version_conversion::ConvertVersion does.
      ModelProto whole = converter->convert_version(skeleton, onnx::OpSetID(from), onnx::OpSetID(target));
      converted.Swap(whole.mutable_graph());
    }
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return absl::FailedPreconditionError(absl::StrCat("onnx 1.12's version converter cannot move the model from opset ",
                                                      from, " to ", target, ": ", e.what()));
  } catch (...) {
    return absl::FailedPreconditionError(absl::StrCat("onnx 1.12's version converter cannot move the model from opset ",
                                                      from, " to ", target));
  }

  ReserveGraphNames(model.graph(), ctx.fresh);
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  RETURN_IF_ERROR(SpliceGraph(converted, model.graph(), "", nullptr, ctx, &nodes));

  // Commit: nothing below can fail.
  model.mutable_graph()->mutable_node()->Swap(&nodes);
  model.mutable_opset_import(opset_index)->set_version(target);
  model.set_ir_version(ir_version);
  return absl::OkStatus();
}

}  // namespace

int64_t MinIrVersionForOpset(int64_t opset) {
  // onnx releases: 1.3 IR 3 / opset 8, 1.4 IR 4 / 9, 1.5 IR 5 / 10, 1.6 IR 6 / 11, 1.7-1.9 IR 7 / 12-14,
  // 1.10-1.12 IR 8 / 15-17, 1.13 IR 8 / 18, 1.14-1.15 IR 9 / 19-20, 1.16 IR 10 / 21.
  if (opset <= 8) return 3;
  if (opset == 9) return 4;
  if (opset == 10) return 5;
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  return 10;
}

absl::Status UpgradeDefaultOpset(ModelProto& model, int64_t target_opset) {
  return UpgradeDefaultOpsetInChunks(model, target_opset, kChunkNodes);
}

absl::Status UpgradeDefaultOpsetInChunks(ModelProto& model, int64_t target_opset, int64_t chunk_nodes) {
  try {
    return UpgradeImpl(model, target_opset, chunk_nodes);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of memory while moving the model to a new opset");
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("unexpected exception while moving the model to a new opset: ", e.what()));
  } catch (...) {
    return absl::InternalError("unexpected exception while moving the model to a new opset");
  }
}

}  // namespace onnx_legalize
