// What the fixes of the converter's results share: the spliced nodes of one graph as a fix sees them, the nodes
// a fix adds, and the helpers more than one fix uses. Each fix is one file of upgrade/fixes/, named after the
// adapter it repairs (op, from, to); registry.cc lists them. The fixes made before the converter runs are
// declared in upgrade/internal.h, since skeleton.cc, splice.cc and opset_upgrade.cc call them.
#ifndef ONNX_LEGALIZE_SRC_UPGRADE_FIXES_ADAPTER_FIX_H_
#define ONNX_LEGALIZE_SRC_UPGRADE_FIXES_ADAPTER_FIX_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {

// Nodes the fixes add, by the index of the node they go before; inserted after all fixes, in one pass, so
// that the indices a fix reads stay those of the spliced nodes.
using InsertBefore = std::map<int, std::vector<NodeProto>>;

// The spliced nodes of one graph, as FixAdapterResults is given them, and which node defines each value.
struct SplicedNodes {
  const std::string& where;
  const std::vector<int64_t>& emitted_record;
  const std::vector<const NodeProto*>& converted;
  google::protobuf::RepeatedPtrField<NodeProto>* nodes;
  std::unordered_map<std::string, int> producer;  // value -> index of the node defining it
  InsertBefore* insert_before;

  // The skeleton name of input `k` of node `i` (the key of KnownTypes), or "".
  std::string SkeletonInput(int i, int k) const {
    const NodeProto* conv = converted[static_cast<size_t>(i)];
    return conv != nullptr && k < conv->input_size() ? conv->input(k) : std::string();
  }

  // The converter-made node of `op_type` producing `name`, or -1.
  int MadeProducer(const std::string& name, const char* op_type) const {
    auto it = producer.find(name);
    if (it == producer.end() || emitted_record[static_cast<size_t>(it->second)] >= 0) return -1;
    return nodes->Get(it->second).op_type() == op_type ? it->second : -1;
  }
};

// A fix of the converter's result for spliced node `i` of `g`, which stands for the caller's node `orig`:
// does nothing unless `orig` is of the op and the move crosses the version whose adapter it repairs. May
// change converter-made nodes of `g`, add nodes through g.insert_before, and take fresh names from ctx.
using AdapterFix = absl::Status (*)(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx);

// --- one file each ---------------------------------------------------------------------------------------------------

// softmax_12_13.cc
absl::Status FixSoftmax13Reshape(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx);
// legacy_broadcast_6_7.cc
absl::Status FixLegacyBroadcast(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx);
// clip_pad_10_11.cc
absl::Status RetypeClipPadInputs(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx);
// prelu_6_7.cc
absl::Status KeepPReluSlopePerChannel(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx);
// scan_8_9.cc
absl::Status KeepScan8BatchOfOne(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx);

// --- fix_support.cc: what more than one fix uses ---------------------------------------------------------------------

// What the skeleton declares of the dims of `name` (its skeleton name), or null.
const std::vector<int64_t>* KnownDims(const KnownTypes& types, const std::string& name);

// Dims for a message: "[1,?,3]", or "unknown" for null.
std::string DimsText(const std::vector<int64_t>* dims);

// Gives the Squeeze or Unsqueeze `node` its `axes`: an attribute before opset 13, from 13 an input read from a
// Constant (named after `constant_name`) appended to `before`.
void AddAxes(const std::vector<int64_t>& axes, const std::string& constant_name, SpliceContext& ctx, NodeProto* node,
             std::vector<NodeProto>* before);

}  // namespace onnx_legalize::opset_upgrade

#endif  // ONNX_LEGALIZE_SRC_UPGRADE_FIXES_ADAPTER_FIX_H_
