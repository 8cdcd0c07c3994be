// Softmax, LogSoftmax and Hardmax 12->13.
//
// What onnx 1.23 gets wrong: Softmax 12->13 rebuilds the 2-D coercion of Softmax-1/11, where the axis is not
// the last, as Shape(x) -> Reshape(Softmax(Flatten(x)), shape). That Reshape (no allowzero at 13, and none
// written at 14 and later) copies a 0 in the shape from its 2-D input [A, B] = [d0*..*d(a-1), da*..] of Flatten
// at axis a: right only for dim 0 when a >= 1 (A is 0 then) and dim 1 when a <= 1 (B is 0 then); any other
// zero-sized dim fails the Reshape or makes a wrong shape (softmax_12_13_test: SoftmaxOverUnknownDims*).
// Hardmax 12->13 is registered as compatible though Hardmax-13 reads `axis` as one axis where Hardmax-1/11
// flatten to 2-D at it, exactly like Softmax (HardmaxKeepsItsTwoDimensionalMeaningAtOpset13).
//
// The fix: the skeleton shows a Hardmax as a Softmax, so that Softmax's adapter restructures it too
// (OpTypeShownToConverter; the splice keeps the original op type). After the converter, from opset 14 the
// adapter's Reshape gets allowzero=1, which takes the shape as it is; at 13, unless every dim that could be
// misread is declared non-zero, the Reshape is guarded: y = If(Cast<to=BOOL>(Size(x))) { Reshape(..) } else
// { Identity(x) } (an empty input is its own Softmax/LogSoftmax/Hardmax: same type, same shape).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_names.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {

std::string OpTypeShownToConverter(const NodeProto& node, const Move& move) {
  if (node.op_type() == kHardmax && move.Crosses(13)) return kSoftmax;
  return node.op_type();
}

namespace {

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

bool KnownPositive(const std::vector<int64_t>* known, int64_t k) {
  return known != nullptr && (*known)[static_cast<size_t>(k)] > 0;
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

}  // namespace

// Makes the adapter's Reshape take a zero-sized dim as it is: allowzero from 14, the guard at 13.
absl::Status FixSoftmax13Reshape(const SplicedNodes& g, int i, const NodeProto& orig, SpliceContext& ctx) {
  const NodeProto& node = g.nodes->Get(i);
  if (!RestructuredAt13(orig.op_type()) || !ctx.move.Crosses(13) || node.input_size() != 1 || node.output_size() != 1) {
    return absl::OkStatus();
  }
  const int flatten = g.MadeProducer(node.input(0), kFlatten);
  if (flatten < 0) return absl::OkStatus();
  const int reshape = FindAdapterReshape(g, i);
  if (reshape < 0 || g.MadeProducer(g.nodes->Get(reshape).input(1), kShape) < 0) return absl::OkStatus();
  const std::string x = g.nodes->Get(flatten).input(0);
  NodeProto* r = g.nodes->Mutable(reshape);
  if (ctx.move.to >= 14) {
    AttributeProto* a = r->add_attribute();
    a->set_name("allowzero");
    a->set_type(AttributeProto::INT);
    a->set_i(1);
    return absl::OkStatus();
  }
  // What the skeleton declares of the dims of the input, if anything.
  const std::string input = g.SkeletonInput(flatten, 0);
  auto declared = ctx.skeleton.types.known_dims.find(input);
  const std::vector<int64_t>* known = declared != ctx.skeleton.types.known_dims.end() ? &declared->second : nullptr;
  const int64_t rank = known != nullptr ? static_cast<int64_t>(known->size()) : -1;
  if (ReshapeNeedsEmptyGuard(rank, known, FlattenAxis(g.nodes->Get(flatten)))) {
    GuardReshapeAgainstEmpty(r, x, input, ctx, &(*g.insert_before)[reshape]);
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize::opset_upgrade
