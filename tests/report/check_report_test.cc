// The CI gate's library side: the opset policy, rule ids, and the text, JSON, SARIF and GitHub formats.
// (The CLI's --check over folders, -j and exit codes: tests/python/test_check_cli.py, which also parses
// the JSON and SARIF documents.)
#include "onnx_legalize/check_report.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/error_kind.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::ParseModel;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<CheckFinding> Check(const char* text) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(ParseModel(text));
  EXPECT_TRUE(findings.ok()) << findings.status();
  return findings.ok() ? *findings : std::vector<CheckFinding>{};
}

std::vector<std::string> Rules(const std::vector<CheckFinding>& findings) {
  std::vector<std::string> rules;
  for (const CheckFinding& finding : findings) rules.push_back(CheckFindingRule(finding));
  return rules;
}

CheckFinding DynamicSliceFinding(const std::string& node_name) {
  CheckFinding finding;
  finding.graph_path = "main";
  finding.node_name = node_name;
  finding.op_type = "DynamicSlice";
  finding.domain = "ai.onnx";
  finding.opset = 9;
  finding.reason = "removed experimental op (onnx 1.4 only; use onnx-legalize to rewrite it)";
  finding.fixable = true;
  finding.fix = "fold, or rewrite to Slice";
  return finding;
}

TEST(CheckReportTest, GivesEachKindOfFindingItsRule) {
  EXPECT_THAT(Rules(Check(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[4] x, int64[1] s, int64[1] e, float[4] scales) => (float[M] a, float[4] b, float[4] c, float[4] d) {
  a = DynamicSlice (x, s, e)
  b = Resize (x, scales)
  c = NotAnOp (x)
  d = com.vendor.Relu (x)
}
)ONNX")),
              ElementsAre("removed-experimental-op", "op-newer-than-opset", "unknown-op", "domain-not-imported"));
  EXPECT_THAT(Rules(Check(R"ONNX(
<ir_version: 5, opset_import: ["" : 10]>
g (float[1, 1, 2, 2] x, float[4] scales) => (float[1, 1, 4, 4] y) {
  y = Upsample (x, scales)
}
)ONNX")),
              ElementsAre("deprecated-op"));
  EXPECT_THAT(Rules(Check(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) {
  y = Relu <alpha = 0.5> (x)
}
)ONNX")),
              ElementsAre("schema-mismatch"));
}

TEST(CheckReportTest, AReasonItDoesNotKnowStillGetsARule) {
  CheckFinding finding = DynamicSliceFinding("n");
  finding.reason = "some future kind of finding";
  EXPECT_EQ(CheckFindingRule(finding), "no-schema");
}

// --- opset policy ---------------------------------------------------------------------------------------

constexpr char kOpset9[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[2] x) => (float[2] y) {
  y = Relu (x)
}
)ONNX";

TEST(CheckReportTest, OpsetPolicyFindsAModelBelowTheMinimum) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(ParseModel(kOpset9), {11, std::nullopt});
  ASSERT_TRUE(findings.ok()) << findings.status();
  ASSERT_EQ(findings->size(), 1u);
  const CheckFinding& finding = findings->front();
  EXPECT_EQ(finding.graph_path, "");
  EXPECT_EQ(finding.op_type, "");
  EXPECT_EQ(finding.opset, 9);
  EXPECT_THAT(finding.reason, HasSubstr("below the minimum 11"));
  EXPECT_EQ(CheckFindingRule(finding), "opset-out-of-range");
}

// Above the maximum, the model's finding says whether moving it down fixes it: here every node has a form at 8, and
// the model moves to IR 3, onnx 1.3's, as it holds nothing later IRs added.
TEST(CheckReportTest, OpsetPolicyFindsAModelAboveTheMaximumThatCanMoveDown) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(ParseModel(kOpset9), {std::nullopt, 8});
  ASSERT_TRUE(findings.ok()) << findings.status();
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_THAT(findings->front().reason, HasSubstr("above the maximum 8"));
  EXPECT_TRUE(findings->front().fixable);
  EXPECT_EQ(findings->front().fix, "--target-opset=8 moves it down (every node has a form there), to IR version 3");
  EXPECT_THAT(FormatCheckResults({{"m.onnx", absl::OkStatus(), *findings}}, CheckFormat::kText),
              HasSubstr("m.onnx: model (domain ai.onnx, opset 9): default opset 9 is above the maximum 8 (max_opset); "
                        "onnx-legalize fixes it: --target-opset=8 moves it down (every node has a form there), to IR "
                        "version 3"));
}

// ...and names each node that keeps it from moving there, with why and the lowest opset it can go to.
TEST(CheckReportTest, OpsetPolicyNamesEachNodeWithNoFormAtTheMaximum) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2, 3] x) => (float[2, 3] y) { h = Trilu (x)  r = Relu (h)  y = Trilu (r) }
)ONNX");
  model.mutable_graph()->mutable_node(0)->set_name("first");
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(model, {std::nullopt, 13});
  ASSERT_TRUE(findings.ok()) << findings.status();
  ASSERT_EQ(findings->size(), 3u);
  EXPECT_THAT(findings->at(0).reason, HasSubstr("above the maximum 13 (max_opset); 2 nodes have no form there"));
  EXPECT_FALSE(findings->at(0).fixable);
  EXPECT_EQ(CheckFindingRule(findings->at(0)), "opset-out-of-range");
  EXPECT_EQ(findings->at(1).node_name, "first");
  EXPECT_EQ(findings->at(1).op_type, "Trilu");
  EXPECT_EQ(findings->at(1).graph_path, "main");
  EXPECT_EQ(findings->at(1).reason,
            "no form at opset 13: Trilu exists only from opset 14; the lowest opset it can go to is 14");
  EXPECT_FALSE(findings->at(1).fixable);
  EXPECT_EQ(CheckFindingRule(findings->at(1)), "no-form-at-max-opset");
  EXPECT_EQ(findings->at(2).op_type, "Trilu");
}

// A Pad whose pads the model computes from constants alone moves below 11 (the move computes them), so the gate
// calls it fixable; pads that depend on the input do not.
TEST(CheckReportTest, OpsetPolicyCountsPadsComputedFromConstantsAsConstant) {
  absl::StatusOr<std::vector<CheckFinding>> computed = CheckOpsetPolicy(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 5] x) => (float[1, 2, 8] y) <int64[3] b = {0, 0, 1}, int64[3] e = {0, 0, 2}> {
  pads = Concat <axis = 0> (b, e)
  y = Pad (x, pads)
}
)ONNX"),
                                                                        {std::nullopt, 10});
  ASSERT_TRUE(computed.ok()) << computed.status();
  ASSERT_EQ(computed->size(), 1u);
  EXPECT_TRUE(computed->front().fixable);

  absl::StatusOr<std::vector<CheckFinding>> fed = CheckOpsetPolicy(ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 5] x, int64[3] b) => (float[?, ?, ?] y) <int64[3] e = {0, 0, 2}> {
  pads = Concat <axis = 0> (b, e)
  y = Pad (x, pads)
}
)ONNX"),
                                                                   {std::nullopt, 10});
  ASSERT_TRUE(fed.ok()) << fed.status();
  ASSERT_EQ(fed->size(), 2u);
  EXPECT_FALSE(fed->front().fixable);
  EXPECT_EQ(fed->at(1).op_type, "Pad");
}

// Legalizes the model of `text` to `target_opset`.
absl::Status MoveTo(const char* text, int64_t target_opset) {
  onnx::ModelProto model = ParseModel(text);
  Options options;
  options.target_opset = target_opset;
  return Legalize(model, options).status();
}

// The gate decides by the element types shape inference finds, as the move does: a Mish of float moves below 18 as
// its function body, a Mish of float16 has no form there, and a CastLike whose target's type is not known has none
// below 15 (the Cast it becomes names the type). What the gate calls fixable, the move does.
TEST(CheckReportTest, OpsetPolicyJudgesFormsThatDependOnElementTypesByTheInferredTypes) {
  const char* mish_of_float = R"ONNX(
<ir_version: 8, opset_import: ["" : 18]>
g (float[2, 3] x) => (float[2, 3] y) { h = Relu (x)  y = Mish (h) }
)ONNX";
  const char* mish_of_float16 = R"ONNX(
<ir_version: 8, opset_import: ["" : 18]>
g (float16[2, 3] x) => (float16[2, 3] y) { h = Relu (x)  y = Mish (h) }
)ONNX";
  const char* castlike_of_unknown_type = R"ONNX(
<ir_version: 8, opset_import: ["" : 15]>
g (float[2] x, like) => (y) { y = CastLike (x, like) }
)ONNX";
  absl::StatusOr<std::vector<CheckFinding>> fixable = CheckOpsetPolicy(ParseModel(mish_of_float), {std::nullopt, 17});
  ASSERT_TRUE(fixable.ok()) << fixable.status();
  ASSERT_EQ(fixable->size(), 1u);
  EXPECT_TRUE(fixable->front().fixable);
  EXPECT_TRUE(MoveTo(mish_of_float, 17).ok());

  absl::StatusOr<std::vector<CheckFinding>> float16 = CheckOpsetPolicy(ParseModel(mish_of_float16), {std::nullopt, 17});
  ASSERT_TRUE(float16.ok()) << float16.status();
  ASSERT_EQ(float16->size(), 2u);
  EXPECT_FALSE(float16->at(0).fixable);
  EXPECT_EQ(float16->at(1).op_type, "Mish");
  EXPECT_THAT(float16->at(1).reason, AllOf(HasSubstr("no form at opset 17: its body is exact for float alone"),
                                           EndsWith("(Mish-18); the lowest opset it can go to is 18")));
  const absl::Status moved = MoveTo(mish_of_float16, 17);
  EXPECT_EQ(ErrorKindOf(moved), ErrorKind::kNoFormAtOpset) << moved;
  EXPECT_THAT(moved.message(), HasSubstr("its body is exact for float alone"));

  absl::StatusOr<std::vector<CheckFinding>> unknown =
      CheckOpsetPolicy(ParseModel(castlike_of_unknown_type), {std::nullopt, 13});
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  ASSERT_EQ(unknown->size(), 2u);
  EXPECT_FALSE(unknown->at(0).fixable);
  EXPECT_THAT(unknown->at(1).reason, HasSubstr("the element type of its target_type input is not known"));
  EXPECT_EQ(ErrorKindOf(MoveTo(castlike_of_unknown_type, 13)), ErrorKind::kNoFormAtOpset);
}

// OneHot-11 goes below 11 where its indices can be counted from the front: int32 and int64 (in a Where form), unsigned
// (as they are); the gate says so as the move does.
TEST(CheckReportTest, OpsetPolicyJudgesOneHotByTheTypeOfItsIndices) {
  const char* of_int64 = R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (float[4] x, int64[1] d, float[2] v) => (float[4, ?] y) { i = Cast <to = 7> (x)  y = OneHot (i, d, v) }
)ONNX";
  const char* of_float = R"ONNX(
<ir_version: 7, opset_import: ["" : 11]>
g (float[4] x, int64[1] d, float[2] v) => (float[4, ?] y) { i = Relu (x)  y = OneHot (i, d, v) }
)ONNX";
  absl::StatusOr<std::vector<CheckFinding>> fixable = CheckOpsetPolicy(ParseModel(of_int64), {std::nullopt, 10});
  ASSERT_TRUE(fixable.ok()) << fixable.status();
  ASSERT_EQ(fixable->size(), 1u);
  EXPECT_TRUE(fixable->front().fixable);
  EXPECT_TRUE(MoveTo(of_int64, 10).ok());

  absl::StatusOr<std::vector<CheckFinding>> floating = CheckOpsetPolicy(ParseModel(of_float), {std::nullopt, 10});
  ASSERT_TRUE(floating.ok()) << floating.status();
  ASSERT_EQ(floating->size(), 2u);
  EXPECT_FALSE(floating->at(0).fixable);
  EXPECT_THAT(floating->at(1).reason, AllOf(HasSubstr("its indices are of a type in which an index that counts"),
                                            EndsWith("(OneHot-11); the lowest opset it can go to is 11")));
  EXPECT_EQ(ErrorKindOf(MoveTo(of_float, 10)), ErrorKind::kNoFormAtOpset);
}

// A Slice along axis -1 has a form at 10 where the rank of its data is known, which shape inference of the whole
// model alone can say: the policy tries the move, and a model it refuses is not fixable, the refusal named.
TEST(CheckReportTest, OpsetPolicyCallsFixableOnlyWhatTheMoveTakes) {
  const char* known_rank = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[2, 5] x) => (float[2, 2] y) <int64[1] b = {1}, int64[1] e = {3}, int64[1] back = {-1}> {
  y = Slice (x, b, e, back)
}
)ONNX";
  const char* unknown_rank = R"ONNX(
<ir_version: 7, opset_import: ["" : 13]>
g (float[10] x, int64[N] s) => (float[?, ?] y) <int64[1] b = {1}, int64[1] e = {3}, int64[1] back = {-1}> {
  r = Reshape (x, s)
  y = Slice (r, b, e, back)
}
)ONNX";
  absl::StatusOr<std::vector<CheckFinding>> fixable = CheckOpsetPolicy(ParseModel(known_rank), {std::nullopt, 10});
  ASSERT_TRUE(fixable.ok()) << fixable.status();
  ASSERT_EQ(fixable->size(), 1u);
  EXPECT_TRUE(fixable->front().fixable);

  absl::StatusOr<std::vector<CheckFinding>> refused = CheckOpsetPolicy(ParseModel(unknown_rank), {std::nullopt, 10});
  ASSERT_TRUE(refused.ok()) << refused.status();
  ASSERT_EQ(refused->size(), 1u);
  EXPECT_FALSE(refused->front().fixable);
  EXPECT_THAT(refused->front().reason,
              AllOf(HasSubstr("--target-opset=10 refuses it: Slice "),
                    HasSubstr("its axes count from the back, and the rank of its data is not known")));
  EXPECT_EQ(ErrorKindOf(MoveTo(unknown_rank, 10)), ErrorKind::kNoFormAtOpset);
}

// One Relu at default opset `opset` and IR version `ir`.
onnx::ModelProto ReluAt(int64_t opset, int64_t ir) {
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) { y = Relu (x) }
)ONNX");
  model.set_ir_version(ir);
  model.mutable_opset_import(0)->set_version(opset);
  return model;
}

// Above max_ir_version, a model finding says why the IR version stays there; a move down that fixes the opset and
// brings the IR within needs none.
TEST(CheckReportTest, IrPolicyFindsAModelWhoseIrStaysAboveTheMaximum) {
  const onnx::ModelProto at13 = ReluAt(13, 10);
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(at13, {7, 15, 8});
  ASSERT_TRUE(findings.ok()) << findings.status();
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_EQ(findings->front().reason,
            "IR version 10 is above the maximum 8 (max_ir_version); onnx-legalize lowers the IR version only where it "
            "moves a model down, and this one's opset is within the range");
  EXPECT_FALSE(findings->front().fixable);
  EXPECT_EQ(findings->front().opset, 13);
  EXPECT_EQ(CheckFindingRule(findings->front()), "ir-version-out-of-range");
  EXPECT_THAT(FormatCheckResults({{"m.onnx", absl::OkStatus(), *findings}}, CheckFormat::kSarif),
              HasSubstr("\"ruleId\": \"ir-version-out-of-range\""));

  onnx::ModelProto float8 = at13;
  float8.mutable_graph()->add_value_info()->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT8E5M2);
  findings = CheckOpsetPolicy(float8, {std::nullopt, std::nullopt, 8});
  ASSERT_TRUE(findings.ok()) << findings.status();
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_THAT(findings->front().reason, HasSubstr("what the model holds needs IR version 9"));
}

TEST(CheckReportTest, IrPolicyIsMetByTheMoveDownThatFixesTheOpset) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(ReluAt(17, 10), {7, 15, 8});
  ASSERT_TRUE(findings.ok()) << findings.status();
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_EQ(CheckFindingRule(findings->front()), "opset-out-of-range");
  EXPECT_TRUE(findings->front().fixable);
  EXPECT_EQ(findings->front().fix, "--target-opset=15 moves it down (every node has a form there), to IR version 8");
}

TEST(CheckReportTest, RuntimeProfilesAreOnnxRuntimeReleasesFromOpset7) {
  const std::optional<OpsetPolicy> ort110 = RuntimeProfile("onnxruntime-1.10");
  ASSERT_TRUE(ort110.has_value());
  EXPECT_EQ(ort110->min_opset, 7);
  EXPECT_EQ(ort110->max_opset, 15);
  EXPECT_EQ(ort110->max_ir_version, 8);
  EXPECT_EQ(RuntimeProfile("onnxruntime-1.31")->max_opset, 26);
  EXPECT_FALSE(RuntimeProfile("onnxruntime").has_value());
  EXPECT_FALSE(RuntimeProfile("tensorrt-8").has_value());
  EXPECT_THAT(RuntimeProfileNames(), ::testing::Contains("onnxruntime-1.16"));
}

TEST(CheckReportTest, OpsetPolicyAcceptsAModelInRangeBoundsIncluded) {
  for (const OpsetPolicy& policy : {OpsetPolicy{9, 9}, OpsetPolicy{}, OpsetPolicy{1, std::nullopt}}) {
    absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(ParseModel(kOpset9), policy);
    ASSERT_TRUE(findings.ok()) << findings.status();
    EXPECT_TRUE(findings->empty()) << findings->front().reason;
  }
}

TEST(CheckReportTest, OpsetPolicyFindsAModelThatImportsNoDefaultOpset) {
  onnx::ModelProto model = ParseModel(kOpset9);
  model.mutable_opset_import(0)->set_domain("com.vendor");
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(model, {std::nullopt, 17});
  ASSERT_TRUE(findings.ok());
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_THAT(findings->front().reason, HasSubstr("imports no default-domain opset"));
  // Without a bound there is no policy to break.
  findings = CheckOpsetPolicy(model, {});
  ASSERT_TRUE(findings.ok());
  EXPECT_TRUE(findings->empty());
}

TEST(CheckReportTest, OpsetPolicyTakesOpset1ForModelsOlderThanOpsetImports) {
  onnx::ModelProto model = ParseModel(kOpset9);
  model.clear_opset_import();
  model.set_ir_version(2);
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(model, {7, std::nullopt});
  ASSERT_TRUE(findings.ok() && findings->size() == 1);
  EXPECT_EQ(findings->front().opset, 1);
}

TEST(CheckReportTest, OpsetPolicyRejectsTwoDefaultOpsets) {
  onnx::ModelProto model = ParseModel(kOpset9);
  onnx::OperatorSetIdProto* second = model.add_opset_import();
  second->set_domain("ai.onnx");
  second->set_version(11);
  EXPECT_EQ(CheckOpsetPolicy(model, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

// --- formats ---------------------------------------------------------------------------------------------

std::vector<CheckedFile> SampleResults() {
  CheckedFile dirty{"models/dirty.onnx", absl::OkStatus(), {DynamicSliceFinding("crop")}};
  CheckedFile clean{"models/clean.onnx", absl::OkStatus(), {}};
  CheckedFile broken{"models/broken.onnx", absl::InvalidArgumentError("'models/broken.onnx' is not a model"), {}};
  return {clean, dirty, broken};
}

TEST(CheckReportTest, ParsesTheFourFormatNames) {
  EXPECT_EQ(ParseCheckFormat("text"), CheckFormat::kText);
  EXPECT_EQ(ParseCheckFormat("json"), CheckFormat::kJson);
  EXPECT_EQ(ParseCheckFormat("sarif"), CheckFormat::kSarif);
  EXPECT_EQ(ParseCheckFormat("github"), CheckFormat::kGithub);
  EXPECT_EQ(ParseCheckFormat("xml"), std::nullopt);
  EXPECT_EQ(ParseCheckFormat("JSON"), std::nullopt);
}

TEST(CheckReportTest, TextIsALinePerFindingThenTheSummary) {
  EXPECT_EQ(FormatCheckResults(SampleResults(), CheckFormat::kText),
            "models/dirty.onnx: main: node 'crop' op DynamicSlice (domain ai.onnx, opset 9): removed experimental "
            "op (onnx 1.4 only; use onnx-legalize to rewrite it); onnx-legalize fixes it: fold, or rewrite to Slice\n"
            "1 finding in 1 of 3 files (some could not be checked)\n");
  EXPECT_EQ(FormatCheckResults({}, CheckFormat::kText), "no findings in 0 files\n");
  CheckFinding unnamed = DynamicSliceFinding("");
  EXPECT_THAT(FormatCheckResults({{"m.onnx", absl::OkStatus(), {unnamed, unnamed}}}, CheckFormat::kText),
              AllOf(HasSubstr("node (unnamed) op"), EndsWith("2 findings in 1 of 1 file\n")));
}

TEST(CheckReportTest, TextWritesAModelWideFindingWithoutANode) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckOpsetPolicy(ParseModel(kOpset9), {10, std::nullopt});
  ASSERT_TRUE(findings.ok() && findings->size() == 1);
  EXPECT_THAT(FormatCheckResults({{"m.onnx", absl::OkStatus(), *findings}}, CheckFormat::kText),
              HasSubstr("m.onnx: model (domain ai.onnx, opset 9): default opset 9 is below the minimum 10"));
}

TEST(CheckReportTest, JsonHasEveryFindingAndEveryError) {
  const std::string expected = std::string(R"json({
  "tool": "onnx-legalize",
  "version": ")json") + ONNX_LEGALIZE_VERSION +
                               R"json(",
  "files_checked": 3,
  "findings": [
    {
      "file": "models/dirty.onnx",
      "rule": "removed-experimental-op",
      "graph_path": "main",
      "node_name": "crop",
      "op_type": "DynamicSlice",
      "domain": "ai.onnx",
      "opset": 9,
      "reason": "removed experimental op (onnx 1.4 only; use onnx-legalize to rewrite it)",
      "fixable": true,
      "fix": "fold, or rewrite to Slice"
    }
  ],
  "errors": [
    {
      "file": "models/broken.onnx",
      "code": "INVALID_ARGUMENT",
      "message": "'models/broken.onnx' is not a model"
    }
  ]
}
)json";
  EXPECT_EQ(FormatCheckResults(SampleResults(), CheckFormat::kJson), expected);
  EXPECT_THAT(FormatCheckResults({}, CheckFormat::kJson), HasSubstr("\"findings\": [],\n  \"errors\": []\n}"));
}

TEST(CheckReportTest, NamesThatAreNotUtf8AreEscapedInEveryFormat) {
  // A node name of raw bytes, with a newline, a quote and valid UTF-8 (é) among them.
  CheckFinding finding = DynamicSliceFinding(std::string("a\xff\xfe\nb\"\xc3\xa9", 8));
  const std::vector<CheckedFile> files = {{"m\x80.onnx", absl::OkStatus(), {finding}}};
  EXPECT_THAT(FormatCheckResults(files, CheckFormat::kText),
              HasSubstr("m\\x80.onnx: main: node 'a\\xFF\\xFE\\x0Ab\"\xc3\xa9' op"));
  EXPECT_THAT(FormatCheckResults(files, CheckFormat::kGithub),
              HasSubstr("::error file=m\\x80.onnx,title=onnx-legalize%3A removed-experimental-op::main: node "
                        "'a\\xFF\\xFE\\x0Ab\"\xc3\xa9' op"));
  // JSON escapes control characters itself; the bytes that are not UTF-8 become the text \xNN.
  const std::string json = FormatCheckResults(files, CheckFormat::kJson);
  EXPECT_THAT(json, HasSubstr(R"("node_name": "a\\xFF\\xFE\nb\"é")"));
  EXPECT_THAT(json, HasSubstr(R"("file": "m\\x80.onnx")"));
  const std::string sarif = FormatCheckResults(files, CheckFormat::kSarif);
  EXPECT_THAT(sarif, HasSubstr(R"("uri": "m%80.onnx")"));
  EXPECT_THAT(sarif, Not(HasSubstr("\xff")));
}

TEST(CheckReportTest, GithubEscapesWhatWorkflowCommandsReserve) {
  const std::vector<CheckedFile> files = {{"dir,a:b%.onnx", absl::OkStatus(), {DynamicSliceFinding("100%")}},
                                          {"x.onnx", absl::NotFoundError("'x.onnx' does not exist"), {}}};
  EXPECT_EQ(FormatCheckResults(files, CheckFormat::kGithub),
            "::error file=dir%2Ca%3Ab%25.onnx,title=onnx-legalize%3A removed-experimental-op::main: node '100%25' "
            "op DynamicSlice (domain ai.onnx, opset 9): removed experimental op (onnx 1.4 only; use "
            "onnx-legalize to rewrite it); onnx-legalize fixes it: fold, or rewrite to Slice\n"
            "::error file=x.onnx,title=onnx-legalize%3A unreadable model::'x.onnx' does not exist\n"
            "1 finding in 1 of 2 files (some could not be checked)\n");
}

TEST(CheckReportTest, SarifNamesTheToolTheRuleAndTheFile) {
  const std::string sarif = FormatCheckResults(SampleResults(), CheckFormat::kSarif);
  EXPECT_THAT(sarif, HasSubstr(R"("version": "2.1.0")"));
  EXPECT_THAT(sarif, HasSubstr(R"("name": "onnx-legalize")"));
  const std::string rule = R"("ruleId": "removed-experimental-op",
          "ruleIndex": 0,)";
  EXPECT_THAT(sarif, HasSubstr(rule));
  EXPECT_THAT(sarif, HasSubstr(R"("uri": "models/dirty.onnx")"));
  EXPECT_THAT(sarif, HasSubstr(R"("fullyQualifiedName": "main/crop")"));
  // The unreadable file is a notification of a run that did not fully succeed.
  EXPECT_THAT(sarif, HasSubstr(R"("executionSuccessful": false)"));
  EXPECT_THAT(sarif, HasSubstr(R"("text": "'models/broken.onnx' is not a model")"));
}

TEST(CheckReportTest, SarifUrisArePercentEncodedAndAbsolutePathsAreFileUris) {
  const std::vector<CheckedFile> files = {{"./a dir/m#1.onnx", absl::OkStatus(), {DynamicSliceFinding("n")}},
                                          {"/abs/m.onnx", absl::OkStatus(), {DynamicSliceFinding("n")}}};
  const std::string sarif = FormatCheckResults(files, CheckFormat::kSarif);
  EXPECT_THAT(sarif, HasSubstr(R"("uri": "a%20dir/m%231.onnx")"));
  EXPECT_THAT(sarif, HasSubstr(R"("uri": "file:///abs/m.onnx")"));
}

TEST(CheckReportTest, EveryFormatIsTheSameForTheSameResults) {
  for (CheckFormat format : {CheckFormat::kText, CheckFormat::kJson, CheckFormat::kSarif, CheckFormat::kGithub}) {
    EXPECT_EQ(FormatCheckResults(SampleResults(), format), FormatCheckResults(SampleResults(), format));
  }
}

TEST(CheckReportTest, EscapeInvalidUtf8KeepsWellFormedTextAndEscapesTheRest) {
  EXPECT_EQ(EscapeInvalidUtf8("plain\n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
            "plain\n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_EQ(EscapeInvalidUtf8("\xc0\xaf"), "\\xC0\\xAF");                    // overlong '/'
  EXPECT_EQ(EscapeInvalidUtf8("\xed\xa0\x80"), "\\xED\\xA0\\x80");           // a surrogate
  EXPECT_EQ(EscapeInvalidUtf8("\xe2\x82"), "\\xE2\\x82");                    // truncated
  EXPECT_EQ(EscapeInvalidUtf8("\xf4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // beyond U+10FFFF
}

// For a terminal: control characters a name brings (NUL, ESC, CR) are escaped too; the line breaks and tabs of
// a message's own layout are kept.
TEST(CheckReportTest, EscapeForTerminalEscapesControlCharactersButTheLayout) {
  EXPECT_EQ(EscapeForTerminal(std::string("a\x1b[31mb\0c\rd", 11)), "a\\x1B[31mb\\x00c\\x0Dd");
  EXPECT_EQ(EscapeForTerminal("line one\n\tline two \xc3\xa9\xff"), "line one\n\tline two \xc3\xa9\\xFF");
}

}  // namespace
}  // namespace onnx_legalize
