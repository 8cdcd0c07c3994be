// Scan 8->9.
//
// What onnx gets wrong (1.12 and 1.23 alike): Scan-8's inputs are [sequence_lens (optional), states [B, ...],
// scan inputs [B, seq, ...]] and its outputs [final states [B, ...], scan outputs [B, seq, ...]]; its body sees
// one batch element, without the batch axis, exactly as Scan-9's body sees its tensors. The 8->9 adapter
// renames `directions` but leaves the inputs batched, where Scan-9 has no batch axis: it would scan the batch.
//
// The fix: with a batch of one and no sequence_lens, Scan-9 over the tensors without their batch axis computes
// the same thing: each input is squeezed at axis 0 before it, each output unsqueezed at axis 0 after it (under
// its original name). A larger or unknown batch would need a loop over the batch that no repair here writes:
// such a node is refused. A Scan-8 with sequence_lens onnx 1.23's adapter refuses itself ("Unsupported
// conversion to opset 9"). (scan_8_9_test: MovesAScan8WithABatchOfOneBySqueezingTheBatchAway and
// RefusesAScan8WhoseBatchIsNotOneOrUnknownOrThatTakesSequenceLens fail without this fix.)
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/labels.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// A Squeeze or Unsqueeze at axis 0 of `input`, giving `output`, appended to `nodes` (after the Constant of its
// axes, from opset 13).
void AddAxisZeroNode(const char* op_type, const std::string& input, const std::string& output, SpliceContext& ctx,
                     std::vector<NodeProto>* nodes) {
  NodeProto node;
  node.set_op_type(op_type);
  node.add_input(input);
  AddAxes({0}, output + "_axes", ctx, &node, nodes);
  node.add_output(output);
  nodes->push_back(std::move(node));
}

// The refusal of a Scan-8 the repair cannot move, naming the node and why.
absl::Status RefuseScan8(const NodeProto& orig, const std::string& where, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat(
      InGraph(NodeLabel(orig), where),
      ": Scan-8 scans batched tensors and Scan-9 has no batch axis; a batch of one is moved by squeezing it "
      "away, but ",
      why, ", so it cannot be moved to opset 9 or later"));
}

}  // namespace

absl::Status KeepScan8BatchOfOne(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx) {
  if (orig.op_type() != kScan || ctx.move.from != 8 || !ctx.move.Crosses(9)) return absl::OkStatus();
  for (int k = 1; k < orig.input_size(); ++k) {
    const std::vector<int64_t>* dims = KnownDims(ctx.skeleton.types, ctx.skeleton.codec.Encoded(orig.input(k)));
    if (dims == nullptr || dims->empty() || (*dims)[0] != 1) {
      return RefuseScan8(orig, g.where,
                         absl::StrCat("the batch of input '", orig.input(k), "' (dims ", DimsText(dims), ") is ",
                                      dims != nullptr && !dims->empty() && (*dims)[0] >= 0 ? "not 1" : "unknown"));
    }
  }
  // The adapter dropped inputs of undeclared sizes too: the inputs are the original ones, squeezed.
  NodeProto* node = g.nodes->Mutable(i);
  node->clear_input();
  for (int k = 1; k < orig.input_size(); ++k) {
    const std::string squeezed = ctx.fresh.Make(orig.input(k) + "_unbatched");
    AddAxisZeroNode(kSqueeze, orig.input(k), squeezed, ctx, &(*g.insert_before)[i]);
    node->add_input(squeezed);
  }
  for (int k = 0; k < node->output_size(); ++k) {
    const std::string output = node->output(k);
    if (output.empty()) continue;
    const std::string unbatched = ctx.fresh.Make(output + "_unbatched");
    node->set_output(k, unbatched);
    ctx.renamed[output] = unbatched;  // the Scan's body is found by its first output
    AddAxisZeroNode(kUnsqueeze, unbatched, output, ctx, &(*g.insert_before)[i + 1]);
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
