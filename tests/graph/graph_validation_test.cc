// ValidateGraphs: the structural checks a model passes before onnx's converter, checker or shape inference
// (or the planner) sees it. Every guard clause has a test; the CLI's view of the same cases is
// hostile_input_test.cc.
#include "graph/graph_validation.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::ParseModel;
using ::testing::AllOf;
using ::testing::HasSubstr;

void ExpectInvalid(const onnx::ModelProto& model, const std::string& message) {
  const absl::Status status = ValidateGraphs(model);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
}

constexpr char kValid[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[4,5] x, int64[1] s, int64[1] e) => (float[?,?] y, float[?,?] z) {
  y = DynamicSlice(x, s, e)
  z = If (c) <
    then_branch = then_body () => (float[?,?] t) { t = DynamicSlice(y, s, e) },
    else_branch = else_body () => (float[?,?] u) { u = Relu(x) }
  >
}
)";

TEST(GraphValidationTest, AcceptsAValidModelWithSubgraphsThatReadOuterNames) {
  EXPECT_TRUE(ValidateGraphs(ParseModel(kValid)).ok());
}

// kValid with its input 'x' given an initializer stored as external data at `location`.
onnx::ModelProto WithExternalInitializer(const std::string& location) {
  onnx::ModelProto model = ParseModel(kValid);
  onnx::TensorProto& x = *model.mutable_graph()->add_initializer();
  x.set_name("x");
  x.set_data_type(onnx::TensorProto::FLOAT);
  x.add_dims(4);
  x.add_dims(5);
  x.set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto& entry = *x.add_external_data();
  entry.set_key("location");
  entry.set_value(location);
  return model;
}

// Issue 42: a model in memory (Legalize, Python's legalize()) has no folder, and its references were passed
// through unread; the CLI refused the same ones. A reference no reader may follow is refused wherever the model
// comes from.
TEST(GraphValidationTest, RejectsExternalDataLocationsNoReaderMayFollow) {
  EXPECT_TRUE(ValidateGraphs(WithExternalInitializer("weights/x.bin")).ok());
  EXPECT_TRUE(ValidateGraphs(WithExternalInitializer("a/../x.bin")).ok()) << "stays inside";
  ExpectInvalid(WithExternalInitializer("../canary.bin"),
                "initializer 'x' (graph main): external data location '../canary.bin' leaves the model's folder");
  ExpectInvalid(WithExternalInitializer("a/../../canary.bin"), "leaves the model's folder");
  ExpectInvalid(WithExternalInitializer("."), "leaves the model's folder");
  ExpectInvalid(WithExternalInitializer("/dev/zero"),
                "external data location '/dev/zero' is absolute; it must be relative to the model's folder");
  ExpectInvalid(WithExternalInitializer(std::string("x\0.bin", 6)), "external data location contains a NUL byte");
  ExpectInvalid(WithExternalInitializer(""), "external_data has no non-empty location");
  onnx::ModelProto bad_offset = WithExternalInitializer("x.bin");
  onnx::StringStringEntryProto& offset = *bad_offset.mutable_graph()->mutable_initializer(0)->add_external_data();
  offset.set_key("offset");
  offset.set_value("-1");
  ExpectInvalid(bad_offset, "external_data offset '-1' is not a non-negative decimal integer");
}

TEST(GraphValidationTest, RejectsAModelWithoutAGraph) { ExpectInvalid(onnx::ModelProto(), "the model has no graph"); }

TEST(GraphValidationTest, RejectsAnUndefinedInput) {
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) { y = Add(x, nowhere) }
)"),
                "Add node #0 (graph main): input 'nowhere' is not defined");
}

TEST(GraphValidationTest, RejectsACycle) {
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) {
  a = Relu(y)
  y = Relu(a)
}
)"),
                "input 'y' is not defined");
}

TEST(GraphValidationTest, RejectsTwoDefinitionsOfOneName) {
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) {
  y = Relu(x)
  y = Neg(x)
}
)"),
                "graph main: 'y' is defined twice (again as an output of Neg node #1)");
}

// Of two initializers of one name, a fold would read whichever it met first and a runtime perhaps the
// other: the model says two things.
TEST(GraphValidationTest, RejectsTwoInitializersOfOneNameDenseOrSparse) {
  const char* kTwoInitializers = R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2] x) => (float[2] y) <float[2] w = {1, 2}, float[2] w = {3, 4}> { y = Add(x, w) }
)";
  ExpectInvalid(ParseModel(kTwoInitializers), "graph main: initializer 'w' is defined twice");
  onnx::ModelProto sparse = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2] x) => (float[2] y) <float[2] w = {1, 2}> { y = Add(x, w) }
)");
  sparse.mutable_graph()->add_sparse_initializer()->mutable_values()->set_name("w");
  ExpectInvalid(sparse, "graph main: initializer 'w' is defined twice");
}

TEST(GraphValidationTest, AcceptsAnInitializerThatIsAlsoAGraphInput) {
  EXPECT_TRUE(ValidateGraphs(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {1, 2}> { y = Add(x, w) }
)"))
                  .ok());
}

TEST(GraphValidationTest, RejectsAGraphOutputNothingDefines) {
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y, float[4] ghost) { y = Relu(x) }
)"),
                "graph main: output 'ghost' is produced by no node, input or initializer");
}

// onnx's version converter reads an Upsample's inputs()[1] unchecked (heap overflow, legalize fuzzer).
TEST(GraphValidationTest, RejectsANodeWithFewerInputsThanItsSchemaTakes) {
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,1,2,2] x) => (float[?,?,?,?] y) { y = Upsample(x) }
)"),
                "Upsample node #0 (graph main): has 1 inputs; Upsample-9 has 2");
}

TEST(GraphValidationTest, RejectsNodesWithTooManyInputsOrOutputs) {
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y) { y = Relu(x, x) }
)"),
                "Relu node #0 (graph main): has 2 inputs; Relu-13 has 1");
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) { y, z = Relu(x) }
)"),
                "Relu node #0 (graph main): has 2 outputs; Relu-6 has 1");
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[4] x) => (float[4] y) {
  y = If (c) <
    then_branch = then_body () => (float[4] t) { t = Concat <axis = 0> () },
    else_branch = else_body () => (float[4] u) { u = Identity(x) }
  >
}
)"),
                "Concat node #0 (graph main/then_body): has 0 inputs; Concat-4 has at least 1");
}

// onnx's version converter reads Upsample's 'mode' as a string whatever its type (a bad downcast on INTS;
// legalize fuzzer).
TEST(GraphValidationTest, RejectsAKnownAttributeOfAnotherTypeThanItsSchemaGives) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,1,2,2] x, float[4] scales) => (float[?,?,?,?] y) { y = Upsample <mode = "linear"> (x, scales) }
)");
  model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::INTS);
  ExpectInvalid(model, "Upsample node #0 (graph main): attribute 'mode' is INTS; Upsample-9 takes STRING");
  // Untyped (as some early writers left them) and unknown attributes are left alone.
  model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::UNDEFINED);
  onnx::AttributeProto* extra = model.mutable_graph()->mutable_node(0)->add_attribute();
  extra->set_name("exporter_note");
  extra->set_type(onnx::AttributeProto::INT);
  EXPECT_TRUE(ValidateGraphs(model).ok());
}

// onnx's Unsqueeze_12_13 adapter turns an Unsqueeze-9 without 'axes' into an Unsqueeze-13 with one input
// (legalize fuzzer: the legalized model then failed validation itself).
TEST(GraphValidationTest, RejectsANodeWithoutARequiredAttribute) {
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[1,4] y) { y = Unsqueeze(x) }
)"),
                "Unsqueeze node #0 (graph main): has no attribute 'axes', which Unsqueeze-1 requires");
  ExpectInvalid(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) {
  k = Constant <vaLue = float[4] {1, 2, 3, 4}> ()
  y = Add(x, k)
}
)"),
                "Constant node #0 (graph main): has no attribute 'value', which Constant-9 requires");
}

TEST(GraphValidationTest, LeavesOpsWithoutASchemaAndOtherDomainsToTheirOwnChecks) {
  EXPECT_TRUE(ValidateGraphs(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9, "com.vendor" : 1]>
g (float[4] x, int64[1] s) => (float[?] y, float[4] z, float[4] w) {
  y = DynamicSlice(x, s)
  z = NoSuchOp(x, x, x)
  w = com.vendor.Custom()
}
)"))
                  .ok());
}

TEST(GraphValidationTest, RejectsSubgraphsThatCannotBeFoundAgain) {
  const onnx::ModelProto model = ParseModel(kValid);
  onnx::ModelProto twice = model;
  twice.mutable_graph()->mutable_node(1)->mutable_attribute(0)->set_name("else_branch");
  ExpectInvalid(twice, "If node #1 (graph main): attribute 'else_branch' appears twice");

  onnx::ModelProto both = model;
  onnx::AttributeProto* then_branch = both.mutable_graph()->mutable_node(1)->mutable_attribute(0);
  *then_branch->add_graphs() = then_branch->g();
  ExpectInvalid(both, "If node #1 (graph main): attribute 'then_branch' holds both g and graphs");

  onnx::ModelProto nameless = model;
  nameless.mutable_graph()->mutable_node(1)->set_output(0, "");
  nameless.mutable_graph()->mutable_output(1)->set_name("y");
  ExpectInvalid(nameless, "If node #1 (graph main): holds a subgraph but has no output to name it by");
}

// A chain of If nodes whose then-branches nest `depth` levels; each else-branch is one Identity.
onnx::ModelProto NestedIfs(int depth) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[4] x) => (float[4] y) { y = Identity(x) }
)");
  onnx::GraphProto body;
  body.set_name(absl::StrCat("level", depth));
  *body.add_node() = model.graph().node(0);
  body.mutable_node(0)->set_output(0, "inner");
  body.add_output()->set_name("inner");
  for (int level = depth - 1; level >= 0; --level) {
    onnx::NodeProto node;
    node.set_op_type("If");
    node.add_input("c");
    node.add_output(level == 0 ? "y" : absl::StrCat("y", level));
    for (const char* branch : {"then_branch", "else_branch"}) {
      onnx::AttributeProto* attribute = node.add_attribute();
      attribute->set_name(branch);
      attribute->set_type(onnx::AttributeProto::GRAPH);
      if (attribute->name() == "then_branch") {
        *attribute->mutable_g() = std::move(body);
      } else {  // one level only: nesting both branches would double the model at every level
        onnx::GraphProto* other = attribute->mutable_g();
        other->set_name(absl::StrCat("else", level + 1));
        *other->add_node() = model.graph().node(0);
        other->mutable_node(0)->set_output(0, absl::StrCat("x", level + 1));
        other->add_output()->set_name(absl::StrCat("x", level + 1));
      }
    }
    body = onnx::GraphProto();
    body.set_name(absl::StrCat("level", level));
    *body.add_node() = std::move(node);
    body.add_output()->set_name(body.node(0).output(0));
  }
  *model.mutable_graph()->mutable_node(0) = body.node(0);
  return model;
}

TEST(GraphValidationTest, AcceptsSubgraphsNestedToTheDocumentedDepth) {
  EXPECT_TRUE(ValidateGraphs(NestedIfs(kMaxSubgraphDepth)).ok());
}

TEST(GraphValidationTest, RejectsSubgraphsNestedPastTheDocumentedDepth) {
  ExpectInvalid(NestedIfs(kMaxSubgraphDepth + 1),
                absl::StrCat("is nested ", kMaxSubgraphDepth + 1, " levels deep; at most ", kMaxSubgraphDepth));
}

TEST(GraphValidationTest, TheConverterCheckAlsoStopsAtTheDocumentedDepth) {
  EXPECT_TRUE(ValidateGraphsForConverter(NestedIfs(kMaxSubgraphDepth).graph()).ok());
  const absl::Status status = ValidateGraphsForConverter(NestedIfs(kMaxSubgraphDepth + 1).graph());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr(absl::StrCat("is nested ", kMaxSubgraphDepth + 1,
                                                                    " levels deep; at most ", kMaxSubgraphDepth)));
}

// --- tensor sizes ------------------------------------------------------------------------------------------

onnx::ModelProto WithInitializer(const onnx::TensorProto& tensor) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) { y = Relu(x) }
)");
  *model.mutable_graph()->add_initializer() = tensor;
  return model;
}

onnx::TensorProto MakeTensor(int32_t type, std::vector<int64_t> dims) {
  onnx::TensorProto tensor;
  tensor.set_name("w");
  tensor.set_data_type(type);
  for (int64_t dim : dims) tensor.add_dims(dim);
  return tensor;
}

TEST(GraphValidationTest, AcceptsInitializersWhoseDataMatchesTheirDims) {
  onnx::TensorProto raw = MakeTensor(onnx::TensorProto::FLOAT, {2, 3});
  raw.set_raw_data(std::string(24, '\0'));
  EXPECT_TRUE(ValidateGraphs(WithInitializer(raw)).ok());
  onnx::TensorProto complex = MakeTensor(onnx::TensorProto::COMPLEX64, {2});
  for (int i = 0; i < 4; ++i) complex.add_float_data(i);  // (real, imaginary) pairs
  EXPECT_TRUE(ValidateGraphs(WithInitializer(complex)).ok());
  onnx::TensorProto strings = MakeTensor(onnx::TensorProto::STRING, {2});
  strings.add_string_data("a");
  strings.add_string_data("");
  EXPECT_TRUE(ValidateGraphs(WithInitializer(strings)).ok());
  onnx::TensorProto float16 = MakeTensor(onnx::TensorProto::FLOAT16, {1});
  float16.add_int32_data(0x3c00);
  EXPECT_TRUE(ValidateGraphs(WithInitializer(float16)).ok());
  onnx::TensorProto empty = MakeTensor(onnx::TensorProto::FLOAT, {0, int64_t{1} << 62});
  EXPECT_TRUE(ValidateGraphs(WithInitializer(empty)).ok()) << "no element, whatever the other dims";
}

TEST(GraphValidationTest, RejectsAnInitializerWithANegativeDim) {
  ExpectInvalid(WithInitializer(MakeTensor(onnx::TensorProto::FLOAT, {3, -1})),
                "initializer 'w' (graph main): dim 1 of [3, -1] is negative (-1)");
}

TEST(GraphValidationTest, RejectsAnInitializerWhoseElementCountOverflows) {
  ExpectInvalid(WithInitializer(MakeTensor(onnx::TensorProto::FLOAT, {int64_t{1} << 32, int64_t{1} << 32})),
                "initializer 'w' (graph main): the element count of dims [4294967296, 4294967296] overflows");
}

TEST(GraphValidationTest, RejectsAnInitializerWhoseByteSizeOverflows) {
  ExpectInvalid(WithInitializer(MakeTensor(onnx::TensorProto::DOUBLE, {int64_t{1} << 61})),
                "initializer 'w' (graph main): double tensor of 2305843009213693952 elements: its byte size overflows");
}

TEST(GraphValidationTest, RejectsRawDataOfTheWrongLength) {
  onnx::TensorProto tensor = MakeTensor(onnx::TensorProto::INT64, {2});
  tensor.set_raw_data(std::string(15, '\0'));
  ExpectInvalid(WithInitializer(tensor), "initializer 'w' (graph main): raw_data has 15 bytes, but int64 [2] needs 16");
  tensor = MakeTensor(onnx::TensorProto::STRING, {1});
  tensor.set_raw_data("a");
  ExpectInvalid(WithInitializer(tensor), "raw_data has 1 bytes, but string [1] needs string_data");
}

TEST(GraphValidationTest, RejectsATypedFieldOfTheWrongLength) {
  onnx::TensorProto tensor = MakeTensor(onnx::TensorProto::COMPLEX128, {2});
  tensor.add_double_data(1.0);
  ExpectInvalid(WithInitializer(tensor), "initializer 'w' (graph main): holds 1 values, but complex128 [2] needs 4");
  ExpectInvalid(WithInitializer(MakeTensor(onnx::TensorProto::UINT8, {3})), "holds 0 values, but uint8 [3] needs 3");
}

TEST(GraphValidationTest, ChecksOnlyTheDimsOfExternalData) {
  onnx::TensorProto tensor = MakeTensor(onnx::TensorProto::FLOAT, {1024});
  tensor.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = tensor.add_external_data();
  location->set_key("location");
  location->set_value("weights.bin");
  EXPECT_TRUE(ValidateGraphs(WithInitializer(tensor)).ok());
  tensor.set_dims(0, -1);
  ExpectInvalid(WithInitializer(tensor), "dim 0 of [-1] is negative");
}

TEST(GraphValidationTest, ChecksTensorAttributesAndSubgraphInitializers) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, float[4] x) => (float[?] y) {
  k = Constant <value = float[2] {1.0, 2.0}> ()
  y = If (c) <
    then_branch = then_body () => (float[2] t) { t = Identity(k) },
    else_branch = else_body () => (float[2] u) { u = Identity(k) }
  >
}
)");
  onnx::ModelProto bad_attribute = model;
  bad_attribute.mutable_graph()->mutable_node(0)->set_name("k_node");
  bad_attribute.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t()->add_float_data(3.0f);
  ExpectInvalid(bad_attribute,
                "Constant 'k_node' (graph main): attribute 'value': holds 3 values, but float [2] needs 2");

  onnx::ModelProto bad_subgraph_initializer = model;
  onnx::GraphProto* then_body =
      bad_subgraph_initializer.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  onnx::TensorProto* tensor = then_body->add_initializer();
  *tensor = MakeTensor(onnx::TensorProto::FLOAT, {2});
  ExpectInvalid(bad_subgraph_initializer, "initializer 'w' (graph main/then_body): holds 0 values");
}

// --- ValidateGraphsForConverter: MoveDefaultOpset's own check ------------------------------------------

onnx::TensorProto ScalarTensor() {
  onnx::TensorProto tensor = MakeTensor(onnx::TensorProto::FLOAT, {});
  tensor.add_float_data(1.0f);
  return tensor;
}

void ExpectInvalidForConverter(const onnx::ModelProto& model, const std::string& message) {
  const absl::Status status = ValidateGraphsForConverter(model.graph());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
}

TEST(GraphValidationForConverterTest, AcceptsAValidModelWithSubgraphsThatReadOuterNames) {
  EXPECT_TRUE(ValidateGraphsForConverter(ParseModel(kValid).graph()).ok());
}

// The same walk as ValidateGraphs: nodes in topological order, as ONNX requires.
TEST(GraphValidationForConverterTest, RejectsNodesOutOfOrderAsValidateGraphsDoes) {
  ExpectInvalidForConverter(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x) => (float[4] y) {
  y = Relu(a)
  a = Neg(x)
}
)"),
                            "Relu node #0 (graph main): input 'a' is not defined by any graph input, initializer or "
                            "earlier node");
}

// Without the schema checks, which read the model's opset: the converter refuses what its schemas reject.
TEST(GraphValidationForConverterTest, LeavesSchemaChecksToValidateGraphs) {
  const onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y) {
  y = Relu(x, x)
}
)");
  EXPECT_FALSE(ValidateGraphs(model).ok());
  EXPECT_TRUE(ValidateGraphsForConverter(model.graph()).ok());
}

TEST(GraphValidationForConverterTest, RejectsAnInputWithoutANameOrListedTwice) {
  onnx::ModelProto nameless = ParseModel(kValid);
  nameless.mutable_graph()->mutable_input(0)->set_name("");
  ExpectInvalidForConverter(nameless, "graph main: an input has no name");
  onnx::ModelProto twice = ParseModel(kValid);
  *twice.mutable_graph()->add_input() = twice.graph().input(1);
  ExpectInvalidForConverter(twice, "graph main: input 'x' is listed twice");
}

TEST(GraphValidationForConverterTest, RejectsAnInitializerWithoutANameOrDefinedTwice) {
  onnx::ModelProto nameless = WithInitializer(ScalarTensor());
  nameless.mutable_graph()->mutable_initializer(0)->set_name("");
  ExpectInvalidForConverter(nameless, "graph main: an initializer has no name");
  onnx::ModelProto twice = WithInitializer(ScalarTensor());
  twice.mutable_graph()->add_sparse_initializer()->mutable_values()->set_name("w");
  ExpectInvalidForConverter(twice, "graph main: initializer 'w' is defined twice");
}

TEST(GraphValidationForConverterTest, AcceptsAnInitializerThatIsAlsoAnInput) {
  onnx::ModelProto model = WithInitializer(ScalarTensor());
  model.mutable_graph()->mutable_initializer(0)->set_name("x");
  EXPECT_TRUE(ValidateGraphsForConverter(model.graph()).ok());
}

TEST(GraphValidationForConverterTest, RejectsANodeOutputDefinedAlready) {
  onnx::ModelProto model = ParseModel(kValid);
  model.mutable_graph()->mutable_node(0)->set_output(0, "x");
  ExpectInvalidForConverter(model, "graph main: 'x' is defined twice (again as an output of DynamicSlice node #0)");
}

TEST(GraphValidationForConverterTest, RejectsAnUndefinedInputNamingTheSubgraph) {
  onnx::ModelProto model = ParseModel(kValid);
  model.mutable_graph()->mutable_node(1)->mutable_attribute(1)->mutable_g()->mutable_node(0)->set_input(0, "nowhere");
  ExpectInvalidForConverter(model,
                            "Relu node #0 (graph main/else_body): input 'nowhere' is not defined by any graph input, "
                            "initializer or earlier node");
  // A subgraph without a name of its own is named after its owner and attribute.
  model.mutable_graph()->mutable_node(1)->mutable_attribute(1)->mutable_g()->clear_name();
  ExpectInvalidForConverter(model, "Relu node #0 (graph main/If.else_branch)");
  model.mutable_graph()->mutable_node(1)->set_name("choose");
  ExpectInvalidForConverter(model, "Relu node #0 (graph main/choose.else_branch)");

  onnx::ModelProto in_a_list = ParseModel(kValid);
  onnx::AttributeProto* branches = in_a_list.mutable_graph()->mutable_node(1)->add_attribute();
  branches->set_name("branches");
  branches->set_type(onnx::AttributeProto::GRAPHS);
  *branches->add_graphs() = in_a_list.graph().node(1).attribute(1).g();
  *branches->add_graphs() = in_a_list.graph().node(1).attribute(1).g();
  branches->mutable_graphs(1)->mutable_node(0)->set_name("last");
  branches->mutable_graphs(1)->mutable_node(0)->set_input(0, "nowhere");
  ExpectInvalidForConverter(in_a_list,
                            "Relu 'last' (graph main/else_body): input 'nowhere' is not defined by any graph input, "
                            "initializer or earlier node");
  // An unnamed graph of a list is told from its siblings by its index.
  branches->mutable_graphs(1)->clear_name();
  ExpectInvalidForConverter(in_a_list,
                            "Relu 'last' (graph main/If.branches[1]): input 'nowhere' is not defined by any graph "
                            "input, initializer or earlier node");
}

TEST(GraphValidationForConverterTest, RejectsAnAttributeWithoutAType) {
  onnx::ModelProto model = ParseModel(kValid);
  model.mutable_graph()->mutable_node(0)->add_attribute()->set_name("note");
  ExpectInvalidForConverter(model, "DynamicSlice node #0 (graph main): attribute 'note' has no type");
}

// onnx 1.12's converter dies with SIGSEGV on a main-graph output that nothing produces.
TEST(GraphValidationForConverterTest, RejectsAGraphOutputNothingDefines) {
  onnx::ModelProto model = ParseModel(kValid);
  model.mutable_graph()->add_output()->set_name("ghost");
  ExpectInvalidForConverter(model, "graph main: output 'ghost' is produced by no node, input or initializer");
  onnx::ModelProto unnamed = ParseModel(kValid);
  unnamed.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g()->add_output();
  ExpectInvalidForConverter(unnamed, "graph main/then_body: output '' is produced by no node, input or initializer");
}

}  // namespace
}  // namespace onnx_legalize
