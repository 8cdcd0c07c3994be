// Moves a model's default-domain opset forward, or back, with onnx 1.23's version converter, wrapped so that the
// converter only ever sees what it can handle and everything it would lose survives.
//
// How (the long form is at the top of upgrade/opset_upgrade.cc and of each part upgrade/internal.h lists):
//   1. validate the model (the converter crashes or throws on malformed graphs; ValidateGraphsForConverter in
//      graph/graph_validation.h);
//   2. build a small "skeleton" copy: every value renamed to a private name, every node tagged, large
//      constants replaced by typed placeholders, and every node the converter must not touch (DynamicSlice,
//      nodes of other domains) replaced by an inert stand-in that keeps its inputs, outputs and subgraphs;
//   3. run onnx shape inference on the skeleton (best effort: some adapters need ranks) and the converter;
//   4. splice the converted nodes back into the original graphs: original nodes keep every field the
//      converter does not concern, stand-ins become the original nodes again, converter-made values get
//      fresh names that collide with nothing in the model.
// The model is modified only after every step has succeeded.
#ifndef ONNX_LEGALIZE_SRC_UPGRADE_OPSET_UPGRADE_H_
#define ONNX_LEGALIZE_SRC_UPGRADE_OPSET_UPGRADE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/graph_locator.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Default-domain ops besides DynamicSlice that the upgrade passes through untouched: ops removed from ONNX,
// which onnx 1.23 has no schema for and which the caller rewrites afterwards. The upgrade knows none of
// them itself; the library's rules say which (pass/passes.h, RemovedOpsPassThrough). Empty functions: none.
struct PassThroughOps {
  // True when `node`, in a model whose default opset is `opset`, passes through.
  std::function<bool(const onnx::NodeProto& node, int64_t opset)> passes_through;
  // True when such a node's output keeps its first input's element type and rank, so that shape inference
  // may carry types past it (as it does past DynamicSlice).
  std::function<bool(const onnx::NodeProto& node)> keeps_rank;
};

// Moves the model's default-domain opset ("" / "ai.onnx") from its current version to `target_opset`
// (1 <= target <= kMaxTargetOpset), converting every default-domain node of every graph — main graph and
// the bodies of If/Loop/Scan at any depth — to the target opset's semantics with onnx 1.23's version converter.
// Upwards, with the repairs of upgrade/fixes/; downwards with onnx's down-adapters as they are (their results are
// proved like every other move's, verify/opset_move_proof.h), after every node is checked to have a form at the
// target (a refusal of kind kNoFormAtOpset names the first that has none, and the lowest opset it can go to).
// Nodes whose op_type is "DynamicSlice" (default domain) pass through untouched (same inputs, outputs,
// name, attributes, position relative to their neighbours) so the caller can rewrite them to Slice
// afterwards, and so do the nodes `pass_through` names. Nodes of other domains pass through untouched too
// (their subgraphs, if any, are converted).
// Raises ir_version to the minimum that fits target_opset if it is lower and never lowers it.
// Transactional: on any error `model` is unchanged. No exception escapes.
// Nodes keep their outputs, except where a repair must recompute them after the node: those renamed are
// added to `renamed` when given (old name -> new), so that locators of the node's subgraphs still resolve.
//
// Errors: InvalidArgument for a malformed model or a bad target; FailedPrecondition when a node cannot be
// moved (no schema in onnx 1.23, no adapter, an adapter that needs a shape or a constant the model does not give;
// marked kNoFormAtOpset where a node has no form at a lower target);
// ResourceExhausted when memory runs out; Internal for a broken invariant of this wrapper.
absl::Status MoveDefaultOpset(onnx::ModelProto& model, int64_t target_opset, const PassThroughOps& pass_through = {},
                              RenamedOutputs* renamed = nullptr);

// A default-domain node of a model that has no form at a lower opset (MoveDefaultOpset refuses the model's move
// there), and why.
struct NodeWithoutForm {
  std::string graph_path;
  std::string node_name;
  std::string op_type;
  std::string label;         // NodeLabel
  int64_t lowest_opset = 0;  // the lowest opset it can be moved to
  std::string why;           // why not below it
};

// Every default-domain node of `model` (all graphs, depth first) that has no form at `target_opset`, below the
// model's opset: what keeps a move down there from being made. Empty when every node has one (onnx's converter may
// still refuse a node an adapter cannot take as it runs: an axes input computed at run time, say), and for a target
// at or above the model's opset. InvalidArgument when the model's opset imports are malformed.
absl::StatusOr<std::vector<NodeWithoutForm>> NodesWithoutFormAt(const onnx::ModelProto& model, int64_t target_opset);

// Whether MoveDefaultOpset would move `model` to `target_opset` (below its opset): the move made on a light copy
// (graph/model_skeleton.h: weights past 64 KiB left out as typed inputs), the model left as it is. OK, or the move's
// error (kNoFormAtOpset naming the node where an adapter refuses what NodesWithoutFormAt cannot see node by node: an
// axis counting from the back of an input whose rank only shape inference of the whole model could give).
absl::Status TryMovingDown(const onnx::ModelProto& model, int64_t target_opset);

// MoveDefaultOpset with the main graph handed to the converter in chunks of at most `chunk_nodes` nodes
// it converts (MoveDefaultOpset uses 64), or, for 0, whole, as onnx's ConvertVersion does. The result
// is the same either way, byte for byte (a move down is always converted whole); whole, the conversion costs O(n*m) for
// a graph of n nodes, m of which an adapter replaces or renames (onnx 1.23's IR walks every node on each such
// rename; 1.12's import alone was O(n^2)), in chunks O(n). For tests.
absl::Status MoveDefaultOpsetInChunks(onnx::ModelProto& model, int64_t target_opset, int64_t chunk_nodes,
                                      const PassThroughOps& pass_through = {}, RenamedOutputs* renamed = nullptr);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_UPGRADE_OPSET_UPGRADE_H_
