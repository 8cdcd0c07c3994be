// What a check refuses and one step fixes is fixed and reported, never refused and never passed through: a graph
// without a name, a ZipMap's output declared as a map, an output declared without a shape, an IR-3 model of
// ai.onnx.ml alone whose initializers are not inputs, a domain used and not imported (ai.onnx.ml, or one onnx
// does not define), no IR version, IR 3's initializers listed as inputs past IR 3, a recurrent Y declared
// without num_directions, an activation spelled in lower case; and what no one step fixes is refused (2-D
// recurrent weights). Each case is a real exporter's (issue 37), in its smallest form.
#include <string>

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "graph/attributes.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"
#include "test_tensors.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::ExpectRejected;
using ::onnx_legalize::testing::ExpectSameOutputs;
using ::onnx_legalize::testing::Iota;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::SameModel;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// onnx 1.12's checker, with strict shape inference when `full`, on `model`: "" when it accepts it, else its words.
std::string OnnxCheckerSays(const onnx::ModelProto& model, bool full = false) {
  onnx::ModelProto copy = model;
  try {
    onnx::checker::check_model(copy);
    if (full) {
      onnx::ShapeInferenceOptions strict(/*check_type_val=*/true, /*strict_mode_val=*/1);
      onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// --- a graph without a name --------------------------------------------------------------------------------------

// Windows ML's own preprocessing models (opset 12) name no graph; ONNX Runtime runs them, onnx's checker does not.
TEST(LegalityRepairs, AGraphWithoutANameIsNamedAndReported) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 7, opset_import: ["" : 12]>
g (float[1,3] x) => (float[1,3] y) {
  y = Relu(x)
}
)");
  model.mutable_graph()->clear_name();
  ASSERT_THAT(OnnxCheckerSays(model), HasSubstr("Field 'name' of 'graph' is required to be non-empty"));
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(legalized.graph().name(), "main_graph");
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
  EXPECT_TRUE(report.changed);
  EXPECT_THAT(report.legacy_repairs, ElementsAre(HasSubstr("graph main: a graph without a name")));
  EXPECT_EQ(DefaultOpset(legalized), 12) << "nothing else to do: the model keeps its opset";
}

TEST(LegalityRepairs, ASubgraphWithoutANameIsNamedAsMessagesCallIt) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 7, opset_import: ["" : 13]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <then_branch = then_g () => (float[2] t) { t = Relu(x) },
             else_branch = else_g () => (float[2] e) { e = Neg(x) }>
}
)");
  model.mutable_graph()->mutable_node(0)->set_name("choose");
  model.mutable_graph()->mutable_node(0)->mutable_attribute(1)->mutable_g()->clear_name();
  const std::string unnamed = model.graph().node(0).attribute(1).name();
  const onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(legalized.graph().node(0).attribute(1).g().name(), "choose." + unnamed);
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
}

// --- ZipMap's output declared as a map ----------------------------------------------------------------------------

// WinMLTools 0.1's Custom Vision classifiers: Softmax, then a ZipMap whose output is declared a map.
onnx::ModelProto ClassifierWithZipMapDeclaredAsAMap() {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 7, "ai.onnx.ml" : 1]>
g (float[1,3] data) => (float[1,3] loss) {
  probabilities = Softmax(data)
  loss = ai.onnx.ml.ZipMap<classlabels_strings = ["cat", "dog", "fox"]>(probabilities)
}
)ONNX");
  onnx::TypeProto& loss = *model.mutable_graph()->mutable_output(0)->mutable_type();
  loss.Clear();
  onnx::TypeProto_Map& map = *loss.mutable_map_type();
  map.set_key_type(onnx::TensorProto::STRING);
  map.mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return model;
}

TEST(LegalityRepairs, AZipMapOutputDeclaredAsAMapIsWrittenAsTheSequenceZipMapMakes) {
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(ClassifierWithZipMapDeclaredAsAMap(), {}, &report);
  const onnx::TypeProto& loss = legalized.graph().output(0).type();
  ASSERT_TRUE(loss.has_sequence_type());
  ASSERT_TRUE(loss.sequence_type().elem_type().has_map_type());
  EXPECT_EQ(loss.sequence_type().elem_type().map_type().key_type(), onnx::TensorProto::STRING);
  EXPECT_EQ(loss.sequence_type().elem_type().map_type().value_type().tensor_type().elem_type(),
            onnx::TensorProto::FLOAT);
  ASSERT_EQ(report.interface_changes.size(), 1u);
  EXPECT_EQ(report.interface_changes[0].value, "loss");
  EXPECT_EQ(report.interface_changes[0].before, "map(string,tensor(float))");
  EXPECT_EQ(report.interface_changes[0].after, "seq(map(string,tensor(float)))");
  EXPECT_THAT(report.legacy_repairs, IsEmpty()) << "an interface change is listed once, as one";
  EXPECT_TRUE(report.changed);
}

TEST(LegalityRepairs, AZipMapOfInt64LabelsMakesASequenceOfMapsFromInt64) {
  onnx::ModelProto model = ClassifierWithZipMapDeclaredAsAMap();
  onnx::AttributeProto& labels = *model.mutable_graph()->mutable_node(1)->mutable_attribute(0);
  labels.Clear();
  labels.set_name("classlabels_int64s");
  labels.set_type(onnx::AttributeProto::INTS);
  for (int64_t label : {7, 8, 9}) labels.add_ints(label);
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(legalized.graph().output(0).type().sequence_type().elem_type().map_type().key_type(),
            onnx::TensorProto::INT64);
  ASSERT_EQ(report.interface_changes.size(), 1u);
  EXPECT_EQ(report.interface_changes[0].after, "seq(map(int64,tensor(float)))");
}

TEST(LegalityRepairs, AZipMapOutputDeclaredAsItIsMadeIsNoChange) {
  onnx::ModelProto model = ClassifierWithZipMapDeclaredAsAMap();
  onnx::TypeProto& loss = *model.mutable_graph()->mutable_output(0)->mutable_type();
  const onnx::TypeProto map = loss;
  *loss.mutable_sequence_type()->mutable_elem_type() = map;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_TRUE(SameModel(legalized, model));
  EXPECT_THAT(report.interface_changes, IsEmpty());
  EXPECT_FALSE(report.changed);
}

// --- an ai.onnx.ml output declared of a type its op never makes ----------------------------------------------------

// WinMLTools 0.1's CoreML conversions (BikeSharing's one-hot encoder) declared FeatureVectorizer's output double.
TEST(LegalityRepairs, AnMlOutputDeclaredOfAnotherElementTypeIsWrittenWithTheOneItsSchemaMakes) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["ai.onnx.ml" : 1]>
g (float[1,2] a, float[1,3] b) => (double[1,5] features) {
  features = ai.onnx.ml.FeatureVectorizer<inputdimensions = [2, 3]>(a, b)
}
)");
  ASSERT_THAT(OnnxCheckerSays(model, /*full=*/true), HasSubstr("(FLOAT) vs (DOUBLE)"));
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
  const onnx::TypeProto::Tensor& features = legalized.graph().output(0).type().tensor_type();
  EXPECT_EQ(features.elem_type(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(features.shape().dim(1).dim_value(), 5) << "the shape declared is kept";
  ASSERT_EQ(report.interface_changes.size(), 1u);
  EXPECT_EQ(report.interface_changes[0].value, "features");
  EXPECT_EQ(report.interface_changes[0].before, "tensor(double)[1,5]");
  EXPECT_EQ(report.interface_changes[0].after, "tensor(float)[1,5]");
}

// An output declared as its schema makes it is no change.
TEST(LegalityRepairs, AnMlOutputDeclaredAsItsSchemaMakesItIsNoChange) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["ai.onnx.ml" : 1]>
g (float[1,2] a, float[1,3] b) => (float[1,5] features) {
  features = ai.onnx.ml.FeatureVectorizer<inputdimensions = [2, 3]>(a, b)
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_THAT(report.interface_changes, IsEmpty());
  EXPECT_EQ(legalized.graph().output(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
}

// --- an output declared without a shape ---------------------------------------------------------------------------

TEST(LegalityRepairs, AnOutputWithoutAShapeGetsTheShapeInferenceFinds) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 7, opset_import: ["" : 12]>
g (float[N,3] x) => (float[N,3] y, float[N,3] z) {
  y = Relu(x)
  z = Neg(y)
}
)");
  model.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->clear_shape();
  ASSERT_THAT(OnnxCheckerSays(model), HasSubstr("Field 'shape' of 'type' is required but missing"));
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
  ASSERT_EQ(report.interface_changes.size(), 1u);
  EXPECT_EQ(report.interface_changes[0].value, "z");
  EXPECT_EQ(report.interface_changes[0].before, "tensor(float)");
  EXPECT_EQ(report.interface_changes[0].after, "tensor(float)[N,3]");
  EXPECT_EQ(legalized.graph().output(0).type().SerializeAsString(), model.graph().output(0).type().SerializeAsString())
      << "an output declared with its shape keeps it";
}

TEST(LegalityRepairs, AnOutputWhoseRankNoOneKnowsIsRefusedNamingTheField) {
  // Reshape to a shape computed at run time: inference finds no rank for y.
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 7, opset_import: ["" : 12]>
g (float[6] x, int64[2] s) => (float[2,3] y) {
  y = Reshape(x, s)
}
)");
  model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "Field 'shape' of 'type' is required but missing");
}

// --- models of ai.onnx.ml alone ------------------------------------------------------------------------------------

// A CoreML conversion of 2018 (IR 3) of ai.onnx.ml alone, whose index is an initializer not listed as an input.
onnx::ModelProto MlOnlyModelWithUnlistedInitializer() {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["ai.onnx.ml" : 1]>
g (float[1,4] x) => (float[1,2] y) {
  y = ai.onnx.ml.ArrayFeatureExtractor(x, index)
}
)ONNX");
  onnx::TensorProto& index = *model.mutable_graph()->add_initializer();
  index.set_name("index");
  index.set_data_type(onnx::TensorProto::INT64);
  index.add_dims(2);
  index.add_int64_data(3);
  index.add_int64_data(0);
  return model;
}

TEST(LegalityRepairs, AnMlOnlyIr3ModelWithInitializersNotListedAsInputsIsRaisedToIr4) {
  const onnx::ModelProto model = MlOnlyModelWithUnlistedInitializer();
  ASSERT_THAT(OnnxCheckerSays(model), HasSubstr("in initializer but not in graph input"));
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(legalized.ir_version(), 4);
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
  EXPECT_TRUE(report.changed);
  EXPECT_EQ(report.ir_version_after, 4);
  EXPECT_EQ(report.onnx_check, "onnx's checker and strict shape inference accept the result");
}

TEST(LegalityRepairs, AnMlOnlyModelImportingNothingImportsTheMlDomain) {
  onnx::ModelProto model = MlOnlyModelWithUnlistedInitializer();
  model.clear_opset_import();
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  ASSERT_EQ(legalized.opset_import_size(), 1);
  EXPECT_EQ(legalized.opset_import(0).domain(), "ai.onnx.ml");
  EXPECT_EQ(legalized.opset_import(0).version(), 1);
  EXPECT_THAT(report.legacy_repairs, ElementsAre(HasSubstr("read as ai.onnx.ml opset 1")));
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
}

// "Nothing to legalize" is not "valid": a broken model of ai.onnx.ml alone is refused like any other.
TEST(LegalityRepairs, AnMlOnlyModelTheCheckerRefusesIsRefusedAndLeftAsItWas) {
  onnx::ModelProto too_new = MlOnlyModelWithUnlistedInitializer();
  too_new.set_ir_version(99);
  ExpectRejected(too_new, absl::StatusCode::kFailedPrecondition, "would not pass onnx's checker");

  onnx::ModelProto dangling = MlOnlyModelWithUnlistedInitializer();
  dangling.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  ExpectRejected(dangling, absl::StatusCode::kInvalidArgument, "input 'nowhere' is not defined");
}

// --- a domain used and not imported ---------------------------------------------------------------------------------

// Windows ML's mel-spectrogram preprocessing model (IR 7, opset 13) uses com.microsoft.experimental's HannWindow
// and imports only the default domain. That is no era's convention but a malformed model (onnx's checker: "No
// opset import for domain"; ONNX Runtime 1.31 does not load it either), so it is refused naming the domain, and
// not given an import that would let it pass as legal.
TEST(LegalityRepairs, AModernModelUsingADomainItDoesNotImportIsRefusedNamingTheDomain) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 7, opset_import: ["" : 13]>
g (int64 n) => (float[8] y) {
  window = com.microsoft.experimental.HannWindow(n)
  y = Relu(window)
}
)");
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "com.microsoft.experimental");
}

// --- no IR version ---------------------------------------------------------------------------------------------------

// The early runtimes' test models: an opset-7 import, and the IR version left unset.
onnx::ModelProto ReluWithoutIrVersion() {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,3] x) => (float[1,3] y) {
  y = Relu(x)
}
)");
  model.clear_ir_version();
  return model;
}

TEST(LegalityRepairs, AModelWithoutAnIrVersionGetsTheOneItsImportsImply) {
  onnx::ModelProto model = ReluWithoutIrVersion();
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(legalized.ir_version(), 3);
  EXPECT_EQ(report.ir_version_before, 0);
  EXPECT_EQ(report.ir_version_after, 3) << "the report says what is written (issue 42's mutants: it said 0)";
  EXPECT_THAT(report.legacy_repairs, ElementsAre(HasSubstr("no ir_version: written as 3")));
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
}

TEST(LegalityRepairs, AModelWithoutAnIrVersionOrImportsIsReadAsIr3AndTheOpsetItsNodesFit) {
  onnx::ModelProto model = ReluWithoutIrVersion();
  model.clear_opset_import();
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_GE(legalized.ir_version(), 3);
  EXPECT_EQ(DefaultOpset(legalized), 1);
  EXPECT_THAT(report.legacy_repairs,
              ElementsAre(HasSubstr("no ir_version: written as 3"), HasSubstr("read as opset 1")));
}

// --- a recurrent op's Y declared without num_directions -----------------------------------------------------------

// PyTorch 0.3's single-layer RNN (onnx/onnx#926's re-export): weights of ONNX's ranks, Y declared as PyTorch's own
// output, [seq_length, batch, hidden], without the num_directions axis.
onnx::ModelProto RnnWithYDeclaredAtRank3(const std::string& direction = "forward") {
  const std::string text = absl::StrCat(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[4,1,2] x, float[1,3,2] w, float[1,3,3] r) => (float[4,1,3] y, float[1,1,3] h) {
  y, h = RNN<hidden_size = 3, direction = ")",
                                        direction, R"(">(x, w, r)
}
)");
  return ParseModel(text.c_str());
}

TEST(LegalityRepairs, ARecurrentYDeclaredWithoutNumDirectionsIsDeclaredWithIt) {
  const onnx::ModelProto model = RnnWithYDeclaredAtRank3();
  ASSERT_THAT(OnnxCheckerSays(model, /*full=*/true), HasSubstr("Inferred shape and existing shape differ in rank"));
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
  ASSERT_EQ(report.interface_changes.size(), 1U);
  EXPECT_EQ(report.interface_changes[0].value, "y");
  EXPECT_EQ(report.interface_changes[0].before, "tensor(float)[4,1,3]");
  EXPECT_EQ(report.interface_changes[0].after, "tensor(float)[4,1,1,3]");
  EXPECT_THAT(report.interface_changes[0].why, HasSubstr("num_directions"));
  const Tensor x = Iota({4, 1, 2});
  const Tensor w = Iota({1, 3, 2});
  const Tensor r = Iota({1, 3, 3});
  ExpectSameOutputs(LegalizedCopy(RnnWithYDeclaredAtRank3(), {}), legalized, {{"x", &x}, {"w", &w}, {"r", &r}});
}

TEST(LegalityRepairs, ARecurrentYANodeReadsAtRank3IsLeftToTheCheck) {
  onnx::ModelProto model = RnnWithYDeclaredAtRank3();
  onnx::NodeProto& relu = *model.mutable_graph()->add_node();
  relu.set_op_type("Relu");
  relu.add_input("y");
  relu.add_output("z");
  *model.mutable_graph()->add_output() = model.graph().output(0);
  model.mutable_graph()->mutable_output(2)->set_name("z");
  ExpectRejected(model, absl::StatusCode::kFailedPrecondition, "differ in rank");
}

TEST(LegalityRepairs, ABidirectionalYDeclaredAtRank3IsLeftToTheCheck) {
  ExpectRejected(RnnWithYDeclaredAtRank3("bidirectional"), absl::StatusCode::kFailedPrecondition, "differ in rank");
}

// --- recurrent weights of rank 2
// --------------------------------------------------------------------------------------

TEST(LegalityRepairs, RecurrentWeightsOfRank2AreRefusedNamingTheNodeAndTheWeight) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[4,1,2] x, float[3,2] w, float[1,3,3] r) => (float[4,1,1,3] y) {
  y = RNN<hidden_size = 3>(x, w, r)
}
)");
  ExpectRejected(model, absl::StatusCode::kInvalidArgument,
                 "RNN node #0 (graph main): W 'w' is of rank 2, and RNN takes it of rank 3 in every version");
}

// --- IR 3's initializers listed as inputs, past IR 3 -----------------------------------------------------------------

// An exporter of onnx 1.1-1.3's era (IR 3): the weight is an initializer and, as IR 3 required, a graph input too.
onnx::ModelProto Ir3ModelWithItsWeightListedAsAnInput() {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[1,3] x, float[1,3] w) => (float[1,3] y) {
  y = Add(x, w)
}
)");
  onnx::TensorProto& weight = *model.mutable_graph()->add_initializer();
  weight.set_name("w");
  weight.set_data_type(onnx::TensorProto::FLOAT);
  weight.add_dims(1);
  weight.add_dims(3);
  for (float value : {0.5F, -1.0F, 2.0F}) weight.add_float_data(value);
  return model;
}

TEST(LegalityRepairs, MovedPastIr3AnInitializerListedAsAnInputIsNoLongerAnInputACallerMayFeed) {
  const onnx::ModelProto model = Ir3ModelWithItsWeightListedAsAnInput();
  Options at_13;
  at_13.target_opset = 13;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, at_13, &report);
  EXPECT_EQ(legalized.ir_version(), 7);
  ASSERT_EQ(legalized.graph().input_size(), 1);
  EXPECT_EQ(legalized.graph().input(0).name(), "x") << "the input a caller feeds stays";
  ASSERT_EQ(legalized.graph().initializer_size(), 1);
  EXPECT_EQ(legalized.graph().initializer(0).name(), "w") << "the weight stays, a constant as it was";
  EXPECT_THAT(report.legacy_repairs, ElementsAre(HasSubstr("graph main: 1 initializer(s) listed as graph inputs, as "
                                                           "IR 3 required, are no longer listed at IR 7")));
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
  const Tensor x = Iota({1, 3});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
  EXPECT_TRUE(SameModel(LegalizedCopy(legalized, at_13), legalized)) << "a second run changes nothing";
}

TEST(LegalityRepairs, AtIr3AnInitializerListedAsAnInputStaysListed) {
  const onnx::ModelProto model = Ir3ModelWithItsWeightListedAsAnInput();
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(legalized.ir_version(), 3);
  EXPECT_EQ(legalized.graph().input_size(), 2) << "IR 3 requires it";
  EXPECT_THAT(report.legacy_repairs, IsEmpty());
}

TEST(LegalityRepairs, AnMlOnlyIr3ModelRaisedToIr4UnlistsTheInitializersItListed) {
  onnx::ModelProto model = MlOnlyModelWithUnlistedInitializer();
  onnx::TensorProto& listed = *model.mutable_graph()->add_initializer();
  listed = model.graph().initializer(0);
  listed.set_name("listed_index");
  onnx::ValueInfoProto& listed_input = *model.mutable_graph()->add_input();
  listed_input.set_name("listed_index");
  onnx::TypeProto::Tensor& declared = *listed_input.mutable_type()->mutable_tensor_type();
  declared.set_elem_type(onnx::TensorProto::INT64);
  declared.mutable_shape()->add_dim()->set_dim_value(2);
  onnx::NodeProto& second = *model.mutable_graph()->add_node();
  second = model.graph().node(0);
  second.set_input(1, "listed_index");
  second.set_output(0, "z");
  *model.mutable_graph()->add_output() = model.graph().output(0);
  model.mutable_graph()->mutable_output(1)->set_name("z");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(legalized.ir_version(), 4);
  ASSERT_EQ(legalized.graph().input_size(), 1);
  EXPECT_EQ(legalized.graph().input(0).name(), "x");
  EXPECT_THAT(report.legacy_repairs, ElementsAre(HasSubstr("1 initializer(s) listed as graph inputs")));
  EXPECT_EQ(OnnxCheckerSays(legalized, /*full=*/true), "");
}

// --- an activation spelled in lower case -------------------------------------------------------------------------

TEST(LegalityRepairs, ARecurrentActivationInLowerCaseIsSpelledAsTheSpecSpellsIt) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2,1,2] x, float[1,3,2] w, float[1,3,3] r) => (float[1,1,3] h) {
  y, h = RNN<hidden_size = 3, activations = ["tanh"]>(x, w, r)
}
)");
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  const onnx::AttributeProto* activations = FindAttribute(legalized.graph().node(0), "activations");
  ASSERT_NE(activations, nullptr);
  ASSERT_EQ(activations->strings_size(), 1);
  EXPECT_EQ(activations->strings(0), "Tanh");
  EXPECT_THAT(report.legacy_repairs,
              ElementsAre(HasSubstr("activations [tanh] spelled as the spec spells them, [Tanh]")));
}

}  // namespace
}  // namespace onnx_legalize
