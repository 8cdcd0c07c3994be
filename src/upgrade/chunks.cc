// The converter run on the skeleton's main graph in chunks.
//
// onnx 1.12's IR checked each name it gave a new value against every node of the graph, so importing a graph of
// n nodes cost O(n^2): a 6,000-node chain took ~19 s. 1.23's looks names up in a table, but each rename an
// adapter makes (Value::replaceAllUsesWith, setUniqueName) still walks every node of the graph. The converter
// is therefore run on the main graph in chunks of at most kChunkNodes nodes, each its own onnx::Graph, with
// the same result as one conversion of the whole graph:
//   - only nodes the converter would touch enter a chunk: nodes whose op has a schema change in
//     (from, to] (convert_graph hands them to an adapter), nodes with subgraphs (it recurses into them),
//     and, conservatively, nodes holding tensors (the IR rebuilds them). Every other node is left as it
//     is, as the converter leaves it. A run of such nodes inside a chunk is marked by a fence, an inert
//     stand-in without inputs or outputs, so that nodes an adapter inserts before or after its node
//     land on the same side of them as in one conversion;
//   - the steps run in the converter's order: version by version, and within a version node by node,
//     chunk after chunk (1.12's DefaultVersionConverter::convert_graph, replayed by StepConverter below);
//   - a value one chunk produces and another reads is a Value in each of their graphs: before a chunk
//     converts, its boundary values take the element type and sizes the whole graph's IR would give them
//     now, and after it converts they hand back what its adapters made of them (an adapter may change the
//     sizes of its inputs, Scan 8->9 does);
//   - no upward adapter of onnx 1.23 reads another node or a graph-wide property but through these
//     values, and values adapters make never leave their chunk (they feed the adapted node); their names
//     get a chunk prefix, since every chunk's IR counts from 1.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "graph/labels.h"
#include "graph/names.h"
#include "graph/subgraphs.h"
#include "onnx/common/ir_pb_converter.h"
#include "onnx/version_converter/adapters/no_previous_version.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

constexpr char kFencePrefix[] = "fence";

// What onnx's IR knows of a value's type: an element type and, maybe, sizes.
struct IrType {
  int32_t elem_type = TensorProto::UNDEFINED;
  bool has_sizes = false;
  std::vector<onnx::Dimension> sizes;
};

// graphProtoToGraph's reading of a shape, as onnx 1.23 reads it: every dim with all its 64 bits (1.12's passed
// them through int), an unknown one as Dimension() (-1, not an int).
std::vector<onnx::Dimension> IrSizes(const onnx::TensorShapeProto& shape) {
  std::vector<onnx::Dimension> sizes;
  for (const auto& dim : shape.dim()) {
    if (dim.has_dim_value()) {
      sizes.emplace_back(dim.dim_value());
    } else if (dim.has_dim_param()) {
      sizes.emplace_back(dim.dim_param());
    } else {
      sizes.emplace_back();
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

// Every name the subgraphs of `node` read (a superset of what they capture from outside).
void CollectSubgraphReads(const NodeProto& node, std::unordered_set<std::string>& names) {
  ForEachSubgraph(node, [&](const std::string&, const GraphProto& subgraph) {
    ForEachReadName(subgraph, [&](const std::string& name) { names.insert(name); });
  });
}

struct Chunk {
  ModelProto model;                  // what the converter imports
  std::vector<std::string> inputs;   // boundary values read here, made elsewhere
  std::vector<std::string> outputs;  // boundary values made here, read elsewhere (or graph outputs)
  std::shared_ptr<onnx::Graph> graph;
  // Fence name -> the skeleton nodes it stands for [first, last).
  std::unordered_map<std::string, std::pair<int, int>> fences;
};

}  // namespace

// The recurrent ops' first versions, which onnx 1.23, as 1.12, has no adapters for ("No Adapter From Version $6 for
// LSTM": PyTorch 0.3's LSTM and RNN exports, onnx's own 1.1-1.2 test models). LSTM-1, GRU-1 and RNN-1 had
// `output_sequence`, which said only whether the Y output was optional; at opset 7 every output is optional
// and the attribute is gone, so it is dropped. GRU-3 added linear_before_reset, whose default 0 is GRU-1's
// computation: 2 -> 3 changes nothing.
StepConverter::StepConverter() {
  using onnx::version_conversion::CompatibleAdapter;
  registerAdapter(std::make_unique<CompatibleAdapter>("GRU", onnx::OpSetID(2), onnx::OpSetID(3)));
  const auto drop_output_sequence = [](const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
    const onnx::Symbol output_sequence("output_sequence");
    if (node->hasAttribute(output_sequence)) node->removeAttribute(output_sequence);
    return node;
  };
  for (const char* op : {"GRU", "LSTM", "RNN"}) registerAdapter(op, 6, 7, drop_output_sequence);
  RegisterOwnDownAdapters(*this);
}

void StepConverter::WrapDownAdapters(const std::function<std::unique_ptr<onnx::version_conversion::Adapter>(
                                         std::unique_ptr<onnx::version_conversion::Adapter>)>& wrap) {
  for (auto& [op, from_versions] : adapters) {
    for (auto& [from, to_versions] : from_versions) {
      for (auto& [to, adapter] : to_versions) {
        const bool down = adapter->target_version().version() < adapter->initial_version().version();
        if (down && dynamic_cast<const onnx::version_conversion::NoPreviousVersionAdapter*>(adapter.get()) == nullptr) {
          adapter = wrap(std::move(adapter));
        }
      }
    }
  }
}

bool StepConverter::Adapts(const std::string& op_type, int64_t from, int64_t to) const {
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

bool StepConverter::AdaptsDown(const std::string& op_type, int64_t version) const {
  auto op = adapters.find(op_type);
  if (op == adapters.end()) return false;
  auto from = op->second.find(onnx::OpSetID(version).toString());
  if (from == op->second.end()) return false;
  auto to = from->second.find(onnx::OpSetID(version - 1).toString());
  // onnx registers an adapter that only throws ("No Previous Version of ... exists") below an op's first version.
  return to != from->second.end() &&
         dynamic_cast<const onnx::version_conversion::NoPreviousVersionAdapter*>(to->second.get()) == nullptr;
}

std::shared_ptr<const onnx::version_conversion::Adapter> StepConverter::TakeDownAdapter(const std::string& op_type,
                                                                                        int64_t version) {
  std::unique_ptr<onnx::version_conversion::Adapter>& entry =
      adapters[op_type][onnx::OpSetID(version).toString()][onnx::OpSetID(version - 1).toString()];
  return std::shared_ptr<const onnx::version_conversion::Adapter>(std::move(entry));
}

void StepConverter::ConvertStep(const std::shared_ptr<onnx::Graph>& g, int64_t curr) const {
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
    // (1.12's convert_graph spun forever on ConstantFill, 1.23's keeps it; none reaches the converter here.)
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

// Whether a subgraph of the main graph reads the output of a Softmax or LogSoftmax (Hardmax shows as
// Softmax) that the 12->13 adapter restructures. That adapter collects the output's uses, subgraph reads
// included (Value::uses), and renames it (Value::setUniqueName renames captures in every subgraph): what it
// does then depends on nodes anywhere in the graph, so such a graph is converted whole.
bool SubgraphReadsARestructuredValue(const GraphProto& graph, const Move& move) {
  if (!move.Crosses(13)) return false;
  std::unordered_set<std::string> restructured;
  for (const auto& node : graph.node()) {
    if (node.op_type() != kSoftmax && node.op_type() != kLogSoftmax) continue;
    if (node.domain() == kStandInDomain) continue;
    for (const auto& out : node.output()) restructured.insert(out);
  }
  if (restructured.empty()) return false;
  std::unordered_set<std::string> read;
  for (const auto& node : graph.node()) CollectSubgraphReads(node, read);
  for (const auto& name : read) {
    if (restructured.count(name) > 0) return true;
  }
  return false;
}

// Whether the converter would leave every node as it is: no node of the main graph holds a subgraph,
// meets an adapter between the two opsets (by op type, as convert_graph decides) or holds a tensor, so a
// conversion in chunks would convert nothing and hand every node back unchanged. FailedPrecondition, as
// the skeleton says it (CheckOpKnownAtSourceOpset), for a default-domain op onnx 1.23 does not know at the
// model's opset.
absl::StatusOr<bool> NothingToConvert(const GraphProto& graph, const Move& move, const StepConverter& converter) {
  std::unordered_map<std::string, bool> adapts;
  for (const auto& node : graph.node()) {
    if (HoldsSubgraph(node)) return false;
    if (ShownAsStandIn(node, move)) continue;  // a stand-in, which no adapter meets
    auto [it, inserted] = adapts.try_emplace(node.op_type(), false);
    if (inserted) {
      RETURN_IF_ERROR(CheckOpKnownAtSourceOpset(node, kMainGraphPath, move));
      it->second = converter.Adapts(node.op_type(), move.from, move.to);
    }
    if (it->second) return false;
    for (const auto& attr : node.attribute()) {
      if (attr.has_t() || attr.tensors_size() > 0) return false;
    }
  }
  return true;
}

namespace {

// Which chunk each node of the main graph is converted in (-1: a node the converter does not touch, left
// out of every chunk), and each chunk's span [first_of[c], last_of[c]] (the nodes between its own are
// untouched ones).
struct ChunkLayout {
  std::vector<int> chunk_of;
  std::vector<int> first_of, last_of;
  int chunks = 0;
};

// The nodes the converter touches (a subgraph or tensor attribute, or an adapter between the two opsets),
// `chunk_nodes` of them to a chunk.
ChunkLayout LayOutChunks(const GraphProto& graph, const Move& move, const StepConverter& converter,
                         int64_t chunk_nodes) {
  const int n = graph.node_size();
  ChunkLayout layout;
  layout.chunk_of.assign(static_cast<size_t>(n), -1);
  std::unordered_map<std::string, bool> adapts;
  int64_t in_chunk = 0;
  for (int i = 0; i < n; ++i) {
    const NodeProto& node = graph.node(i);
    bool touched = false;
    for (const auto& attr : node.attribute()) {
      touched = touched || attr.has_g() || attr.graphs_size() > 0 || attr.has_t() || attr.tensors_size() > 0;
    }
    if (!touched) {
      auto [it, inserted] = adapts.try_emplace(node.op_type(), false);
      if (inserted) it->second = converter.Adapts(node.op_type(), move.from, move.to);
      touched = it->second;
    }
    if (!touched) continue;
    if (in_chunk == 0) ++layout.chunks;
    layout.chunk_of[static_cast<size_t>(i)] = layout.chunks - 1;
    in_chunk = (in_chunk + 1) % chunk_nodes;
  }
  layout.first_of.assign(static_cast<size_t>(layout.chunks), -1);
  layout.last_of.assign(static_cast<size_t>(layout.chunks), -1);
  for (int i = 0; i < n; ++i) {
    const int c = layout.chunk_of[static_cast<size_t>(i)];
    if (c < 0) continue;
    if (layout.first_of[static_cast<size_t>(c)] < 0) layout.first_of[static_cast<size_t>(c)] = i;
    layout.last_of[static_cast<size_t>(c)] = i;
  }
  return layout;
}

// The values something outside the chunk that makes them reads (graph outputs included): each chunk's
// boundary.
std::unordered_set<std::string> ValuesReadOutsideTheirChunk(const GraphProto& graph, const ChunkLayout& layout) {
  constexpr int kNotANode = -1;
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const auto& out : graph.node(i).output()) {
      if (!out.empty()) producer.emplace(out, i);
    }
  }
  auto chunk_making = [&](const std::string& name) {
    auto it = producer.find(name);
    return it == producer.end() ? kNotANode : layout.chunk_of[static_cast<size_t>(it->second)];
  };
  std::unordered_set<std::string> read_outside;
  for (const auto& out : graph.output()) read_outside.insert(out.name());
  for (int i = 0; i < graph.node_size(); ++i) {
    const NodeProto& node = graph.node(i);
    const int here = layout.chunk_of[static_cast<size_t>(i)];
    std::unordered_set<std::string> captured;
    CollectSubgraphReads(node, captured);
    auto note = [&](const std::string& name) {
      if (name.empty()) return;
      const int maker = chunk_making(name);
      if (maker >= 0 && maker != here) read_outside.insert(name);
    };
    for (const auto& in : node.input()) note(in);
    for (const auto& name : captured) note(name);
  }
  return read_outside;
}

// The IR's view of every boundary value before conversion, as graphProtoToGraph would build it from the
// whole skeleton (inputs, initializers (IR >= 4), then graph outputs and value_info over them), and the
// value_info entries by name.
struct BoundaryTypes {
  std::unordered_map<std::string, IrType> types;
  std::unordered_map<std::string, std::vector<const ValueInfoProto*>> value_info;
};

BoundaryTypes TypesBeforeConversion(const GraphProto& graph) {
  BoundaryTypes boundary;
  std::unordered_set<std::string> graph_inputs;
  for (const auto& v : graph.input()) {
    graph_inputs.insert(v.name());
    IrType type;
    Overlay(v, type);
    boundary.types[v.name()] = type;
  }
  for (const auto& t : graph.initializer()) {
    if (graph_inputs.count(t.name()) > 0) continue;
    IrType type;
    type.elem_type = t.data_type();
    type.has_sizes = true;
    for (int64_t d : t.dims()) type.sizes.emplace_back(d);
    boundary.types[t.name()] = type;
  }
  for (const auto& v : graph.output()) Overlay(v, boundary.types[v.name()]);
  for (const auto& v : graph.value_info()) {
    Overlay(v, boundary.types[v.name()]);
    boundary.value_info[v.name()].push_back(&v);
  }
  return boundary;
}

// Chunk `c` as a model of its own, imported into onnx's IR: its nodes, the untouched nodes between them as
// fences (stand-ins of kFencePrefix names), its boundary as graph inputs and outputs.
absl::Status BuildChunk(const ModelProto& skeleton, const ChunkLayout& layout, int c,
                        const std::unordered_set<std::string>& read_outside, const BoundaryTypes& boundary,
                        Chunk& part) {
  const GraphProto& graph = skeleton.graph();
  part.model.set_ir_version(skeleton.ir_version());
  *part.model.mutable_opset_import() = skeleton.opset_import();
  GraphProto* g = part.model.mutable_graph();
  g->set_name(graph.name());
  std::unordered_set<std::string> made, read;
  std::vector<const std::string*> read_order;
  const int last = layout.last_of[static_cast<size_t>(c)];
  for (int j = layout.first_of[static_cast<size_t>(c)]; j <= last;) {
    if (layout.chunk_of[static_cast<size_t>(j)] != c) {
      const int first = j;
      while (layout.chunk_of[static_cast<size_t>(j)] != c) ++j;
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
  // later: no upward adapter tells an initializer from an input (both are kParam values to the IR), and so
  // every boundary value is one whose type can be kept in step with the other chunks.
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
      auto vi = boundary.value_info.find(out);
      if (vi == boundary.value_info.end()) continue;
      for (const ValueInfoProto* v : vi->second) *g->add_value_info() = *v;
    }
  }
  part.graph = std::shared_ptr<onnx::Graph>(onnx::ImportModelProto(part.model));
  if (part.graph == nullptr) return absl::InternalError("onnx's IR did not import a chunk of the graph");
  part.model.clear_graph();
  return absl::OkStatus();
}

// Step by step, chunk by chunk, as convert_graph goes through the whole graph, each boundary value's type
// carried from the chunk that changes it to the next. A node output nothing declares is UNDEFINED without
// sizes, as graphProtoToGraph leaves it.
void ConvertChunks(std::vector<Chunk>& parts, const Move& move, const StepConverter& converter,
                   std::unordered_map<std::string, IrType>& types) {
  const IrType unknown;
  auto type_of = [&](const std::string& name) -> const IrType& {
    auto it = types.find(name);
    return it == types.end() ? unknown : it->second;
  };
  for (int64_t version = move.from; version < move.to; ++version) {
    for (Chunk& part : parts) {
      for (onnx::Value* v : part.graph->inputs()) SetType(v, type_of(v->uniqueName()));
      for (onnx::Value* v : part.graph->outputs()) SetType(v, type_of(v->uniqueName()));
      converter.ConvertStep(part.graph, version);
      for (onnx::Value* v : part.graph->inputs()) types[v->uniqueName()] = TypeOf(v);
      for (onnx::Value* v : part.graph->outputs()) types[v->uniqueName()] = TypeOf(v);
    }
  }
}

// Each converted chunk exported from onnx's IR; Internal when the converter renamed a boundary value.
absl::StatusOr<std::vector<GraphProto>> ExportChunks(std::vector<Chunk>& parts) {
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
  return exported;
}

// The merged graph: untouched nodes as they are, each chunk's nodes where its first node stood, fences
// replaced by the nodes they stand for, converter-made names prefixed with the chunk.
GraphProto MergeChunks(const GraphProto& graph, const ChunkLayout& layout, const std::vector<Chunk>& parts,
                       std::vector<GraphProto>& exported, const NameCodec& codec) {
  GraphProto merged;
  merged.set_name(graph.name());
  *merged.mutable_output() = graph.output();
  auto rename = [&](std::string* name, size_t c) {
    if (!name->empty() && codec.Decode(*name) == nullptr) *name = absl::StrCat("c", c, "_", *name);
  };
  for (size_t c = 0; c < exported.size(); ++c) {
    for (const auto& t : exported[c].initializer()) {
      if (codec.Decode(t.name()) != nullptr) continue;
      TensorProto* copy = merged.add_initializer();
      *copy = t;
      rename(copy->mutable_name(), c);
    }
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const int c = layout.chunk_of[static_cast<size_t>(i)];
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
    i = layout.last_of[static_cast<size_t>(c)];  // the chunk's span is emitted
  }
  return merged;
}

}  // namespace

absl::StatusOr<GraphProto> ConvertMainGraphInChunks(const Skeleton& skeleton, const Move& move,
                                                    const StepConverter& converter, int64_t chunk_nodes) {
  const GraphProto& graph = skeleton.model.graph();
  const ChunkLayout layout = LayOutChunks(graph, move, converter, chunk_nodes);
  const std::unordered_set<std::string> read_outside = ValuesReadOutsideTheirChunk(graph, layout);
  BoundaryTypes boundary = TypesBeforeConversion(graph);
  std::vector<Chunk> parts(static_cast<size_t>(layout.chunks));
  for (int c = 0; c < layout.chunks; ++c) {
    RETURN_IF_ERROR(BuildChunk(skeleton.model, layout, c, read_outside, boundary, parts[static_cast<size_t>(c)]));
  }
  ConvertChunks(parts, move, converter, boundary.types);
  ASSIGN_OR_RETURN(std::vector<GraphProto> exported, ExportChunks(parts));
  return MergeChunks(graph, layout, parts, exported, skeleton.codec);
}

}  // namespace onnx_legalize::opset_upgrade
