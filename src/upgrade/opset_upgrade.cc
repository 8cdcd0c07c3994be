// MoveDefaultOpset: onnx 1.23's version converter, wrapped. This file runs the steps; the parts that do
// them are listed in upgrade/internal.h.
//
// What onnx::version_conversion::ConvertVersion (1.23) does, and why it is not called on the model itself
// (read from onnx 1.23.2 convert.cc, common/ir_pb_converter.cc, common/ir.h and the adapters); each point is
// taken up, in more detail, where it is dealt with:
//   - it throws on a default-domain op without a schema (DynamicSlice, ImageScaler, ...); 1.12 also converted
//     other domains' ops named like default-domain ones and looped forever on ConstantFill, which 1.23 skips:
//     the converter sees a skeleton of the model in which such nodes are inert stand-ins (upgrade/skeleton.cc);
//   - it goes through onnx's IR, which drops much of a model (functions, training_info, sparse initializers,
//     metadata_props of graphs and nodes, attribute references, tensor doc strings, the non-tensor types of
//     node outputs) and copies all initializer data twice (1.12's also dropped external-data references and
//     truncated dims above 2^31): the skeleton holds no large data, and the converted nodes are spliced back
//     into the caller's graphs, which keep everything else (upgrade/splice.cc);
//   - values it creates are named with a per-graph counter, unique in their own graph and its subgraphs but
//     not in the enclosing ones (1.12's names were numeric, like old PyTorch exports'): the skeleton's names
//     are private (upgrade/names.h);
//   - a node an adapter replaces (Upsample-9 -> Resize-10, Scatter-10 -> ScatterElements-11) loses its name
//     and doc_string, and its output is renamed unless it is a graph output (ExposeReplacedOutputs, splice);
//   - its shape inference (1.12 ran none) stops at the untyped ops of opsets 1-6 and at ops without a schema,
//     yet Resize 10->11 needs its input's rank, Gemm and broadcasting 6->7 need shapes of numeric dims, and
//     Softmax/LogSoftmax 12->13 read the rank: inference runs on the skeleton here, carried past those ops,
//     and the types it finds reach captured values (upgrade/skeleton_types.cc);
//   - it throws on a main-graph output that nothing produces (1.12's died with SIGSEGV), and throws on or
//     mis-reads other malformed graphs: ValidateGraphsForConverter (graph/graph_validation.h) refuses them first;
//   - each rename an adapter makes walks every node of the graph (1.12's IR import alone was O(n^2) in a
//     graph's node count): the main graph is converted in chunks (upgrade/chunks.cc);
//   - adapter bugs change meaning (Pad, Clip, Resize, Softmax, Hardmax, legacy broadcasting, PRelu, Scan):
//     they are put right around the converter (upgrade/fixes/, one file per adapter).
#include "upgrade/opset_upgrade.h"
#include "onnx/common/version.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "graph/graph_locator.h"
#include "graph/graph_validation.h"
#include "graph/ir_features.h"
#include "graph/model_skeleton.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/unread_constants.h"
#include "onnx/defs/schema.h"
#include "onnx_legalize/target_opsets.h"
#include "upgrade/internal.h"

namespace onnx_legalize {
namespace opset_upgrade {
namespace {

// InternalError when the stand-in op has a schema that changes between the two opsets: it must stay out of
// every adapter's reach.
absl::Status CheckStandInIsInert(const Move& move) {
  const int64_t low = std::min(move.from, move.to);
  for (int64_t v = low + 1; v <= std::max(move.from, move.to); ++v) {
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(kStandInOp, static_cast<int>(v), "");
    if (s == nullptr || s->since_version() > low) {
      return absl::InternalError(absl::StrCat("stand-in op ", kStandInOp, " changes at opset ", v));
    }
  }
  return absl::OkStatus();
}

// The skeleton's main graph converted by onnx's version converter, in chunks where that gives the same
// result; FailedPrecondition with the converter's own words when it throws.
absl::StatusOr<GraphProto> RunConverter(const Skeleton& skeleton, const Move& move, const StepConverter& converter,
                                        int64_t chunk_nodes) {
  GraphProto converted;
  try {
    if (chunk_nodes > 0 && !SubgraphReadsARestructuredValue(skeleton.model.graph(), move)) {
      ASSIGN_OR_RETURN(converted, ConvertMainGraphInChunks(skeleton, move, converter, chunk_nodes));
    } else {
      // What onnx::version_conversion::ConvertVersion does after its shape inference (BuildSkeleton ran ours).
      ModelProto whole = converter.convert_version(skeleton.model, onnx::OpSetID(move.from), onnx::OpSetID(move.to));
      converted.Swap(whole.mutable_graph());
    }
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const NoFormException& e) {
    const int64_t record = NameCodec::NodeIndex(e.node_tag());
    const std::string node = record >= 0 && record < static_cast<int64_t>(skeleton.records.size())
                                 ? InGraph(NodeLabel(*skeleton.records[static_cast<size_t>(record)].original),
                                           skeleton.records[static_cast<size_t>(record)].path)
                                 : std::string("a node");
    return NoFormAtOpsetError(move.to, absl::StrCat(node, " has no form at opset ", move.to, ": ", e.what(),
                                                    "; the lowest opset it can be moved to is ", e.lowest_opset()));
  } catch (const std::exception& e) {
    return absl::FailedPreconditionError(absl::StrCat("onnx " ONNX_VERSION_STRING
                                                      "'s version converter cannot move the model from opset ",
                                                      move.from, " to ", move.to, ": ", e.what()));
  } catch (...) {
    return absl::FailedPreconditionError(absl::StrCat("onnx " ONNX_VERSION_STRING
                                                      "'s version converter cannot move the model from opset ",
                                                      move.from, " to ", move.to));
  }
  return converted;
}

// onnx's converter with the library's adapters, made once (after the stand-in's schema is registered: the converter's
// table of schemas must hold it).
const StepConverter& Converter() {
  RegisterStandInSchemas();
  static const StepConverter* const converter = new StepConverter();
  return *converter;
}

// The constants (initializers, Constant nodes' outputs) of `graph`, at `where`, and of the graphs in it, that
// something in their scope reads: those the move stops reading are removed after it (a Slice's starts or an
// Upsample's scales a down-adapter took into an attribute, in the main graph or in a Loop's body), so that the result
// holds no weight nothing reads (ONNX Runtime warns of each and drops it). Constants the model left unread before the
// move stay.
void CollectConstantsRead(const GraphProto& graph, const GraphLocator& where, MaybeUnused& read) {
  absl::flat_hash_set<std::string> constants;
  for (const TensorProto& initializer : graph.initializer()) constants.insert(initializer.name());
  for (const NodeProto& node : graph.node()) {
    if (node.op_type() == kConstantOp && IsDefaultDomain(node.domain()) && node.output_size() == 1) {
      constants.insert(node.output(0));
    }
  }
  ForEachReadName(graph, [&](const std::string& name) {
    if (constants.erase(name) > 0) read.emplace_back(where, name);
  });
  for (const NodeProto& node : graph.node()) {
    for (const AttributeProto& attribute : node.attribute()) {
      if (attribute.type() == AttributeProto::GRAPH) {
        CollectConstantsRead(attribute.g(), where.Into(node, attribute.name(), 0), read);
      }
      for (int i = 0; i < attribute.graphs_size(); ++i) {
        CollectConstantsRead(attribute.graphs(i), where.Into(node, attribute.name(), i), read);
      }
    }
  }
}

MaybeUnused ConstantsRead(const GraphProto& main_graph) {
  MaybeUnused read;
  CollectConstantsRead(main_graph, GraphLocator{}, read);
  return read;
}

// How many times a move down writes in the values it computed and looks again: a Pad whose pads are computed gets
// output dims inference can fix, from which the next Pad's pads are computed (PyTorch's F.pad in a network traced at
// a fixed size), and so on down the network.
constexpr int kMostComputeRounds = 16;

// CheckEveryNodeHasAFormAt, writing the values computed from constants into `model` as it goes (ComputedConstants),
// again while that computes more. `undo` gets the node list before the first write.
absl::Status CheckFormsComputingConstants(ModelProto& model, const Move& move, const StepConverter& converter,
                                          std::optional<google::protobuf::RepeatedPtrField<NodeProto>>& undo) {
  for (int round = 1;; ++round) {
    ComputedConstants computed(model, move);
    absl::Status formed = CheckEveryNodeHasAFormAt(model, move, converter, computed);
    std::optional<google::protobuf::RepeatedPtrField<NodeProto>> before = computed.WriteInto(model);
    if (before.has_value() && !undo.has_value()) undo = std::move(before);
    if (formed.ok() || !computed.HasValues() || round == kMostComputeRounds) return formed;
  }
}

// `undo`: the main graph's node list before the values a move down computed from constants were written in, when
// they were (the caller puts it back when the move fails).
absl::Status MoveImpl(ModelProto& model, int64_t target, int64_t chunk_nodes, const PassThroughOps& pass_through,
                      RenamedOutputs* renamed, std::optional<google::protobuf::RepeatedPtrField<NodeProto>>& undo) {
  if (target < 1 || target > kMaxTargetOpset) {
    return absl::InvalidArgumentError(absl::StrCat("target opset ", target, " is outside [1, ", kMaxTargetOpset,
                                                   "], what onnx " ONNX_VERSION_STRING "'s version converter knows"));
  }
  ASSIGN_OR_RETURN(const int64_t from, DefaultOpset(model));
  // Up: at least the IR of the target's onnx release. Down: what runtimes of the target's era read, as far as what the
  // model holds allows (graph/ir_features.h); decided on the caller's model, whose fields the move keeps.
  const int64_t ir_version = target < from ? IrVersionAfterMovingDown(model, target)
                                           : std::max<int64_t>(model.ir_version(), MinIrVersionForOpset(target));
  auto commit_opset = [&] {
    for (auto& import : *model.mutable_opset_import()) {
      if (IsDefaultDomain(import.domain())) import.set_version(target);  // "" and "ai.onnx" alike
    }
    model.set_ir_version(ir_version);
  };
  if (target == from) {
    model.set_ir_version(ir_version);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(ValidateGraphsForConverter(model.graph()));
  const Move move{pass_through, from, target};
  RETURN_IF_ERROR(CheckStandInIsInert(move));
  const StepConverter* const converter = &Converter();
  // The constants the model reads before the move: those a down move stops reading go (ConstantsRead).
  const MaybeUnused read_before = move.Down() ? ConstantsRead(model.graph()) : MaybeUnused();
  if (move.Down()) {
    // Refused before the converter runs, naming the node; and converted whole (chunks.cc converts upwards).
    RETURN_IF_ERROR(CheckFormsComputingConstants(model, move, *converter, undo));
    chunk_nodes = 0;
  }
  if (chunk_nodes > 0) {
    ASSIGN_OR_RETURN(const bool untouched, NothingToConvert(model.graph(), move, *converter));
    if (untouched) {
      commit_opset();
      return absl::OkStatus();
    }
  }
  // The phases: the skeleton the converter sees, its conversion, and the converted nodes spliced back.
  ASSIGN_OR_RETURN(Skeleton skeleton, BuildSkeleton(model, move));
  ASSIGN_OR_RETURN(std::optional<google::protobuf::RepeatedPtrField<NodeProto>> unaligned,
                   AlignLegacyBroadcasts(skeleton, move, model));
  // What the alignment added to the caller's model is taken out again when the move fails: it is transactional.
  auto failed = [&](absl::Status status) {
    if (unaligned.has_value()) model.mutable_graph()->mutable_node()->Swap(&*unaligned);
    return status;
  };
  if (unaligned.has_value()) {
    absl::StatusOr<Skeleton> rebuilt = BuildSkeleton(model, move);
    if (!rebuilt.ok()) return failed(rebuilt.status());
    skeleton = *std::move(rebuilt);
  }
  absl::StatusOr<GraphProto> converted = RunConverter(skeleton, move, *converter, chunk_nodes);
  if (!converted.ok()) return failed(converted.status());
  RenamedOutputs renamed_here;
  absl::StatusOr<google::protobuf::RepeatedPtrField<NodeProto>> spliced =
      SpliceMainGraph(*converted, model.graph(), move, skeleton, renamed_here);
  if (!spliced.ok()) return failed(spliced.status());
  google::protobuf::RepeatedPtrField<NodeProto>& nodes = *spliced;
  // Commit: nothing below can fail (the main graph's locator always resolves).
  model.mutable_graph()->mutable_node()->Swap(&nodes);
  if (!read_before.empty()) RETURN_IF_ERROR(RemoveUnreadConstants(read_before, model, renamed_here));
  model.set_ir_version(ir_version);
  ConstantsBelowNineAsInitializers(target, model);
  if (renamed != nullptr) renamed->insert(renamed_here.begin(), renamed_here.end());
  commit_opset();
  return absl::OkStatus();
}

}  // namespace
}  // namespace opset_upgrade

absl::Status MoveDefaultOpset(onnx::ModelProto& model, int64_t target_opset, const PassThroughOps& pass_through,
                              RenamedOutputs* renamed) {
  return MoveDefaultOpsetInChunks(model, target_opset, opset_upgrade::kChunkNodes, pass_through, renamed);
}

absl::StatusOr<std::vector<NodeWithoutForm>> NodesWithoutFormAt(const onnx::ModelProto& model, int64_t target_opset) {
  ASSIGN_OR_RETURN(const int64_t from, DefaultOpset(model));
  if (target_opset >= from) return std::vector<NodeWithoutForm>();
  const PassThroughOps none;
  const opset_upgrade::Move move{none, from, target_opset};
  const opset_upgrade::StepConverter& converter = opset_upgrade::Converter();
  opset_upgrade::ComputedConstants computed(model, move);
  std::vector<NodeWithoutForm> found =
      opset_upgrade::NodesWithoutFormAt(model, move, converter, /*first_only=*/false, computed);
  if (found.empty() || !computed.HasValues()) return found;
  // As the move does (CheckFormsComputingConstants): the values computed so far written in, again while that computes
  // more; on a light copy, which holds what the computations read (large weights are left out as typed inputs).
  onnx::ModelProto light;
  BuildModelSkeleton(model, light);
  for (int round = 1; round <= opset_upgrade::kMostComputeRounds; ++round) {
    opset_upgrade::ComputedConstants again(light, move);
    found = opset_upgrade::NodesWithoutFormAt(light, move, converter, /*first_only=*/false, again);
    if (found.empty() || !again.HasValues()) break;
    again.WriteInto(light);
  }
  return found;
}

absl::Status TryMovingDown(const onnx::ModelProto& model, int64_t target_opset) {
  onnx::ModelProto light;
  BuildModelSkeleton(model, light);
  return MoveDefaultOpset(light, target_opset);
}

absl::Status MoveDefaultOpsetInChunks(onnx::ModelProto& model, int64_t target_opset, int64_t chunk_nodes,
                                      const PassThroughOps& pass_through, RenamedOutputs* renamed) {
  std::optional<google::protobuf::RepeatedPtrField<onnx::NodeProto>> undo;
  absl::Status moved;
  try {
    moved = opset_upgrade::MoveImpl(model, target_opset, chunk_nodes, pass_through, renamed, undo);
  } catch (const std::bad_alloc&) {
    moved = absl::ResourceExhaustedError("out of memory while moving the model to a new opset");
  } catch (const std::exception& e) {
    moved = absl::InternalError(absl::StrCat("unexpected exception while moving the model to a new opset: ", e.what()));
  } catch (...) {
    moved = absl::InternalError("unexpected exception while moving the model to a new opset");
  }
  // The move is transactional: what it wrote into the caller's model before it failed is taken out again.
  if (!moved.ok() && undo.has_value()) model.mutable_graph()->mutable_node()->Swap(&*undo);
  return moved;
}

}  // namespace onnx_legalize
