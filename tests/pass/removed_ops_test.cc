// Legalize() on the other ops ONNX 1.5 removed: what each becomes, at which opset, and what is refused.
// Values are checked by running the legalized graph in the library's evaluator against numbers computed
// here from the old operators' text; ONNX Runtime checks the same models end to end
// (tests/differential, testdata/removed_ops).
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "eval/evaluator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx_legalize/legalize.h"
#include "pass/removed_ops_pass.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::CountOps;
using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::ExpectRejected;
using ::onnx_legalize::testing::Floats;
using ::onnx_legalize::testing::FloatValues;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::NodeFor;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::Serialize;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Legal: no finding of --check, and onnx's full checker accepts it.
void ExpectLegal(const onnx::ModelProto& model) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(model);
  ASSERT_TRUE(findings.ok()) << findings.status();
  for (const CheckFinding& finding : *findings) ADD_FAILURE() << finding.op_type << ": " << finding.reason;
  onnx::ModelProto copy = model;
  EXPECT_NO_THROW({
    onnx::checker::check_model(copy);
    onnx::ShapeInferenceOptions strict(/*check_type_val=*/true, /*strict_mode_val=*/1);
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
  });
}

// Runs the main graph of a legalized model (standard ops only) in the evaluator.
std::map<std::string, Tensor> RunLegalized(const onnx::ModelProto& model, std::map<std::string, Tensor> values) {
  for (const auto& initializer : model.graph().initializer()) {
    values.insert_or_assign(initializer.name(), TensorFromProto(initializer).value());
  }
  std::vector<onnx::NodeProto> nodes(model.graph().node().begin(), model.graph().node().end());
  absl::Status status = RunNodes(nodes, DefaultOpset(model), values);
  EXPECT_TRUE(status.ok()) << status;
  return values;
}

// Bit patterns, so that -0.0 and NaN compare as they are.
std::vector<uint32_t> Bits(const std::vector<float>& values) {
  std::vector<uint32_t> bits(values.size());
  if (!values.empty()) std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  return bits;
}

constexpr char kTinyYoloHead[] = R"(
<ir_version: 3, opset_import: ["" : 7]>
tiny_yolo (float[1,3,2,2] image) => (float[1,3,2,2] scaled) {
  scaled = ImageScaler <scale = 0.5, bias = [1.0, -2.0, 0.25]> (image)
}
)";

// The opset upgrade passes the removed ops through untouched for this pass to rewrite, at the opsets their
// rules apply to, and shows those that keep their input's type and rank as such to shape inference.
TEST(RemovedOpsTest, TheUpgradeIsToldOfEveryRemovedOpAtTheOpsetsItsRuleAppliesTo) {
  const PassThroughOps& pass_through = RemovedOpsPassThrough();
  onnx::NodeProto image_scaler;
  image_scaler.set_op_type("ImageScaler");
  EXPECT_TRUE(pass_through.passes_through(image_scaler, 9));
  EXPECT_TRUE(pass_through.keeps_rank(image_scaler));
  onnx::NodeProto thresholded_relu;
  thresholded_relu.set_op_type("ThresholdedRelu");
  EXPECT_TRUE(pass_through.passes_through(thresholded_relu, 9));
  EXPECT_FALSE(pass_through.passes_through(thresholded_relu, 10));  // the standard op from 10 on
  onnx::NodeProto relu;
  relu.set_op_type("Relu");
  EXPECT_FALSE(pass_through.passes_through(relu, 9));
  onnx::NodeProto constant_fill;
  constant_fill.set_op_type("ConstantFill");
  EXPECT_TRUE(pass_through.passes_through(constant_fill, 9));
  EXPECT_FALSE(pass_through.keeps_rank(constant_fill));
}

TEST(RemovedOpsTest, ImageScalerBecomesMulAndAddAtItsOwnOpset) {
  onnx::ModelProto model = ParseModel(kTinyYoloHead);
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);

  EXPECT_EQ(CountOps(legalized, "ImageScaler"), 0);
  EXPECT_EQ(CountOps(legalized, "Mul"), 1);
  EXPECT_EQ(CountOps(legalized, "Add"), 1);
  EXPECT_EQ(DefaultOpset(legalized), 7) << "Mul and Add exist at 7: the opset stays";
  EXPECT_EQ(legalized.ir_version(), 3);
  ExpectLegal(legalized);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].op_type, "ImageScaler");
  EXPECT_EQ(report.nodes[0].action, Action::kRewritten);
  EXPECT_EQ(report.nodes[0].became, "Mul + Add");
  EXPECT_THAT(report.nodes[0].verification, HasSubstr("bit for bit"));

  const std::vector<float> image = {1, -0.0f, INFINITY, 3, 4, 5, 6, NAN, -8, 9, 1e30f, 11};
  std::map<std::string, Tensor> values;
  values.emplace("image", Floats({1, 3, 2, 2}, image));
  const std::vector<float> bias = {1.0f, -2.0f, 0.25f};
  std::vector<float> expected;
  for (size_t i = 0; i < image.size(); ++i) expected.push_back(image[i] * 0.5f + bias[i / 4]);
  EXPECT_EQ(Bits(FloatValues(RunLegalized(legalized, std::move(values)).at("scaled"))), Bits(expected));
}

TEST(RemovedOpsTest, TheLastReplacementNodeKeepsTheNodesNameAndDocString) {
  onnx::ModelProto model = ParseModel(kTinyYoloHead);
  model.mutable_graph()->mutable_node(0)->set_name("scaler");
  model.mutable_graph()->mutable_node(0)->set_doc_string("CoreML preprocessing");
  onnx::ModelProto legalized = LegalizedCopy(model);
  ASSERT_EQ(legalized.graph().node_size(), 2);
  EXPECT_EQ(legalized.graph().node(1).op_type(), "Add");
  EXPECT_EQ(legalized.graph().node(1).name(), "scaler");
  EXPECT_EQ(legalized.graph().node(1).doc_string(), "CoreML preprocessing");
}

TEST(RemovedOpsTest, IrThreeInitializersOfTheReplacementAreAlsoGraphInputs) {
  onnx::ModelProto legalized = LegalizedCopy(ParseModel(kTinyYoloHead));
  ASSERT_EQ(legalized.graph().initializer_size(), 2);
  for (const auto& initializer : legalized.graph().initializer()) {
    bool listed = false;
    for (const auto& input : legalized.graph().input()) listed = listed || input.name() == initializer.name();
    EXPECT_TRUE(listed) << initializer.name() << " is an IR 3 initializer but not a graph input";
  }
}

TEST(RemovedOpsTest, LegalizingTwiceChangesNothingAndRunsAreByteIdentical) {
  onnx::ModelProto model = ParseModel(kTinyYoloHead);
  onnx::ModelProto once = LegalizedCopy(model);
  EXPECT_EQ(Serialize(LegalizedCopy(model)), Serialize(once));
  Report report;
  onnx::ModelProto twice = LegalizedCopy(once, {}, &report);
  EXPECT_FALSE(report.changed);
  EXPECT_EQ(Serialize(twice), Serialize(once));
}

TEST(RemovedOpsTest, FoldsARemovedOpWhoseInputIsConstant) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 8]>
fold (float[2] x) => (float[2] y) {
  w = Constant <value = float[2] {1, -3}> ()
  a = Affine <alpha = 2.0, beta = 0.5> (w)
  y = Add(a, x)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(CountOps(legalized, "Affine"), 0);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  ExpectLegal(legalized);
  std::map<std::string, Tensor> values;
  values.emplace("x", Floats({2}, {0, 0}));
  EXPECT_EQ(FloatValues(RunLegalized(legalized, std::move(values)).at("y")), (std::vector<float>{2.5f, -5.5f}));
}

// A fold leaves what it read unread: a weight only the folded Crop read goes (the initializer, and at IR 3 its
// graph input too), as does a Constant only the folded Affine read; a weight something else still reads stays.
TEST(RemovedOpsTest, ConstantsOnlyAFoldReadAreRemoved) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 8]>
fold (float[1,1,4,4] x, float[1,1,4,4] img, float[1,1,4,4] kept) => (float[1,1,2,2] y, float[2] z, float[1,1,4,4] k) {
  y = Crop <border = [1, 1, 1, 1]> (img)
  w = Constant <value = float[2] {1, -3}> ()
  z = Affine <alpha = 2.0, beta = 0.5> (w)
  cropped_kept = Crop <border = [0, 0, 0, 0]> (kept)
  k = Add(cropped_kept, kept)
}
)");
  onnx::ModelProto with_weights = model;
  for (const char* name : {"img", "kept"}) {
    onnx::TensorProto& weight = *with_weights.mutable_graph()->add_initializer();
    weight.set_name(name);
    weight.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t dim : {1, 1, 4, 4}) weight.add_dims(dim);
    for (int i = 0; i < 16; ++i) weight.add_float_data(static_cast<float>(i));
  }
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(with_weights, {}, &report);
  ASSERT_EQ(report.nodes.size(), 3u);
  for (const NodeReport& node : report.nodes) EXPECT_EQ(node.action, Action::kFolded) << node.output;
  std::vector<std::string> initializers, inputs;
  for (const auto& initializer : legalized.graph().initializer()) initializers.push_back(initializer.name());
  for (const auto& input : legalized.graph().input()) inputs.push_back(input.name());
  EXPECT_THAT(initializers, ::testing::UnorderedElementsAre("kept", "y", "z", "cropped_kept"));
  EXPECT_THAT(inputs, ::testing::Not(::testing::Contains("img")));
  EXPECT_THAT(inputs, ::testing::Contains("kept"));
  EXPECT_EQ(CountOps(legalized, "Constant"), 0);
  ExpectLegal(legalized);
}

TEST(RemovedOpsTest, CropBecomesSliceOneBelowOpsetTenAndSliceWithInputsFromTen) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
crop (float[1,1,4,5] x) => (float[1,1,1,3] y) {
  y = Crop <border = [1, 2, 1, 1]> (x)
}
)");
  onnx::ModelProto at9 = LegalizedCopy(model);
  EXPECT_EQ(DefaultOpset(at9), 9);
  ASSERT_EQ(at9.graph().node_size(), 1);
  EXPECT_EQ(at9.graph().node(0).op_type(), "Slice");
  EXPECT_EQ(at9.graph().node(0).input_size(), 1) << "Slice-1 takes its indices as attributes";
  ExpectLegal(at9);

  Options options;
  options.target_opset = 13;
  onnx::ModelProto at13 = LegalizedCopy(model, options);
  EXPECT_EQ(DefaultOpset(at13), 13);
  EXPECT_EQ(CountOps(at13, "Crop"), 0);
  ExpectLegal(at13);

  std::vector<float> x(20);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  // Rows 2 .. 4-1, columns 1 .. 5-1: row 2, columns 1..3.
  const std::vector<float> expected = {11, 12, 13};
  for (const onnx::ModelProto* legalized : {&at9, &at13}) {
    std::map<std::string, Tensor> values;
    values.emplace("x", Floats({1, 1, 4, 5}, x));
    EXPECT_EQ(FloatValues(RunLegalized(*legalized, std::move(values)).at("y")), expected);
  }
}

TEST(RemovedOpsTest, ThresholdedReluBeforeTenMovesToNineForWhere) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 8]>
relu (float[6] x) => (float[6] y) {
  y = ThresholdedRelu <alpha = -1.0> (x)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 9) << "Where exists from opset 9";
  EXPECT_EQ(CountOps(legalized, "Where"), 1);
  ExpectLegal(legalized);
  std::map<std::string, Tensor> values;
  values.emplace("x", Floats({6}, {NAN, INFINITY, -INFINITY, -0.0f, -1.0f, -2.0f}));
  // NaN gives 0, +inf stays, -0.0 (> -1) stays -0.0, at or below alpha 0.
  EXPECT_EQ(Bits(FloatValues(RunLegalized(legalized, std::move(values)).at("y"))),
            Bits({0.0f, INFINITY, 0.0f, -0.0f, 0.0f, 0.0f}));
}

TEST(RemovedOpsTest, ThresholdedReluBecomesTheStandardOpAtTen) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
relu (float[6] x) => (float[6] y) {
  y = ThresholdedRelu <alpha = 0.5> (x)
}
)");
  Options options;
  options.target_opset = 10;
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(CountOps(legalized, "ThresholdedRelu"), 1);
  EXPECT_EQ(report.nodes.at(0).became, "ThresholdedRelu-10");
  ExpectLegal(legalized);
}

TEST(RemovedOpsTest, KeepOpsetRefusesWhatNeedsALaterOpset) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 8]>
relu (float[6] x) => (float[6] y) {
  y = ThresholdedRelu (x)
}
)");
  Options options;
  options.keep_opset = true;
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "needs opset 9", options);
}

TEST(RemovedOpsTest, MeanVarianceNormalizationOneIsDecomposedWithoutEpsilonAtEveryOpset) {
  const char* text = R"(
<ir_version: 3, opset_import: ["" : 7]>
mvn (float[1,2,1,2] x) => (float[1,2,1,2] y) {
  y = MeanVarianceNormalization <across_channels = 0, normalize_variance = 1> (x)
}
)";
  onnx::ModelProto model = ParseModel(text);
  onnx::ModelProto at7 = LegalizedCopy(model);
  EXPECT_EQ(DefaultOpset(at7), 7);
  EXPECT_EQ(CountOps(at7, "MeanVarianceNormalization"), 0);
  EXPECT_EQ(CountOps(at7, "ReduceMean"), 2);
  EXPECT_EQ(CountOps(at7, "Transpose"), 2) << "per channel: summed in the order ONNX Runtime sums";
  ExpectLegal(at7);
  std::map<std::string, Tensor> values;
  values.emplace("x", Floats({1, 2, 1, 2}, {1, 3, -2, 2}));
  // Per channel (over N, H, W; N is 1 here): mean 2 and 0, deviation 1 and 2.
  const std::vector<float> y = FloatValues(RunLegalized(at7, std::move(values)).at("y"));
  ASSERT_EQ(y.size(), 4u);
  EXPECT_FLOAT_EQ(y[0], -1.0f);
  EXPECT_FLOAT_EQ(y[1], 1.0f);
  EXPECT_FLOAT_EQ(y[2], -1.0f);
  EXPECT_FLOAT_EQ(y[3], 1.0f);

  Options options;
  options.target_opset = 10;
  Report report;
  onnx::ModelProto at10 = LegalizedCopy(model, options, &report);
  EXPECT_EQ(CountOps(at10, "MeanVarianceNormalization"), 0)
      << "MVN-9 adds an epsilon and computes the variance otherwise than the old op";
  EXPECT_THAT(report.nodes.at(0).became, HasSubstr("ReduceMean"));
  ExpectLegal(at10);

  // From opset 18 ReduceMean takes its axes as an input; the numbers stay the same.
  for (const int64_t target : {18, 28}) {
    options.target_opset = target;
    onnx::ModelProto moved = LegalizedCopy(model, options);
    EXPECT_EQ(DefaultOpset(moved), target);
    ExpectLegal(moved);
    std::map<std::string, Tensor> feeds;
    feeds.emplace("x", Floats({1, 2, 1, 2}, {1, 3, -2, 2}));
    EXPECT_EQ(FloatValues(RunLegalized(moved, std::move(feeds)).at("y")), y) << "at opset " << target;
  }
}

TEST(RemovedOpsTest, ConstantFillWithAKnownShapeFoldsIntoAnInitializer) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 8]>
fill (int64[2,3] z) => (int64[2,3] y) {
  c = ConstantFill <value = 2.7, dtype = 7, shape = [2, 3]> ()
  y = Add(c, z)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(report.nodes.at(0).action, Action::kFolded);
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  const Tensor c = TensorFromProto(legalized.graph().initializer(0)).value();
  EXPECT_EQ(c.dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(c.ToInt64s("c").status().code(), absl::StatusCode::kInvalidArgument) << "not 1-D";
  int64_t first;
  std::memcpy(&first, c.bytes().data(), sizeof(first));
  EXPECT_EQ(first, 2) << "2.7 converted to int64 as Caffe2 did (truncation)";
  ExpectLegal(legalized);
}

TEST(RemovedOpsTest, ConstantFillOfARunTimeShapeBecomesConstantOfShapeAtNine) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 8]>
fill (float[N,3] x) => (float[N,3] y) {
  y = ConstantFill <value = 1.5, input_as_shape = 0> (x)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 9);
  EXPECT_EQ(CountOps(legalized, "ConstantOfShape"), 1);
  EXPECT_EQ(CountOps(legalized, "Shape"), 1);
  ExpectLegal(legalized);
  std::map<std::string, Tensor> values;
  values.emplace("x", Floats({2, 3}, {0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(FloatValues(RunLegalized(legalized, std::move(values)).at("y")), std::vector<float>(6, 1.5f));
}

TEST(RemovedOpsTest, GivenTensorFillFoldsAndRefusesValuesThatDoNotFillItsShape) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
fill (float[2,2] z) => (float[2,2] y) {
  c = GivenTensorFill <values = [1.0, 2.0, 3.0, 4.0], shape = [2, 2]> ()
  y = Add(c, z)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(CountOps(legalized, "GivenTensorFill"), 0);
  ExpectLegal(legalized);

  onnx::ModelProto short_of_values = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
fill (float[2,2] z) => (float[2,2] y) {
  c = GivenTensorFill <values = [1.0, 2.0, 3.0], shape = [2, 2]> ()
  y = Add(c, z)
}
)");
  ExpectRejected(short_of_values, absl::StatusCode::kInvalidArgument, "values holds 3 numbers");
}

// A DynamicSlice of a removed op's fold folds too (a GivenTensorFill, sliced, as Caffe2 exports wrote weights):
// the model keeps its opset (no Slice-10 is written), and the fill's value, which nothing reads any more, is not.
TEST(RemovedOpsTest, ADynamicSliceOfAFoldedFillFoldsAndTheFillIsNotKept) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
fill (float[2,2] z) => (float[2,2] y) {
  c = GivenTensorFill <values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape = [2, 3]> ()
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {3}> ()
  a = Constant <value = int64[1] {1}> ()
  w = DynamicSlice(c, s, e, a)
  y = Add(w, z)
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 9);
  ASSERT_EQ(report.nodes.size(), 2u);
  for (const NodeReport& node : report.nodes) EXPECT_EQ(node.action, Action::kFolded) << node.output;
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  EXPECT_EQ(legalized.graph().initializer(0).name(), "w");
  const Tensor w = TensorFromProto(legalized.graph().initializer(0)).value();
  EXPECT_EQ(w.dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(FloatValues(w), (std::vector<float>{2, 3, 5, 6}));
  EXPECT_EQ(CountOps(legalized, "Constant"), 0);
  ExpectLegal(legalized);
}

// Folds feed folds whichever family each belongs to: a removed op of a DynamicSlice's fold folds too, so a
// chain GivenTensorFill -> DynamicSlice -> Scale -> DynamicSlice -> Affine becomes one initializer, at the
// model's own opset, with nothing the chain read left behind.
TEST(RemovedOpsTest, AChainOfFoldsOfBothFamiliesFoldsWhole) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
chain (float[1,2] z) => (float[1,2] y) {
  c = GivenTensorFill <values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape = [2, 3]> ()
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {3}> ()
  a = Constant <value = int64[1] {1}> ()
  w = DynamicSlice(c, s, e, a)
  w2 = Scale <scale = 2.0> (w)
  r0 = Constant <value = int64[1] {0}> ()
  r1 = Constant <value = int64[1] {1}> ()
  row = DynamicSlice(w2, r0, r1)
  v = Affine <alpha = 0.5, beta = 1.0> (row)
  flat = Flatten <axis = 0> (v)
  y = Add(flat, z)
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 9) << "no Slice-10 is written";
  ASSERT_EQ(report.nodes.size(), 5u);
  for (const NodeReport& node : report.nodes) EXPECT_EQ(node.action, Action::kFolded) << node.output;
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  EXPECT_EQ(legalized.graph().initializer(0).name(), "v");
  // [[2, 3], [5, 6]] scaled by 2, its first row, times 0.5 plus 1.
  EXPECT_EQ(FloatValues(TensorFromProto(legalized.graph().initializer(0)).value()), (std::vector<float>{3, 4}));
  EXPECT_EQ(CountOps(legalized, "Constant"), 0);
  ExpectLegal(legalized);
}

// A DynamicSlice's fold in the main graph is a constant inside the subgraphs too: the ImageScaler of a branch
// that reads it folds.
TEST(RemovedOpsTest, ARemovedOpInABranchFoldsThroughTheMainGraphsDynamicSliceFold) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
branch (bool cond) => (float[1,2,1,1] out) {
  w = Constant <value = float[1,4,1,1] {1.0, 2.0, 3.0, 4.0}> ()
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {3}> ()
  a = Constant <value = int64[1] {1}> ()
  sliced = DynamicSlice(w, s, e, a)
  out = If (cond) <
    then_branch = g1 () => (float[1,2,1,1] t) { t = ImageScaler <scale = 2.0, bias = [1.0, -1.0]> (sliced) },
    else_branch = g2 () => (float[1,2,1,1] f) { f = Identity(sliced) }
  >
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 9);
  for (const NodeReport& node : report.nodes) EXPECT_EQ(node.action, Action::kFolded) << node.output;
  EXPECT_EQ(CountOps(legalized, "ImageScaler"), 0);
  EXPECT_EQ(CountOps(legalized, "Mul"), 0);
  ExpectLegal(legalized);
}

// max_total_fold_bytes bounds the folds of both families together: a DynamicSlice fold of 32 bytes leaves 16
// of a 48-byte total, and the 32-byte Scale after it is rewritten.
TEST(RemovedOpsTest, TheTotalFoldLimitIsSharedWithDynamicSlice) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
two (float[2,4] z) => (float[2,4] y) {
  w = Constant <value = float[4,4] {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,
                                    16.0}> ()
  s = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {3}> ()
  rows = DynamicSlice(w, s, e)
  c = Constant <value = float[2,4] {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}> ()
  scaled = Scale <scale = 2.0> (c)
  sum = Add(rows, scaled)
  y = Add(sum, z)
}
)");
  Options options;
  options.max_total_fold_bytes = 48;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(NodeFor(report, "rows").action, Action::kFolded);
  EXPECT_EQ(NodeFor(report, "scaled").action, Action::kRewritten);
  EXPECT_THAT(NodeFor(report, "scaled").detail, HasSubstr("passes the fold limits"));
  ExpectLegal(legalized);
}

TEST(RemovedOpsTest, MixedWithARewrittenDynamicSliceBothGoInOneTarget) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
mixed (float[1,3,4,4] x, int64[1] e) => (float[1,3,4,4] s, float[] y) {
  s = ImageScaler <bias = [0.0, 1.0, 2.0]> (x)
  starts = Constant <value = int64[1] {0}> ()
  y = DynamicSlice(s, starts, e)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 10);
  EXPECT_EQ(CountOps(legalized, "ImageScaler"), 0);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  ASSERT_EQ(report.nodes.size(), 2u);
  EXPECT_EQ(report.nodes[0].op_type, "ImageScaler");
  EXPECT_EQ(report.nodes[1].op_type, "DynamicSlice");
  ExpectLegal(legalized);
}

TEST(RemovedOpsTest, RemovedOpsInsideAnIfBranchAreLegalized) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 8]>
branch (bool c, float[2] x) => (float[2] y) {
  y = If (c) <
    then_branch = g1 () => (float[2] t) { t = Scale <scale = 2.0> (x) },
    else_branch = g2 () => (float[2] e) { e = Identity(x) }
  >
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(CountOps(legalized, "Scale"), 0);
  EXPECT_EQ(CountOps(legalized, "Mul"), 1);
  ExpectLegal(legalized);
}

// ------------------------------------------------------------------------------------------- refusals

TEST(RemovedOpsTest, RefusesOpsNoOneCanLegalizeNamingEachNode) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
aten (float[2] x) => (float[2] y) {
  a = ATen <operator = "foo"> (x)
  y = GRUUnit (a)
}
)");
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "2 nodes that cannot be legalized");
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "ATen (graph main)");
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "GRUUnit (graph main)");
}

// Windows ML's custom-operator sample holds 67 unnamed Debug nodes: nodes said alike are said once, counted.
TEST(RemovedOpsTest, SaysNodesRefusedAlikeOnceWithTheirCount) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
debug (float[2] x) => (float[2] y) {
  a = Debug (x)
  b = Debug (a)
  c = Debug (b)
  y = GRUUnit (c)
}
)");
  for (onnx::NodeProto& node : *model.mutable_graph()->mutable_node()) node.clear_name();
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition,
                 "4 nodes that cannot be legalized (no schema at the model's opset, and no rule to replace it): "
                 "Debug (graph main): no schema in onnx (removed or never defined) (3 nodes); GRUUnit (graph main)");
}

TEST(RemovedOpsTest, RefusesImageScalerWhoseBiasDoesNotMatchTheChannels) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
bad (float[1,3,2,2] x) => (float[1,3,2,2] y) {
  y = ImageScaler <bias = [1.0, 2.0]> (x)
}
)");
  ExpectRejected(model, absl::StatusCode::kInvalidArgument, "bias has 2 values but input 'x' has 3 channels");
}

TEST(RemovedOpsTest, RefusesAnAttributeTheOldOpNeverHad) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
bad (float[2] x) => (float[2] y) {
  y = Affine <alpha = 1.0, gamma = 2.0> (x)
}
)");
  ExpectRejected(model, absl::StatusCode::kInvalidArgument, "has attribute 'gamma', which Affine never had");
}

TEST(RemovedOpsTest, RefusesCropWithoutFourBorders) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
bad (float[1,1,4,4] x) => (float[1,1,?,?] y) {
  y = Crop <border = [1, 1, 1]> (x)
}
)");
  ExpectRejected(model, absl::StatusCode::kInvalidArgument, "border has 3 values");
}

TEST(RemovedOpsTest, RefusesMvnWithAnAcrossChannelsOutsideZeroAndOne) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
bad (float[1,1,2,2] x) => (float[1,1,2,2] y) {
  y = MeanVarianceNormalization <across_channels = 2> (x)
}
)");
  ExpectRejected(model, absl::StatusCode::kInvalidArgument, "across_channels is 2");
}

TEST(RemovedOpsTest, RefusesAnElementTypeTheOldOpNeverComputed) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
bad (int32[2] x) => (int32[2] y) {
  y = Scale <scale = 2.0> (x)
}
)");
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "input 'x' is int32");
}

// ------------------------------------------------------------------------------------------- Upsample

// The legalized model's y for x = [[1, 2], [3, 4]] (as [1,1,2,2]) grown 2 x 3 by nearest: each element a 2 x 3 block.
void ExpectGrownTwoByThreeNearest(const onnx::ModelProto& legalized) {
  std::map<std::string, Tensor> values;
  values.emplace("x", Floats({1, 1, 2, 2}, {1, 2, 3, 4}));
  const std::map<std::string, Tensor> results = RunLegalized(legalized, std::move(values));
  EXPECT_EQ(FloatValues(results.at("y")), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,  //
                                                              3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
}

// Exporters of 2019 still wrote Upsample at opset 10, where ONNX deprecated it for Resize.
constexpr char kUpsampleAtTen[] = R"(
<ir_version: 5, opset_import: ["" : 10]>
up (float[1,1,2,2] x) => (float[1,1,4,6] y) {
  s = Constant <value = float[4] {1.0, 1.0, 2.0, 3.0}> ()
  y = Upsample <mode = "nearest"> (x, s)
}
)";

TEST(RemovedOpsTest, UpsampleAtOpsetTenBecomesResizeTen) {
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(ParseModel(kUpsampleAtTen), {}, &report);
  EXPECT_EQ(CountOps(legalized, "Upsample"), 0);
  EXPECT_EQ(CountOps(legalized, "Resize"), 1);
  EXPECT_EQ(DefaultOpset(legalized), 10);
  ExpectLegal(legalized);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].became, "Resize-10");
  EXPECT_THAT(report.nodes[0].verification, HasSubstr("bit for bit"));

  ExpectGrownTwoByThreeNearest(legalized);
}

TEST(RemovedOpsTest, UpsampleMovedPastElevenSaysWhatResizeTenMeant) {
  Options options;
  options.target_opset = 13;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(ParseModel(kUpsampleAtTen), options, &report);
  EXPECT_EQ(DefaultOpset(legalized), 13);
  ExpectLegal(legalized);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].became, "Resize-13 (asymmetric, floor)");
}

TEST(RemovedOpsTest, UpsampleOfAConstantFoldsAndAScaleBelowOneIsRefused) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 5, opset_import: ["" : 10]>
up (float[1,1,4,6] x) => (float[1,1,4,6] y) {
  w = Constant <value = float[1,1,2,2] {1.0, 2.0, 3.0, 4.0}> ()
  s = Constant <value = float[4] {1.0, 1.0, 2.0, 3.0}> ()
  u = Upsample <mode = "nearest"> (w, s)
  y = Add(x, u)
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  EXPECT_EQ(CountOps(legalized, "Upsample"), 0);
  ExpectLegal(legalized);

  onnx::ModelProto shrinking = ParseModel(R"(
<ir_version: 5, opset_import: ["" : 10]>
up (float[1,1,4,4] x) => (float[1,1,2,2] y) {
  s = Constant <value = float[4] {1.0, 1.0, 0.5, 0.5}> ()
  y = Upsample <mode = "nearest"> (x, s)
}
)");
  ExpectRejected(shrinking, absl::StatusCode::kInvalidArgument, "scale 0.5 is not a finite value of at least 1");
}

// PyTorch 0.3 wrote nn.Upsample as Upsample-1, experimental, which no runtime of today runs: at the lowest target
// it becomes Upsample-7 (its two scales Upsample-7's last two), at 9 Upsample-9, from 10 Resize.
constexpr char kUpsampleOne[] = R"(
<ir_version: 3, opset_import: ["" : 6]>
up (float[1,1,2,2] x) => (float[1,1,4,6] y) {
  y = Upsample <height_scale = 2.0, width_scale = 3.0> (x)
}
)";

TEST(RemovedOpsTest, ExperimentalUpsampleOneBecomesTheStandardUpsampleOfOpsetSeven) {
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(ParseModel(kUpsampleOne), {}, &report);
  EXPECT_EQ(DefaultOpset(legalized), 7);
  ExpectLegal(legalized);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kRewritten);
  EXPECT_EQ(report.nodes[0].became, "Upsample-7");
  EXPECT_THAT(report.nodes[0].verification, HasSubstr("bit for bit"));
  const onnx::NodeProto& upsample = legalized.graph().node(0);
  ASSERT_EQ(upsample.attribute_size(), 2);
  EXPECT_EQ(upsample.attribute(0).name(), "scales");
  EXPECT_THAT(upsample.attribute(0).floats(), ElementsAre(1.0f, 1.0f, 2.0f, 3.0f));
  EXPECT_EQ(upsample.attribute(1).s(), "nearest");

  ExpectGrownTwoByThreeNearest(legalized);
}

TEST(RemovedOpsTest, ExperimentalUpsampleOneAtLaterTargets) {
  for (const auto& [target, became] : std::vector<std::pair<int64_t, std::string>>{
           {8, "Upsample-7"}, {9, "Upsample-9"}, {10, "Resize-10"}, {13, "Resize-13 (asymmetric, floor)"}}) {
    Options options;
    options.target_opset = target;
    Report report;
    const onnx::ModelProto legalized = LegalizedCopy(ParseModel(kUpsampleOne), options, &report);
    EXPECT_EQ(DefaultOpset(legalized), target);
    ExpectLegal(legalized);
    ASSERT_EQ(report.nodes.size(), 1u);
    EXPECT_EQ(report.nodes[0].became, became) << "at " << target;
  }
}

// Upsample-1's bilinear is Upsample-7's linear.
TEST(RemovedOpsTest, ExperimentalUpsampleOneBilinearBecomesLinear) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 6]>
up (float[1,1,2,2] x) => (float[1,1,4,4] y) {
  y = Upsample <height_scale = 2.0, width_scale = 2.0, mode = "bilinear"> (x)
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  ExpectLegal(legalized);
  const onnx::NodeProto& upsample = legalized.graph().node(0);
  ASSERT_EQ(upsample.attribute_size(), 2);
  EXPECT_EQ(upsample.attribute(1).s(), "linear");

  std::map<std::string, Tensor> values;
  values.emplace("x", Floats({1, 1, 2, 2}, {0, 4, 8, 12}));
  const std::map<std::string, Tensor> results = RunLegalized(legalized, std::move(values));
  EXPECT_EQ(FloatValues(results.at("y")), (std::vector<float>{0, 2, 4, 4, 4, 6, 8, 8, 8, 10, 12, 12, 8, 10, 12, 12}));
}

// ------------------------------------------------------------------------------------------- float16

// Windows ML ran fp16 legacy models by computing in float: x * scale + bias in float, rounded once. In
// float16 arithmetic the product would round first: 1.0009765625 * 1.0009765625 = 1 + 2^-9 + 2^-20, which
// float16 rounds to 1 + 2^-9; plus 2^-11 that is a tie, to even 1 + 2^-9 (0x3c02). In float the sum is
// past the tie: 1 + 3 * 2^-10 (0x3c03).
TEST(RemovedOpsTest, Float16IsComputedInFloatAndRoundedOnce) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
fp16_style (float16[1,1,1,3] image) => (float16[1,1,1,3] scaled) {
  scaled = ImageScaler <scale = 1.0009765625, bias = [0.00048828125]> (image)
}
)");
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(CountOps(legalized, "ImageScaler"), 0);
  EXPECT_EQ(CountOps(legalized, "Cast"), 2);
  EXPECT_EQ(DefaultOpset(legalized), 7);
  ExpectLegal(legalized);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].became, "Cast to float, Mul + Add, Cast to float16");
  EXPECT_THAT(report.nodes[0].verification, HasSubstr("bit for bit"));

  const uint16_t image[] = {0x3c01, 0x7c00, 0x8000};  // 1.0009765625, infinity, -0
  std::string bytes(sizeof image, '\0');
  std::memcpy(bytes.data(), image, sizeof image);
  std::map<std::string, Tensor> values;
  values.emplace("image", Tensor::FromBytes(onnx::TensorProto::FLOAT16, {1, 1, 1, 3}, bytes).value());
  const std::map<std::string, Tensor> results = RunLegalized(legalized, std::move(values));
  const Tensor& scaled = results.at("scaled");
  ASSERT_EQ(scaled.type(), onnx::TensorProto::FLOAT16);
  uint16_t out[3];
  std::memcpy(out, scaled.bytes().data(), sizeof out);
  EXPECT_EQ(out[0], 0x3c03) << "one rounding, in float";
  EXPECT_EQ(out[1], 0x7c00);
  EXPECT_EQ(out[2], 0x1000) << "-0 * scale + 2^-11 is 2^-11";
}

TEST(RemovedOpsTest, AFloat16RemovedOpOfConstantsFoldsToFloat16) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 7]>
fp16_fold (float16[2] x) => (float16[2] y) {
  s = Scale <scale = 0.5> (w)
  y = Add(x, s)
}
)");
  // onnx 1.12's parser reads no float16 literal: the weight w = [1, -3] is written as raw float16 bytes.
  onnx::TensorProto* weight = model.mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(onnx::TensorProto::FLOAT16);
  weight->add_dims(2);
  const uint16_t w[] = {0x3c00, 0xc200};
  weight->set_raw_data(std::string(reinterpret_cast<const char*>(w), sizeof w));
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(CountOps(legalized, "Scale"), 0);
  ExpectLegal(legalized);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].action, Action::kFolded);
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  const Tensor folded = TensorFromProto(legalized.graph().initializer(0)).value();
  ASSERT_EQ(folded.type(), onnx::TensorProto::FLOAT16);
  uint16_t out[2];
  std::memcpy(out, folded.bytes().data(), sizeof out);
  EXPECT_EQ(out[0], 0x3800);  // 0.5
  EXPECT_EQ(out[1], 0xbe00);  // -1.5
}

// A removed op that only moves data takes float16 as it is, without a round trip through float.
TEST(RemovedOpsTest, Float16CropIsASliceWithoutCasts) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
fp16_crop (float16[1,1,4,4] x) => (float16[1,1,2,2] y) {
  y = Crop <border = [1, 1, 1, 1]> (x)
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(CountOps(legalized, "Slice"), 1);
  EXPECT_EQ(CountOps(legalized, "Cast"), 0);
  ExpectLegal(legalized);
}

// ---------------------------------------------------------------------------------------------- --check

TEST(RemovedOpsTest, CheckSaysWhichFindingsLegalizingFixes) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
mixed (float[1,3,2,2] x) => (float[1,3,2,2] y) {
  s = ImageScaler <bias = [0.0, 1.0, 2.0]> (x)
  y = ATen <operator = "foo"> (s)
}
)");
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(model);
  ASSERT_TRUE(findings.ok());
  ASSERT_EQ(findings->size(), 2u);
  EXPECT_EQ((*findings)[0].op_type, "ImageScaler");
  EXPECT_TRUE((*findings)[0].fixable);
  EXPECT_THAT((*findings)[0].fix, HasSubstr("rewrite"));
  EXPECT_EQ((*findings)[1].op_type, "ATen");
  EXPECT_FALSE((*findings)[1].fixable);
}

TEST(RemovedOpsTest, CheckFindsMvnOneAttributesAtOpsetNine) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
mvn (float[1,1,2,2] x) => (float[1,1,2,2] y) {
  y = MeanVarianceNormalization <across_channels = 1> (x)
}
)");
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(model);
  ASSERT_TRUE(findings.ok());
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_THAT((*findings)[0].reason, HasSubstr("attributes of the removed MeanVarianceNormalization-1"));
  EXPECT_TRUE((*findings)[0].fixable);
  ExpectLegal(LegalizedCopy(model));
}

}  // namespace
}  // namespace onnx_legalize
