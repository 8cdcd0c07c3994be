// What the parts of UpgradeDefaultOpset share. opset_upgrade.cc runs the steps; each other file of upgrade/
// does one:
//   skeleton.cc        the copy of the model the converter sees
//   skeleton_types.cc  what the skeleton says of value types, for the converter and the fixes
//   chunks.cc          the converter run on the main graph in chunks (onnx's IR is O(n^2))
//   splice.cc          the converted nodes put back into the caller's graphs
//   adapter_fixes.cc   what onnx 1.12's adapters get wrong, put right
// Names and paths in messages: graph/labels.h. The check of the input: graph/graph_validation.h.
#ifndef ONNX_LEGALIZE_SRC_UPGRADE_INTERNAL_H_
#define ONNX_LEGALIZE_SRC_UPGRADE_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/labels.h"
#include "graph/names.h"
#include "graph/subgraphs.h"
#include "onnx/common/ir.h"
#include "onnx/onnx_pb.h"
#include "onnx/version_converter/convert.h"
#include "upgrade/names.h"
#include "upgrade/opset_upgrade.h"
#include "upgrade/stand_in_schema.h"

namespace onnx_legalize::opset_upgrade {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::ModelProto;
using onnx::NodeProto;
using onnx::TensorProto;
using onnx::ValueInfoProto;

// Op types the upgrade treats specially (DynamicSlice and Constant: graph/op_names.h).
inline constexpr char kShape[] = "Shape";
inline constexpr char kFlatten[] = "Flatten";
inline constexpr char kReshape[] = "Reshape";
inline constexpr char kResize[] = "Resize";
inline constexpr char kUpsample[] = "Upsample";
inline constexpr char kScatter[] = "Scatter";
inline constexpr char kSoftmax[] = "Softmax";
inline constexpr char kLogSoftmax[] = "LogSoftmax";
inline constexpr char kHardmax[] = "Hardmax";
inline constexpr char kClip[] = "Clip";
inline constexpr char kPad[] = "Pad";
inline constexpr char kPRelu[] = "PRelu";
inline constexpr char kUnsqueeze[] = "Unsqueeze";

// The stand-in for nodes the converter must not touch. Softsign has a single schema (since version 1), so
// no adapter can match it on the way up; the converter still recurses into its graph attributes. In its
// domain (kStandInDomain) no Softsign is defined, so shape inference skips it instead of inferring Softsign.
inline constexpr char kStandInOp[] = "Softsign";
// (kStandInDomain and DynamicSlice's own stand-in, kRankKeepingStandInOp: upgrade/stand_in_schema.h.)

// One node of the caller's model, as the skeleton shows it; its index is its tag (NameCodec::NodeTag).
struct NodeRecord {
  const NodeProto* original = nullptr;
  const GraphProto* owner = nullptr;        // the original graph holding the node
  bool opaque = false;                      // shown to the converter as a stand-in
  std::set<std::string> hidden_attributes;  // attributes the skeleton does not carry; restored verbatim
};

// One upgrade, from the skeleton's building to the splice.
struct Context {
  const PassThroughOps& pass_through;  // the removed ops the skeleton shows as stand-ins
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

// Whether the upgrade passes opset `version` (a schema change at `version` concerns it).
inline bool Crosses(const Context& ctx, int64_t version) { return ctx.from < version && ctx.to >= version; }

// --- upgrade/skeleton.cc ---------------------------------------------------------------------------------------------

// Whether a constant's data reaches the converter (else only its type and shape do).
bool InlineConstant(const TensorProto& t);

// The tensor of a default-domain Constant node's `value`, or null.
const TensorProto* ConstantValue(const NodeProto& node);

// A value_info of a tensor type with fixed dims.
ValueInfoProto TypedPlaceholder(const std::string& name, int32_t elem_type,
                                const google::protobuf::RepeatedField<int64_t>& dims);

// Whether the skeleton shows `node` as a stand-in: DynamicSlice, the ops ctx.pass_through names (at the
// opset ctx.from the model imports), other domains, large Constants.
bool ShownAsStandIn(const NodeProto& node, const Context& ctx);

// FailedPrecondition when onnx 1.12 does not define `node`'s op at the model's opset (node in graph `where`).
absl::Status CheckOpKnownAtSourceOpset(const NodeProto& node, const std::string& where, const Context& ctx);

// FailedPrecondition when onnx 1.12's converter would move `node` to a form that computes something else and
// no repair puts it right (Scan-8 crossing opset 9).
absl::Status CheckConverterMovesItRight(const NodeProto& node, const std::string& where, const Context& ctx);

// Appends to `out` the skeleton of `graph` (at `path`; `is_main` for the main graph), recording its nodes in
// ctx.records.
absl::Status BuildSkeletonGraph(const GraphProto& graph, const std::string& path, bool is_main, Context& ctx,
                                GraphProto* out);

// After shape inference: the outputs of nodes an adapter replaces by a new node become graph outputs, so
// that onnx's IR (Value::replaceAllUsesWith) gives the replacement the original output names.
void ExposeReplacedOutputs(const Context& ctx, GraphProto* graph);

// --- upgrade/skeleton_types.cc ---------------------------------------------------------------------------------------

// Repeats what enclosing graphs know of the values a subgraph captures as value_info of the subgraph.
void AddCaptureTypes(GraphProto* graph, const std::unordered_map<std::string, onnx::TypeProto>& outer);

// Fills ctx.elem_types from the skeleton's declarations.
void CollectElemTypes(const GraphProto& graph, Context& ctx);

// The inputs of the Softmax and LogSoftmax nodes of the skeleton (Hardmax shows as Softmax), which the
// 12->13 adapter restructures.
void CollectSoftmaxInputs(const GraphProto& graph, std::unordered_set<std::string>& names);

// The inputs (X and slope) of the skeleton's PRelu nodes, whose slope the 6->7 step may have to reshape.
void CollectPReluInputs(const GraphProto& graph, std::unordered_set<std::string>& names);

// Fills ctx.known_dims for the `wanted` names from the skeleton's declarations; `defined` gathers which of
// them the graphs seen so far define.
void CollectKnownDims(const GraphProto& graph, const std::unordered_set<std::string>& wanted, Context& ctx,
                      std::unordered_set<std::string>& defined);

// --- upgrade/chunks.cc -----------------------------------------------------------------------------------------------

// Nodes the converter touches per chunk. A chunk's import costs O(k^2) in its node count k, a chunk's
// fixed cost (building, importing and exporting a small model) favours larger chunks; 64 balances the two
// (measured in bench/, see README).
inline constexpr int64_t kChunkNodes = 64;

// DefaultVersionConverter with its step loop exposed: convert_graph for one version step, unchanged in
// effect (it is private in onnx 1.12), and the test it applies to decide whether a node meets an adapter.
class StepConverter : public onnx::version_conversion::DefaultVersionConverter {
 public:
  // Whether convert_graph hands a node of `op_type` to an adapter at some step from `from` to `to`.
  bool Adapts(const std::string& op_type, int64_t from, int64_t to) const;

  // convert_graph(g, curr, curr + 1).
  void ConvertStep(const std::shared_ptr<onnx::Graph>& g, int64_t curr) const;
};

// Whether a subgraph of the main graph reads the output of a Softmax or LogSoftmax that the 12->13 adapter
// restructures: such a graph is converted whole.
bool SubgraphReadsARestructuredValue(const GraphProto& graph, const Context& ctx);

// Whether the converter would leave every node of the main graph as it is.
absl::StatusOr<bool> NothingToConvert(const GraphProto& graph, const Context& ctx, const StepConverter& converter);

// The skeleton's main graph converted from ctx.from to ctx.to in chunks of at most `chunk_nodes` converted
// nodes; returns a graph whose nodes, converter-made initializers and outputs are those one conversion of
// the whole skeleton would give (up to the names of converter-made values).
absl::StatusOr<GraphProto> ConvertMainGraphInChunks(const ModelProto& skeleton, const Context& ctx,
                                                    const StepConverter& converter, int64_t chunk_nodes);

// --- upgrade/splice.cc -----------------------------------------------------------------------------------------------

// The node list of the caller's main graph `original`, and of its subgraphs at any depth, rebuilt from
// `converted`, the converted skeleton's main graph, into `out_nodes`; the caller's model is not touched.
absl::Status SpliceMainGraph(const GraphProto& converted, const GraphProto& original, Context& ctx,
                             google::protobuf::RepeatedPtrField<NodeProto>* out_nodes);

// --- upgrade/adapter_fixes.cc ----------------------------------------------------------------------------------------

// The op type the skeleton shows for a converted node.
std::string OpTypeShownToConverter(const NodeProto& node, const Context& ctx);

// Adds to `shown`, the skeleton of `node`, the Pad-2 `value` default the Pad 10->11 adapter reads.
void SpellOutPadValue(const NodeProto& node, const Context& ctx, NodeProto* shown);

// Gives a Resize that Upsample or Resize-10 became (`node`, spliced from `orig`) Resize-10's coordinates.
void KeepResize10Coordinates(const NodeProto& orig, const Context& ctx, NodeProto* node);

// Puts right what the adapters made of the spliced nodes of one graph (shown as graph `where`): per node,
// `emitted_record` is the record it stands for (-1 for a converter-made node) and `converted` the skeleton's
// converted node it was spliced from (null for a converter-made initializer), whose input names are the keys
// of ctx.elem_types and ctx.known_dims. Adds the nodes a fix needs.
absl::Status FixAdapterResults(const std::string& where, const std::vector<int64_t>& emitted_record,
                               const std::vector<const NodeProto*>& converted, Context& ctx,
                               google::protobuf::RepeatedPtrField<NodeProto>* out_nodes);

}  // namespace onnx_legalize::opset_upgrade

#endif  // ONNX_LEGALIZE_SRC_UPGRADE_INTERNAL_H_
