// The down-adapters onnx 1.23's version converter lacks, for changes a node can be moved back across unchanged: most
// schema changes from opset 13 on only widened the types an op takes (bfloat16 at 13, small integers at 14, optional
// and sequence values at 16), and a few added an attribute or an input whose absence (or default) is the old
// behaviour. onnx registers down-adapters for some of these and not for the rest, so that it cannot move an ordinary
// PyTorch export from 13 to 11 (Relu, MatMul, Gemm, Reshape, Transpose, ... changed at 13, with no way back).
//
// Each step below is such a change, reviewed against onnx's operator docs, and what a node must be to cross it back:
// a value the old version does not take, an attribute or input only the new version has, is refused by name before
// the converter runs (CheckEveryNodeHasAFormAt). Element types are held to the old version's by onnx's full check
// of the result (strict shape inference checks every input's type against the schema's constraints), and the move
// is executed before and after where the model runner runs the model (verify/opset_move_proof.h). Softmax and
// LogSoftmax 13 -> 12 replace onnx's own adapter (AxisToLast says what it gets wrong). Attributes that became inputs
// go back where the inputs are constants (upgrade/down_inputs_to_attributes.cc), and Shape-15's range, CastLike,
// Resize-13's optional inputs, OneHot-11's indices and the types Equal-11 added are written in ops of the older opset
// (upgrade/down_replacements.cc). Of the changes
// at opset 11, which let axes and indices count from the back, the listed ones write such an axis as the one it
// counts to from the front (AxesCountedFromTheFront), and a Slice's axes or a Gather's indices must be constants,
// written counted from the front where they count from the back (down_replacements.cc); If-11 reads as If-1. Left out
// on purpose: ScatterElements/ScatterND 16 (same signature, but new `reduction`
// values), and the other changes at 11. tests/upgrade/down_steps_test.cc holds
// every entry to the schemas: onnx has no down-adapter of its own for it (but for those replaced), and an entry that
// takes every node has the same inputs, outputs and attributes on both sides.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "graph/attributes.h"
#include "onnx/common/version.h"
#include "onnx/version_converter/adapters/adapter.h"
#include "onnx/version_converter/adapters/transformers.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// Why `node` holds attribute `name` with another value than `old_value` (what the older version does without it).
WhyNot IntAttributeOtherThan(const NodeProto& node, const char* name, int64_t old_value) {
  const AttributeProto* attribute = FindAttribute(node, name);
  if (attribute == nullptr || (attribute->type() == AttributeProto::INT && attribute->i() == old_value)) {
    return std::nullopt;
  }
  return absl::StrCat("its ", name, " (", attribute->type() == AttributeProto::INT ? absl::StrCat(attribute->i()) : "",
                      ") is the newer version's alone");
}

WhyNot StringAttributeOtherThan(const NodeProto& node, const char* name, const char* old_value) {
  const AttributeProto* attribute = FindAttribute(node, name);
  if (attribute == nullptr || (attribute->type() == AttributeProto::STRING && attribute->s() == old_value)) {
    return std::nullopt;
  }
  return absl::StrCat("its ", name, " '", attribute->s(), "' is the newer version's alone");
}

WhyNot AttributePresent(const NodeProto& node, const char* name) {
  if (FindAttribute(node, name) == nullptr) return std::nullopt;
  return absl::StrCat("its ", name, " attribute is the newer version's alone");
}

WhyNot InputPresent(const NodeProto& node, int index, const char* name) {
  if (!HasInput(node, index)) return std::nullopt;
  return absl::StrCat("its input ", name, " is the newer version's alone");
}

WhyNot ComputedAtRunTime(const NodeProto& node, int index, const char* name, const ConstantOf& constant_of) {
  if (!HasInput(node, index)) return std::nullopt;
  const TensorProto* constant = constant_of(node.input(index));
  if (constant == nullptr) {
    return absl::StrCat("its ", name,
                        " are computed at run time, and may count from the back, which only opset 11 "
                        "on reads so");
  }
  absl::StatusOr<Tensor> value = TensorFromProto(*constant);
  absl::StatusOr<std::vector<int64_t>> values =
      value.ok() ? value->ToInt64s(name) : absl::StatusOr<std::vector<int64_t>>(value.status());
  if (!values.ok()) return absl::StrCat("its ", name, " cannot be read (", values.status().message(), ")");
  return std::nullopt;
}

WhyNot Always(const NodeProto&, const ConstantOf&) { return std::nullopt; }

// A step whose adapter rewrites what the older version does not take, or refuses it, as it runs: Softmax's axis needs
// the node's rank, which the converter alone knows (the skeleton's shape inference).
WhyNot TakenByTheAdapter(const NodeProto&, const ConstantOf&) { return std::nullopt; }

// Softmax-13 (LogSoftmax, Hardmax) moved to 12: its axis written as -1, the last, when it is the last; along another
// axis, between two Transposes that move that axis last and back, so that the node computes along the last axis alone
// (before 13 it flattens the input at its axis and computes along every axis from it). Each row of values along the
// axis is computed as it was, in the same order. With no rank inferred, only the last axis has a form. onnx's own
// Softmax and LogSoftmax 13 -> 12 adapter keeps any other axis (which then means more than that axis), and takes a
// Flatten before the node and a Reshape after it out of the graph, as though it had put them there.
onnx::Node* AxisToLast(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  const int64_t rank = static_cast<int64_t>(node->inputs()[0]->sizes().size());  // 0 where no rank was inferred
  const int64_t axis = node->hasAttribute(onnx::kaxis) ? node->i(onnx::kaxis) : -1;
  node->i_(onnx::kaxis, -1);
  if (axis == -1 || (rank > 0 && axis == rank - 1)) return node;
  if (rank == 0 || axis < -rank || axis >= rank) {
    throw NoFormException(
        node, absl::StrCat(node->kind().toString(), "-13 along axis ", axis,
                           rank > 0 ? absl::StrCat(" of a rank-", rank, " input") : " of an input of unknown rank",
                           " has no form before opset 13, which flattens the input there and computes along every axis "
                           "from it: without the rank, the axis cannot be moved last"));
  }
  const int64_t from = axis < 0 ? axis + rank : axis;
  std::vector<int64_t> to_last, back(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    if (i != from) to_last.push_back(i);
  }
  to_last.push_back(from);
  for (int64_t i = 0; i < rank; ++i) back[static_cast<size_t>(to_last[static_cast<size_t>(i)])] = i;
  onnx::Value* x = node->inputs()[0];
  // The dims each value has, for the adapters of the steps below this one (Softmax 11 -> 10 reads the rank).
  const std::vector<onnx::Dimension> dims = x->sizes();
  std::vector<onnx::Dimension> permuted;
  permuted.reserve(dims.size());
  for (const int64_t axis_from : to_last) permuted.push_back(dims[static_cast<size_t>(axis_from)]);
  onnx::Node* before = node->owningGraph()->create(onnx::kTranspose, 1);
  before->addInput(x);
  before->is_(onnx::kperm, std::move(to_last));
  before->insertBefore(node);
  before->output()->setElemType(x->elemType());
  before->output()->setSizes(permuted);
  node->replaceInput(0, before->output());
  onnx::Node* after = MadeAfterTakingOverItsOutput(node, onnx::kTranspose);
  after->output()->setSizes(dims);
  after->is_(onnx::kperm, std::move(back));
  node->output()->setSizes(permuted);
  return node;
}

// An op of opset 11 moved to 10, where an axis counts from the front only: each axis (`axis` or `axes`) that counts
// from the back written as the one it counts to from the front, by the rank shape inference gave the input (Unsqueeze's
// axes count in its output, of that rank plus one per axis). onnx's own adapters of these steps keep a negative axis,
// which the older schemas do not take. Where the rank is not known, no form, but for an Unsqueeze at the back of its
// output, which becomes a Reshape (down_replacements.cc).
onnx::Node* AxesCountedFromTheFront(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  onnx::Value* input = node->inputs()[0];
  for (const onnx::Symbol name : {onnx::kaxis, onnx::kaxes}) {
    if (!node->hasAttribute(name)) continue;
    const bool one = node->kindOf(name) == onnx::AttributeKind::i;
    std::vector<int64_t> axes = one ? std::vector<int64_t>{node->i(name)} : node->is(name);
    if (std::none_of(axes.begin(), axes.end(), [](int64_t axis) { return axis < 0; })) continue;
    if (!input->has_sizes()) {
      if (node->kind() == onnx::kUnsqueeze) {
        if (onnx::Node* reshape = UnsqueezeAtTheBackAsReshape(node, axes)) return reshape;
      }
      throw NoFormException(node,
                            absl::StrCat("its ", name.toString(),
                                         " counts from the back, and the rank of its input is not known (shape "
                                         "inference found none), which opset 10 needs it counted from the front"));
    }
    int64_t rank = static_cast<int64_t>(input->sizes().size());
    if (node->kind() == onnx::kUnsqueeze) rank += static_cast<int64_t>(axes.size());
    for (int64_t& axis : axes) axis += axis < 0 ? rank : 0;
    if (one) {
      node->i_(name, axes.front());
    } else {
      node->is_(name, std::move(axes));
    }
  }
  return node;
}

// Constant-12 moved to 11: a value_float, value_floats, value_int(s) or value_string(s) attribute (12's shorthands)
// written as the `value` tensor it stands for, a scalar or a 1-D tensor.
onnx::Node* ValueAttributeToTensor(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  onnx::Tensor value;
  const onnx::Symbol value_float("value_float"), value_floats("value_floats"), value_int("value_int"),
      value_ints("value_ints"), value_string("value_string"), value_strings("value_strings");
  onnx::Symbol shorthand;
  if (node->hasAttribute(value_float)) {
    shorthand = value_float;
    value.elem_type() = onnx::TensorProto::FLOAT;
    value.floats().push_back(static_cast<float>(node->f(value_float)));
  } else if (node->hasAttribute(value_floats)) {
    shorthand = value_floats;
    value.elem_type() = onnx::TensorProto::FLOAT;
    for (double f : node->fs(value_floats)) value.floats().push_back(static_cast<float>(f));
    value.sizes() = {static_cast<int64_t>(value.floats().size())};
  } else if (node->hasAttribute(value_int)) {
    shorthand = value_int;
    value.elem_type() = onnx::TensorProto::INT64;
    value.int64s().push_back(node->i(value_int));
  } else if (node->hasAttribute(value_ints)) {
    shorthand = value_ints;
    value.elem_type() = onnx::TensorProto::INT64;
    value.int64s() = node->is(value_ints);
    value.sizes() = {static_cast<int64_t>(value.int64s().size())};
  } else if (node->hasAttribute(value_string)) {
    shorthand = value_string;
    value.elem_type() = onnx::TensorProto::STRING;
    value.strings().push_back(node->s(value_string));
  } else if (node->hasAttribute(value_strings)) {
    shorthand = value_strings;
    value.elem_type() = onnx::TensorProto::STRING;
    value.strings() = node->ss(value_strings);
    value.sizes() = {static_cast<int64_t>(value.strings().size())};
  } else {
    return node;  // `value` or `sparse_value`, as Constant-11 has them
  }
  node->removeAttribute(shorthand);
  node->t_(onnx::kvalue, value);
  return node;
}

// What the adapter does to a node that crosses a step back.
enum class Adapt {
  kKeep,                            // nothing: the node means the same at the older version
  kAxisToLast,                      // AxisToLast
  kValueAttributeToTensor,          // ValueAttributeToTensor
  kSliceInputsToAttributes,         // upgrade/down_inputs_to_attributes.cc
  kPadInputsToAttributes,           // "
  kClipInputsToAttributes,          // "
  kDropoutInputsToAttributes,       // "
  kShapeRangeToSlice,               // upgrade/down_replacements.cc
  kCastLikeToCast,                  // "
  kResizeOptionalInputsSpelledOut,  // "
  kResizeAsResize10,                // "
  kHardSwishAsItsBody,              // "
  kResizeAsUpsample9,               // "
  kMishAsItsBody,                   // "
  kOneHotIndicesFromTheFront,       // "
  kEqualOfTheTypesItAdded,          // "
  kThroughDoubleBelowNine,          // upgrade/down_integers_below_nine.cc
  kSliceAxesCountedFromTheFront,    // "
  kGatherFromTheFront,              // AxesCountedFromTheFront, then GatherIndicesCountedFromTheFront
  kAxesCountedFromTheFront,         // AxesCountedFromTheFront
};

onnx::version_conversion::NodeTransformerFunction AdapterOf(Adapt adapt) {
  switch (adapt) {
    case Adapt::kAxisToLast: return AxisToLast;
    case Adapt::kValueAttributeToTensor: return ValueAttributeToTensor;
    case Adapt::kSliceInputsToAttributes: return SliceInputsToAttributes;
    case Adapt::kPadInputsToAttributes: return PadInputsToAttributes;
    case Adapt::kClipInputsToAttributes: return ClipInputsToAttributes;
    case Adapt::kDropoutInputsToAttributes: return DropoutInputsToAttributes;
    case Adapt::kShapeRangeToSlice: return ShapeRangeToSlice;
    case Adapt::kCastLikeToCast: return CastLikeToCast;
    case Adapt::kResizeOptionalInputsSpelledOut: return ResizeOptionalInputsSpelledOut;
    case Adapt::kResizeAsResize10: return ResizeAsResize10;
    case Adapt::kHardSwishAsItsBody: return HardSwishAsItsBody;
    case Adapt::kResizeAsUpsample9: return ResizeAsUpsample9;
    case Adapt::kMishAsItsBody: return MishAsItsBody;
    case Adapt::kOneHotIndicesFromTheFront: return OneHotIndicesFromTheFront;
    case Adapt::kEqualOfTheTypesItAdded: return EqualOfTheTypesItAdded;
    case Adapt::kThroughDoubleBelowNine: return ThroughDoubleBelowNine;
    case Adapt::kSliceAxesCountedFromTheFront: return SliceAxesCountedFromTheFront;
    case Adapt::kGatherFromTheFront:
      return [](const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
        return GatherIndicesCountedFromTheFront(graph, AxesCountedFromTheFront(graph, node));
      };
    case Adapt::kAxesCountedFromTheFront: return AxesCountedFromTheFront;
    case Adapt::kKeep: break;
  }
  return [](const std::shared_ptr<onnx::Graph>&, onnx::Node* node) { return node; };
}

// What a change of these ops takes from a node that crosses it back.
struct DownStep {
  const char* op_type;
  int version;                                             // the node moves from this version to version - 1
  WhyNot (*why_not)(const NodeProto&, const ConstantOf&);  // why a node cannot cross it, or nullopt
  Adapt adapt = Adapt::kKeep;
  bool replaces_onnx = false;  // in place of onnx's own adapter, which gets it wrong
  // The attributes only the newer version has, taken off the node (comma-separated): why_not has found each
  // absent or at the value that is the older version's behaviour, which the older version then has without it.
  const char* dropped = "";
  // onnx's own adapter runs first, then the attributes are taken off (it leaves them, and the older schema has none).
  bool after_onnx = false;
};

// `adapt`, then each attribute of `dropped` taken off the node.
onnx::version_conversion::NodeTransformerFunction DroppingAttributes(
    onnx::version_conversion::NodeTransformerFunction adapt, const std::string& dropped) {
  std::vector<onnx::Symbol> names;
  for (size_t start = 0; start < dropped.size();) {
    const size_t end = std::min(dropped.find(',', start), dropped.size());
    names.emplace_back(dropped.substr(start, end - start));
    start = end + 1;
  }
  return [adapt = std::move(adapt), names](const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
    node = adapt(graph, node);
    for (const onnx::Symbol& name : names) {
      if (node->hasAttribute(name)) node->removeAttribute(name);
    }
    return node;
  };
}

// Why a Reduce node's noop_with_empty_axes (ReduceSum 13, the others 18) is the newer version's alone: 1 without
// axes leaves the data as it is, where the older version reduces every axis.
WhyNot NoopWithoutAxes(const NodeProto& node, const ConstantOf&) {
  const AttributeProto* noop = FindAttribute(node, "noop_with_empty_axes");
  if (noop == nullptr || noop->i() == 0 || (node.input_size() > 1 && !node.input(1).empty())) return std::nullopt;
  return WhyNot("its noop_with_empty_axes without axes leaves the data as it is, which only the newer version does");
}

const DownStep kDownSteps[] = {
    // Type constraints widened (bfloat16 at 13, unless said otherwise), nothing else.
    {"Abs", 13, Always},
    {"Add", 13, Always},
    {"ArgMax", 13, Always},
    {"ArgMin", 13, Always},
    {"Cast", 13, Always},
    {"Ceil", 13, Always},
    {"Clip", 13, Always},
    {"Concat", 13, Always},
    {"DepthToSpace", 13, Always},
    {"Div", 13, Always},
    {"Dropout", 13, Always},
    {"Equal", 13, Always},
    {"Erf", 13, Always},
    {"Exp", 13, Always},
    {"Expand", 13, Always},
    {"Flatten", 13, Always},
    {"Floor", 13, Always},
    {"Gather", 13, Always},
    {"GatherElements", 13, Always},
    {"GatherND", 13, Always},
    {"Gemm", 13, Always},
    {"Greater", 13, Always},
    {"Identity", 13, Always},
    {"If", 13, Always},
    // If-11 reads as If-1 (the same text): opset 11 let the branches' outputs differ in shape, for shape inference
    // alone (If-11's merges them; ONNX Runtime runs one kernel for both). onnx's full check of the result holds it to
    // If-1's inference, which refuses branches whose outputs contradict the If's declared output.
    {"If", 11, Always},
    {"IsNaN", 13, Always},
    {"LRN", 13, Always},
    {"Less", 13, Always},
    {"Log", 13, Always},
    {"Loop", 13, Always},
    {"MatMul", 13, Always},
    {"Max", 13, Always},
    {"Mean", 13, Always},
    {"MeanVarianceNormalization", 13, Always},
    {"Min", 13, Always},
    {"Mod", 13, Always},
    {"Mul", 13, Always},
    {"Neg", 13, Always},
    {"NonZero", 13, Always},
    {"Pad", 13, Always},
    {"Pow", 12, Always},  // integer exponents
    {"Pow", 13, Always},
    {"Reciprocal", 13, Always},
    {"ReduceL1", 13, Always},
    {"ReduceL2", 13, Always},
    {"ReduceLogSum", 13, Always},
    {"ReduceLogSumExp", 13, Always},
    {"ReduceMax", 13, Always},
    {"ReduceMean", 13, Always},
    {"ReduceMin", 13, Always},
    {"ReduceProd", 13, Always},
    {"ReduceSumSquare", 13, Always},
    {"Relu", 13, Always},
    {"Reshape", 13, Always},
    {"ScatterElements", 13, Always},
    {"ScatterND", 13, Always},
    {"Shape", 13, Always},
    {"Sigmoid", 13, Always},
    {"Sign", 13, Always},
    {"Size", 13, Always},
    {"Slice", 13, Always},
    {"SpaceToDepth", 13, Always},
    {"Sqrt", 13, Always},
    {"Sub", 13, Always},
    {"Sum", 13, Always},
    {"Tanh", 13, Always},
    {"Tile", 13, Always},
    {"Transpose", 13, Always},
    {"NegativeLogLikelihoodLoss", 13, Always},
    {"SoftmaxCrossEntropyLoss", 13, Always},
    // Small integer types (14), sequences (Identity 14), bfloat16 (CumSum 14, Pow 15), the scale's and the mean's
    // types apart (BatchNormalization 15), optional values (16), newer float types (20, 22, 28).
    {"Add", 14, Always},
    {"Div", 14, Always},
    {"Mul", 14, Always},
    {"Sub", 14, Always},
    {"Relu", 14, Always},
    {"Identity", 14, Always},
    {"CumSum", 14, Always},
    {"Pow", 15, Always},
    {"BatchNormalization", 15, Always},
    {"Identity", 16, Always},
    {"If", 16, Always},
    {"Loop", 16, Always},
    {"ConstantOfShape", 20, Always},
    {"GlobalMaxPool", 22, Always},
    // An attribute or input added, whose absence (or default) is the older version's behaviour.
    {"Reshape", 14,
     [](const NodeProto& node, const ConstantOf&) { return IntAttributeOtherThan(node, "allowzero", 0); }, Adapt::kKeep,
     false, "allowzero"},
    {"Split", 18, [](const NodeProto& node, const ConstantOf&) { return AttributePresent(node, "num_outputs"); }},
    {"Pad", 18, [](const NodeProto& node, const ConstantOf&) { return InputPresent(node, 3, "axes"); }},
    {"Constant", 12, TakenByTheAdapter, Adapt::kValueAttributeToTensor},
    {"BatchNormalization", 14,
     [](const NodeProto& node, const ConstantOf&) { return IntAttributeOtherThan(node, "training_mode", 0); },
     Adapt::kKeep, false, "training_mode"},
    {"Gemm", 11,
     [](const NodeProto& node, const ConstantOf&) -> WhyNot {
       if (node.input_size() > 2 && !node.input(2).empty()) return std::nullopt;
       return WhyNot("it has no C, which only opset 11 on leaves out");
     }},
    {"MaxPool", 10,
     [](const NodeProto& node, const ConstantOf&) -> WhyNot {
       if (WhyNot ceil = IntAttributeOtherThan(node, "ceil_mode", 0)) return ceil;
       const AttributeProto* dilations = FindAttribute(node, "dilations");
       if (dilations == nullptr) return std::nullopt;
       for (int64_t d : dilations->ints()) {
         if (d != 1) return WhyNot("its dilations are the newer version's alone");
       }
       return std::nullopt;
     },
     Adapt::kKeep, false, "ceil_mode,dilations"},
    {"AveragePool", 10,
     [](const NodeProto& node, const ConstantOf&) { return IntAttributeOtherThan(node, "ceil_mode", 0); }, Adapt::kKeep,
     false, "ceil_mode"},
    {"DepthToSpace", 11,
     [](const NodeProto& node, const ConstantOf&) { return StringAttributeOtherThan(node, "mode", "DCR"); },
     Adapt::kKeep, false, "mode"},
    // Attributes that became inputs, back to attributes where the inputs are constants.
    {"Slice", 10, SliceInputsAreConstant, Adapt::kSliceInputsToAttributes},
    {"Pad", 11, PadInputsAreConstant, Adapt::kPadInputsToAttributes},
    {"Clip", 11, ClipInputsAreConstant, Adapt::kClipInputsToAttributes},
    {"Dropout", 12, DropoutInputsAreConstant, Adapt::kDropoutInputsToAttributes, false, "seed"},
    {"Upsample", 9, UpsampleScalesAreConstant, Adapt::kKeep, true, "", /*after_onnx=*/true},
    // Written in other ops of the older opset.
    {"Shape", 15, Always, Adapt::kShapeRangeToSlice, false, "start,end"},
    {"CastLike", 15, TakenByTheAdapter, Adapt::kCastLikeToCast},
    {"HardSwish", 14, Always, Adapt::kHardSwishAsItsBody},
    {"Mish", 18, Always, Adapt::kMishAsItsBody},
    {"Resize", 13, Always, Adapt::kResizeOptionalInputsSpelledOut},
    {"Resize", 11, ResizeIsResize10, Adapt::kResizeAsResize10, false,
     "coordinate_transformation_mode,nearest_mode,cubic_coeff_a,exclude_outside,extrapolation_value"},
    {"Resize", 10, ResizeIsUpsample9, Adapt::kResizeAsUpsample9},
    // Opset 11 let axes and indices count from the back; the same node with none that does is the older version's.
    // An axis that counts from the back is written as the one it counts to from the front (AxesCountedFromTheFront).
    {"Squeeze", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront},
    {"Split", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront},
    {"Hardmax", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront},
    // In place of onnx's own, which keep the axis as it is.
    {"ArgMax", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ArgMin", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"Concat", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"Flatten", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"Softmax", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"LogSoftmax", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"Unsqueeze", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceL1", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceL2", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceLogSum", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceLogSumExp", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceMax", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceMean", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceMin", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceProd", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceSum", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    {"ReduceSumSquare", 11, TakenByTheAdapter, Adapt::kAxesCountedFromTheFront, true},
    // Constant axes that count from the back are counted from the front, by the data's rank (down_replacements.cc).
    {"Slice", 11,
     [](const NodeProto& node, const ConstantOf& constant_of) {
       return ComputedAtRunTime(node, 3, "axes", constant_of);
     },
     Adapt::kSliceAxesCountedFromTheFront},
    // Its axis and its constant indices that count from the back counted from the front (GatherFromTheFront).
    {"Gather", 11,
     [](const NodeProto& node, const ConstantOf& constant_of) {
       return ComputedAtRunTime(node, 1, "indices", constant_of);
     },
     Adapt::kGatherFromTheFront},
    // Its indices counted from the front, in other ops of opset 9 (upgrade/down_replacements.cc).
    {"OneHot", 11, TakenByTheAdapter, Adapt::kOneHotIndicesFromTheFront},
    // In place of onnx's own, which casts integers to float (upgrade/down_integers_below_nine.cc).
    {"Greater", 9, TakenByTheAdapter, Adapt::kThroughDoubleBelowNine, /*replaces_onnx=*/true},
    {"Less", 9, TakenByTheAdapter, Adapt::kThroughDoubleBelowNine, /*replaces_onnx=*/true},
    {"Flatten", 9, TakenByTheAdapter, Adapt::kThroughDoubleBelowNine, /*replaces_onnx=*/true},
    {"MatMul", 9, TakenByTheAdapter, Adapt::kThroughDoubleBelowNine, /*replaces_onnx=*/true},
    {"Gemm", 9, TakenByTheAdapter, Adapt::kThroughDoubleBelowNine, /*replaces_onnx=*/true},
    {"PRelu", 9, TakenByTheAdapter, Adapt::kThroughDoubleBelowNine, /*replaces_onnx=*/true},
    // In place of onnx's own, which refuses the types Equal-11 added: they are compared in other ops of opset 10
    // (upgrade/down_replacements.cc).
    {"Equal", 11, TakenByTheAdapter, Adapt::kEqualOfTheTypesItAdded, /*replaces_onnx=*/true},
    // The axis's meaning changed; along the last axis it is the same.
    {"Softmax", 13, TakenByTheAdapter, Adapt::kAxisToLast, /*replaces_onnx=*/true},
    {"LogSoftmax", 13, TakenByTheAdapter, Adapt::kAxisToLast, /*replaces_onnx=*/true},
    {"Hardmax", 13, TakenByTheAdapter, Adapt::kAxisToLast},
    // onnx's own adapters take the axes input back into an attribute, and leave noop_with_empty_axes, which the
    // older versions do not have.
    // onnx's own adapters refuse the float8 types 19 added, and leave saturate, which applies to those alone.
    {"Cast", 19, TakenByTheAdapter, Adapt::kKeep, true, "saturate", /*after_onnx=*/true},
    {"CastLike", 19, TakenByTheAdapter, Adapt::kKeep, true, "saturate", /*after_onnx=*/true},
    {"ReduceSum", 13, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceL1", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceL2", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceLogSum", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceLogSumExp", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceMax", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceMean", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceMin", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceProd", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
    {"ReduceSumSquare", 18, NoopWithoutAxes, Adapt::kKeep, true, "noop_with_empty_axes", /*after_onnx=*/true},
};

// A down-adapter whose refusal becomes a NoFormException naming the node and the lowest opset it can be moved to
// (the step's own version): onnx's adapters assert what the older version cannot hold (TypeRestriction: "DataType
// (1) of Input or Output of operator 'Equal' is unallowed for Opset Version 10"), in words that name no node, and
// the move would fail as a converter error; ours say only why.
class RefusalNamingAdapter final : public onnx::version_conversion::Adapter {
 public:
  explicit RefusalNamingAdapter(std::unique_ptr<onnx::version_conversion::Adapter> inner)
      : Adapter(inner->name(), inner->initial_version(), inner->target_version()), inner_(std::move(inner)) {}

  onnx::Node* adapt(std::shared_ptr<onnx::Graph> graph, onnx::Node* node) const override {
    try {
      return inner_->adapt(std::move(graph), node);
    } catch (const NoFormException& e) {
      throw NoFormException(e.node_tag(), initial_version().version(), e.what());
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      // onnx's assertions start with the header's path and the condition; the words after "failed: " are the why.
      const std::string what = e.what();
      const size_t failed = what.find("failed: ");
      throw NoFormException(
          node->has_name() ? node->name() : "", initial_version().version(),
          absl::StrCat("onnx " ONNX_VERSION_STRING "'s down-adapter of ", name(), "-", initial_version().version(),
                       " refuses it: ", failed == std::string::npos ? what : what.substr(failed + 8)));
    }
  }

 private:
  std::unique_ptr<onnx::version_conversion::Adapter> inner_;
};

const DownStep* FindDownStep(const std::string& op_type, int64_t version) {
  for (const DownStep& step : kDownSteps) {
    if (op_type == step.op_type && version == step.version) return &step;
  }
  return nullptr;
}

}  // namespace

void RegisterOwnDownAdapters(StepConverter& converter) {
  for (const DownStep& step : kDownSteps) {
    onnx::version_conversion::NodeTransformerFunction adapt = AdapterOf(step.adapt);
    if (step.after_onnx) {
      std::shared_ptr<const onnx::version_conversion::Adapter> onnx_own =
          converter.TakeDownAdapter(step.op_type, step.version);
      if (onnx_own != nullptr) {  // down_steps_test holds that onnx has it
        adapt = [onnx_own](const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
          return onnx_own->adapt(graph, node);
        };
      }
    }
    converter.registerAdapter(step.op_type, step.version, step.version - 1,
                              DroppingAttributes(std::move(adapt), step.dropped));
  }
  converter.WrapDownAdapters([](std::unique_ptr<onnx::version_conversion::Adapter> adapter) {
    return std::make_unique<RefusalNamingAdapter>(std::move(adapter));
  });
}

std::vector<OwnDownStep> OwnDownSteps() {
  std::vector<OwnDownStep> steps;
  for (const DownStep& step : kDownSteps) {
    // Unconditional: it takes every node and does nothing to it (the adapters that rewrite check what they take).
    const bool unconditional =
        step.why_not == Always && step.adapt == Adapt::kKeep && step.dropped[0] == '\0' && !step.after_onnx;
    const bool writes_other_ops = step.adapt == Adapt::kShapeRangeToSlice || step.adapt == Adapt::kCastLikeToCast ||
                                  step.adapt == Adapt::kHardSwishAsItsBody || step.adapt == Adapt::kResizeAsUpsample9 ||
                                  step.adapt == Adapt::kMishAsItsBody;
    steps.push_back({step.op_type, step.version, unconditional, step.replaces_onnx, writes_other_ops});
  }
  return steps;
}

std::optional<std::string> WhyCannotCrossBack(const NodeProto& node, int64_t version, const ConstantOf& constant_of) {
  const DownStep* step = FindDownStep(node.op_type(), version);
  return step == nullptr ? std::nullopt : step->why_not(node, constant_of);
}

}  // namespace onnx_legalize::opset_upgrade
