// Moving down across changes that no attribute or input of the older version undoes, where onnx 1.23's converter has
// no down-adapter: the node is written in ops the older opset has, each an exact form of it.
//   - Shape-15's start and end: Shape, then a Slice of its output along axis 0 with the same start and end. Both
//     clamp alike (a negative bound counts from the back, then each is clamped to [0, rank]). The Slice is made at
//     the opset the step moves to and crosses the later steps as any Slice does, Slice 10 -> 9 included.
//   - CastLike-15 (added then): Cast to the element type of its target_type input, which is what CastLike does. The
//     type is the one shape inference gave the input in the skeleton; where it found none, the node has no form.
//   - Resize-13's optional roi and scales (required inputs before 13): an empty float tensor for each left out,
//     which is what Resize-11 reads as "none" (its spec: scales empty when sizes is given; roi read only by
//     tf_crop_and_resize).
//   - HardSwish-14 (added then) as its function body in onnx's schema, HardSigmoid (alpha 1/6, beta 1/2) times X: ONNX
//     Runtime 1.31 computes the two alike to the bit (checked on 4 million normal values at 4 scales).
//   - Mish-18 (added then) as its function body, Softplus, then Tanh, then Mul by X, for float: ONNX Runtime 1.31
//     computes the two alike to the bit (checked on 8192 values), and so does the model runner
//     (kernels/activation.cc). Of float16 ORT's Mish and the body differ, and ORT runs no Softplus of double: no form.
//   - Resize-11 as Resize-10, which takes X and scales alone and samples at asymmetric coordinates, the nearest
//     pixel by the floor (what upgrade/fixes/resize_10_11.cc writes moving up): a node that says exactly that, by
//     scales (not sizes). For nearest, every scale must be a constant of at least 1: ONNX Runtime's Resize-10 takes
//     the ceiling where it shrinks an axis. Its roi (read by tf_crop_and_resize alone) is taken off.
//   - Resize-10 (added then) as Upsample-9, which it was made from: the same inputs, modes and sampling, and the
//     same kernel in ONNX Runtime, but for Upsample's scales, which must be at least 1 (Upsample-9's spec; ONNX
//     Runtime refuses a smaller one). So the scales must be a constant, each at least 1. onnx's own Upsample 9 -> 8
//     then takes them into an attribute.
//   - Slice-11's constant axes that count from the back (PyTorch writes x[..., a:b] so) as Slice-10's counted from the
//     front, by the rank shape inference found for its data (where it found none, no form), in a Constant of the
//     type of the other index inputs.
//   - Gather-11's constant indices that count from the back as Gather-1's counted from the front, by the size shape
//     inference found for its data along the axis (where it found none, no form), in a Constant of the same type and
//     dims.
//   - Unsqueeze-11 whose axes count from the back and are its output's last (-1, or -2 and -1, ...), of an input whose
//     rank shape inference did not find (PyTorch's x.unsqueeze(-1) of an If's output): a Reshape of the input to its
//     Shape followed by as many 1s. A dim of 0 in that shape copies the input's 0 (Reshape-5), which is the same.
//   - OneHot-11, which counts an index in [-depth, -1] from the back, as OneHot-10 of the indices counted from the
//     front: Where(indices < 0, indices + depth, indices), then depth itself where that is still negative (an index
//     below -depth), which is off everywhere at both versions. OneHot-10's text makes every negative index off
//     everywhere, and ONNX Runtime counts it from the back as at 11: handed no negative index, OneHot-10 computes the
//     same in both readings. depth is cast to the indices' type (a scalar or [1], it broadcasts to the indices, which
//     have a rank of at least 1). For int32 and int64 indices (Add before 13 takes no smaller integer, and a floating
//     index has no exact sum); unsigned ones cross as they are.
//   - Equal-11 of the types it added (Equal-7 compares bool, int32 and int64 alone): integers of 8 to 32 bits cast to
//     int64 first (each of their values is an int64, and two are equal exactly when their casts are); uint64 and
//     floating values as neither less nor greater, and floating values only where both are ordered: NaN is neither
//     less nor greater than anything, and equal to nothing. A value is ordered (not NaN) exactly when it is less than
//     +inf or greater than -inf; -0 and +0 are neither less nor greater, and equal. Less and Greater take floating
//     values from opset 7 on and uint64 from 9.
// The nodes made here are named by the splice (upgrade/splice.cc); CastLike's replacement keeps the node's outputs
// (the skeleton shows them as graph outputs, upgrade/skeleton.cc ExposeReplacedOutputs), and so does the Slice,
// which takes over the name of Shape's output.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/attributes.h"
#include "upgrade/internal.h"

namespace onnx_legalize::opset_upgrade {
namespace {

// A Constant node made before `before`, in its graph, holding `tensor`; its output typed and sized as the tensor.
onnx::Value* MadeConstant(onnx::Node* before, const onnx::Tensor& tensor) {
  onnx::Node* constant = before->owningGraph()->create(onnx::kConstant, 1);
  constant->t_(onnx::kvalue, tensor);
  constant->insertBefore(before);
  constant->output()->setElemType(tensor.elem_type());
  std::vector<onnx::Dimension> dims;
  for (const int64_t dim : tensor.sizes()) dims.emplace_back(dim);
  constant->output()->setSizes(dims);
  return constant->output();
}

// The same, a 1-D tensor of `values` (int64 or float).
template <typename T>
onnx::Value* MadeConstant(onnx::Node* before, TensorProto::DataType type, const std::vector<T>& values) {
  onnx::Tensor tensor;
  tensor.elem_type() = type;
  tensor.sizes() = {static_cast<int64_t>(values.size())};
  if constexpr (std::is_same_v<T, int64_t>) {
    tensor.int64s() = values;
  } else {
    tensor.floats() = values;
  }
  return MadeConstant(before, tensor);
}

// An index tensor: `values` of `type` (INT32 or INT64; an index input takes no other) and `dims`.
onnx::Tensor IndexTensor(int32_t type, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  onnx::Tensor tensor;
  tensor.elem_type() = type;
  tensor.sizes() = std::move(dims);
  if (type == TensorProto::INT32) {
    tensor.int32s().assign(values.begin(), values.end());
  } else {
    tensor.int64s() = values;
  }
  return tensor;
}

// Replaces `node` with `replacement`, which computes its one output: readers and a graph output take the
// replacement's.
onnx::Node* ReplacedBy(onnx::Node* node, onnx::Node* replacement) {
  node->output()->replaceAllUsesWith(replacement->output());
  node->destroy();
  return replacement;
}

std::string StringAttribute(const NodeProto& node, const char* name, const char* default_value) {
  const AttributeProto* attribute = FindAttribute(node, name);
  return attribute == nullptr ? default_value : attribute->s();
}

}  // namespace

onnx::Node* MadeBefore(onnx::Node* before, const char* op, const std::vector<onnx::Value*>& inputs, int32_t elem_type) {
  onnx::Node* made = before->owningGraph()->create(onnx::Symbol(op), 1);
  for (onnx::Value* input : inputs) made->addInput(input);
  made->insertBefore(before);
  made->output()->setElemType(elem_type);
  return made;
}

WhyNot ResizeIsResize10(const NodeProto& node, const ConstantOf& constant_of) {
  const std::string mode = StringAttribute(node, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") return absl::StrCat("its mode '", mode, "' is the newer version's alone");
  const std::string coordinates = StringAttribute(node, "coordinate_transformation_mode", "half_pixel");
  if (coordinates != "asymmetric") {
    return absl::StrCat("its coordinate_transformation_mode '", coordinates,
                        "' is the newer version's alone (Resize-10 samples at asymmetric coordinates)");
  }
  if (HasInput(node, 3)) return std::string("its sizes are the newer version's alone (Resize-10 takes scales)");
  if (!HasInput(node, 2)) return std::string("it has neither scales nor sizes");
  if (mode != "nearest") return std::nullopt;
  const std::string nearest = StringAttribute(node, "nearest_mode", "round_prefer_floor");
  if (nearest != "floor") {
    return absl::StrCat("its nearest_mode '", nearest, "' is the newer version's alone (Resize-10 takes the floor)");
  }
  const TensorProto* scales = constant_of(node.input(2));
  const std::optional<std::vector<float>> values = scales == nullptr ? std::nullopt : FloatValues(*scales);
  if (!values.has_value()) {
    return std::string("its scales are not a constant, and where a scale is below 1 Resize-10 takes another pixel");
  }
  for (float scale : *values) {
    if (!(scale >= 1)) {
      return absl::StrCat("its scale ", scale, " shrinks an axis, where Resize-10 takes the nearest pixel's ceiling");
    }
  }
  return std::nullopt;
}

onnx::Node* ResizeAsResize10(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  TakeOffInput(node, 1);                                                            // roi
  while (node->inputs().size() > 2) TakeOffInput(node, node->inputs().size() - 1);  // an empty sizes
  return node;
}

WhyNot ResizeIsUpsample9(const NodeProto& node, const ConstantOf& constant_of) {
  // The node is checked as the caller's model holds it: a Resize of opset 11 on (X, roi, scales, sizes), which the
  // step to 10 writes as Resize-10's (X, scales), or one of opset 10.
  const int scales = node.input_size() > 2 ? 2 : 1;
  if (!HasInput(node, scales)) return std::string("it has no scales");
  const TensorProto* constant = constant_of(node.input(scales));
  const std::optional<std::vector<float>> values = constant == nullptr ? std::nullopt : FloatValues(*constant);
  if (!values.has_value()) {
    return std::string(
        "its scales are not a constant, and Upsample, which Resize-10 is written as, takes none below 1");
  }
  for (float scale : *values) {
    if (!(scale >= 1)) return absl::StrCat("its scale ", scale, " shrinks an axis, which Upsample does not");
  }
  return std::nullopt;
}

onnx::Node* ResizeAsUpsample9(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  onnx::Node* upsample =
      MadeBefore(node, kUpsample, {node->inputs()[0], node->inputs()[1]}, node->output()->elemType());
  const onnx::Symbol mode("mode");
  if (node->hasAttribute(mode)) upsample->s_(mode, node->s(mode));
  return ReplacedBy(node, upsample);
}

onnx::Node* MadeAfterTakingOverItsOutput(onnx::Node* node, onnx::Symbol kind) {
  onnx::Value* output = node->output();
  const std::string name = output->uniqueName();
  onnx::Graph* graph = node->owningGraph();
  onnx::Node* made = graph->create(kind, 1);
  made->insertAfter(node);
  output->replaceAllUsesWith(made->output());  // which also hands a graph output's name to the new node
  if (made->output()->uniqueName() != name) {
    output->setUniqueName(graph->getNextUniqueName(), /*update_related_names=*/false);
    made->output()->setUniqueName(name);
  }
  made->output()->setElemType(output->elemType());
  made->addInput(output);
  return made;
}

onnx::Node* ShapeRangeToSlice(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  const onnx::Symbol start_name("start"), end_name("end");
  const int64_t start = node->hasAttribute(start_name) ? node->i(start_name) : 0;
  const bool has_end = node->hasAttribute(end_name);
  if (start == 0 && !has_end) return node;  // the whole shape, as Shape-1 gives it (the attributes are taken off)
  const int64_t end = has_end ? node->i(end_name) : std::numeric_limits<int64_t>::max();
  onnx::Node* slice = MadeAfterTakingOverItsOutput(node, onnx::kSlice);
  slice->output()->wipeSizes();  // replaceAllUsesWith gave it the whole shape's
  slice->addInput(MadeConstant<int64_t>(slice, TensorProto::INT64, {start}));
  slice->addInput(MadeConstant<int64_t>(slice, TensorProto::INT64, {end}));
  slice->addInput(MadeConstant<int64_t>(slice, TensorProto::INT64, {0}));
  return node;
}

namespace {

// Why a CastLike whose target_type input is of `type` has no form before opset 15, or nullopt.
WhyNot CastLikeTypeWhyNot(int32_t type) {
  if (type != TensorProto::UNDEFINED) return std::nullopt;
  return WhyNot(
      "the element type of its target_type input is not known (shape inference found none), and the Cast that "
      "CastLike is written as before opset 15 names it as an attribute");
}

// Why a Mish of elements of `type` has no form before opset 18, or nullopt.
WhyNot MishTypeWhyNot(int32_t type) {
  if (type == TensorProto::FLOAT) return std::nullopt;
  return WhyNot(type == TensorProto::UNDEFINED
                    ? "the element type of its input is not known (shape inference found none), and its body is exact "
                      "for float alone"
                    : "its body is exact for float alone (ONNX Runtime computes Mish of float16 otherwise than the "
                      "body, and runs no Softplus of double)");
}

// Why a OneHot-11 of indices of `type` has no form before opset 11, or nullopt.
WhyNot OneHotIndicesTypeWhyNot(int32_t type) {
  switch (type) {
    case TensorProto::INT32:
    case TensorProto::INT64:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32:
    case TensorProto::UINT64: return std::nullopt;
    case TensorProto::UNDEFINED:
      return WhyNot(
          "the element type of its indices is not known (shape inference found none), and an index that counts "
          "from the back is written counted from the front in int32 or int64 alone");
    default:
      return WhyNot(
          "its indices are of a type in which an index that counts from the back, as only opset 11 on reads it, "
          "cannot be written counted from the front (int32 and int64 can, and unsigned indices need not)");
  }
}

// Why an Equal-11 of elements of `type` has no form before opset 11, or nullopt.
WhyNot EqualTypeWhyNot(int32_t type) {
  switch (type) {
    case TensorProto::BOOL:
    case TensorProto::INT8:
    case TensorProto::INT16:
    case TensorProto::INT32:
    case TensorProto::INT64:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32:
    case TensorProto::UINT64:
    case TensorProto::FLOAT16:
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE: return std::nullopt;
    case TensorProto::UNDEFINED:
      return WhyNot(
          "the element type of its inputs is not known (shape inference found none), and Equal before opset 11 "
          "compares bool, int32 and int64 alone: others are written in other ops, by their type");
    default: return WhyNot("its elements are of a type that no comparison before opset 11 takes");
  }
}

bool IsUnsigned(int32_t type) {
  return type == TensorProto::UINT8 || type == TensorProto::UINT16 || type == TensorProto::UINT32 ||
         type == TensorProto::UINT64;
}

}  // namespace

WhyNot WhyElementTypesCannotCrossBack(const NodeProto& node, int64_t version, const ElementTypeOf& type_of) {
  if (node.op_type() == kCastLike && version == 15 && node.input_size() > 1) {
    return CastLikeTypeWhyNot(type_of(node.input(1)));
  }
  if (node.op_type() == kMish && version == 18 && node.input_size() > 0) return MishTypeWhyNot(type_of(node.input(0)));
  if (node.op_type() == kOneHot && version == 11 && node.input_size() > 0) {
    return OneHotIndicesTypeWhyNot(type_of(node.input(0)));
  }
  if (version == 9 && node.input_size() > 0) return IntegersBelowNineWhyNot(node.op_type(), type_of(node.input(0)));
  if (node.op_type() == kEqual && version == 11 && node.input_size() > 1) {
    const int32_t type = type_of(node.input(0));
    return EqualTypeWhyNot(type != TensorProto::UNDEFINED ? type : type_of(node.input(1)));
  }
  return std::nullopt;
}

onnx::Node* SliceAxesCountedFromTheFront(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
  if (!HasInput(node, 3)) return node;
  std::vector<int64_t> axes = ConstantInts(graph, node, 3, "axes");
  if (std::none_of(axes.begin(), axes.end(), [](int64_t axis) { return axis < 0; })) return node;
  onnx::Value* data = node->inputs()[0];
  if (!data->has_sizes()) {
    throw NoFormException(node,
                          "its axes count from the back, and the rank of its data is not known (shape inference found "
                          "none), which opset 10 needs them counted from the front");
  }
  const auto rank = static_cast<int64_t>(data->sizes().size());
  for (int64_t& axis : axes) axis += axis < 0 ? rank : 0;
  // starts, ends, axes and steps are of one type, int32 or int64.
  const int32_t type = node->inputs()[3]->elemType() == TensorProto::INT32 ? TensorProto::INT32 : TensorProto::INT64;
  const auto count = static_cast<int64_t>(axes.size());
  node->replaceInput(3, MadeConstant(node, IndexTensor(type, {count}, axes)));
  return node;
}

onnx::Node* GatherIndicesCountedFromTheFront(const std::shared_ptr<onnx::Graph>& graph, onnx::Node* node) {
  std::vector<int64_t> indices = ConstantInts(graph, node, 1, "indices");
  if (std::none_of(indices.begin(), indices.end(), [](int64_t index) { return index < 0; })) return node;
  onnx::Value* data = node->inputs()[0];
  const int64_t axis = node->hasAttribute(onnx::kaxis) ? node->i(onnx::kaxis) : 0;  // counted from the front by now
  if (!data->has_sizes() || axis < 0 || axis >= static_cast<int64_t>(data->sizes().size()) ||
      !data->sizes()[static_cast<size_t>(axis)].is_int) {
    throw NoFormException(node,
                          absl::StrCat("its indices count from the back, and the size of its data along axis ", axis,
                                       " is not known (shape inference found none), which opset 10 needs them "
                                       "counted from the front"));
  }
  const int64_t size = data->sizes()[static_cast<size_t>(axis)].dim;
  for (int64_t& index : indices) index += index < 0 ? size : 0;  // one below -size stays out of range, as it was
  const onnx::Tensor& original = ConstantTensor(graph, node, 1, "indices");  // a scalar index stays a scalar
  node->replaceInput(1, MadeConstant(node, IndexTensor(original.elem_type(), original.sizes(), indices)));
  return node;
}

onnx::Node* OneHotIndicesFromTheFront(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  onnx::Value* indices = node->inputs()[0];
  const int32_t type = indices->elemType();
  if (WhyNot why = OneHotIndicesTypeWhyNot(type)) throw NoFormException(node, *why);
  if (IsUnsigned(type)) return node;
  onnx::Value* depth = node->inputs()[1];
  if (depth->elemType() != type) {
    onnx::Node* cast = MadeBefore(node, "Cast", {depth}, type);
    cast->i_(onnx::kto, type);
    depth = cast->output();
  }
  onnx::Value* zero = MadeConstant(node, IndexTensor(type, {}, {0}));
  onnx::Value* negative = MadeBefore(node, "Less", {indices, zero}, TensorProto::BOOL)->output();
  onnx::Value* wrapped = MadeBefore(node, "Add", {indices, depth}, type)->output();
  onnx::Value* front = MadeBefore(node, "Where", {negative, wrapped, indices}, type)->output();
  onnx::Value* below = MadeBefore(node, "Less", {front, zero}, TensorProto::BOOL)->output();
  node->replaceInput(0, MadeBefore(node, "Where", {below, depth, front}, type)->output());
  return node;
}

namespace {

// A scalar Constant made before `before` of floating `type` (float16, float, double) holding +inf or -inf.
onnx::Value* MadeInfinity(onnx::Node* before, int32_t type, bool negative) {
  onnx::Tensor tensor;
  tensor.elem_type() = type;
  const double infinity = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (type == TensorProto::FLOAT16) {
    tensor.int32s() = {negative ? 0xFC00 : 0x7C00};  // float16's bits, as TensorProto holds them
  } else if (type == TensorProto::DOUBLE) {
    tensor.doubles() = {infinity};
  } else {
    tensor.floats() = {static_cast<float>(infinity)};
  }
  return MadeConstant(before, tensor);
}

// Whether `x` is ordered (not NaN), elementwise, in ops of opset 7: x < +inf or x > -inf.
onnx::Value* MadeOrdered(onnx::Node* before, onnx::Value* x, int32_t type) {
  onnx::Value* below_infinity =
      MadeBefore(before, "Less", {x, MadeInfinity(before, type, false)}, TensorProto::BOOL)->output();
  onnx::Value* above_minus_infinity =
      MadeBefore(before, "Greater", {x, MadeInfinity(before, type, true)}, TensorProto::BOOL)->output();
  return MadeBefore(before, "Or", {below_infinity, above_minus_infinity}, TensorProto::BOOL)->output();
}

}  // namespace

onnx::Node* EqualOfTheTypesItAdded(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  onnx::Value* a = node->inputs()[0];
  onnx::Value* b = node->inputs()[1];
  const int32_t type = a->elemType() != TensorProto::UNDEFINED ? a->elemType() : b->elemType();
  if (WhyNot why = EqualTypeWhyNot(type)) throw NoFormException(node, *why);
  switch (type) {
    case TensorProto::BOOL:
    case TensorProto::INT32:
    case TensorProto::INT64: return node;
    case TensorProto::INT8:
    case TensorProto::INT16:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32:
      for (size_t index : {size_t{0}, size_t{1}}) {
        onnx::Node* cast = MadeBefore(node, "Cast", {node->inputs()[index]}, TensorProto::INT64);
        cast->i_(onnx::kto, TensorProto::INT64);
        node->replaceInput(index, cast->output());
      }
      return node;
    default: break;
  }
  onnx::Value* less = MadeBefore(node, "Less", {a, b}, TensorProto::BOOL)->output();
  onnx::Value* greater = MadeBefore(node, "Greater", {a, b}, TensorProto::BOOL)->output();
  onnx::Value* unequal = MadeBefore(node, "Or", {less, greater}, TensorProto::BOOL)->output();
  onnx::Node* neither = MadeBefore(node, "Not", {unequal}, TensorProto::BOOL);
  if (type == TensorProto::UINT64) return ReplacedBy(node, neither);
  onnx::Value* ordered =
      MadeBefore(node, "And", {MadeOrdered(node, a, type), MadeOrdered(node, b, type)}, TensorProto::BOOL)->output();
  return ReplacedBy(node, MadeBefore(node, "And", {neither->output(), ordered}, TensorProto::BOOL));
}

onnx::Node* UnsqueezeAtTheBackAsReshape(onnx::Node* node, const std::vector<int64_t>& axes) {
  const auto count = static_cast<int64_t>(axes.size());
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < count; ++i) {
    if (sorted[static_cast<size_t>(i)] != i - count) return nullptr;  // not -count, ..., -1
  }
  onnx::Value* x = node->inputs()[0];
  onnx::Value* shape = MadeBefore(node, "Shape", {x}, TensorProto::INT64)->output();
  onnx::Value* ones = MadeConstant(node, IndexTensor(TensorProto::INT64, {count}, std::vector<int64_t>(count, 1)));
  onnx::Node* target = MadeBefore(node, "Concat", {shape, ones}, TensorProto::INT64);
  target->i_(onnx::kaxis, 0);
  return ReplacedBy(node, MadeBefore(node, "Reshape", {x, target->output()}, x->elemType()));
}

onnx::Node* CastLikeToCast(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  const int32_t type = node->inputs()[1]->elemType();
  if (WhyNot why = CastLikeTypeWhyNot(type)) throw NoFormException(node, *why);
  onnx::Node* cast = MadeBefore(node, "Cast", {node->inputs()[0]}, type);
  cast->i_(onnx::kto, type);
  return ReplacedBy(node, cast);
}

onnx::Node* HardSwishAsItsBody(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  onnx::Value* x = node->inputs()[0];
  onnx::Node* sigmoid = MadeBefore(node, "HardSigmoid", {x}, x->elemType());
  sigmoid->f_(onnx::Symbol("alpha"), static_cast<double>(1.0f / 6.0f));  // the float the body's attribute holds
  sigmoid->f_(onnx::Symbol("beta"), 0.5);
  return ReplacedBy(node, MadeBefore(node, "Mul", {x, sigmoid->output()}, x->elemType()));
}

onnx::Node* MishAsItsBody(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  onnx::Value* x = node->inputs()[0];
  if (WhyNot why = MishTypeWhyNot(x->elemType())) throw NoFormException(node, *why);
  onnx::Node* softplus = MadeBefore(node, "Softplus", {x}, x->elemType());
  onnx::Node* tanh = MadeBefore(node, "Tanh", {softplus->output()}, x->elemType());
  return ReplacedBy(node, MadeBefore(node, "Mul", {x, tanh->output()}, x->elemType()));
}

onnx::Node* ResizeOptionalInputsSpelledOut(const std::shared_ptr<onnx::Graph>&, onnx::Node* node) {
  for (size_t index : {size_t{1}, size_t{2}}) {  // roi, scales
    if (HasInput(node, index)) continue;
    onnx::Value* empty = MadeConstant<float>(node, TensorProto::FLOAT, {});
    if (node->inputs().size() > index) {
      node->replaceInput(index, empty);
    } else {
      node->addInput(empty);
    }
  }
  return node;
}

}  // namespace onnx_legalize::opset_upgrade
