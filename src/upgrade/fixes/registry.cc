// Which of onnx 1.23's version-converter adapters are repaired, where, and in which order. One file per
// repaired adapter (op, from, to), as onnx's own adapters are; each says what the adapter gets wrong and what
// its fix does, and names the tests (tests/upgrade/fixes/) that fail without it. Each fix was re-tested against
// onnx 1.23.2's adapters on 2026-12-06 with every fix below turned off at once: every test named fails (13 tests
// of the six files; the rest of those files pass either way), so each repair is still needed:
//   softmax_12_13.cc         Softmax, LogSoftmax, Hardmax 12->13: the Reshape misreads 0-sized dims; Hardmax
//                            registered as compatible
//   legacy_broadcast_6_7.cc  Add, Sub, Mul, Div, Pow 6->7: B unsqueezed `axis` times too many
//   clip_pad_10_11.cc        Clip, Pad 10->11: float inputs for double/float16 data
//   prelu_6_7.cc             PRelu 6->7: registered as compatible though the slope now broadcasts from the end
//   scan_8_9.cc              Scan 8->9: the batch axis kept where Scan-9 has none
//   resize_10_11.cc          Resize 10->11 (and Upsample): Resize-11's default coordinates instead of Resize-10's
//
// Some fixes act before the converter or while splicing, where what they repair is made or read, and are called
// from there (declared in upgrade/internal.h):
//   skeleton.cc        OpTypeShownToConverter (a Hardmax shown as a Softmax)
//   opset_upgrade.cc   AlignLegacyBroadcasts, before the converter runs
//   splice.cc          KeepResize10Coordinates, as each converted node is spliced; FixAdapterResults (below),
//                      once a graph's nodes are spliced
// (upgrade/constants_below_nine.cc, after the whole move, makes the int64 Constants that Reshape 4->5 and others
// write legal below opset 9.)
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// The fixes of the spliced nodes. Each matches its own op types, so at most one changes a given node and the
// order of this list does not change the result. What does is that they run node by node in graph order (all
// fixes of node i before any of node i + 1): fresh names are taken in that order, nodes added before the same
// index keep the order they were added in (Scan's Unsqueezes go before node i + 1, where a PRelu's nodes may go
// too), and the first refusal in graph order is the one reported.
constexpr AdapterFix kFixesOfSplicedNodes[] = {
    FixSoftmax13Reshape, FixLegacyBroadcast, RetypeClipPadInputs, KeepPReluSlopePerChannel, KeepScan8BatchOfOne,
};

// Who defines each value; a value defined twice is an error.
absl::StatusOr<std::unordered_map<std::string, int>> MapProducers(
    const std::string& where, const google::protobuf::RepeatedPtrField<NodeProto>& nodes) {
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < nodes.size(); ++i) {
    for (const auto& o : nodes.Get(i).output()) {
      if (!o.empty() && !producer.emplace(o, i).second) {
        return absl::InternalError(
            absl::StrCat("graph ", where, ": value '", o, "' is defined twice after conversion"));
      }
    }
  }
  return producer;
}

// Puts the nodes the fixes added before the nodes they go before (those keyed by the node count go last),
// keeping each list's order.
void InsertFixNodes(InsertBefore& insert_before, google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  if (insert_before.empty()) return;
  google::protobuf::RepeatedPtrField<NodeProto> merged;
  for (int i = 0; i <= out_nodes->size(); ++i) {
    auto it = insert_before.find(i);
    if (it != insert_before.end()) {
      for (NodeProto& n : it->second) merged.Add()->Swap(&n);
    }
    if (i < out_nodes->size()) merged.Add()->Swap(out_nodes->Mutable(i));
  }
  out_nodes->Swap(&merged);
}

}  // namespace

absl::Status FixAdapterResults(const std::string& where, const std::vector<int64_t>& emitted_record,
                               const std::vector<const NodeProto*>& converted, SpliceContext& ctx,
                               google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  ASSIGN_OR_RETURN(auto producer, MapProducers(where, *out_nodes));
  InsertBefore insert_before;
  const SplicedNodes g{where, emitted_record, converted, out_nodes, std::move(producer), &insert_before};
  for (int i = 0; i < out_nodes->size(); ++i) {
    if (emitted_record[static_cast<size_t>(i)] < 0) continue;  // converter-made: no original to compare with
    const NodeProto& orig = *ctx.skeleton.records[static_cast<size_t>(emitted_record[static_cast<size_t>(i)])].original;
    for (AdapterFix fix : kFixesOfSplicedNodes) RETURN_IF_ERROR(fix(g, i, orig, ctx));
  }
  InsertFixNodes(insert_before, out_nodes);
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
