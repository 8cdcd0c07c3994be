// Every guard clause of the removed-op rules, one row each: a model that only that clause refuses, the code it is
// refused with, and the start of what the clause says after the node's label. docs/architecture.md promises a
// negative test for every guard clause; this table is that promise. Each row fails if its clause is removed: the
// model is then legalized, or refused by another clause with other words.
//
// The clauses the rules share (rule_support.h: the signature, the attribute readers, the float input types) have
// rows of their own, and each rule has rows for the clauses only it has. Clauses no model can reach through
// Legalize are not here: the reference kernels' checks of data that the planning checks already refused
// (ImageScaler's rank and channels, MVN's and Crop's rank, Upsample's scales), Upsample's reading of a `scales`
// attribute and of a `mode` that is no string (graph validation refuses such a node at opset 10 and later, by
// Upsample-10's schema, before any rule sees it; and an Upsample-1 without height_scale or width_scale, or with
// an attribute Upsample-1 does not have, by Upsample-1's), and LegacyPadding's negative end padding (the
// arithmetic never gives it). They stay as defenses.
#include <cmath>
#include <limits>
#include <ostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::ExpectRejected;
using ::onnx_legalize::testing::ParseModel;

// What the ONNX text syntax cannot write: applied to the parsed model.
using Edit = void (*)(onnx::ModelProto&);

struct Guard {
  const char* name;  // the test's name: the rule, then the clause
  const char* op;    // the refused node's op type; its only output is 'y' in the main graph
  const char* model;
  absl::StatusCode code;
  const char* says;  // how the message goes on after "<op> producing 'y' (graph main): "
  Edit edit = nullptr;
  const char* label = nullptr;  // the node's label when it is not "<op> producing 'y'"
};
// ctest's name for a row: its own, not the struct's bytes (pointers, which differ from build to build).
void PrintTo(const Guard& guard, std::ostream* os) { *os << guard.name; }

onnx::AttributeProto& AttributeOfY(onnx::ModelProto& model, const std::string& name) {
  for (onnx::NodeProto& node : *model.mutable_graph()->mutable_node()) {
    if (node.output_size() == 0 || node.output(0) != "y") continue;
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.name() == name) return attribute;
    }
  }
  ADD_FAILURE() << "no attribute " << name << " on the node producing y";
  static onnx::AttributeProto none;
  return none;
}

constexpr float kInfinity = std::numeric_limits<float>::infinity();

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
constexpr absl::StatusCode kPrecondition = absl::StatusCode::kFailedPrecondition;

// ---------------------------------------------------------------- the clauses every rule shares (rule_support.h)

const Guard kShared[] = {
    {"SignatureInputCount", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Scale(x, x) }
)",
     kInvalid, "has 2 inputs; Scale takes 1"},
    {"SignatureInputEmpty", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Scale(x) }
)",
     kInvalid, "input 0 is empty",
     [](onnx::ModelProto& model) { model.mutable_graph()->mutable_node(0)->set_input(0, ""); }},
    {"SignatureOutputUnnamed", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) {
  unnamed = Scale(x)
  y = Identity(x)
}
)",
     kInvalid, "has an output without a name",
     [](onnx::ModelProto& model) { model.mutable_graph()->mutable_node(0)->set_output(0, ""); }, "Scale (unnamed)"},
    {"SignatureOutputCount", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y, float[2] z) { y, z = Scale(x) }
)",
     kInvalid, "has 2 outputs; Scale has 1"},
    {"SignatureUnknownAttribute", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Scale<scale = 2.0, bias = 1.0>(x) }
)",
     kInvalid, "has attribute 'bias', which Scale never had (it takes scale)"},
    {"FloatAttributeRequired", "ScaledTanh", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = ScaledTanh<beta = 1.0>(x) }
)",
     kInvalid, "has no attribute 'alpha', which ScaledTanh requires"},
    {"FloatAttributeNotAFloat", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Scale<scale = 2>(x) }
)",
     kInvalid, "attribute 'scale' is not a float"},
    {"FloatAttributeNotFinite", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Scale<scale = 2.0>(x) }
)",
     kInvalid, "attribute 'scale' is inf",
     [](onnx::ModelProto& model) { AttributeOfY(model, "scale").set_f(kInfinity); }},
    {"FloatsAttributeRequired", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,2,2,2] x) => (float[1,2,2,2] y) { y = ImageScaler<scale = 2.0>(x) }
)",
     kInvalid, "has no attribute 'bias', which ImageScaler requires"},
    {"FloatsAttributeNotFloats", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,2,2,2] x) => (float[1,2,2,2] y) { y = ImageScaler<bias = [1, 2]>(x) }
)",
     kInvalid, "attribute 'bias' is not a list of floats"},
    {"FloatsAttributeNotFinite", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,2,2,2] x) => (float[1,2,2,2] y) { y = ImageScaler<bias = [1.0, 2.0]>(x) }
)",
     kInvalid, "attribute 'bias' holds -inf",
     [](onnx::ModelProto& model) { AttributeOfY(model, "bias").set_floats(1, -kInfinity); }},
    {"IntAttributeNotAnInt", "MeanVarianceNormalization", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,2,2] x) => (float[1,1,2,2] y) { y = MeanVarianceNormalization<across_channels = 1.0>(x) }
)",
     kInvalid, "attribute 'across_channels' is not an int"},
    {"IntsAttributeRequired", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = Crop<scale = [2, 2]>(x) }
)",
     kInvalid, "has no attribute 'border', which Crop requires"},
    {"IntsAttributeNotInts", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = Crop<border = [1.0, 1.0, 1.0, 1.0]>(x) }
)",
     kInvalid, "attribute 'border' is not a list of ints"},
    {"FloatInputOfAnotherType", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (int32[2] x) => (int32[2] y) { y = Scale<scale = 2.0>(x) }
)",
     kPrecondition, "input 'x' is int32; the removed ops computed float16 (in float), float and double"},
    {"FloatInputOfUnknownType", "Scale", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Scale<scale = 2.0>(x) }
)",
     kPrecondition, "the element type of input 'x' is not known",
     [](onnx::ModelProto& model) {
       model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(0);
     }},
};

// ---------------------------------------------------------------- the elementwise ops' own readings

const Guard kElementwise[] = {
    {"ImageScalerBiasEmpty", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,2,2,2] x) => (float[1,2,2,2] y) { y = ImageScaler<bias = [1.0]>(x) }
)",
     kInvalid, "bias is empty; it holds one value per channel",
     [](onnx::ModelProto& model) { AttributeOfY(model, "bias").clear_floats(); }},
    {"ImageScalerScaleRead", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,2,2,2] x) => (float[1,2,2,2] y) { y = ImageScaler<scale = "2", bias = [1.0, 2.0]>(x) }
)",
     kInvalid, "attribute 'scale' is not a float"},
    {"ImageScalerRank", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2,2,2] x) => (float[2,2,2] y) { y = ImageScaler<bias = [1.0, 2.0]>(x) }
)",
     kInvalid, "input 'x' has rank 3; ImageScaler takes NCHW data of rank 4"},
    {"ImageScalerChannels", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,3,2,2] x) => (float[1,3,2,2] y) { y = ImageScaler<bias = [1.0, 2.0]>(x) }
)",
     kInvalid, "bias has 2 values but input 'x' has 3 channels"},
    {"ImageScalerFloatInput", "ImageScaler", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (int64[1,2,2,2] x) => (int64[1,2,2,2] y) { y = ImageScaler<bias = [1.0, 2.0]>(x) }
)",
     kPrecondition, "input 'x' is int64"},
    {"AffineAlphaRead", "Affine", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Affine<alpha = 1>(x) }
)",
     kInvalid, "attribute 'alpha' is not a float"},
    {"AffineBetaRead", "Affine", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = Affine<beta = 1>(x) }
)",
     kInvalid, "attribute 'beta' is not a float"},
    {"AffineFloatInput", "Affine", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (int32[2] x) => (int32[2] y) { y = Affine(x) }
)",
     kPrecondition, "input 'x' is int32"},
    {"ScaledTanhBetaRequired", "ScaledTanh", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = ScaledTanh<alpha = 1.0>(x) }
)",
     kInvalid, "has no attribute 'beta', which ScaledTanh requires"},
    {"ParametricSoftplusAlphaRequired", "ParametricSoftplus", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = ParametricSoftplus<beta = 1.0>(x) }
)",
     kInvalid, "has no attribute 'alpha', which ParametricSoftplus requires"},
    {"ParametricSoftplusFloatInput", "ParametricSoftplus", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (int32[2] x) => (int32[2] y) { y = ParametricSoftplus<alpha = 1.0, beta = 1.0>(x) }
)",
     kPrecondition, "input 'x' is int32"},
    {"ThresholdedReluAlphaRead", "ThresholdedRelu", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2] x) => (float[2] y) { y = ThresholdedRelu<alpha = 1>(x) }
)",
     kInvalid, "attribute 'alpha' is not a float"},
    {"ThresholdedReluFloatInput", "ThresholdedRelu", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (int32[2] x) => (int32[2] y) { y = ThresholdedRelu(x) }
)",
     kPrecondition, "input 'x' is int32"},
    {"MvnAcrossChannels", "MeanVarianceNormalization", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,2,2] x) => (float[1,1,2,2] y) { y = MeanVarianceNormalization<across_channels = 2>(x) }
)",
     kInvalid, "across_channels is 2; it is 0 or 1"},
    {"MvnNormalizeVariance", "MeanVarianceNormalization", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,2,2] x) => (float[1,1,2,2] y) { y = MeanVarianceNormalization<normalize_variance = 3>(x) }
)",
     kInvalid, "normalize_variance is 3; it is 0 or 1"},
    {"MvnFloatInput", "MeanVarianceNormalization", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (int32[1,1,2,2] x) => (int32[1,1,2,2] y) { y = MeanVarianceNormalization(x) }
)",
     kPrecondition, "input 'x' is int32"},
    {"MvnRank", "MeanVarianceNormalization", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2,2] x) => (float[2,2] y) { y = MeanVarianceNormalization(x) }
)",
     kInvalid, "input 'x' has rank 2; MeanVarianceNormalization-1 takes NCHW data of rank 4"},
};

// ---------------------------------------------------------------- Crop

const Guard kCrop[] = {
    {"CropBorderCount", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = Crop<border = [1, 1, 1]>(x) }
)",
     kInvalid, "border has 3 values; Crop takes 4 (left, top, right, bottom)"},
    {"CropScaleCount", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = Crop<border = [1, 1, 1, 1], scale = [2]>(x) }
)",
     kInvalid, "scale has 1 values; Crop takes 2 (height, width)"},
    {"CropScaleRead", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = Crop<border = [1, 1, 1, 1], scale = [2.0, 2.0]>(x) }
)",
     kInvalid, "attribute 'scale' is not a list of ints"},
    {"CropBorderRange", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = Crop<border = [0, 0, -1, 0]>(x) }
)",
     kInvalid, "border holds -1; onnx-legalize takes borders of 0 to 1024 pixels"},
    {"CropScaleRange", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = Crop<border = [0, 0, 0, 0], scale = [2000, 1]>(x) }
)",
     kInvalid, "scale holds 2000; onnx-legalize takes windows of 0 to 1024 pixels"},
    {"CropElementType", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (string[1,1,4,4] x) => (string[1,1,?,?] y) { y = Crop<border = [1, 1, 1, 1]>(x) }
)",
     kInvalid, "input 'x' is string, which Crop never took"},
    {"CropRank", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[4,4] x) => (float[?,?] y) { y = Crop<border = [1, 1, 1, 1]>(x) }
)",
     kInvalid, "input 'x' has rank 2; Crop takes NCHW data of rank 4"},
    // Folded: the reference kernel refuses a constant image the borders do not fit, as ONNX Runtime did.
    {"CropFoldBordersExceedTheImage", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g () => (float[1,1,?,?] y) {
  x = Constant<value = float[1,1,2,2] {1.0, 2.0, 3.0, 4.0}>()
  y = Crop<border = [2, 0, 1, 0]>(x)
}
)",
     kInvalid, "borders [2, 0, 1, 0] exceed the 2x2 image"},
    {"CropFoldWindowLeavesTheImage", "Crop", R"(
<ir_version: 3, opset_import: ["" : 7]>
g () => (float[1,1,?,?] y) {
  x = Constant<value = float[1,1,2,2] {1.0, 2.0, 3.0, 4.0}>()
  y = Crop<border = [0, 0, 0, 0], scale = [3, 1]>(x)
}
)",
     kInvalid, "the 3x1 window at (0, 0) leaves the 2x2 image"},
};

// ---------------------------------------------------------------- the fills

const Guard kFills[] = {
    {"ConstantFillDtype", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (double[2] y) { y = ConstantFill<dtype = 11, shape = [2]>() }
)",
     kInvalid, "dtype is 11; ConstantFill makes float (1), int32 (6), int64 (7) or bool (9)"},
    {"ConstantFillValueFitsTheDtype", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (int32[2] y) { y = ConstantFill<dtype = 6, value = 3e9, shape = [2]>() }
)",
     kInvalid, "value 3e+09 does not fit dtype int32"},
    {"ConstantFillInputAsShape", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (int64[2] s) => (float y) { y = ConstantFill<input_as_shape = 2>(s) }
)",
     kInvalid, "input_as_shape is 2"},
    {"ConstantFillShape", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = ConstantFill<shape = [2, -1]>() }
)",
     kInvalid, "shape holds -1"},
    {"ConstantFillExtraShape", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = ConstantFill<shape = [2], extra_shape = [-2]>() }
)",
     kInvalid, "extra_shape holds -2"},
    {"ConstantFillInputAndShape", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[2] x) => (float y) { y = ConstantFill<shape = [2]>(x) }
)",
     kInvalid, "has both an input and a shape attribute; the old op takes one or the other"},
    {"ConstantFillInputAsShapeWithoutInput", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = ConstantFill<input_as_shape = 1>() }
)",
     kInvalid, "input_as_shape is 1 but there is no input"},
    {"ConstantFillDtypeRead", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = ConstantFill<dtype = 1.0, shape = [2]>() }
)",
     kInvalid, "attribute 'dtype' is not an int"},
    // Folded from a constant shape input: the reference kernel reads its values.
    {"ConstantFillFoldShapeRank", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 9]>
g () => (float y) {
  s = Constant<value = int64[1,2] {2, 2}>()
  y = ConstantFill<input_as_shape = 1>(s)
}
)",
     kInvalid, "the shape input has rank 2; it must be 1-D"},
    {"ConstantFillFoldShapeType", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 9]>
g () => (float y) {
  s = Constant<value = double[2] {2.0, 2.0}>()
  y = ConstantFill<input_as_shape = 1>(s)
}
)",
     kInvalid, "a shape input of type double is not supported"},
    {"ConstantFillFoldShapeValue", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 9]>
g () => (float y) {
  s = Constant<value = float[2] {2.0, 2.0}>()
  y = ConstantFill<input_as_shape = 1>(s)
}
)",
     kInvalid, "shape value inf is not a dim",
     [](onnx::ModelProto& model) {
       model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t()->set_float_data(1, kInfinity);
     }},
    {"ConstantFillFoldNegativeDim", "ConstantFill", R"(
<ir_version: 3, opset_import: ["" : 9]>
g () => (float y) {
  s = Constant<value = int64[2] {2, -3}>()
  y = ConstantFill<input_as_shape = 1>(s)
}
)",
     kInvalid, "the output would have dim -3"},
    {"GivenTensorFillValuesRequired", "GivenTensorFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = GivenTensorFill<shape = [2]>() }
)",
     kInvalid, "has no attribute 'values', which GivenTensorFill requires"},
    {"GivenTensorFillInputAsShape", "GivenTensorFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = GivenTensorFill<values = [1.0, 2.0], shape = [2], input_as_shape = 3>() }
)",
     kInvalid, "input_as_shape is 3"},
    {"GivenTensorFillShapeRead", "GivenTensorFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = GivenTensorFill<values = [1.0, 2.0], shape = [2.0]>() }
)",
     kInvalid, "attribute 'shape' is not a list of ints"},
    {"GivenTensorFillExtraShapeRead", "GivenTensorFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = GivenTensorFill<values = [1.0, 2.0], shape = [2], extra_shape = [1.0]>() }
)",
     kInvalid, "attribute 'extra_shape' is not a list of ints"},
    {"GivenTensorFillShapeAtRunTime", "GivenTensorFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g (float[N] x) => (float y) { y = GivenTensorFill<values = [1.0, 2.0]>(x) }
)",
     kPrecondition, "its shape comes from input 'x' at run time; GivenTensorFill is legalized only when its shape"},
    {"GivenTensorFillFoldValuesFillTheShape", "GivenTensorFill", R"(
<ir_version: 3, opset_import: ["" : 8]>
g () => (float y) { y = GivenTensorFill<values = [1.0, 2.0, 3.0], shape = [2, 2]>() }
)",
     kInvalid, "values holds 3 numbers but the shape [2, 2] has 4 elements"},
};

// ---------------------------------------------------------------- Upsample at opset 10

const Guard kUpsample[] = {
    {"UpsampleMode", "Upsample", R"(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,2,2] x, float[4] s) => (float[1,1,?,?] y) { y = Upsample<mode = "cubic">(x, s) }
)",
     kInvalid, "mode 'cubic' is none of Upsample's (nearest, linear)"},
    {"UpsampleScalesTwice", "Upsample", R"(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,2,2] x, float[4] s) => (float[1,1,?,?] y) { y = Upsample<scales = [1.0, 1.0, 2.0, 2.0]>(x, s) }
)",
     kInvalid, "has both a scales input and a scales attribute"},
    {"UpsampleScalesType", "Upsample", R"(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,2,2] x, int64[4] s) => (float[1,1,?,?] y) { y = Upsample(x, s) }
)",
     kInvalid, "scales 's' is int64, not float"},
    {"UpsampleScaleAtLeastOne", "Upsample", R"(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,2,2] x) => (float[1,1,?,?] y) {
  s = Constant<value = float[4] {1.0, 1.0, 0.5, 1.0}>()
  y = Upsample(x, s)
}
)",
     kInvalid, "scale 0.5 is not a finite value of at least 1, which Upsample requires"},
    {"UpsampleScalesForTheRank", "Upsample", R"(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1,1,2,2] x) => (float[1,1,?,?] y) {
  s = Constant<value = float[2] {2.0, 2.0}>()
  y = Upsample(x, s)
}
)",
     kInvalid, "2 scales for input 'x' of rank 4"},
    {"UpsampleLinearFloatInput", "Upsample", R"(
<ir_version: 5, opset_import: ["" : 10]>
g (int32[1,1,2,2] x, float[4] s) => (int32[1,1,?,?] y) { y = Upsample<mode = "linear">(x, s) }
)",
     kPrecondition, "input 'x' is int32; the removed ops computed"},
    {"UpsampleNearestCopiesItsType", "Upsample", R"(
<ir_version: 5, opset_import: ["" : 10]>
g (string[1,1,2,2] x, float[4] s) => (string[1,1,?,?] y) { y = Upsample(x, s) }
)",
     kInvalid, "input 'x' is string, which it cannot copy"},
};

// ---------------------------------------------------------------- Upsample-1, experimental at opsets 1-6

const Guard kUpsampleOne[] = {
    {"UpsampleOneMode", "Upsample", R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1,1,2,2] x) => (float[1,1,4,4] y) { y = Upsample<height_scale = 2.0, width_scale = 2.0, mode = "linear">(x) }
)",
     kInvalid, "mode 'linear' is none of Upsample-1's (nearest, bilinear)"},
    {"UpsampleOneRankFour", "Upsample", R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,2] x) => (float[4,4] y) { y = Upsample<height_scale = 2.0, width_scale = 2.0>(x) }
)",
     kInvalid, "input 'x' has rank 2; Upsample-1 takes an NCHW input of rank 4"},
    {"UpsampleOneFloatInput", "Upsample", R"(
<ir_version: 3, opset_import: ["" : 6]>
g (int32[1,1,2,2] x) => (int32[1,1,4,4] y) { y = Upsample<height_scale = 2.0, width_scale = 2.0>(x) }
)",
     kInvalid, "input 'x' is int32; Upsample-1 takes float16, float or double"},
    {"UpsampleOneScaleAtLeastOne", "Upsample", R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1,1,2,2] x) => (float[1,1,1,2] y) { y = Upsample<height_scale = 0.5, width_scale = 1.0>(x) }
)",
     kInvalid, "scale 0.5 is not a finite value of at least 1, which Upsample requires"},
};

// ---------------------------------------------------------------- FC and LegacyPadding, ONNX's first era

const Guard kFirstEra[] = {
    {"FcAxisRead", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[2,3] x, float[2,3] w, float[2] b) => (float[2,2] y) { y = FC<axis = 1.0>(x, w, b) }
)",
     kInvalid, "attribute 'axis' is not an int"},
    {"FcFloatInputs", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[2,3] x, int32[2,3] w, float[2] b) => (float[2,2] y) { y = FC(x, w, b) }
)",
     kPrecondition, "input 'w' is int32"},
    {"FcAxisInRange", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[2,3] x, float[2,3] w, float[2] b) => (float[2,2] y) { y = FC<axis = 3>(x, w, b) }
)",
     kInvalid, "axis 3 is outside [-2, 2] for an input of rank 2"},
    {"FcAxisWInRange", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[2,3] x, float[2,3] w, float[2] b) => (float[2,2] y) { y = FC<axis_w = -3>(x, w, b) }
)",
     kInvalid, "axis_w -3 is outside [-2, 2] for an input of rank 2"},
    {"FcAxisWithInputOfUnknownRank", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[2,3] x, float[2,3] w, float[2] b) => (float y) { y = FC<axis = 2>(x, w, b) }
)",
     kPrecondition, "axis 2 with input 'x' of unknown rank",
     [](onnx::ModelProto& model) {
       model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
     }},
    {"FcOutputDimsKnown", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[N,2,3] x, float[2,3] w, float[2] b) => (float y) { y = FC<axis = 2>(x, w, b) }
)",
     kPrecondition, "axis 2 and the dims of input 'x' before it or of 'w' before axis_w are not all known"},
    // Folded from constants: the reference kernel multiplies what it is given, when the shapes agree.
    {"FcFoldColumns", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g () => (float y) {
  x = Constant<value = float[1,3] {1.0, 2.0, 3.0}>()
  w = Constant<value = float[2,2] {1.0, 2.0, 3.0, 4.0}>()
  b = Constant<value = float[2] {0.0, 0.0}>()
  y = FC(x, w, b)
}
)",
     kInvalid, "X coerced at axis 1 has 3 columns, W coerced at axis_w 1 has 2"},
    {"FcFoldBias", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g () => (float y) {
  x = Constant<value = float[1,2] {1.0, 2.0}>()
  w = Constant<value = float[2,2] {1.0, 2.0, 3.0, 4.0}>()
  b = Constant<value = float[3] {0.0, 0.0, 0.0}>()
  y = FC(x, w, b)
}
)",
     kInvalid, "b has 3 elements; W has 2 rows"},
    {"FcFoldElementTypes", "FC", R"(
<ir_version: 3, opset_import: ["" : 9]>
g () => (float y) {
  x = Constant<value = float[1,2] {1.0, 2.0}>()
  w = Constant<value = double[2,2] {1.0, 2.0, 3.0, 4.0}>()
  b = Constant<value = float[2] {0.0, 0.0}>()
  y = FC(x, w, b)
}
)",
     kInvalid, "inputs of different element types"},
    {"LegacyPaddingKernelRequired", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = com.microsoft.LegacyPadding<strides = [2, 2]>(x) }
)",
     kInvalid, "has no attribute 'kernel_shape', which LegacyPadding requires"},
    {"LegacyPaddingTwoValuesEach", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = com.microsoft.LegacyPadding<kernel_shape = [3, 3, 3]>(x) }
)",
     kInvalid, "kernel_shape, strides and pads must each hold 2 values (height, width)"},
    {"LegacyPaddingValueRead", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = com.microsoft.LegacyPadding<kernel_shape = [3, 3], value = 0>(x) }
)",
     kInvalid, "attribute 'value' is not a float"},
    {"LegacyPaddingFloatInput", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (int32[1,1,4,4] x) => (int32[1,1,?,?] y) { y = com.microsoft.LegacyPadding<kernel_shape = [3, 3]>(x) }
)",
     kPrecondition, "input 'x' is int32"},
    {"LegacyPaddingRank", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,4,4] x) => (float[1,?,?] y) { y = com.microsoft.LegacyPadding<kernel_shape = [3, 3]>(x) }
)",
     kInvalid, "input 'x' has rank 3; it pads NCHW data"},
    {"LegacyPaddingHeightAndWidthKnown", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,1,H,4] x) => (float[1,1,?,?] y) { y = com.microsoft.LegacyPadding<kernel_shape = [3, 3]>(x) }
)",
     kPrecondition, "the height and width of input 'x' are not known"},
    {"LegacyPaddingPositiveKernelAndStride", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,1,4,4] x) => (float[1,1,?,?] y) { y = com.microsoft.LegacyPadding<kernel_shape = [3, 3], strides = [0, 1]>(x) }
)",
     kInvalid, "kernel 3, stride 0, pad 0: kernels and strides are positive, pads not negative"},
    {"LegacyPaddingWindowFits", "LegacyPadding", R"(
<ir_version: 3, opset_import: ["" : 1, "com.microsoft" : 1]>
g (float[1,1,2,4] x) => (float[1,1,?,?] y) { y = com.microsoft.LegacyPadding<kernel_shape = [5, 3]>(x) }
)",
     kInvalid, "the 5-pixel window does not fit the 2-pixel axis with 0 pixels of padding"},
};

class GuardClauseTest : public ::testing::TestWithParam<Guard> {};

TEST_P(GuardClauseTest, RefusesWithItsOwnMessage) {
  const Guard& guard = GetParam();
  onnx::ModelProto model = ParseModel(guard.model);
  if (guard.edit != nullptr) guard.edit(model);
  const std::string label = guard.label != nullptr ? guard.label : absl::StrCat(guard.op, " producing 'y'");
  ExpectRejected(model, guard.code, absl::StrCat(label, " (graph main): ", guard.says));
}

std::string GuardName(const ::testing::TestParamInfo<Guard>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Shared, GuardClauseTest, ::testing::ValuesIn(kShared), GuardName);
INSTANTIATE_TEST_SUITE_P(Elementwise, GuardClauseTest, ::testing::ValuesIn(kElementwise), GuardName);
INSTANTIATE_TEST_SUITE_P(Crop, GuardClauseTest, ::testing::ValuesIn(kCrop), GuardName);
INSTANTIATE_TEST_SUITE_P(Fills, GuardClauseTest, ::testing::ValuesIn(kFills), GuardName);
INSTANTIATE_TEST_SUITE_P(Upsample, GuardClauseTest, ::testing::ValuesIn(kUpsample), GuardName);
INSTANTIATE_TEST_SUITE_P(UpsampleOne, GuardClauseTest, ::testing::ValuesIn(kUpsampleOne), GuardName);
INSTANTIATE_TEST_SUITE_P(FirstEra, GuardClauseTest, ::testing::ValuesIn(kFirstEra), GuardName);

}  // namespace
}  // namespace onnx_legalize
