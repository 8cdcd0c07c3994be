// What the parts of MoveDefaultOpset share. opset_upgrade.cc runs the steps; each other file of upgrade/
// does one:
//   skeleton.cc        the copy of the model the converter sees
//   skeleton_types.cc  what the skeleton says of value types, for the converter and the fixes
//   chunks.cc          the converter run on the main graph in chunks (onnx's IR walks the graph per rename)
//   splice.cc          the converted nodes put back into the caller's graphs
//   fixes/             what onnx 1.23's adapters get wrong, put right: one file per adapter, listed in
//                      fixes/registry.cc
//   down_forms.cc      moving down: whether every node has a form at the target, before the converter runs
//   down_steps.cc      moving down: the down-adapters onnx lacks or gets wrong, in one table; the adapters that
//                      rewrite a node are in down_inputs_to_attributes.cc, down_replacements.cc and
//                      down_integers_below_nine.cc
// Names and paths in messages: graph/labels.h. The check of the input: graph/graph_validation.h.
#ifndef ONNX_LEGALIZE_SRC_UPGRADE_INTERNAL_H_
#define ONNX_LEGALIZE_SRC_UPGRADE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
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
inline constexpr char kCastLike[] = "CastLike";
inline constexpr char kHardSwish[] = "HardSwish";
inline constexpr char kMish[] = "Mish";
inline constexpr char kOneHot[] = "OneHot";
inline constexpr char kEqual[] = "Equal";
inline constexpr char kSoftmax[] = "Softmax";
inline constexpr char kLogSoftmax[] = "LogSoftmax";
inline constexpr char kHardmax[] = "Hardmax";
inline constexpr char kClip[] = "Clip";
inline constexpr char kPad[] = "Pad";
inline constexpr char kPRelu[] = "PRelu";
inline constexpr char kUnsqueeze[] = "Unsqueeze";
inline constexpr char kSqueeze[] = "Squeeze";
inline constexpr char kScan[] = "Scan";

// The stand-in for nodes the converter must not touch: Not, the one default-domain op whose only schema in onnx
// 1.23 is its first (Softsign, used until 1.12, gained Softsign-22), so no adapter meets it on any move
// (CheckStandInIsInert says so should a later onnx define it anew). StepConverter::ConvertStep recurses into its
// graph attributes; 1.23's own convert_graph skips a node of another domain, subgraphs included. In its domain
// (kStandInDomain) no Not is defined, so shape inference skips it instead of inferring Not.
inline constexpr char kStandInOp[] = "Not";
// (kStandInDomain and DynamicSlice's own stand-in, kRankKeepingStandInOp: upgrade/stand_in_schema.h.)

// One node of the caller's model, as the skeleton shows it; its index is its tag (NameCodec::NodeTag).
struct NodeRecord {
  const NodeProto* original = nullptr;
  const GraphProto* owner = nullptr;        // the original graph holding the node
  bool opaque = false;                      // shown to the converter as a stand-in
  std::set<std::string> hidden_attributes;  // attributes the skeleton does not carry; restored verbatim
  std::string path;                         // the owner graph's path, for messages
};

// The move one upgrade makes: from which default opset to which, and the removed ops that pass through it
// (shown to the converter as stand-ins). Fixed before the first phase; every phase reads it.
struct Move {
  const PassThroughOps& pass_through;
  int64_t from = 0;
  int64_t to = 0;

  // Whether the move goes up past opset `version` (a schema change at `version` concerns it). The upgrade's
  // fixes repair adapters of such changes; a move down crosses none of them.
  bool Crosses(int64_t version) const { return from < version && to >= version; }
  bool Down() const { return to < from; }
  // Whether the move goes down past opset `version` (from a version of it to one before it).
  bool CrossesDown(int64_t version) const { return to < version && from >= version; }
};

// What the skeleton's declarations (after shape inference) say of its values, by skeleton name: what the
// adapters saw, which the fixes of upgrade/fixes/ need.
struct KnownTypes {
  // Element types; a name typed differently in two scopes is left out.
  std::unordered_map<std::string, int32_t> elem_types;
  std::unordered_set<std::string> ambiguous_types;
  // Sizes of the values a fix reads, per dim its dim_value or -1 (unknown, symbolic or negative); a name
  // declared with two ranks or two values for a dim, or defined in two graphs (sibling branches), is left out.
  std::unordered_map<std::string, std::vector<int64_t>> known_dims;
  std::unordered_set<std::string> ambiguous_dims;
};

// The first phase's result (BuildSkeleton): the model the converter sees, and how it maps to the caller's.
struct Skeleton {
  ModelProto model;
  NameCodec codec;                  // the caller's value names <-> the skeleton's
  std::vector<NodeRecord> records;  // the caller's nodes; a skeleton node's tag is its index here
  std::unordered_map<const GraphProto*, std::vector<int64_t>> records_by_owner;  // in node order
  KnownTypes types;
};

// What the last phase (the splice, with the adapter fixes) reads, and what it changes: the names taken in the
// caller's model, to which each value it makes adds one, and the caller's nodes' outputs a fix renamed.
struct SpliceContext {
  const Move& move;
  const Skeleton& skeleton;
  FreshNames fresh;
  RenamedOutputs& renamed;
};

// --- upgrade/skeleton.cc ---------------------------------------------------------------------------------------------

// Whether a constant's data reaches the converter (else only its type and shape do).
bool InlineConstant(const TensorProto& t);

// The tensor of a default-domain Constant node's `value`, or null.
const TensorProto* ConstantValue(const NodeProto& node);

// A value_info of a tensor type with fixed dims.
ValueInfoProto TypedPlaceholder(const std::string& name, int32_t elem_type,
                                const google::protobuf::RepeatedField<int64_t>& dims);

// Whether the skeleton shows `node` as a stand-in: DynamicSlice, the ops move.pass_through names (at the
// opset move.from the model imports), other domains, large Constants.
bool ShownAsStandIn(const NodeProto& node, const Move& move);

// FailedPrecondition when onnx 1.23 does not define `node`'s op at the model's opset (node in graph `where`).
absl::Status CheckOpKnownAtSourceOpset(const NodeProto& node, const std::string& where, const Move& move);

// The copy of `model` the converter sees, with what shape inference learns of it (best effort: adapters
// read ranks and shapes, but a model whose declared types contradict inference is still converted where no
// adapter needs them), the table of the caller's nodes it shows, and the types the adapter fixes read.
absl::StatusOr<Skeleton> BuildSkeleton(const ModelProto& model, const Move& move);

// --- upgrade/skeleton_types.cc ---------------------------------------------------------------------------------------

// Repeats what enclosing graphs know of the values a subgraph captures as value_info of the subgraph.
void AddCaptureTypes(GraphProto* graph, const std::unordered_map<std::string, onnx::TypeProto>& outer);

// What the skeleton's main graph `graph` and its subgraphs declare of the element types of their values, and
// of the dims of the values whose dims a fix of `move` reads (the inputs of Softmax and LogSoftmax, which
// the 12->13 adapter restructures; of PRelu, whose slope the 6->7 step may have to reshape; of Scan, whose
// batch the 8->9 step must know).
KnownTypes CollectKnownTypes(const GraphProto& graph, const Move& move);

// --- upgrade/chunks.cc -----------------------------------------------------------------------------------------------

// Nodes the converter touches per chunk. Each rename an adapter makes walks a chunk's k nodes (with onnx 1.12
// its import cost O(k^2)), a chunk's fixed cost (building, importing and exporting a small model) favours
// larger chunks; 64 balanced the two with onnx 1.12 (measured in bench/, see docs/performance.md).
inline constexpr int64_t kChunkNodes = 64;

// DefaultVersionConverter with its step loop exposed: convert_graph for one version step as onnx 1.12 wrote
// it (it is private, in 1.23 too), and the test it applies to decide whether a node meets an adapter. 1.23's
// convert_graph differs: it skips nodes of other domains, their subgraphs included, and keeps ConstantFill.
class StepConverter : public onnx::version_conversion::DefaultVersionConverter {
 public:
  // onnx 1.23's adapters, and those it lacks (as 1.12 did) for the recurrent ops of opsets 1-6 (chunks.cc).
  StepConverter();

  // Whether convert_graph hands a node of `op_type` to an adapter at some step from `from` to `to`.
  bool Adapts(const std::string& op_type, int64_t from, int64_t to) const;

  // Whether onnx's converter holds an adapter that moves a node of `op_type` from its version `version` (the op's
  // schema changed at `version`) to opset `version - 1`.
  bool AdaptsDown(const std::string& op_type, int64_t version) const;

  // onnx's own down-adapter of that change, taken out of the table (for one of ours that runs it first).
  std::shared_ptr<const onnx::version_conversion::Adapter> TakeDownAdapter(const std::string& op_type, int64_t version);

  // convert_graph(g, curr, curr + 1).
  void ConvertStep(const std::shared_ptr<onnx::Graph>& g, int64_t curr) const;

  // Each down-adapter (onnx's and ours, but those below an op's first version, which only throw) replaced by
  // `wrap` of it.
  void WrapDownAdapters(const std::function<std::unique_ptr<onnx::version_conversion::Adapter>(
                            std::unique_ptr<onnx::version_conversion::Adapter>)>& wrap);
};

// Whether a subgraph of the main graph reads the output of a Softmax or LogSoftmax that the 12->13 adapter
// restructures: such a graph is converted whole.
bool SubgraphReadsARestructuredValue(const GraphProto& graph, const Move& move);

// Whether the converter would leave every node of the main graph as it is.
absl::StatusOr<bool> NothingToConvert(const GraphProto& graph, const Move& move, const StepConverter& converter);

// The skeleton's main graph converted from move.from to move.to in chunks of at most `chunk_nodes` converted
// nodes; returns a graph whose nodes, converter-made initializers and outputs are those one conversion of
// the whole skeleton would give (up to the names of converter-made values).
absl::StatusOr<GraphProto> ConvertMainGraphInChunks(const Skeleton& skeleton, const Move& move,
                                                    const StepConverter& converter, int64_t chunk_nodes);

// --- upgrade/down_steps.cc -------------------------------------------------------------------------------------------

// Registers in `converter` the down-adapters onnx lacks for changes a node can cross back unchanged (types widened,
// an attribute or input added whose absence is the old behaviour), and ours in place of those onnx gets wrong; then
// makes every down-adapter's refusal (onnx's assertions: a type the older version does not take, ...) a
// NoFormException that names the node.
void RegisterOwnDownAdapters(StepConverter& converter);

// The changes RegisterOwnDownAdapters undoes, each as the op and the version whose change it undoes, and whether
// every node crosses it back as it is (nothing but the op's types widened). For tests.
struct OwnDownStep {
  std::string op_type;
  int64_t version;
  bool unconditional;
  bool replaces_onnx;     // in place of onnx's own adapter for the step
  bool writes_other_ops;  // writes the node in other ops of the older opset (where the op may not exist yet)
};

// What an adapter of ours throws for a node with no form at the older opset; the move's refusal is then of kind
// kNoFormAtOpset (core/error_kind.h), naming the caller's node (by the skeleton node's tag) and the lowest opset it
// can be moved to: the version whose change the adapter undoes, which the wrapper of every down-adapter
// (RegisterOwnDownAdapters) writes in, so that an adapter says only why.
class NoFormException : public std::runtime_error {
 public:
  NoFormException(const onnx::Node* node, const std::string& why)
      : NoFormException(node->has_name() ? node->name() : "", 0, why) {}
  NoFormException(std::string node_tag, int64_t lowest_opset, const std::string& why)
      : std::runtime_error(why), node_tag_(std::move(node_tag)), lowest_opset_(lowest_opset) {}
  const std::string& node_tag() const { return node_tag_; }
  int64_t lowest_opset() const { return lowest_opset_; }  // 0 until the wrapper writes it in

 private:
  std::string node_tag_;
  int64_t lowest_opset_;
};

// Whether `node` is given input `index` (an empty name leaves an optional input out).
inline bool HasInput(const NodeProto& node, int index) {
  return node.input_size() > index && !node.input(index).empty();
}

// The same in the skeleton, where onnx's IR gives a left-out input an Undefined producer.
inline bool HasInput(onnx::Node* node, size_t index) {
  return node->inputs().size() > index && node->inputs()[index]->node()->kind() != onnx::kUndefined;
}

// Takes input `index` off `node` in the skeleton (the later ones move up), and the Constant that fed only it out of
// the graph.
void TakeOffInput(onnx::Node* node, size_t index);

// The int32 or int64 values of the constant feeding input `index` of `node` in the skeleton (a Constant node's value,
// or an initializer of the node's graph or of the main graph), widened to int64; a NoFormException naming `name` where
// the skeleton holds no such constant (a large one it keeps as a placeholder). upgrade/down_inputs_to_attributes.cc.
std::vector<int64_t> ConstantInts(const std::shared_ptr<onnx::Graph>& main_graph, onnx::Node* node, size_t index,
                                  const char* name);
// The same constant as onnx's tensor (its type and dims).
const onnx::Tensor& ConstantTensor(const std::shared_ptr<onnx::Graph>& main_graph, onnx::Node* node, size_t index,
                                   const char* name);

// The float values of a float tensor, or nullopt for a tensor of another type or one that cannot be read.
std::optional<std::vector<float>> FloatValues(const TensorProto& tensor);

std::vector<OwnDownStep> OwnDownSteps();

// Why `node` cannot cross back the change its op's schema made at `version` with the adapter
// RegisterOwnDownAdapters registered for it (a value only the newer version takes), or nullopt: also where no
// such adapter is registered (onnx's own adapters check what they need as they run).
// `constant_of` gives the constant value of a name in the node's scope (an initializer or a Constant node's), or null.
using ConstantOf = std::function<const TensorProto*(const std::string& name)>;
std::optional<std::string> WhyCannotCrossBack(const NodeProto& node, int64_t version, const ConstantOf& constant_of);

// Why a node cannot cross a step back (a value only the newer version takes), or nullopt.
using WhyNot = std::optional<std::string>;

// --- upgrade/down_inputs_to_attributes.cc ----------------------------------------------------------------------------
// Steps that made attributes inputs, undone where those inputs are constants: per step the check of a node (on the
// caller's model) and the adapter (in the converter).

WhyNot SliceInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of);  // Slice 10 -> 9
onnx::Node* SliceInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);
WhyNot PadInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of);  // Pad 11 -> 10
onnx::Node* PadInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);
WhyNot ClipInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of);  // Clip 11 -> 10
onnx::Node* ClipInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);
WhyNot DropoutInputsAreConstant(const NodeProto& node, const ConstantOf& constant_of);   // Dropout 12 -> 11
WhyNot UpsampleScalesAreConstant(const NodeProto& node, const ConstantOf& constant_of);  // Upsample 9 -> 8 (onnx's)
onnx::Node* DropoutInputsToAttributes(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);

// --- upgrade/down_replacements.cc ------------------------------------------------------------------------------------
// Down-adapters that write a node in other ops of the older opset.

// A node of `op` reading `inputs`, made before `before` in its graph, its one output of `elem_type`.
onnx::Node* MadeBefore(onnx::Node* before, const char* op, const std::vector<onnx::Value*>& inputs, int32_t elem_type);
// A node of `kind` made after `node`, reading its one output and taking it over: the output's readers, and its name (a
// graph output's included), go to the new node's output, of the same element type. For a form that follows a node
// with another (Shape-15's Slice, Softmax's Transpose back).
onnx::Node* MadeAfterTakingOverItsOutput(onnx::Node* node, onnx::Symbol kind);
onnx::Node* ShapeRangeToSlice(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);  // Shape 15 -> 14
onnx::Node* CastLikeToCast(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);     // CastLike 15 -> 14
onnx::Node* ResizeOptionalInputsSpelledOut(const std::shared_ptr<onnx::Graph>& graph,        // Resize 13 -> 12
                                           onnx::Node* node);
onnx::Node* HardSwishAsItsBody(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);  // HardSwish 14 -> 13
onnx::Node* MishAsItsBody(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);       // Mish 18 -> 17
onnx::Node* SliceAxesCountedFromTheFront(const std::shared_ptr<onnx::Graph>& graph,           // Slice 11 -> 10
                                         onnx::Node* node);
onnx::Node* GatherIndicesCountedFromTheFront(const std::shared_ptr<onnx::Graph>& graph,  // Gather 11 -> 10
                                             onnx::Node* node);
onnx::Node* OneHotIndicesFromTheFront(const std::shared_ptr<onnx::Graph>& graph,  // OneHot 11 -> 10
                                      onnx::Node* node);
// An Unsqueeze whose `axes` (counting from the back) are its output's last ones, replaced by a Reshape that appends
// the 1s; null (and the node left as it is) for other axes. For Unsqueeze 11 -> 10 where the rank is not known.
onnx::Node* UnsqueezeAtTheBackAsReshape(onnx::Node* node, const std::vector<int64_t>& axes);
onnx::Node* EqualOfTheTypesItAdded(const std::shared_ptr<onnx::Graph>& graph,  // Equal 11 -> 10
                                   onnx::Node* node);
// The element type of a value in a node's scope, as shape inference finds it, or TensorProto::UNDEFINED.
using ElementTypeOf = std::function<int32_t(const std::string& name)>;
// Why `node` cannot cross the step of its op at `version` for the element types it is given (CastLike 15 -> 14,
// Mish 18 -> 17, OneHot 11 -> 10 and Equal 11 -> 10, whose forms above depend on them), or nullopt. Their adapters
// refuse in the same words.
WhyNot WhyElementTypesCannotCrossBack(const NodeProto& node, int64_t version, const ElementTypeOf& type_of);
WhyNot ResizeIsResize10(const NodeProto& node, const ConstantOf& constant_of);  // Resize 11 -> 10
onnx::Node* ResizeAsResize10(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);
WhyNot ResizeIsUpsample9(const NodeProto& node, const ConstantOf& constant_of);  // Resize 10 -> Upsample 9
onnx::Node* ResizeAsUpsample9(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);

// --- upgrade/down_integers_below_nine.cc ----------------------------------------------------------------------------
// Greater, Less, Flatten, MatMul, Gemm and PRelu 9 -> 8, of the types opset 9 let them take: through double where
// that is exact, in place of onnx's casts to float.

// Why a node of `op_type`-9 whose input is of `type` has no form before opset 9, or nullopt (and for other ops).
WhyNot IntegersBelowNineWhyNot(const std::string& op_type, int32_t type);
onnx::Node* ThroughDoubleBelowNine(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node);

// --- upgrade/computed_constants.cc ----------------------------------------------------------------------------------
// Moving down: the main graph's values computed from constants alone, read by the down steps' checks as the
// constants they are, then written into the model as Constant nodes.

class ComputedConstants {
 public:
  // `model` and `move` must outlive this, and `model` stay as it is until WriteInto.
  ComputedConstants(const ModelProto& model, const Move& move);

  // What onnx's shape inference finds of a main-graph value (on the skeleton the converter would see, built the
  // first time it is asked): its element type, or TensorProto::UNDEFINED; its dims when it fixes every one, or
  // nullopt. Where it cannot say (a name typed two ways in two scopes, a skeleton that cannot be built: the move
  // itself then fails on it), neither.
  int32_t ElementType(const std::string& name);
  std::optional<std::vector<int64_t>> FixedDims(const std::string& name);

  // `constants` (a scope's ConstantOf), extended with the main graph's values that a chain of at most a few hundred
  // deterministic nodes computes from small constants alone, and from the Shape of graph inputs whose declarations
  // fix every dim (the model runner runs the chain once, within a budget; the value must be small enough for the
  // converter to see its data). Each value it gives is recorded.
  ConstantOf Over(ConstantOf constants);

  // Writes each recorded value into `model` (the model above): the node that computed it becomes a Constant node
  // holding it (same name, same output), and the nodes that computed only what nothing reads any more go. Returns
  // the node list as it was (to undo), or nullopt when there was nothing to write.
  std::optional<google::protobuf::RepeatedPtrField<NodeProto>> WriteInto(ModelProto& model) const;

  // By main-graph node index, the nodes WriteInto would take out: the form search leaves them unchecked (the Slice
  // with steps -1 of a Pad's pads chain need not move below 10).
  std::vector<bool> NodesThatGo() const;

  // Whether a check was given a computed value (WriteInto has something to write).
  bool HasValues() const { return !read_.empty(); }

 private:
  struct Value {
    TensorProto value;
    std::set<int> nodes;  // the main graph's nodes that compute it
  };
  const TensorProto* Computed(const std::string& name);
  std::optional<Value> Compute(const std::string& name);
  const Skeleton* InferredSkeleton();

  const ModelProto& model_;
  const Move& move_;
  std::optional<absl::StatusOr<Skeleton>> skeleton_;  // built on first use
  std::unordered_map<std::string, int> producer_;     // a main-graph value -> the index of the node that makes it
  ConstantOf constants_;                              // the main graph's constants
  std::unordered_map<std::string, const TensorProto*> initializers_;
  std::unordered_set<std::string> graph_outputs_;
  std::unordered_map<std::string, std::optional<Value>> computed_;  // nullopt: not computable
  std::vector<std::string> read_;                                   // the values given out, in order
};

// --- upgrade/down_forms.cc -------------------------------------------------------------------------------------------

// The constants of `graph` (initializers, Constant nodes' `value`), by name, over those of the graphs around it
// (`outer`, or null). With `initializers_are_overridable` (IR >= 4), an initializer that is also a graph input is a
// default the caller may feed, no constant; in IR 3 every initializer is listed as an input.
ConstantOf ConstantsOf(const GraphProto& graph, const ConstantOf& outer, bool initializers_are_overridable);

// For a move down (move.to < move.from): NoFormAtOpsetError (core/error_kind.h) naming the first default-domain
// node of `graph` or of a graph in it (depth first, in node order) that onnx's converter cannot move to move.to,
// and the lowest opset it can be moved to: its op did not exist yet at move.to, or changed at an opset above it
// with no down-adapter for that change. Nodes that pass through the move (DynamicSlice, move.pass_through, other
// domains) are not moved and not checked.
// A main-graph input a step needs constant may be computed from constants (`computed`, made for `model`).
absl::Status CheckEveryNodeHasAFormAt(const ModelProto& model, const Move& move, const StepConverter& converter,
                                      ComputedConstants& computed);

// Every such node (NodeWithoutForm, upgrade/opset_upgrade.h), in the same order; the first only, with `first_only`.
std::vector<NodeWithoutForm> NodesWithoutFormAt(const ModelProto& model, const Move& move,
                                                const StepConverter& converter, bool first_only,
                                                ComputedConstants& computed);

// --- upgrade/splice.cc -----------------------------------------------------------------------------------------------

// The node list of the caller's main graph `original`, and of its subgraphs at any depth, rebuilt from
// `converted`, the converted skeleton's main graph; the caller's model is not touched. The outputs of the
// caller's nodes that a fix renamed go to `renamed`.
absl::StatusOr<google::protobuf::RepeatedPtrField<NodeProto>> SpliceMainGraph(const GraphProto& converted,
                                                                              const GraphProto& original,
                                                                              const Move& move,
                                                                              const Skeleton& skeleton,
                                                                              RenamedOutputs& renamed);

// --- upgrade/fixes/: the adapter fixes others call (fixes/registry.cc lists them all) -------------------------------

// The op type the skeleton shows for a converted node: a Hardmax crossing 13 as a Softmax
// (fixes/softmax_12_13.cc).
std::string OpTypeShownToConverter(const NodeProto& node, const Move& move);

// Gives a Resize that Upsample or Resize-10 became (`node`, spliced from `record`'s node) Resize-10's coordinates
// and nearest pixel (fixes/resize_10_11.cc).
void KeepResize10Coordinates(const NodeRecord& record, const Move& move, NodeProto* node);

// Aligns, in the caller's main graph, each legacy broadcast (opset 6 and below, broadcast=1, axis=a) of known
// ranks that onnx 1.23's 6->7 adapter, as 1.12's, cannot convert (it gives B rank(A) - rank(B) trailing ones
// whatever `a` is, and then stops at its own broadcast check): an Unsqueeze-1 gives B the trailing ones it
// needs to end at A's last axis. Returns the main graph's nodes as they were when it changed them (the caller
// rebuilds the skeleton, and puts them back if the move fails), else nullopt. FailedPrecondition naming the
// node and the dims for one it cannot align (in a subgraph, or B not fitting in A). Run before the converter
// (fixes/legacy_broadcast_6_7.cc).
absl::StatusOr<std::optional<google::protobuf::RepeatedPtrField<NodeProto>>> AlignLegacyBroadcasts(
    const Skeleton& skeleton, const Move& move, ModelProto& model);

// Puts right what the adapters made of the spliced nodes of one graph (shown as graph `where`): per node,
// `emitted_record` is the record it stands for (-1 for a converter-made node) and `converted` the skeleton's
// converted node it was spliced from (null for a converter-made initializer), whose input names are the keys
// of the skeleton's KnownTypes. Adds the nodes a fix needs (fixes/registry.cc).
absl::Status FixAdapterResults(const std::string& where, const std::vector<int64_t>& emitted_record,
                               const std::vector<const NodeProto*>& converted, SpliceContext& ctx,
                               google::protobuf::RepeatedPtrField<NodeProto>* out_nodes);

// --- upgrade/constants_below_nine.cc --------------------------------------------------------------------------------

// Below opset 9 a Constant holds only float16, float and double; the adapters (Reshape 4->5's shape) make int64
// ones. At `target` < 9, each main-graph Constant of another type becomes an initializer of the same name (also a
// graph input below IR 4, where every initializer is one). Cannot fail.
void ConstantsBelowNineAsInitializers(int64_t target, ModelProto& model);

}  // namespace onnx_legalize::opset_upgrade

#endif  // ONNX_LEGALIZE_SRC_UPGRADE_INTERNAL_H_
