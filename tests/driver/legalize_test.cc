// Legalize(): what it does to each kind of DynamicSlice, checked by running the model before and after.
#include "onnx_legalize/legalize.h"

#include <optional>

#include "driver/legalize_internal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_files.h"
#include "test_models.h"
#include "verify/dynamic_slice_verify.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::CountOps;
using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::ExpectRejected;
using ::onnx_legalize::testing::ExpectSameOutputs;
using ::onnx_legalize::testing::Iota;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::MakeInitializerConstant;
using ::onnx_legalize::testing::NameNodesAsOutputNode;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::Serialize;
using ::testing::HasSubstr;

// DynamicSlice's documentation, example 1, with every input a Constant node.
constexpr char kDocExample1[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
doc_example (float[1] unused) => (float[1,3] y) {
  data = Constant <value = float[2,4] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  starts = Constant <value = int64[2] {1, 0}> ()
  ends = Constant <value = int64[2] {2, 3}> ()
  axes = Constant <value = int64[2] {0, 1}> ()
  y = DynamicSlice(data, starts, ends, axes)
}
)";

TEST(LegalizeTest, FoldsWhenAllInputsAreConstant) {
  onnx::ModelProto model = ParseModel(kDocExample1);
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);

  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  EXPECT_EQ(CountOps(legalized, "Constant"), 0) << "constants only the fold read are removed";
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  EXPECT_EQ(legalized.graph().initializer(0).name(), "y");
  EXPECT_EQ(DefaultOpset(legalized), 9) << "a model whose DynamicSlices all fold keeps its opset";
  EXPECT_EQ(legalized.ir_version(), 4);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  EXPECT_THAT(report.nodes[0].verification, HasSubstr("identical"));

  Tensor unused = Iota({1});
  ExpectSameOutputs(model, legalized, {{"unused", &unused}});
}

// The opset move runs before folds are written, and onnx's Gemm 6->7 adapter asserts on a B of unknown dims
// (a DynamicSlice's output, to the converter): the fold's type is declared to the move, and only to it.
TEST(LegalizeTest, MovesAGemmWhoseWeightIsAFoldAndLeavesNoDeclarationBehind) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 6]>
linear (float[2,4] x, float[5,4] w_full = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
        float[3] b = {1, 2, 3}) => (float[2,3] y) {
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {4}> ()
  w = DynamicSlice (w_full, s, e)
  y = Gemm <broadcast = 1, transB = 1> (x, w, b)
}
)");
  for (int64_t target : {10, 13, 17}) {
    Options options;
    options.target_opset = target;
    Report report;
    const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
    EXPECT_EQ(DefaultOpset(legalized), target);
    EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
    EXPECT_EQ(legalized.graph().value_info_size(), 0);
    ASSERT_EQ(report.nodes.size(), 1u);
    EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  }
}

TEST(LegalizeTest, FoldsDocumentationExample2WithOmittedAxes) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
doc_example (float[1] unused) => (float[1,3] y) {
  data = Constant <value = float[2,4] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  starts = Constant <value = int64[2] {0, 1}> ()
  ends = Constant <value = int64[2] {-1, 1000}> ()
  y = DynamicSlice(data, starts, ends)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  absl::StatusOr<Tensor> y = TensorFromProto(legalized.graph().initializer(0));
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->dims(), (std::vector<int64_t>{1, 3}));
  Tensor unused = Iota({1});
  ExpectSameOutputs(model, legalized, {{"unused", &unused}});
}

TEST(LegalizeTest, RewritesDynamicDataToSlice10) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
rewrite (float[4,6] x) => (float[2,3] y) {
  starts = Constant <value = int64[2] {1, 2}> ()
  ends = Constant <value = int64[2] {3, 5}> ()
  axes = Constant <value = int64[2] {0, 1}> ()
  y = DynamicSlice(x, starts, ends, axes)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  EXPECT_EQ(CountOps(legalized, "Slice"), 1);
  EXPECT_EQ(DefaultOpset(legalized), 10);
  EXPECT_GE(legalized.ir_version(), 5) << "IR 5 is the first that may import opset 10";
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kRewritten);
  EXPECT_EQ(report.nodes[0].slice_version, 10);
  EXPECT_EQ(report.opset_before, 9);
  EXPECT_EQ(report.opset_after, 10);
  Tensor x = Iota({4, 6});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
}

// PyTorch's opset-9 exporter: x[:, a:n] with n = x.size(1) computed at run time, in an IR 3 model whose
// initializers are all listed as graph inputs.
constexpr char kPyTorchDynamicEnds[] = R"(
<ir_version: 3, opset_import: ["" : 9]>
torch_jit_export (float[3,10] x, int64[1] starts = {2}, int64[1] axes = {1}) => (float[3,8] y) {
  shape = Shape(x)
  index = Constant <value = int64 {1}> ()
  n = Gather(shape, index)
  ends = Unsqueeze <axes = [0]> (n)
  sliced = DynamicSlice(x, starts, ends, axes)
  y = Relu(sliced)
}
)";

TEST(LegalizeTest, RewritesPyTorchShapeGatherUnsqueezePattern) {
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  NameNodesAsOutputNode(model);
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  EXPECT_EQ(CountOps(legalized, "Slice"), 1);
  EXPECT_EQ(DefaultOpset(legalized), 10);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].node_name, "sliced_node");
  EXPECT_EQ(report.nodes[0].graph_path, "main");
  Tensor x = Iota({3, 10});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
}

TEST(LegalizeTest, RewritesOnnxTensorflowThreeInputInt32Form) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
tf (float[4,6,8] x, int32[3] begin, int32[3] end) => (float[?,?,?] y) {
  y = DynamicSlice(x, begin, end)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  ASSERT_EQ(CountOps(legalized, "Slice"), 1);
  EXPECT_EQ(legalized.graph().node(0).input_size(), 3) << "omitted axes stay omitted";
  Tensor x = Iota({4, 6, 8});
  Tensor begin = Tensor::FromInt32s({1, -5, 0});
  Tensor end = Tensor::FromInt32s({3, 2147483647, -2});
  ExpectSameOutputs(model, legalized, {{"x", &x}, {"begin", &begin}, {"end", &end}});
}

// onnxmltools' CoreML Crop: constant indices, written into a model whose opset is already 11.
TEST(LegalizeTest, RewritesOnnxmltoolsCropWithoutConvertingTheModel) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 6, opset_import: ["" : 11]>
crop (float[1,3,8,8] image) => (float[1,3,6,5] cropped) {
  axes = Constant <value = int64[2] {2, 3}> ()
  starts = Constant <value = int64[2] {2, 1}> ()
  ends = Constant <value = int64[2] {9223372036854775807, -2}> ()
  cropped = DynamicSlice(image, starts, ends, axes)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 11);
  EXPECT_EQ(legalized.ir_version(), 6);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].slice_version, 11);
  Tensor image = Iota({1, 3, 8, 8});
  ExpectSameOutputs(model, legalized, {{"image", &image}});
}

TEST(LegalizeTest, TreatsIr3InitializersAsConstantsAndKeepsThemListedAsInputs) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 8]>
ir3 (float[1] unused, float[4,4] w = {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16}, int64[1] s = {1}, int64[1] e = {3}) => (float[2,4] y) {
  y = DynamicSlice(w, s, e)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  EXPECT_EQ(legalized.graph().initializer(0).name(), "y");
  // IR 3: every initializer is a graph input; the unused w, s, e are gone from both lists.
  std::vector<std::string> inputs;
  for (const auto& input : legalized.graph().input()) inputs.push_back(input.name());
  EXPECT_THAT(inputs, ::testing::ElementsAre("unused", "y"));
  EXPECT_EQ(DefaultOpset(legalized), 8);
  EXPECT_EQ(legalized.ir_version(), 3);
}

TEST(LegalizeTest, KeepsOverridableInitializerDynamic) {
  // IR 4: an initializer also listed as an input is a default the caller may override.
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
overridable (float[2,4] w = {1,2,3,4,5,6,7,8}, int64[1] s = {1}, int64[1] e = {3}) => (float[2,2] y) {
  axes = Constant <value = int64[1] {1}> ()
  y = DynamicSlice(w, s, e, axes)
}
)");
  MakeInitializerConstant(model, "s");
  MakeInitializerConstant(model, "e");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kRewritten);
  Tensor w = Iota({2, 4});
  ExpectSameOutputs(model, legalized, {{"w", &w}});
}

TEST(LegalizeTest, FoldsChainsCompletely) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
chain (float[1] unused) => (float[1,2] y) {
  data = Constant <value = float[3,4] {1,2,3,4,5,6,7,8,9,10,11,12}> ()
  s1 = Constant <value = int64[1] {1}> ()
  e1 = Constant <value = int64[1] {3}> ()
  first = DynamicSlice(data, s1, e1)
  s2 = Constant <value = int64[2] {1, 1}> ()
  e2 = Constant <value = int64[2] {2, 3}> ()
  y = DynamicSlice(first, s2, e2)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(legalized.graph().node_size(), 0);
  ASSERT_EQ(legalized.graph().initializer_size(), 1) << "the chain's intermediate is removed too";
  EXPECT_EQ(legalized.graph().initializer(0).name(), "y");
  Tensor unused = Iota({1});
  ExpectSameOutputs(model, legalized, {{"unused", &unused}});
}

TEST(LegalizeTest, NormalizesNegativeAxesWhenTheRankIsKnown) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
negative (float[3,4] x) => (float[3,2] y) {
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {3}> ()
  axes = Constant <value = int64[1] {-1}> ()
  y = DynamicSlice(x, s, e, axes)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(DefaultOpset(legalized), 10) << "normalized axes need no opset 11";
  EXPECT_EQ(CountOps(legalized, "Constant"), 2) << "the negative axes constant is no longer read";
  Tensor x = Iota({3, 4});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
}

TEST(LegalizeTest, TargetsOpset11ForNegativeAxesOfUnknownRank) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
negative (float[12] flat, int64[r] shape) => (float[?,?] y) {
  x = Reshape(flat, shape)
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {3}> ()
  axes = Constant <value = int64[1] {-1}> ()
  y = DynamicSlice(x, s, e, axes)
}
)");
  // x's rank is the length of a shape given at run time: unknown.
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 11);
  Tensor flat = Iota({12});
  Tensor shape = Tensor::FromInt64s({3, 4});
  ExpectSameOutputs(model, legalized, {{"flat", &flat}, {"shape", &shape}});
}

// The result is held to onnx's checker and strict shape inference whether or not the input passes the checker:
// exit 0 means they accept the result. The report says so, and when the input itself fails the checker, why.
TEST(LegalizeTest, HoldsTheResultToOnnxsCheckerAndSaysWhenTheInputFailedIt) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
checked (float[3,4] x, int64[1] s, int64[1] e) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)");
  Report report;
  LegalizedCopy(model, {}, &report);
  EXPECT_EQ(report.onnx_check, "onnx's checker and strict shape inference accept the result");

  // A graph output declared int32 that the Slice makes float: no opset changes that.
  model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT32);
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition,
                 "would not pass onnx's checker and strict shape inference");
}

// A model that onnx's checker rejects for what a later IR version or opset fixes is moved there (the lowest that
// does); what none fixes is refused. PyTorch 0.3 wrote IR 2 with an opset_import, which IR 3 allows; an int64
// Constant at opset 6 is legal from Constant-9; IR 3 initializers missing from graph.input are legal at IR 4.
TEST(LegalizeTest, FixesWhatALaterIrVersionOrOpsetFixesInAModelWithNothingToLegalize) {
  onnx::ModelProto ir2 = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3] x) => (float[2,3] y) { y = Relu(x) }
)");
  ir2.set_ir_version(2);
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(ir2, {}, &report);
  EXPECT_EQ(legalized.ir_version(), 3);
  EXPECT_EQ(DefaultOpset(legalized), 6);
  EXPECT_TRUE(report.changed);

  const onnx::ModelProto int64_constant = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 6]>
g (float[2,3] x) => (float[2,3] y, int64[2] shape) {
  y = Relu(x)
  shape = Constant<value = int64[2] {2, 3}>()
}
)");
  legalized = LegalizedCopy(int64_constant, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 9);
  ASSERT_EQ(report.targets_passed_over.size(), 1u);
  EXPECT_EQ(report.targets_passed_over[0].opset, 6);

  // WinMLTools 0.1 left IR 3 initializers out of graph.input, which IR 3 requires and IR 4 no longer does.
  onnx::ModelProto unlisted = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,3,2,2] x) => (float[1,3,2,2] y) {
  scaled = ImageScaler<scale = 2.0, bias = [0.0, 1.0, 2.0]>(x)
  y = Add(scaled, w)
}
)");
  onnx::TensorProto& w = *unlisted.mutable_graph()->add_initializer();
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::FLOAT);
  w.add_dims(1);
  w.add_float_data(0.5f);
  legalized = LegalizedCopy(unlisted, {}, &report);
  EXPECT_EQ(legalized.ir_version(), 4);
  EXPECT_EQ(DefaultOpset(legalized), 7);
  EXPECT_EQ(legalized.graph().input_size(), 1) << "the initializer is not made an input";

  onnx::ModelProto hopeless = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2,3] x) => (float[2,3] y) { y = Relu<alpha = 0.5>(x) }
)");
  ExpectRejected(hopeless, absl::StatusCode::kFailedPrecondition, "Unrecognized attribute: alpha for operator Relu");
}

TEST(LegalizeTest, TargetsOpset11ForAxesComputedAtRunTime) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
dynamic_axes (float[3,4] x, int64[1] s, int64[1] e, int64[1] a) => (float[?,?] y) {
  y = DynamicSlice(x, s, e, a)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(DefaultOpset(legalized), 11);
  Tensor x = Iota({3, 4});
  Tensor s = Tensor::FromInt64s({-3});
  Tensor e = Tensor::FromInt64s({100});
  Tensor a = Tensor::FromInt64s({-2});
  ExpectSameOutputs(model, legalized, {{"x", &x}, {"s", &s}, {"e", &e}, {"a", &a}});
}

TEST(LegalizeTest, RewritesInsteadOfFoldingPastMaxFoldBytes) {
  onnx::ModelProto model = ParseModel(kDocExample1);
  Options options;
  options.max_fold_bytes = 8;  // the result is 3 floats, 12 bytes
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kRewritten);
  EXPECT_THAT(report.nodes[0].detail, HasSubstr("max_fold_bytes"));
  Tensor unused = Iota({1});
  ExpectSameOutputs(model, legalized, {{"unused", &unused}});
}

TEST(LegalizeTest, RewritesTheFoldsPastMaxTotalFoldBytes) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
two_folds (float[1] unused) => (float[1,3] y1, float[1,3] y2) {
  data = Constant <value = float[2,4] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  starts = Constant <value = int64[2] {1, 0}> ()
  ends = Constant <value = int64[2] {2, 3}> ()
  y1 = DynamicSlice(data, starts, ends)
  y2 = DynamicSlice(data, starts, ends)
}
)");
  Options options;
  options.max_total_fold_bytes = 16;  // each result is 12 bytes: one fits, two do not
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  ASSERT_EQ(report.nodes.size(), 2u);
  EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  EXPECT_EQ(report.nodes[1].action, Action::kRewritten);
  EXPECT_THAT(report.nodes[1].detail, HasSubstr("max_total_fold_bytes (16)"));
  Tensor unused = Iota({1});
  ExpectSameOutputs(model, legalized, {{"unused", &unused}});
}

TEST(LegalizeTest, ConvertsTheRestOfTheModelToTheRequestedOpset) {
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  Options options;
  options.target_opset = 13;
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(DefaultOpset(legalized), 13);
  EXPECT_EQ(report.nodes[0].slice_version, 13);
  for (const auto& node : legalized.graph().node()) {
    if (node.op_type() == "Unsqueeze") {
      EXPECT_EQ(node.attribute_size(), 0) << "Unsqueeze-13 takes axes as an input";
      EXPECT_EQ(node.input_size(), 2);
    }
  }
  Tensor x = Iota({3, 10});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
}

// A target below the model's own opset moves it down (tests/driver/legalize_down_test.cc), the DynamicSlice
// rewritten as at any target from 10.
TEST(LegalizeTest, MovesDownToATargetBelowTheModelsOpset) {
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  model.mutable_opset_import(0)->set_version(12);
  Options options;
  options.target_opset = 11;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(DefaultOpset(legalized), 11);
  EXPECT_EQ(report.opset_before, 12);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
}

TEST(LegalizeTest, RejectsATargetThatCannotExpressTheRewrite) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
dynamic_axes (float[3,4] x, int64[1] s, int64[1] e, int64[1] a) => (float[?,?] y) {
  y = DynamicSlice(x, s, e, a)
}
)");
  Options options;
  options.target_opset = 10;
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "needs opset 11", options);
}

TEST(LegalizeTest, KeepOpsetWritesSlice1Attributes) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
keep (float[4,6] x) => (float[2,3] y) {
  starts = Constant <value = int64[2] {1, 2}> ()
  ends = Constant <value = int64[2] {3, 5}> ()
  axes = Constant <value = int64[2] {0, -1}> ()
  y = DynamicSlice(x, starts, ends, axes)
}
)");
  Options options;
  options.keep_opset = true;
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(DefaultOpset(legalized), 9);
  EXPECT_EQ(report.nodes[0].slice_version, 1);
  ASSERT_EQ(legalized.graph().node_size(), 1) << "index constants only Slice-1's attributes need are gone";
  const onnx::NodeProto& slice = legalized.graph().node(0);
  EXPECT_EQ(slice.op_type(), "Slice");
  EXPECT_EQ(slice.input_size(), 1);
  ASSERT_EQ(slice.attribute_size(), 3);
  EXPECT_THAT(slice.attribute(2).ints(), ::testing::ElementsAre(0, 1)) << "axes normalized for Slice-1";
  Tensor x = Iota({4, 6});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
}

TEST(LegalizeTest, KeepOpsetRejectsIndicesComputedAtRunTime) {
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  Options options;
  options.keep_opset = true;
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "ends 'ends' is computed at run time", options);
}

TEST(LegalizeTest, LeavesAModelWithoutDynamicSliceUnchanged) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
clean (float[2] x) => (float[2] y) { y = Relu(x) }
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_FALSE(report.changed);
  EXPECT_TRUE(report.nodes.empty());
  EXPECT_EQ(Serialize(legalized), Serialize(model));
}

// A model of ai.onnx.ml alone (scikit-learn's exporters write them) imports no default-domain opset: it holds no
// removed op, --check finds nothing in it, and legalizing leaves it as it is, whatever the target.
TEST(LegalizeTest, LeavesAModelOfAnotherDomainAloneUnchanged) {
  const onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["ai.onnx.ml" : 3]>
g (float[1,2] x) => (float[1,2] y) {
  y = ai.onnx.ml.Scaler<offset = [1.0, 2.0], scale = [0.5, 0.25]>(x)
}
)ONNX");
  for (std::optional<int64_t> target : {std::optional<int64_t>(), std::optional<int64_t>(13)}) {
    onnx::ModelProto legalized = model;
    Options options;
    options.target_opset = target;
    const absl::StatusOr<Report> report = Legalize(legalized, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_FALSE(report->changed);
    EXPECT_TRUE(report->nodes.empty());
    EXPECT_EQ(Serialize(legalized), Serialize(model));
  }
}

TEST(LegalizeTest, IsIdempotent) {
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  onnx::ModelProto once = LegalizedCopy(model);
  Report report;
  onnx::ModelProto twice = LegalizedCopy(once, {}, &report);
  EXPECT_FALSE(report.changed);
  EXPECT_EQ(Serialize(twice), Serialize(once));
}

TEST(LegalizeTest, IsDeterministic) {
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  EXPECT_EQ(Serialize(LegalizedCopy(model)), Serialize(LegalizedCopy(model)));
}

TEST(LegalizeTest, PreservesWhatItDoesNotConcern) {
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  NameNodesAsOutputNode(model);
  model.set_doc_string("a legacy model");
  model.set_producer_name("pytorch");
  model.set_producer_version("1.0");
  auto* prop = model.add_metadata_props();
  prop->set_key("author");
  prop->set_value("someone");
  model.mutable_graph()->set_doc_string("graph doc");
  model.mutable_graph()->mutable_node(0)->set_doc_string("shape of x");
  onnx::ValueInfoProto* info = model.mutable_graph()->add_value_info();
  info->set_name("shape");
  info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);

  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(legalized.doc_string(), "a legacy model");
  EXPECT_EQ(legalized.producer_name(), "pytorch");
  EXPECT_EQ(legalized.producer_version(), "1.0");
  ASSERT_EQ(legalized.metadata_props_size(), 1);
  EXPECT_EQ(legalized.metadata_props(0).value(), "someone");
  EXPECT_EQ(legalized.graph().doc_string(), "graph doc");
  EXPECT_EQ(legalized.graph().name(), "torch_jit_export");
  EXPECT_EQ(legalized.graph().node(0).doc_string(), "shape of x");
  std::vector<std::string> names;
  for (const auto& node : legalized.graph().node()) names.push_back(node.name());
  EXPECT_THAT(names,
              ::testing::ElementsAre("shape_node", "index_node", "n_node", "ends_node", "sliced_node", "y_node"));
  bool kept_value_info = false;
  for (const auto& value : legalized.graph().value_info()) kept_value_info |= value.name() == "shape";
  EXPECT_TRUE(kept_value_info);
}

TEST(LegalizeTest, AcceptsTheAiOnnxSpellingOfTheDefaultDomain) {
  onnx::ModelProto model = ParseModel(kDocExample1);
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() == "DynamicSlice") node.set_domain("ai.onnx");
  }
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
}

TEST(LegalizeTest, SpellsTheDefaultDomainAsEmptyInAModelItChanges) {
  // onnx's checker accepts "ai.onnx" only when the model imports an opset under that name.
  onnx::ModelProto model = ParseModel(kPyTorchDynamicEnds);
  for (auto& node : *model.mutable_graph()->mutable_node()) node.set_domain("ai.onnx");
  onnx::ModelProto legalized = LegalizedCopy(model);
  for (const auto& node : legalized.graph().node()) EXPECT_EQ(node.domain(), "") << node.op_type();
  Tensor x = Iota({3, 10});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
}

TEST(LegalizeTest, FoldsEveryElementType) {
  const std::vector<std::pair<const char*, const char*>> kTypes = {
      {"float", "1.5, -2, 3, 4"}, {"double", "1.5, -2, 3, 4"}, {"int8", "1, -2, 3, 4"},
      {"int16", "1, -2, 3, 4"},   {"int32", "1, -2, 3, 4"},    {"int64", "1, -2, 3, 4"},
      {"uint8", "1, 2, 3, 4"},    {"uint16", "1, 2, 3, 4"},    {"uint32", "1, 2, 3, 4"},
      {"uint64", "1, 2, 3, 4"},   {"bool", "1, 0, 1, 1"},      {"string", "\"a\", \"bc\", \"\", \"d\""}};
  for (const auto& [type, values] : kTypes) {
    SCOPED_TRACE(type);
    std::string text = std::string(R"(
<ir_version: 4, opset_import: ["" : 9]>
typed (float[1] unused) => ()") +
                       type + R"([2,1] y) {
  data = Constant <value = )" +
                       type + "[2,2] {" + values + R"(}> ()
  s = Constant <value = int32[1] {1}> ()
  e = Constant <value = int32[1] {2}> ()
  a = Constant <value = int32[1] {1}> ()
  sliced = DynamicSlice(data, s, e, a)
  y = Identity(sliced)
}
)";
    onnx::ModelProto model = ParseModel(text.c_str());
    onnx::ModelProto legalized = LegalizedCopy(model);
    EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
    Tensor unused = Iota({1});
    ExpectSameOutputs(model, legalized, {{"unused", &unused}});
  }
}

// --- Bad inputs: each is an error naming the node and the value, and the model stays as it was.

TEST(LegalizeTest, RejectsTooFewInputs) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int64[1] s) => (float[?] y) { y = DynamicSlice(x, s) }
)"),
                 absl::StatusCode::kInvalidArgument, "has 2 inputs; DynamicSlice takes 3 or 4");
}

TEST(LegalizeTest, RejectsTooManyInputs) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int64[1] s) => (float[?] y) { y = DynamicSlice(x, s, s, s, s) }
)"),
                 absl::StatusCode::kInvalidArgument, "has 5 inputs");
}

TEST(LegalizeTest, RejectsSeveralOutputs) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int64[1] s) => (float[?] y) { y, z = DynamicSlice(x, s, s) }
)"),
                 absl::StatusCode::kInvalidArgument, "has 2 outputs");
}

TEST(LegalizeTest, RejectsAttributes) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int64[1] s) => (float[?] y) { y = DynamicSlice <axis = 0> (x, s, s) }
)"),
                 absl::StatusCode::kInvalidArgument, "has attribute 'axis'");
}

TEST(LegalizeTest, RejectsFloatIndices) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, float[1] s, int64[1] e) => (float[?] y) { y = DynamicSlice(x, s, e) }
)"),
                 absl::StatusCode::kInvalidArgument, "starts 's' is float");
}

TEST(LegalizeTest, RejectsMixedIndexTypes) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int32[1] s, int64[1] e) => (float[?] y) { y = DynamicSlice(x, s, e) }
)"),
                 absl::StatusCode::kInvalidArgument, "index inputs mix int32 and int64");
}

TEST(LegalizeTest, RejectsIndicesThatAreNot1D) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int64[1,1] s, int64[1] e) => (float[?] y) { y = DynamicSlice(x, s, e) }
)"),
                 absl::StatusCode::kInvalidArgument, "has rank 2; index inputs are 1-D");
}

TEST(LegalizeTest, RejectsIndicesOfDifferentLengths) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3,3] x, int64[2] s, int64[1] e) => (float[?,?] y) { y = DynamicSlice(x, s, e) }
)"),
                 absl::StatusCode::kInvalidArgument, "ends has 1 values but starts has 2");
}

TEST(LegalizeTest, RejectsDuplicateAxes) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3,3,3] x, int64[2] s, int64[2] e) => (float[?,?,?] y) {
  a = Constant <value = int64[2] {1, -2}> ()
  y = DynamicSlice(x, s, e, a)
}
)"),
                 absl::StatusCode::kInvalidArgument, "axes name axis -2 twice");
}

TEST(LegalizeTest, RejectsAxesOutOfRange) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3,3] x, int64[1] s, int64[1] e) => (float[?,?] y) {
  a = Constant <value = int64[1] {2}> ()
  y = DynamicSlice(x, s, e, a)
}
)"),
                 absl::StatusCode::kInvalidArgument, "axis 2 is outside [-2, 1]");
}

TEST(LegalizeTest, RejectsScalarData) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float x, int64[1] s, int64[1] e) => (float y) { y = DynamicSlice(x, s, e) }
)"),
                 absl::StatusCode::kInvalidArgument, "is a scalar");
}

TEST(LegalizeTest, RejectsConstantIndicesTheOperatorRejects) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[1] unused) => (float[?] y) {
  data = Constant <value = float[3] {1, 2, 3}> ()
  s = Constant <value = int64[2] {0, 0}> ()
  e = Constant <value = int64[1] {1}> ()
  y = DynamicSlice(data, s, e)
}
)"),
                 absl::StatusCode::kInvalidArgument, "DynamicSlice producing 'y' (graph main)");
}

TEST(LegalizeTest, RejectsAnUndefinedInput) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int64[1] s) => (float[?] y) { y = DynamicSlice(x, s, nowhere) }
)"),
                 absl::StatusCode::kInvalidArgument, "input 'nowhere' is not defined");
}

TEST(LegalizeTest, RejectsAGraphOutputNoNodeProduces) {
  ExpectRejected(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (float[3] x, int64[1] s) => (float[?] y, float[?] ghost) { y = DynamicSlice(x, s, s) }
)"),
                 absl::StatusCode::kInvalidArgument, "output 'ghost' is produced by no node");
}

// Large values (past what the checked skeleton keeps, 64 KiB) take their own path through Legalize: the
// model's large weights step aside while a light copy is transformed, and large folded values are written
// after verification. The result is the same.
onnx::TensorProto IotaInitializer(const std::string& name, std::vector<int64_t> dims) {
  return TensorToProto(Iota(std::move(dims)), name);
}

TEST(LegalizeTest, FoldsLargeValuesKeepsLargeWeightsAndDropsThoseNothingReads) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
large (float[2,3] x, int64[1] xs, int64[1] xe) => (float[96,256] first, float[80,256] second, float[192,256] kept, float[?,?] dyn) {
  s1 = Constant <value = int64[1] {8}> ()
  e1 = Constant <value = int64[1] {104}> ()
  first = DynamicSlice(w, s1, e1)
  s2 = Constant <value = int64[1] {3}> ()
  e2 = Constant <value = int64[1] {83}> ()
  second = DynamicSlice(first, s2, e2)
  kept = Relu(big)
  dyn = DynamicSlice(x, xs, xe)
}
)");
  // w (128 KiB) is read by the first fold only; big (192 KiB) by a node that stays.
  *model.mutable_graph()->add_initializer() = IotaInitializer("w", {128, 256});
  *model.mutable_graph()->add_initializer() = IotaInitializer("big", {192, 256});
  NameNodesAsOutputNode(model);

  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  ASSERT_EQ(report.nodes.size(), 3u);
  EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  EXPECT_EQ(report.nodes[1].action, Action::kFolded);
  EXPECT_EQ(report.nodes[2].action, Action::kRewritten);
  std::map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& initializer : legalized.graph().initializer()) initializers[initializer.name()] = &initializer;
  EXPECT_EQ(initializers.count("w"), 0u) << "a weight nothing reads any more is removed";
  ASSERT_EQ(initializers.count("big"), 1u);
  EXPECT_EQ(initializers["big"]->raw_data(), model.graph().initializer(1).raw_data());
  ASSERT_EQ(initializers.count("first"), 1u);
  ASSERT_EQ(initializers.count("second"), 1u);
  EXPECT_NE(initializers["first"]->data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(initializers["first"]->raw_data().size(), 96u * 256 * 4);
  EXPECT_EQ(initializers["second"]->raw_data().size(), 80u * 256 * 4);

  Tensor x = Iota({2, 3});
  Tensor xs = Tensor::FromInt64s({1});
  Tensor xe = Tensor::FromInt64s({2});
  ExpectSameOutputs(model, legalized, {{"x", &x}, {"xs", &xs}, {"xe", &xe}});
}

TEST(LegalizeTest, AFailedLegalizationLeavesLargeWeightsInPlace) {
  // Equal takes floats from Equal-11: at opset 10 the result would not pass onnx's checker.
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
failing (float[?,?] x, int64[1] s, int64[1] e, float[2] u) => (float[?,?] d, bool[2] y, float[192,256] kept) {
  d = DynamicSlice(x, s, e)
  y = Equal(u, u)
  kept = Relu(big)
}
)");
  *model.mutable_graph()->add_initializer() = IotaInitializer("big", {192, 256});
  Options options;
  options.target_opset = 10;
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "(op_type:Equal)", options);
}

}  // namespace
}  // namespace onnx_legalize

namespace onnx_legalize {
namespace {

// A DynamicSlice of a start given at run time (Slice-10 at the lowest) beside an Equal of floats, which Equal-7
// does not take and Equal-11 does: at opset 10 onnx's checker refuses the result; at 11 it accepts it.
constexpr char kEqualOfFloatsAtOpset9[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[3,2] input, float[3,2] other, int64[1] s) => (float[?,2] output, bool[3,2] same) {
  same = Equal(input, other)
  e = Constant<value = int64[1] {9223372036854775807}>()
  a = Constant<value = int64[1] {0}>()
  output = DynamicSlice(input, s, e, a)
}
)ONNX";

TEST(LegalizeTargetTest, TriesTheNextTargetWhenTheLowestFailsAndSaysWhy) {
  onnx::ModelProto model = ParseModel(kEqualOfFloatsAtOpset9);
  const absl::StatusOr<Report> report = Legalize(model, Options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_after, 11);
  ASSERT_EQ(report->targets_passed_over.size(), 1u);
  EXPECT_EQ(report->targets_passed_over[0].opset, 10);
  EXPECT_THAT(report->targets_passed_over[0].reason,
              HasSubstr("would not pass onnx's checker and strict shape inference"));
  EXPECT_EQ(DefaultOpset(model), 11);
  EXPECT_EQ(CountOps(model, "DynamicSlice"), 0);
}

// Issue 42's mutants: a model claiming an opset past the latest onnx defines passed onnx's checker (which looks
// its nodes up in the latest schemas) and was written with exit 0, though no runtime loads it.
TEST(LegalizeTargetTest, AModelOfAnOpsetPastTheLatestOnnxDefinesIsRefused) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 1000]>
g (float[2] x) => (float[2] y) { y = Relu(x) }
)ONNX");
  const std::string before = model.SerializeAsString();
  const absl::StatusOr<Report> report = Legalize(model, Options());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(report.status().message(),
              HasSubstr("imports the default domain at opset 1000, past 28, the latest onnx 1.23.2 defines"));
  EXPECT_EQ(model.SerializeAsString(), before);
}

// Validate first, prove last (issue 42: a malformed Loop body was refused after a proof of 41 s). The Loop body's
// Identity has an attribute its schema does not know, which onnx's checker refuses in the result at every target;
// the opset move's proof of this model, with no budget, would run 65536 iterations of a 256^3 MatMul (2^40
// element operations, many minutes). The refusal comes first: the proof never starts.
TEST(LegalizeTargetTest, AResultOnnxsCheckerRefusesIsRefusedBeforeTheOpsetMoveIsProven) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[256,256] x, float[256,256] w, int64[1] s, int64[1] e) => (float[1,256] z) <int64 m = {65536}, bool c = {1}> {
  y = Loop(m, c, x) <body = loop_body (int64 i, bool c_in, float[256,256] v) => (bool c_out, float[256,256] v_out) {
    c_out = Identity<foo = 1>(c_in)
    v_out = MatMul(v, w)
  }>
  z = DynamicSlice(y, s, e)
}
)ONNX");
  Options options;
  options.proof_budget = std::numeric_limits<int64_t>::max();
  const absl::StatusOr<Report> report = Legalize(model, options);
  EXPECT_THAT(report.status().message(), HasSubstr("Unrecognized attribute: foo for operator Identity"));
  EXPECT_EQ(CountOps(model, "DynamicSlice"), 1) << "left as it was";
}

// The shape of every OnnxMLTools 1.2 Custom Vision classifier: ImageScaler, a CNN, its class labels in a string
// Constant (Constant takes strings from opset 9), ArgMax, ArrayFeatureExtractor, and an ai.onnx.ml ZipMap (a
// sequence of maps, which onnx 1.12's strict inference fails on whatever the model).
constexpr char kCustomVisionAtOpset7[] = R"ONNX(
<ir_version: 3, opset_import: ["" : 7, "ai.onnx.ml" : 1]>
g (float[None,3,4,4] data) => (string[1] classLabel, float[1,3] loss) {
  scaled = ImageScaler<scale = 1.0, bias = [-104.0, -117.0, -123.0]>(data)
  pooled = GlobalAveragePool(scaled)
  flat = Flatten<axis = 1>(pooled)
  probabilities = Softmax(flat)
  labels = Constant<value = string[3] {"cat", "dog", "fox"}>()
  index = ArgMax<axis = 1, keepdims = 0>(probabilities)
  classLabel = ai.onnx.ml.ArrayFeatureExtractor(labels, index)
  loss = ai.onnx.ml.ZipMap<classlabels_strings = ["cat", "dog", "fox"]>(probabilities)
}
)ONNX";

// kCustomVisionAtOpset7 with ZipMap's output declared as it is, a sequence of maps from string to float (which
// onnx 1.12's text format cannot write).
onnx::ModelProto CustomVisionAtOpset7() {
  onnx::ModelProto model = ParseModel(kCustomVisionAtOpset7);
  onnx::TypeProto& loss = *model.mutable_graph()->mutable_output(1)->mutable_type();
  loss.Clear();
  onnx::TypeProto_Map& map = *loss.mutable_sequence_type()->mutable_elem_type()->mutable_map_type();
  map.set_key_type(onnx::TensorProto::STRING);
  map.mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return model;
}

TEST(LegalizeTargetTest, ATargetWhereOnnxDefinesTheFailedNodeAnewIsTriedNext) {
  onnx::ModelProto model = CustomVisionAtOpset7();
  const absl::StatusOr<Report> report = Legalize(model, Options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_after, 9);
  ASSERT_EQ(report->targets_passed_over.size(), 1u);
  EXPECT_EQ(report->targets_passed_over[0].opset, 7);
  EXPECT_THAT(report->targets_passed_over[0].reason, HasSubstr("(op_type:Constant"));
  EXPECT_EQ(CountOps(model, "ImageScaler"), 0);
  EXPECT_EQ(CountOps(model, "ZipMap"), 1);
}

// onnx names the node it failed, which is not always the op whose new version fixes the model: the search tries
// every opset at which any op of the model is defined anew. Here Equal-7 refuses floats and Equal-11 takes
// them; Flatten is defined anew at 9, which is tried (and fails, for Equal) before 11.
TEST(LegalizeTargetTest, NoTargetPassesOverAnOpsetAtWhichAnOpOfTheModelChanges) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2,3] a, float[2,3] b) => (bool[2,3] same, float[2,3] flat) {
  same = Equal(a, b)
  flat = Flatten<axis = 1>(a)
}
)ONNX");
  const absl::StatusOr<Report> report = Legalize(model, Options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_after, 11);
  EXPECT_EQ(DefaultOpset(model), 11);
  ASSERT_EQ(report->targets_passed_over.size(), 2u);
  EXPECT_EQ(report->targets_passed_over[0].opset, 7);
  EXPECT_EQ(report->targets_passed_over[1].opset, 9);
  for (const auto& passed_over : report->targets_passed_over) {
    EXPECT_THAT(passed_over.reason, HasSubstr("(op_type:Equal)"));
  }
}

TEST(LegalizeTargetTest, AZipMapDoesNotStopTheCheckOfTheResult) {
  for (int64_t target : {9, 13, 17}) {
    SCOPED_TRACE(target);
    const onnx::ModelProto model = CustomVisionAtOpset7();
    Options options;
    options.target_opset = target;
    Report report;
    const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
    EXPECT_EQ(DefaultOpset(legalized), target);
    EXPECT_EQ(report.onnx_check, "onnx's checker and strict shape inference accept the result");
    // The ZipMap and its declared output are the model's still: only the check's copy goes without them.
    ASSERT_EQ(legalized.graph().output_size(), 2);
    EXPECT_TRUE(legalized.graph().output(1).type().has_sequence_type());
  }
}

TEST(LegalizeTargetTest, AnExplicitTargetOrKeepOpsetIsNeverChangedBehindTheCallersBack) {
  onnx::ModelProto model = ParseModel(kEqualOfFloatsAtOpset9);
  const std::string before = Serialize(model);
  Options at10;
  at10.target_opset = 10;
  const absl::StatusOr<Report> report = Legalize(model, at10);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition) << report.status();
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("strict shape inference"));
  EXPECT_EQ(Serialize(model), before);
}

TEST(LegalizeTargetTest, LegalizeFileTriesTheNextTargetToo) {
  const std::filesystem::path dir = testing::MakeTestDir("legalize_target_test");
  onnx::ModelProto model = ParseModel(kEqualOfFloatsAtOpset9);
  testing::WriteBytes(dir / "in.onnx", Serialize(model));
  const absl::StatusOr<Report> report =
      LegalizeFile((dir / "in.onnx").string(), (dir / "out.onnx").string(), Options(), SaveOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->opset_after, 11);
  ASSERT_EQ(report->targets_passed_over.size(), 1u);
  absl::StatusOr<onnx::ModelProto> written = LoadModel((dir / "out.onnx").string());
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(DefaultOpset(*written), 11);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onnx_legalize

namespace onnx_legalize {
namespace {

using Step = internal::TargetFailure::Step;

// How a stand-in legalization fails at a target: the caller's error, and why in fields (the node, where the step
// names one). OK: it does not fail.
struct StandInFailure {
  absl::Status status = absl::OkStatus();
  Step step = Step::kTransform;
  std::string op_type;
  std::string node;
  int64_t next_schema_change = 0;
};

// `failure` at `target`, as the driver reports it.
internal::Attempt FailedAt(int64_t target, const StandInFailure& failure) {
  internal::TargetFailure why;
  why.target = target;
  why.step = failure.step;
  why.code = failure.status.code();
  why.op_type = failure.op_type;
  why.node = failure.node;
  why.next_schema_change = failure.next_schema_change;
  return internal::Attempt::FailedAt(failure.status, why);
}

// A stand-in for one legalization at the target `options` name (`first` when none), failing as `fail_at` says.
internal::Attempt AttemptAt(const Options& options, int& calls, const std::function<StandInFailure(int64_t)>& fail_at,
                            int64_t first = 10) {
  ++calls;
  const int64_t target = options.target_opset.value_or(first);
  if (StandInFailure failure = fail_at(target); !failure.status.ok()) return FailedAt(target, failure);
  Report report;
  report.opset_after = target;
  return report;
}

TEST(LegalizeTargetTest, StopsWhenTwoTargetsInARowFailTheSameWay) {
  int calls = 0;
  const absl::StatusOr<Report> report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    return AttemptAt(at, calls, [](int64_t target) {
      return StandInFailure{
          absl::FailedPreconditionError(absl::StrCat("the converter cannot move Foo to opset ", target))};
    });
  });
  EXPECT_EQ(calls, 2);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("to opset 10")) << "the first failure is returned";
  int payloads = 0;
  report.status().ForEachPayload([&payloads](absl::string_view, const absl::Cord&) { ++payloads; });
  EXPECT_EQ(payloads, 0) << "the target travels beside the failure, not in the caller's error";
}

TEST(LegalizeTargetTest, JumpsToTheOpsetThatDefinesTheNamedOpAnewEvenWhenTheReasonRepeats) {
  int calls = 0;
  std::vector<int64_t> tried;
  const absl::StatusOr<Report> report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    tried.push_back(at.target_opset.value_or(7));
    ++calls;
    const int64_t target = at.target_opset.value_or(7);
    // Constant is defined anew at 9 (then 11, 12, 13): 7 fails, 8 is skipped, 9 works.
    if (target < 9) {
      return FailedAt(
          target, {absl::FailedPreconditionError("(op_type:Constant, node name: labels): output has unsupported type"),
                   Step::kOnnxCheck, "Constant", "labels"});
    }
    Report done;
    done.opset_after = target;
    return internal::Attempt(done);
  });
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(tried, ::testing::ElementsAre(7, 9));
  EXPECT_EQ(report->opset_after, 9);

  // An op onnx never defines anew after the failed opset (Not has one schema, since opset 1): the usual rule
  // (two alike in a row) stops the search.
  calls = 0;
  const absl::StatusOr<Report> hopeless = internal::TryLaterTargets(Options(), [&](const Options& at) {
    return AttemptAt(at, calls, [](int64_t) {
      return StandInFailure{absl::FailedPreconditionError("(op_type:Not, node name: s): output has unsupported type"),
                            Step::kOnnxCheck, "Not", "s"};
    });
  });
  EXPECT_FALSE(hopeless.ok());
  EXPECT_EQ(calls, 2);
}

// Where another op of the model changes below the opset that defines the failed op anew, that opset is tried
// first; where it fails the same way, the search goes on, to the next change or to the failed op's new schema
// (Constant's at 9), however alike the failures: the opset that defines the failed op anew still lies ahead.
TEST(LegalizeTargetTest, TriesEachOpsetAtWhichAnOpOfTheModelChangesUpToTheFailedOpsNewSchema) {
  std::vector<int64_t> tried;
  int calls = 0;
  // A MaxPool (defined anew at 8) beside the label Constant (defined anew at 9).
  const auto fail_at = [](int64_t target) {
    if (target >= 9) return StandInFailure{};
    return StandInFailure{
        absl::FailedPreconditionError("(op_type:Constant, node name: labels): output has unsupported type"),
        Step::kOnnxCheck, "Constant", "labels", target < 8 ? 8 : 9};
  };
  const absl::StatusOr<Report> report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    tried.push_back(at.target_opset.value_or(7));
    return AttemptAt(at, calls, fail_at, /*first=*/7);
  });
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(tried, ::testing::ElementsAre(7, 8, 9));
  EXPECT_EQ(report->opset_after, 9);
  ASSERT_EQ(report->targets_passed_over.size(), 2u);
  EXPECT_EQ(report->targets_passed_over[0].opset, 7);
  EXPECT_EQ(report->targets_passed_over[1].opset, 8);

  // A change beyond the failed op's new schema does not carry the search past it.
  tried.clear();
  const auto fail_below_9 = [](int64_t target) {
    if (target >= 9) return StandInFailure{};
    return StandInFailure{absl::FailedPreconditionError("(op_type:Constant): output has unsupported type"),
                          Step::kOnnxCheck, "Constant", "", 11};
  };
  const absl::StatusOr<Report> at_redefinition = internal::TryLaterTargets(Options(), [&](const Options& at) {
    tried.push_back(at.target_opset.value_or(7));
    return AttemptAt(at, calls, fail_below_9, /*first=*/7);
  });
  ASSERT_TRUE(at_redefinition.ok()) << at_redefinition.status();
  EXPECT_THAT(tried, ::testing::ElementsAre(7, 9));
}

// The opset that defines anew an op onnx failed stays ahead when a later target fails at another node: onnx
// failed Conv at 1 (defined anew at 11), and a Softsign (never defined anew) at 6, an opset at which an op of the
// model changes; two failures alike at the Softsign do not end the search before 11.
TEST(LegalizeTargetTest, AnOpsetThatDefinesAnOpOnnxFailedAnewIsTriedWhateverFailsBelowIt) {
  std::vector<int64_t> tried;
  int calls = 0;
  const auto fail_at = [](int64_t target) {
    if (target >= 11) return StandInFailure{};
    if (target < 6) {
      return StandInFailure{absl::FailedPreconditionError("(op_type:Conv): input 0 has no type"), Step::kOnnxCheck,
                            "Conv", "", 6};
    }
    return StandInFailure{absl::FailedPreconditionError("(op_type:Softsign): input 0 has no type"), Step::kOnnxCheck,
                          "Softsign", "", target < 7 ? 7 : 11};
  };
  const absl::StatusOr<Report> report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    tried.push_back(at.target_opset.value_or(1));
    return AttemptAt(at, calls, fail_at, /*first=*/1);
  });
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(tried, ::testing::ElementsAre(1, 6, 7, 11));
  EXPECT_EQ(report->opset_after, 11);
}

// The opset that TargetFailure::next_schema_change names: the lowest above the target at which onnx defines anew an
// op of the default domain that the models hold, in any graph; ops of other domains, or unknown to onnx, never.
TEST(LegalizeTargetTest, TheNextSchemaChangeIsTheLowestOfEveryDefaultDomainOpInEveryGraph) {
  const onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 1, "com.example" : 1]>
g (bool c, float[2] x) => (float[2] y, float[2] z) {
  y = If(c) <then_branch = t () => (float[2] a) { a = Relu(x) }, else_branch = e () => (float[2] b) { b = Neg(x) }>
  z = com.example.Flatten(x)
}
)ONNX");
  // If: 11, 13, 16, 19, 21, 23, 24, 25; Relu (in one branch): 6, 13, 14; Neg (in the other): 6, 13. Flatten, defined
  // anew at 9, 11 and 13 in the default domain, is another domain's here.
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&model}, 1), 6);
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&model}, 6), 11);
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&model}, 14), 16);
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&model}, 16), 19);
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&model}, 25), 0);
  const onnx::ModelProto unknown = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 1]>
g (float[2] x) => (float[2] y) {
  r = NoSuchOp(x)
  y = Abs(r)
}
)ONNX");
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&unknown}, 1), 6);
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&unknown, &model}, 1), 6);
  EXPECT_EQ(internal::NextSchemaChangeOfOpsIn({&unknown}, 13), 0);
}

TEST(LegalizeTargetTest, GoesOnWhileTheReasonChangesAndNeverRetriesAVerificationFailure) {
  int calls = 0;
  absl::StatusOr<Report> report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    return AttemptAt(at, calls, [](int64_t target) {
      if (target == 10) return StandInFailure{absl::FailedPreconditionError("checker: A"), Step::kOnnxCheck};
      if (target == 11) return StandInFailure{absl::FailedPreconditionError("converter: B"), Step::kTransform};
      return StandInFailure{};
    });
  });
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(report->opset_after, 12);
  ASSERT_EQ(report->targets_passed_over.size(), 2u);
  EXPECT_EQ(report->targets_passed_over[1].opset, 11);
  EXPECT_EQ(report->targets_passed_over[1].reason, "converter: B");

  calls = 0;
  Options explicit_target;
  explicit_target.target_opset = 10;
  report = internal::TryLaterTargets(explicit_target, [&](const Options& at) {
    return AttemptAt(at, calls, [](int64_t) {
      return StandInFailure{absl::FailedPreconditionError("checker: A"), Step::kOnnxCheck};
    });
  });
  EXPECT_EQ(calls, 1);

  calls = 0;
  report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    ++calls;
    absl::Status failure = absl::InternalError("verification failed: x");
    failure.SetPayload(kVerificationFailurePayloadUrl, absl::Cord("x"));
    return FailedAt(10, {failure});
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(IsVerificationFailure(report.status()));
}

// "The same reason" is the failure's fields (step, code, op type, node, graph), never its words: two failures
// that say different things of the same node are the same, and two that say the same of different nodes are not.
TEST(LegalizeTargetTest, TheSameReasonIsTheSameStepCodeAndNodeWhateverTheMessageSays) {
  int calls = 0;
  absl::StatusOr<Report> report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    return AttemptAt(at, calls, [](int64_t target) {
      return StandInFailure{absl::FailedPreconditionError(target == 10 ? "one thing" : "quite another"),
                            Step::kSchemaMismatch, "Pad", "p"};
    });
  });
  EXPECT_EQ(calls, 2);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("one thing"));

  calls = 0;
  report = internal::TryLaterTargets(Options(), [&](const Options& at) {
    return AttemptAt(at, calls, [](int64_t target) {
      if (target >= 12) return StandInFailure{};
      return StandInFailure{absl::FailedPreconditionError("the same words"), Step::kSchemaMismatch, "Pad",
                            target == 10 ? "p1" : "p2"};
    });
  });
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(report->targets_passed_over.size(), 2u);

  internal::TargetFailure at_10;
  at_10.target = 10;
  at_10.step = Step::kOnnxCheck;
  at_10.code = absl::StatusCode::kFailedPrecondition;
  at_10.op_type = "Relu";
  internal::TargetFailure at_11 = at_10;
  at_11.target = 11;
  EXPECT_TRUE(at_10.SameReasonAs(at_11)) << "the target is not the reason";
  at_11.graph = "main/then_branch";
  EXPECT_FALSE(at_10.SameReasonAs(at_11));
  at_11 = at_10;
  at_11.step = Step::kTransform;
  EXPECT_FALSE(at_10.SameReasonAs(at_11));
  at_11 = at_10;
  at_11.code = absl::StatusCode::kInvalidArgument;
  EXPECT_FALSE(at_10.SameReasonAs(at_11));
}

// A legalization whose transformation fails at its target says too where the next op of the model changes (as
// one onnx's check rejects does, below): the search, heading for an opset that defines a failed op anew, tries
// that one first whatever failed. Softmax 12->13 must know its input's rank, which nothing here tells; Relu is
// defined anew at 14.
TEST(LegalizeTargetTest, AnAttemptWhoseTransformFailsCarriesTheNextSchemaChange) {
  const internal::UseLegalized use = [](onnx::ModelProto&, const DeferredTensors&,
                                        const internal::AwaitProofs& await_proofs) { return await_proofs(); };
  // A Scan-8 over a batch of 2, which Scan-9 (no batch axis) cannot express: the move refuses it. Add and
  // Identity (its body's) are defined anew at 14.
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (float[2,5,3] x, float[2,3] init) => (float[2,3] final, float[2,5,3] ys) {
  final, ys = Scan<num_scan_inputs=1, body = body (float[3] acc, float[3] xi) => (float[3] acc_out, float[3] y) {
    acc_out = Add(acc, xi)
    y = Identity(acc_out)
  }>(init, x)
}
)ONNX");
  // Scan-8's first input is its optional sequence_lens: none.
  auto* scan_inputs = model.mutable_graph()->mutable_node(0)->mutable_input();
  scan_inputs->Add();
  for (int k = scan_inputs->size() - 1; k > 0; --k) scan_inputs->SwapElements(k, k - 1);
  Options at13;
  at13.target_opset = 13;
  const internal::Attempt attempt = internal::LegalizeAndUse(model, at13, use);
  ASSERT_FALSE(attempt.report.ok());
  ASSERT_TRUE(attempt.failed_at_target.has_value()) << attempt.report.status();
  EXPECT_EQ(attempt.failed_at_target->step, Step::kTransform) << attempt.report.status();
  EXPECT_EQ(attempt.failed_at_target->target, 13);
  EXPECT_EQ(attempt.failed_at_target->next_schema_change, 14);
}

// A legalization onnx's check rejects at its target says so in fields: the step, the code, the op and node onnx
// named (the text format names no node), beside the message the caller gets.
TEST(LegalizeTargetTest, AnAttemptOnnxRejectsCarriesTheFailedNodeInFields) {
  const internal::UseLegalized use = [](onnx::ModelProto&, const DeferredTensors&,
                                        const internal::AwaitProofs& await_proofs) { return await_proofs(); };
  onnx::ModelProto model = CustomVisionAtOpset7();
  Options at7;
  at7.target_opset = 7;
  internal::Attempt attempt = internal::LegalizeAndUse(model, at7, use);
  ASSERT_FALSE(attempt.report.ok());
  EXPECT_THAT(std::string(attempt.report.status().message()), HasSubstr("(op_type:Constant)"));
  ASSERT_TRUE(attempt.failed_at_target.has_value());
  EXPECT_EQ(attempt.failed_at_target->target, 7);
  EXPECT_EQ(attempt.failed_at_target->step, Step::kOnnxCheck);
  EXPECT_EQ(attempt.failed_at_target->code, absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(attempt.failed_at_target->op_type, "Constant");
  EXPECT_EQ(attempt.failed_at_target->node, "");
  EXPECT_EQ(attempt.failed_at_target->graph, "");
  EXPECT_EQ(attempt.failed_at_target->next_schema_change, 9) << "Constant and Flatten are defined anew at 9";

  model = ParseModel(kEqualOfFloatsAtOpset9);
  Options at10;
  at10.target_opset = 10;
  attempt = internal::LegalizeAndUse(model, at10, use);
  ASSERT_TRUE(attempt.failed_at_target.has_value()) << attempt.report.status();
  EXPECT_EQ(attempt.failed_at_target->target, 10);
  EXPECT_EQ(attempt.failed_at_target->step, Step::kOnnxCheck);
  EXPECT_EQ(attempt.failed_at_target->op_type, "Equal");
  EXPECT_EQ(attempt.failed_at_target->next_schema_change, 11) << "Equal, Constant and Slice are defined anew at 11";

  // A failure of `use` itself (writing the file) is not the target's: no other target avoids it.
  model = ParseModel(kEqualOfFloatsAtOpset9);
  Options at11;
  at11.target_opset = 11;
  attempt = internal::LegalizeAndUse(model, at11,
                                     [](onnx::ModelProto&, const DeferredTensors&, const internal::AwaitProofs&) {
                                       return absl::UnavailableError("disk full");
                                     });
  EXPECT_EQ(attempt.report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_FALSE(attempt.failed_at_target.has_value());
}

}  // namespace
}  // namespace onnx_legalize
