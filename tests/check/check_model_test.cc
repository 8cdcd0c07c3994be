// CheckModel: which nodes have no schema at the opset their model imports.
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {

// Readable failures: gmock would print the struct's bytes. (Beside CheckFinding, for gtest to find it.)
void PrintTo(const CheckFinding& f, std::ostream* os) {
  *os << "{" << f.graph_path << ", '" << f.node_name << "', " << f.op_type << ", " << f.domain << ", " << f.opset
      << ", \"" << f.reason << "\"}";
}

namespace {

using ::onnx_legalize::testing::NameNodesAsOutputNode;
using ::onnx_legalize::testing::ParseModel;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<CheckFinding> Check(const onnx::ModelProto& model) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(model);
  EXPECT_TRUE(findings.ok()) << findings.status();
  return findings.ok() ? *findings : std::vector<CheckFinding>{};
}

auto IsFinding(const std::string& graph_path, const std::string& node_name, const std::string& op_type,
               const std::string& domain, int64_t opset, const std::string& reason_part) {
  return AllOf(Field(&CheckFinding::graph_path, graph_path), Field(&CheckFinding::node_name, node_name),
               Field(&CheckFinding::op_type, op_type), Field(&CheckFinding::domain, domain),
               Field(&CheckFinding::opset, opset), Field(&CheckFinding::reason, HasSubstr(reason_part)));
}

// The shape of the models PyTorch's opset-9 exporter wrote.
constexpr char kDynamicSliceAtOpset9[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[20, 10, 5] x, int64[1] starts, int64[1] ends) => (float[M, 10, 5] y) {
  y = DynamicSlice (x, starts, ends)
}
)ONNX";

TEST(CheckModelTest, FindsDynamicSliceInTheMainGraph) {
  onnx::ModelProto model = ParseModel(kDynamicSliceAtOpset9);
  NameNodesAsOutputNode(model);
  EXPECT_THAT(Check(model), ElementsAre(IsFinding("main", "y_node", "DynamicSlice", "ai.onnx", 9, "removed")));
}

TEST(CheckModelTest, FindsDynamicSliceInsideALoopBody) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (int64 trip, bool cond, float[8] x, int64[1] starts, int64[1] ends) => (float[N, 2] out) {
  out = Loop (trip, cond) <body = loop_body (int64 i, bool c) => (bool c_out, float[2] s) {
    c_out = Identity (c)
    s = DynamicSlice (x, starts, ends)
  }>
}
)ONNX");
  NameNodesAsOutputNode(model);
  EXPECT_THAT(Check(model),
              ElementsAre(IsFinding("main/loop_body", "s_node", "DynamicSlice", "ai.onnx", 9, "removed")));
}

TEST(CheckModelTest, NamesAnUnnamedSubgraphAfterItsNodeAndAttributeAtAnyDepth) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (bool c, int64 trip, float[8] x, int64[1] starts, int64[1] ends) => (float[2] y) {
  y = If (c) <then_branch = then_graph () => (float[2] t) {
    t = Loop (trip, c) <body = inner_body (int64 i, bool cc) => (bool c_out, float[2] s) {
      c_out = Identity (cc)
      s = DynamicSlice (x, starts, ends)
    }>
  }, else_branch = else_graph () => (float[2] e) {
    e = DynamicSlice (x, starts, ends)
  }>
}
)ONNX");
  NameNodesAsOutputNode(model);
  model.mutable_graph()->mutable_node(0)->mutable_attribute(1)->mutable_g()->clear_name();  // else_branch
  // The unnamed graph is a finding of its own (onnx's checker requires a name; legalizing names it so).
  EXPECT_THAT(Check(model),
              ElementsAre(IsFinding("main/y_node.else_branch", "", "(graph)", "ai.onnx", 9,
                                    "a graph without a name, which onnx's checker requires: named "
                                    "'y_node.else_branch'"),
                          IsFinding("main/then_graph/inner_body", "s_node", "DynamicSlice", "ai.onnx", 9, ""),
                          IsFinding("main/y_node.else_branch", "e_node", "DynamicSlice", "ai.onnx", 9, "")));
}

TEST(CheckModelTest, FindsAnOpThatExistsOnlyAtALaterOpset) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1, 1, 2, 2] x, float[4] scales) => (float[1, 1, 4, 4] y) {
  y = Resize (x, scales)
}
)ONNX")),
              ElementsAre(IsFinding("main", "", "Resize", "ai.onnx", 9, "exists only from opset 10")));
}

TEST(CheckModelTest, FindsAnOpDeprecatedAtTheImportedOpset) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1, 1, 2, 2] x, float[4] scales) => (float[1, 1, 4, 4] y) {
  y = Upsample (x, scales)
}
)ONNX")),
              ElementsAre(IsFinding("main", "", "Upsample", "ai.onnx", 10, "deprecated since opset 10")));
}

// Upsample-1 has a schema, experimental: onnx's checker passes it, and no runtime of today runs it.
TEST(CheckModelTest, FindsAnExperimentalOpAndLegalizingFixesIt) {
  const std::vector<CheckFinding> findings = Check(ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 6]>
g (float[1, 1, 2, 2] x) => (float[1, 1, 4, 4] y) {
  y = Upsample <height_scale = 2.0, width_scale = 2.0> (x)
}
)ONNX"));
  EXPECT_THAT(findings, ElementsAre(IsFinding("main", "", "Upsample", "ai.onnx", 6,
                                              "experimental op (Upsample-1), which ONNX Runtime and onnx-tensorflow "
                                              "do not run; the standard Upsample begins at opset 7")));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(findings[0].fixable);
}

TEST(CheckModelTest, FindsAnOpOnnxNeverDefined) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) {
  y = NoSuchOp (x)
}
)ONNX")),
              ElementsAre(IsFinding("main", "", "NoSuchOp", "ai.onnx", 13, "no schema")));
}

// A model that names a valid op but writes it in a way its schema rejects loads in no runtime.
TEST(CheckModelTest, FindsNodesThatDoNotMatchTheirSchema) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y, float[2] z, float[2] w) {
  y = Relu <alpha = 0.5> (x)
  z = Add (x, x, x)
  w = Transpose <perm = 0.5> (x)
}
)ONNX");
  NameNodesAsOutputNode(model);
  const std::vector<CheckFinding> findings = Check(model);
  EXPECT_THAT(findings,
              ElementsAre(IsFinding("main", "y_node", "Relu", "ai.onnx", 13, "does not match the schema of Relu-13"),
                          IsFinding("main", "z_node", "Add", "ai.onnx", 13, "has input size 3"),
                          IsFinding("main", "w_node", "Transpose", "ai.onnx", 13, "perm")));
  EXPECT_THAT(findings[0].reason, HasSubstr("alpha"));
  for (const CheckFinding& finding : findings) {
    EXPECT_FALSE(finding.fixable) << finding.reason;
    EXPECT_THAT(finding.reason, ::testing::Not(HasSubstr("==> Context"))) << "onnx's node dump is cut";
  }
}

// onnx 1.12's Loop schema wants a loop-carried value; later onnx releases and ONNX Runtime run a Loop of M
// and cond alone, so --check does not flag one. Its other faults still count.
TEST(CheckModelTest, AcceptsALoopWithoutLoopCarriedValuesButChecksTheRestOfIt) {
  constexpr char kLoop[] = R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (int64 trip, bool cond) => (float[N, 2] out) {
  out = Loop (trip, cond) <body = loop_body (int64 i, bool c) => (bool c_out, float[2] s) {
    c_out = Identity (c)
    s = Constant <value = float[2] {1, 2}> ()
  }>
}
)ONNX";
  EXPECT_THAT(Check(ParseModel(kLoop)), IsEmpty());
  onnx::ModelProto without_body = ParseModel(kLoop);
  without_body.mutable_graph()->mutable_node(0)->clear_attribute();
  EXPECT_THAT(Check(without_body), ElementsAre(IsFinding("main", "", "Loop", "ai.onnx", 13, "body")));
}

TEST(CheckModelTest, CleanOpset13ModelHasNoFindings) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[20, 10] x, int64[2] starts, int64[2] ends) => (float[N, M] y) {
  s = Slice (x, starts, ends)
  r = Relu (s)
  y = Resize (r, roi, scales)
}
)ONNX")),
              IsEmpty());
}

TEST(CheckModelTest, AcceptsAnAiOnnxMlOp) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13, "ai.onnx.ml" : 1]>
g (float[2, 3] x) => (float[2, 3] y) {
  y = ai.onnx.ml.Normalizer <norm = "MAX"> (x)
}
)ONNX")),
              IsEmpty());
}

TEST(CheckModelTest, TreatsAiOnnxAsTheDefaultDomain) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["ai.onnx" : 13]>
g (float[2] x) => (float[2] y) {
  r = Relu (x)
  y = Relu (r)
}
)ONNX");
  model.mutable_graph()->mutable_node(1)->set_domain("ai.onnx");
  EXPECT_THAT(Check(model), IsEmpty());
}

TEST(CheckModelTest, DoesNotJudgeDomainsOnnxDoesNotKnow) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13, "com.microsoft" : 1]>
g (float[2, 3] x) => (float[2, 3] y) {
  y = com.microsoft.FusedGemmWhatever (x)
}
)ONNX")),
              IsEmpty());
}

TEST(CheckModelTest, FindsANodeWhoseDomainIsNotImported) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x) => (float[2, 3] y) {
  y = com.microsoft.Gelu (x)
}
)ONNX")),
              ElementsAre(IsFinding("main", "", "Gelu", "com.microsoft", 0, "imports no opset")));
}

TEST(CheckModelTest, FindsADefaultDomainNodeWithoutADefaultImport) {
  EXPECT_THAT(Check(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["ai.onnx.ml" : 1]>
g (float[2] x) => (float[2] y) {
  y = Relu (x)
}
)ONNX")),
              ElementsAre(IsFinding("main", "", "Relu", "ai.onnx", 0, "imports no opset")));
}

TEST(CheckModelTest, RejectsOneDomainImportedAtTwoVersions) {
  onnx::ModelProto model = ParseModel(kDynamicSliceAtOpset9);
  onnx::OperatorSetIdProto* alias = model.add_opset_import();
  alias->set_domain("ai.onnx");
  alias->set_version(11);
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(model);
  EXPECT_EQ(findings.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(findings.status().message()), HasSubstr("twice"));
}

// A removed node its rule refuses as written (an FC with one input: FC takes X, W and B) is no fixable finding: the
// reason says what legalizing would say (../shared/repro/fc_1_input.onnx).
TEST(CheckModelTest, ARemovedNodeItsRuleRefusesIsNotFixable) {
  const std::vector<CheckFinding> findings = Check(ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 7]>
g (float[2, 3] x) => (float[2, 4] y) { y = FC (x) }
)ONNX"));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].op_type, "FC");
  EXPECT_FALSE(findings[0].fixable);
  EXPECT_EQ(findings[0].fix, "");
  EXPECT_THAT(findings[0].reason, HasSubstr("; legalizing refuses it: FC "));
  EXPECT_THAT(findings[0].reason, HasSubstr("has 1 inputs; FC takes 3"));
}

// The gate refuses the weights legalizing refuses, large ones included (the light copy it reads leaves those out):
// an element type onnx does not know, and an initializer contradicting its declaration as a graph input. It does not
// call such a model fixable (../shared/repro/skeleton_*.onnx).
TEST(CheckModelTest, RejectsWeightsLegalizingRefusesLargeOnesIncluded) {
  for (int64_t count : {int64_t{4}, int64_t{20000}}) {  // kept by the light copy, and left out of it
    onnx::ModelProto unknown_type = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N] x) => (float[N] y) { y = Identity (x) }
)ONNX");
    onnx::TensorProto& w = *unknown_type.mutable_graph()->add_initializer();
    w.set_name("W");
    w.set_data_type(99);
    w.add_dims(count);
    w.set_raw_data(std::string(static_cast<size_t>(count) * 4, '\0'));
    absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(unknown_type);
    ASSERT_FALSE(findings.ok()) << count;
    EXPECT_EQ(findings.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(findings.status().message(), HasSubstr("initializer 'W' (graph main): data_type 99"));

    onnx::ModelProto contradicted = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N] x, float[1] W) => (float[N] y) { y = Add (x, W) }
)ONNX");
    onnx::TensorProto& declared = *contradicted.mutable_graph()->add_initializer();
    declared.set_name("W");
    declared.set_data_type(onnx::TensorProto::FLOAT);
    declared.add_dims(count);
    declared.set_raw_data(std::string(static_cast<size_t>(count) * 4, '\0'));
    findings = CheckModel(contradicted);
    ASSERT_FALSE(findings.ok()) << count;
    EXPECT_THAT(findings.status().message(), HasSubstr("but the graph input of that name is declared with dims [1]"));
  }
}

TEST(CheckModelTest, RejectsAnOpsetVersionBelowOne) {
  onnx::ModelProto model = ParseModel(kDynamicSliceAtOpset9);
  model.mutable_opset_import(0)->set_version(0);
  EXPECT_EQ(CheckModel(model).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CheckModelTest, ChecksModelLocalFunctionsAndAcceptsCallsToThem) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13, "custom" : 1]>
g (float[2] x) => (float[2] y) {
  y = custom.MyOp (x)
}
)ONNX");
  onnx::FunctionProto* function = model.add_functions();
  function->set_name("MyOp");
  function->set_domain("custom");
  function->add_input("a");
  function->add_output("b");
  onnx::OperatorSetIdProto* import = function->add_opset_import();
  import->set_domain("");
  import->set_version(9);
  onnx::NodeProto* node = function->add_node();
  node->set_op_type("Resize");
  node->set_name("inner");
  node->add_input("a");
  node->add_output("b");
  EXPECT_THAT(Check(model), ElementsAre(IsFinding("function:custom.MyOp", "inner", "Resize", "ai.onnx", 9,
                                                  "exists only from opset 10")));
}

TEST(CheckModelTest, TreatsAnIrVersion2ModelWithoutImportsAsDefaultOpset1) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 3, opset_import: ["" : 1]>
g (float[2] x) => (float[2] y) {
  y = Relu (x)
}
)ONNX");
  model.set_ir_version(2);
  model.clear_opset_import();
  // Read as opset 1 (the Relu is no finding); legalizing writes the import and raises the IR version, so the
  // check says so, as a finding legalizing fixes.
  const std::vector<CheckFinding> findings = Check(model);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_THAT(findings[0].reason, HasSubstr("IR version 2 has no opset imports"));
  EXPECT_TRUE(findings[0].fixable);
  EXPECT_EQ(findings[0].opset, 1);
}

}  // namespace
}  // namespace onnx_legalize
