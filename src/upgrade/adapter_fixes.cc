// What onnx 1.12's version converter adapters get wrong, put right: on the skeleton before the converter
// runs (what an adapter would throw on or misread) and on the spliced nodes after it (what an adapter made
// that means something else than the original node).
//
// The adapter bugs (read from onnx v1.12.0's adapters) that change meaning:
//   - Pad 10->11 throws when the optional `value` attribute is absent;
//   - Clip 10->11 and Pad 10->11 always make float min/max/constant_value inputs, invalid for double and
//     float16 data;
//   - Resize 10->11 keeps Resize-11's defaults (half_pixel, round_prefer_floor) where Resize-10 meant
//     asymmetric coordinates and floor;
//   - Softmax 12->13 writes symbolic dims as -1 and unknown ones as uninitialized memory (Dimension() leaves
//     `dim` unset) into a Reshape constant, and that Reshape (no allowzero at 13) copies a 0-sized dim from
//     its 2-D input;
//   - Hardmax 12->13 is registered as compatible though its axis semantics changed exactly like Softmax's;
//   - broadcasting 6->7 unsqueezes the second input of a legacy (broadcast=1, axis=a) Add/Sub/Mul/Div/Pow
//     a times too many;
//   - PRelu 6->7 is registered as compatible though a per-channel slope [C] now broadcasts from the last axis;
//   - Reshape 4->5 turns the `shape` attribute into a Constant whose tensor has no dims (a scalar holding
//     several values, which no runtime reads);
//   - Scan 8->9 drops the optional sequence_lens and renames `directions`, but leaves the inputs batched
//     ([batch, sequence, ...]) where Scan-9 has no batch axis: it would scan the batch.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "eval/float16.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "status_macros.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

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
      t->add_int32_data(FloatToFloat16(v));
    }
  }
}

}  // namespace

// Hardmax 12->13 is registered in onnx 1.12 as compatible, but Hardmax-13 reads `axis` as one axis where
// Hardmax-1/11 flatten to 2-D at it, exactly like Softmax: let Softmax's adapter restructure it.
std::string OpTypeShownToConverter(const NodeProto& node, const Move& move) {
  if (node.op_type() == kHardmax && move.Crosses(13)) return kSoftmax;
  return node.op_type();
}

// Pad-2 defaults `value` to 0, but onnx 1.12's Pad 10->11 adapter reads it unconditionally (and throws).
void SpellOutPadValue(const NodeProto& node, const Move& move, NodeProto* shown) {
  if (node.op_type() != kPad || !move.Crosses(11)) return;
  bool constant_mode = true, has_value = false;
  for (const auto& attr : node.attribute()) {
    if (attr.name() == "mode") constant_mode = attr.s() == "constant";
    if (attr.name() == "value") has_value = true;
  }
  if (constant_mode && !has_value) {
    AttributeProto* a = shown->add_attribute();
    a->set_name("value");
    a->set_type(AttributeProto::FLOAT);
    a->set_f(0.0f);
  }
}

// Resize-10 (and Upsample) scale with asymmetric coordinates and take the floor for nearest; Resize-11
// defaults to half_pixel / round_prefer_floor and onnx 1.12's adapter does not say otherwise.
void KeepResize10Coordinates(const NodeProto& orig, const Move& move, NodeProto* node) {
  const bool resize10 = orig.op_type() == kUpsample || (orig.op_type() == kResize && move.from <= 10);
  if (!resize10 || node->op_type() != kResize || !move.Crosses(11)) return;
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

namespace {

using Producers = std::unordered_map<std::string, int>;  // value -> index of the node defining it

// The spliced nodes of one graph, as FixAdapterResults is given them, and which node defines each value.
struct SplicedNodes {
  const std::string& where;
  const std::vector<int64_t>& emitted_record;
  const std::vector<const NodeProto*>& converted;
  google::protobuf::RepeatedPtrField<NodeProto>* nodes;
  Producers producer;

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

// Nodes the fixes add, by the index of the node they go before; inserted after all fixes, in one pass.
using InsertBefore = std::map<int, std::vector<NodeProto>>;

// Who defines each value; a value defined twice is an error.
absl::StatusOr<Producers> MapProducers(const std::string& where,
                                       const google::protobuf::RepeatedPtrField<NodeProto>& nodes) {
  Producers producer;
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

// --- Softmax 12->13 --------------------------------------------------------------------------------------
//
// Softmax 12->13 rebuilds the 2-D coercion as Flatten -> Softmax -> Reshape(constant shape), the constant
// being the IR's Dimension::dim of each dim of the input: -1 for a symbolic dim, and for an unknown one
// (no dim_value, no dim_param) whatever its uninitialized `dim` holds (see IrSizes, upgrade/chunks.cc),
// often a plausible positive size ([1,2,?,?] became [1,2,2,2]); dims above 2^31 are truncated. So the
// constant is kept only where the skeleton declares every dim of the input with a positive size equal to it;
// otherwise the Reshape takes the Flatten input's shape at run time.
// A 0 in that shape: Reshape (allowzero=0, the only kind at 13) copies the dim at that index from its
// data, the 2-D [A, B] = [d0*..*d(a-1), da*..] of Flatten at axis a, which is right only for dim 0 when
// a >= 1 (A is 0 then) and dim 1 when a <= 1 (B is 0 then); any other zero-sized dim fails the Reshape or
// makes a wrong shape. From opset 14 allowzero=1 takes the shape as it is; at 13, unless every other dim
// is declared non-zero, the Reshape is guarded: y = If(Cast<to=BOOL>(Size(x))) { Reshape(..) } else
// { Identity(x) } (an empty input is its own Softmax/LogSoftmax/Hardmax: same type, same shape).

bool RestructuredAt13(const std::string& op_type) {
  return op_type == kSoftmax || op_type == kLogSoftmax || op_type == kHardmax;
}

// The converter-made Reshape after node `i` that reads its output (the adapter's), or -1.
int FindAdapterReshape(const SplicedNodes& g, int i) {
  const NodeProto& node = g.nodes->Get(i);
  for (int j = i + 1; j < g.nodes->size(); ++j) {
    const NodeProto& n = g.nodes->Get(j);
    if (g.emitted_record[static_cast<size_t>(j)] < 0 && n.op_type() == kReshape && n.input_size() == 2 &&
        n.input(0) == node.output(0)) {
      return j;
    }
  }
  return -1;
}

// What the skeleton declares of the dims of `input` when it declares as many as the adapter saw (`rank`),
// else null.
const std::vector<int64_t>* DeclaredDims(const KnownTypes& types, const std::string& input, int64_t rank) {
  auto it = types.known_dims.find(input);
  if (it == types.known_dims.end() || rank <= 0 || static_cast<int64_t>(it->second.size()) != rank) return nullptr;
  return &it->second;
}

bool KnownPositive(const std::vector<int64_t>* known, int64_t k) {
  return known != nullptr && (*known)[static_cast<size_t>(k)] > 0;
}

// Whether the adapter's shape constant can be trusted: the skeleton declares every dim positive and equal
// to it.
bool ShapeConstantIsDeclared(const TensorProto* value, int64_t rank, const std::vector<int64_t>* known) {
  bool exact = known != nullptr && value != nullptr && value->raw_data().empty() && value->int64_data_size() == rank;
  for (int k = 0; exact && k < rank; ++k) {
    exact = KnownPositive(known, k) && value->int64_data(k) == (*known)[static_cast<size_t>(k)];
  }
  return exact;
}

int64_t FlattenAxis(const NodeProto& flatten) {
  int64_t axis = 1;
  for (const auto& a : flatten.attribute()) {
    if (a.name() == "axis") axis = a.i();
  }
  return axis;
}

// Whether a zero-sized dim may sit where Reshape-13 would copy a wrong one (any dim but 0 when axis >= 1 and
// 1 when axis <= 1), or the rank is unknown.
bool ReshapeNeedsEmptyGuard(int64_t rank, const std::vector<int64_t>* known, int64_t axis) {
  bool guard = rank < 0;
  for (int64_t k = 0; !guard && k < rank; ++k) {
    guard = !KnownPositive(known, k) && !(k == 0 && axis >= 1) && !(k == 1 && axis <= 1);
  }
  return guard;
}

// One branch of the guard's If: a single `op_type` node of `inputs`, its output y + `suffix`, typed
// `elem_type` when known.
AttributeProto GuardBranch(const std::string& name, const char* suffix, const char* op_type,
                           const std::vector<std::string>& inputs, const std::string& y, const int32_t* elem_type,
                           SpliceContext& ctx) {
  AttributeProto a;
  a.set_name(name);
  a.set_type(AttributeProto::GRAPH);
  GraphProto* g = a.mutable_g();
  g->set_name(absl::StrCat(y, "_", name));
  NodeProto* n = g->add_node();
  n->set_op_type(op_type);
  for (const auto& in : inputs) n->add_input(in);
  n->add_output(ctx.fresh.Make(absl::StrCat(y, suffix)));
  ValueInfoProto* o = g->add_output();
  o->set_name(n->output(0));
  if (elem_type != nullptr) o->mutable_type()->mutable_tensor_type()->set_elem_type(*elem_type);
  return a;
}

// Turns the Reshape `r` of x (skeleton name `input`) into y = If(Cast<to=BOOL>(Size(x))) { Reshape(..) }
// else { Identity(x) }; Size and Cast go to `before`.
void GuardReshapeAgainstEmpty(NodeProto* r, const std::string& x, const std::string& input, SpliceContext& ctx,
                              std::vector<NodeProto>* before) {
  const std::string y = r->output(0);
  auto type_it = ctx.skeleton.types.elem_types.find(input);
  const int32_t* elem_type = type_it != ctx.skeleton.types.elem_types.end() ? &type_it->second : nullptr;
  // Fresh names are taken in this order: then, else, size, nonempty.
  AttributeProto then_branch =
      GuardBranch("then_branch", "_reshaped", kReshape, {r->input(0), r->input(1)}, y, elem_type, ctx);
  AttributeProto else_branch = GuardBranch("else_branch", "_empty", "Identity", {x}, y, elem_type, ctx);
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
  before->push_back(std::move(size));
  before->push_back(std::move(cast));
}

// The fix for the Softmax-like node `i` (see above): keeps the adapter's shape constant where it is
// declared, else takes the shape at run time, with allowzero or the guard where a 0 could be misread.
void FixSoftmax13Reshape(const SplicedNodes& g, int i, SpliceContext& ctx, InsertBefore* insert_before) {
  const int flatten = g.MadeProducer(g.nodes->Get(i).input(0), kFlatten);
  if (flatten < 0) return;
  const int reshape = FindAdapterReshape(g, i);
  if (reshape < 0) return;
  const int shape = g.MadeProducer(g.nodes->Get(reshape).input(1), kConstantOp);
  if (shape < 0) return;
  const TensorProto* value = ConstantValue(g.nodes->Get(shape));
  // The input's rank as the adapter saw it, and what the skeleton declares of its dims.
  const int64_t rank = value != nullptr && value->dims_size() == 1 ? value->dims(0) : -1;
  const std::string input = g.SkeletonInput(flatten, 0);
  const std::vector<int64_t>* known = DeclaredDims(ctx.skeleton.types, input, rank);
  if (ShapeConstantIsDeclared(value, rank, known)) return;

  const std::string x = g.nodes->Get(flatten).input(0);
  NodeProto* s = g.nodes->Mutable(shape);
  s->clear_attribute();
  s->set_op_type(kShape);
  s->add_input(x);
  NodeProto* r = g.nodes->Mutable(reshape);
  if (ctx.move.to >= 14) {
    AttributeProto* a = r->add_attribute();
    a->set_name("allowzero");
    a->set_type(AttributeProto::INT);
    a->set_i(1);
  } else if (ReshapeNeedsEmptyGuard(rank, known, FlattenAxis(g.nodes->Get(flatten)))) {
    GuardReshapeAgainstEmpty(r, x, input, ctx, &(*insert_before)[reshape]);
  }
}

// --- Legacy broadcasting 6->7 ----------------------------------------------------------------------------

bool TakesLegacyBroadcast(const std::string& op_type) {
  return op_type == "Add" || op_type == "Sub" || op_type == "Mul" || op_type == "Div" || op_type == "Pow";
}

// The axes of the converter-made Unsqueeze `unsqueeze`: its attribute (before opset 13) or the int64 data
// of the Constant it reads (from 13), that Constant's dims already shortened by `axis`; null if neither.
google::protobuf::RepeatedField<int64_t>* UnsqueezeAxes(const SplicedNodes& g, int unsqueeze, int64_t axis) {
  NodeProto* u = g.nodes->Mutable(unsqueeze);
  google::protobuf::RepeatedField<int64_t>* axes = nullptr;
  for (auto& a : *u->mutable_attribute()) {
    if (a.name() == "axes") axes = a.mutable_ints();
  }
  if (axes == nullptr && u->input_size() == 2) {
    const int c = g.MadeProducer(u->input(1), kConstantOp);
    if (c >= 0) {
      for (auto& a : *g.nodes->Mutable(c)->mutable_attribute()) {
        if (a.name() == "value" && a.has_t() && a.t().raw_data().empty() && a.t().dims_size() == 1 &&
            a.t().int64_data_size() > axis) {
          axes = a.mutable_t()->mutable_int64_data();
          a.mutable_t()->set_dims(0, a.t().int64_data_size() - axis);
        }
      }
    }
  }
  return axes;
}

// Legacy broadcasting (opset <= 6, broadcast=1, axis=a) aligns B with A starting at axis a, so B needs
// rank(A) - a - rank(B) trailing ones. onnx 1.12's 6->7 adapter unsqueezes B at [rank(B) .. rank(A)-1],
// rank(A) - rank(B) of them, a too many: drop the last a.
absl::Status FixLegacyBroadcast(const SplicedNodes& g, const NodeProto& orig, const NodeProto& node,
                                const SpliceContext& ctx) {
  if (!ctx.move.Crosses(7) || ctx.move.from >= 7 || node.input_size() != 2 || !TakesLegacyBroadcast(orig.op_type())) {
    return absl::OkStatus();
  }
  int64_t axis = 0;
  bool legacy = false;
  for (const auto& a : orig.attribute()) {
    if (a.name() == "axis") axis = a.i();
    if (a.name() == "broadcast") legacy = a.i() != 0;
  }
  const int unsqueeze = g.MadeProducer(node.input(1), "Unsqueeze");
  if (!legacy || axis <= 0 || unsqueeze < 0) return absl::OkStatus();
  google::protobuf::RepeatedField<int64_t>* axes = UnsqueezeAxes(g, unsqueeze, axis);
  if (axes == nullptr || axes->size() <= axis) {
    return absl::FailedPreconditionError(
        absl::StrCat(InGraph(NodeLabel(orig), g.where), ": cannot express its legacy broadcast at axis ", axis));
  }
  axes->Truncate(static_cast<int>(axes->size() - axis));
  return absl::OkStatus();
}

// Whether two shapes broadcast numpy-style (from the last axis); an unknown dim (-1) broadcasts with any.
bool NumpyBroadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t k = 1; k <= std::min(a.size(), b.size()); ++k) {
    const int64_t x = a[a.size() - k], y = b[b.size() - k];
    if (x >= 0 && y >= 0 && x != y && x != 1 && y != 1) return false;
  }
  return true;
}

// --- PRelu 6->7 -----------------------------------------------------------------------------------------
//
// PRelu-6 and before apply a slope of shape [C] per channel, along axis 1 of X (Caffe2's and PyTorch's
// PRelu); PRelu-7 broadcasts the slope numpy-style, from the last axis, and onnx 1.12 registers 6->7 as
// compatible. So a 1-D slope that is not a single value becomes [C, 1, ..., 1] (rank(X) - 1 dims) through an
// Unsqueeze at axes 1..rank(X)-2, wherever X has rank 3 or more; for X of rank 1 or 2 both readings agree.
// A slope of rank 2 or more already lines up the same way under both; one of a single value broadcasts
// anywhere, and an Unsqueeze keeps it correct.

std::string DimsText(const std::vector<int64_t>* dims) {
  if (dims == nullptr) return "unknown";
  std::string text = "[";
  for (size_t k = 0; k < dims->size(); ++k) {
    absl::StrAppend(&text, k > 0 ? "," : "", (*dims)[k] >= 0 ? absl::StrCat((*dims)[k]) : std::string("?"));
  }
  return text + "]";
}

const std::vector<int64_t>* KnownDims(const KnownTypes& types, const std::string& name) {
  auto it = types.known_dims.find(name);
  return it == types.known_dims.end() ? nullptr : &it->second;
}

// Gives the Squeeze or Unsqueeze `node` its `axes`: an attribute before opset 13, from 13 an input read from a
// Constant (named after `constant_name`) appended to `before`.
void AddAxes(const std::vector<int64_t>& axes, const std::string& constant_name, SpliceContext& ctx, NodeProto* node,
             std::vector<NodeProto>* before) {
  if (ctx.move.to < 13) {
    AttributeProto* a = node->add_attribute();
    a->set_name("axes");
    a->set_type(AttributeProto::INTS);
    for (int64_t axis : axes) a->add_ints(axis);
    return;
  }
  NodeProto constant;
  constant.set_op_type(kConstantOp);
  constant.add_output(ctx.fresh.Make(constant_name));
  AttributeProto* a = constant.add_attribute();
  a->set_name("value");
  a->set_type(AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TensorProto::INT64);
  a->mutable_t()->add_dims(static_cast<int64_t>(axes.size()));
  for (int64_t axis : axes) a->mutable_t()->add_int64_data(axis);
  node->add_input(constant.output(0));
  before->push_back(std::move(constant));
}

// The axes 1..rank-2 for an Unsqueeze of the slope.
void AddUnsqueezeAxes(int64_t x_rank, const std::string& slope, SpliceContext& ctx, NodeProto* unsqueeze,
                      std::vector<NodeProto>* before) {
  std::vector<int64_t> axes;
  for (int64_t k = 1; k + 1 < x_rank; ++k) axes.push_back(k);
  AddAxes(axes, slope + "_channel_axes", ctx, unsqueeze, before);
}

absl::Status KeepPReluSlopePerChannel(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx,
                                      InsertBefore* insert_before) {
  NodeProto* node = g.nodes->Mutable(i);
  if (orig.op_type() != kPRelu || ctx.move.from >= 7 || !ctx.move.Crosses(7) || node->input_size() != 2) {
    return absl::OkStatus();
  }
  const std::vector<int64_t>* x_dims = KnownDims(ctx.skeleton.types, g.SkeletonInput(i, 0));
  const std::vector<int64_t>* slope_dims = KnownDims(ctx.skeleton.types, g.SkeletonInput(i, 1));
  const bool x_rank_known = x_dims != nullptr;
  if (x_rank_known && x_dims->size() <= 2) return absl::OkStatus();
  if (slope_dims != nullptr && (slope_dims->size() != 1 || (*slope_dims)[0] == 1)) return absl::OkStatus();
  if (!x_rank_known || slope_dims == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(InGraph(NodeLabel(orig), g.where), ": PRelu-", ctx.move.from,
                     " applies its slope per channel (axis 1 of X), PRelu-7 from the last axis; with X of dims ",
                     DimsText(x_dims), " and a slope of dims ", DimsText(slope_dims),
                     " the slope cannot be reshaped to keep its meaning (the ranks must be known)"));
  }
  const std::string slope = node->input(1);
  NodeProto unsqueeze;
  unsqueeze.set_op_type(kUnsqueeze);
  unsqueeze.add_input(slope);
  std::vector<NodeProto>& before = (*insert_before)[i];
  AddUnsqueezeAxes(static_cast<int64_t>(x_dims->size()), slope, ctx, &unsqueeze, &before);
  unsqueeze.add_output(ctx.fresh.Make(slope + "_per_channel"));
  node->set_input(1, unsqueeze.output(0));
  before.push_back(std::move(unsqueeze));
  return absl::OkStatus();
}

// --- Scan 8->9 -------------------------------------------------------------------------------------------
//
// Scan-8's inputs are [sequence_lens (optional), states [B, ...], scan inputs [B, seq, ...]] and its outputs
// [final states [B, ...], scan outputs [B, seq, ...]]; its body sees one batch element, without the batch
// axis, exactly as Scan-9's body sees its tensors. With a batch of one and no sequence_lens, Scan-9 over the
// tensors without their batch axis computes the same thing: each input is squeezed at axis 0 before it,
// each output unsqueezed at axis 0 after it (under its original name). A larger or unknown batch, or
// sequence_lens, would need a loop over the batch that no repair here writes: such a node is refused.

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

absl::Status KeepScan8BatchOfOne(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx,
                                 InsertBefore* insert_before) {
  if (orig.op_type() != kScan || ctx.move.from != 8 || !ctx.move.Crosses(9)) return absl::OkStatus();
  if (orig.input_size() > 0 && !orig.input(0).empty()) {
    return RefuseScan8(orig, g.where, absl::StrCat("it takes sequence_lens '", orig.input(0), "'"));
  }
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
    AddAxisZeroNode(kSqueeze, orig.input(k), squeezed, ctx, &(*insert_before)[i]);
    node->add_input(squeezed);
  }
  for (int k = 0; k < node->output_size(); ++k) {
    const std::string output = node->output(k);
    if (output.empty()) continue;
    const std::string unbatched = ctx.fresh.Make(output + "_unbatched");
    node->set_output(k, unbatched);
    ctx.renamed[output] = unbatched;  // the Scan's body is found by its first output
    AddAxisZeroNode(kUnsqueeze, unbatched, output, ctx, &(*insert_before)[i + 1]);
  }
  return absl::OkStatus();
}

// --- Clip and Pad 10->11 ---------------------------------------------------------------------------------

// Clip 10->11 and Pad 10->11 make float inputs from the float attributes; Clip-11 and Pad-11 want them
// of the data's type.
void RetypeClipPadInputs(const SplicedNodes& g, int i, const NodeProto& orig, const NodeProto& node,
                         const SpliceContext& ctx) {
  std::vector<int> typed_inputs;
  if (orig.op_type() == kClip && ctx.move.Crosses(11) && ctx.move.from < 11) typed_inputs = {1, 2};
  if (orig.op_type() == kPad && ctx.move.Crosses(11) && ctx.move.from < 11) typed_inputs = {2};
  if (typed_inputs.empty()) return;
  auto type_it = ctx.skeleton.types.elem_types.find(g.SkeletonInput(i, 0));
  const int32_t elem_type = type_it == ctx.skeleton.types.elem_types.end() ? TensorProto::UNDEFINED : type_it->second;
  if (elem_type != TensorProto::DOUBLE && elem_type != TensorProto::FLOAT16) return;
  for (int k : typed_inputs) {
    if (k >= node.input_size()) continue;
    const int c = g.MadeProducer(node.input(k), kConstantOp);
    if (c < 0) continue;
    NodeProto* constant = g.nodes->Mutable(c);
    for (auto& a : *constant->mutable_attribute()) {
      if (a.name() == "value" && a.has_t() && a.t().data_type() == TensorProto::FLOAT) {
        RetypeFloatTensor(a.mutable_t(), elem_type);
      }
    }
  }
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

absl::Status CheckLegacyBroadcastsConvert(const Skeleton& skeleton, const Move& move) {
  if (move.from >= 7 || !move.Crosses(7)) return absl::OkStatus();
  for (const NodeRecord& record : skeleton.records) {
    const NodeProto& node = *record.original;
    if (record.opaque || node.input_size() != 2 || !TakesLegacyBroadcast(node.op_type())) continue;
    std::optional<int64_t> axis;
    bool legacy = false;
    for (const auto& a : node.attribute()) {
      if (a.name() == "axis") axis = a.i();
      if (a.name() == "broadcast") legacy = a.i() != 0;
    }
    const std::vector<int64_t>* a_dims = KnownDims(skeleton.types, skeleton.codec.Encoded(node.input(0)));
    const std::vector<int64_t>* b_dims = KnownDims(skeleton.types, skeleton.codec.Encoded(node.input(1)));
    if (!legacy || !axis.has_value() || a_dims == nullptr || b_dims == nullptr) continue;
    const auto a_rank = static_cast<int64_t>(a_dims->size()), b_rank = static_cast<int64_t>(b_dims->size());
    if (*axis == a_rank - b_rank) continue;  // the adapter leaves B as it is
    std::vector<int64_t> adapted = *b_dims;  // what the adapter makes of B
    adapted.resize(static_cast<size_t>(std::max(a_rank, b_rank)), 1);
    if (NumpyBroadcastable(*a_dims, adapted)) continue;  // converted, then put right by FixLegacyBroadcast
    return absl::FailedPreconditionError(
        absl::StrCat(InGraph(NodeLabel(node), record.path), ": its legacy broadcast puts B '", node.input(1),
                     "' (dims ", DimsText(b_dims), ") at axis ", *axis, " of A '", node.input(0), "' (dims ",
                     DimsText(a_dims), "); onnx 1.12's 6->7 adapter gives B trailing ones (dims ", DimsText(&adapted),
                     "), which do not broadcast with A, so it cannot be moved to opset ", move.to));
  }
  return absl::OkStatus();
}

// --- Reshape 4->5 ----------------------------------------------------------------------------------------
//
// The shape constant the adapter made of Reshape-1's `shape` attribute is 1-D: its dims are the count of its
// values.
void GiveReshape5ShapeItsDims(const SplicedNodes& g, int i, const NodeProto& orig, const Move& move) {
  const NodeProto& node = g.nodes->Get(i);
  if (orig.op_type() != kReshape || !move.Crosses(5) || node.input_size() != 2) return;
  const int constant = g.MadeProducer(node.input(1), "Constant");
  if (constant < 0) return;
  for (auto& attribute : *g.nodes->Mutable(constant)->mutable_attribute()) {
    TensorProto* value = attribute.mutable_t();
    if (attribute.name() != "value" || value->dims_size() != 0 || value->int64_data_size() == 1) continue;
    value->add_dims(value->int64_data_size());
  }
}

absl::Status FixAdapterResults(const std::string& where, const std::vector<int64_t>& emitted_record,
                               const std::vector<const NodeProto*>& converted, SpliceContext& ctx,
                               google::protobuf::RepeatedPtrField<NodeProto>* out_nodes) {
  // Fixes that need producers and consumers.
  ASSIGN_OR_RETURN(Producers producer, MapProducers(where, *out_nodes));
  const SplicedNodes g{where, emitted_record, converted, out_nodes, std::move(producer)};
  InsertBefore insert_before;
  for (int i = 0; i < out_nodes->size(); ++i) {
    if (emitted_record[static_cast<size_t>(i)] < 0) continue;
    const NodeProto& orig = *ctx.skeleton.records[static_cast<size_t>(emitted_record[static_cast<size_t>(i)])].original;
    const NodeProto& node = out_nodes->Get(i);
    if (RestructuredAt13(orig.op_type()) && ctx.move.Crosses(13) && node.input_size() == 1 && node.output_size() == 1) {
      FixSoftmax13Reshape(g, i, ctx, &insert_before);
    }
    RETURN_IF_ERROR(FixLegacyBroadcast(g, orig, node, ctx));
    RetypeClipPadInputs(g, i, orig, node, ctx);
    GiveReshape5ShapeItsDims(g, i, orig, ctx.move);
    RETURN_IF_ERROR(KeepPReluSlopePerChannel(g, i, orig, ctx, &insert_before));
    RETURN_IF_ERROR(KeepScan8BatchOfOne(g, i, orig, ctx, &insert_before));
  }
  InsertFixNodes(insert_before, out_nodes);
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
