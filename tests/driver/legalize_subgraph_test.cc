// Legalize() on DynamicSlices inside If branches and Loop bodies, which see their outer scopes' names.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "rules/dynamic_slice.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::CountOps;
using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::ExpectSameOutputs;
using ::onnx_legalize::testing::Iota;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::NodeFor;
using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::Serialize;
using ::testing::HasSubstr;

// One branch slices a graph input with outer-scope constant indices (a rewrite); the other slices an
// outer-scope constant (a fold inside the branch).
constexpr char kIfModel[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
branches (bool cond, float[4,6] x) => (float[?,?] y) {
  s = Constant <value = int64[2] {1, 2}> ()
  e = Constant <value = int64[2] {3, 5}> ()
  table = Constant <value = float[2,3] {1, 2, 3, 4, 5, 6}> ()
  y = If (cond) <
    then_branch = then_body () => (float[?,?] then_y) {
      then_y = DynamicSlice(x, s, e)
    },
    else_branch = else_body () => (float[?,?] else_y) {
      es = Constant <value = int64[1] {1}> ()
      ee = Constant <value = int64[1] {3}> ()
      ea = Constant <value = int64[1] {1}> ()
      else_y = DynamicSlice(table, es, ee, ea)
    }
  >
}
)";

TEST(LegalizeSubgraphTest, RewritesAndFoldsInsideIfBranches) {
  onnx::ModelProto model = ParseModel(kIfModel);
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  EXPECT_EQ(DefaultOpset(legalized), 10);
  ASSERT_EQ(report.nodes.size(), 2u);
  EXPECT_EQ(report.nodes[0].graph_path, "main/then_body");
  EXPECT_EQ(report.nodes[0].action, Action::kRewritten);
  EXPECT_EQ(report.nodes[1].graph_path, "main/else_body");
  EXPECT_EQ(report.nodes[1].action, Action::kFolded);

  Tensor x = Iota({4, 6});
  for (bool branch : {true, false}) {
    SCOPED_TRACE(branch);
    Tensor cond = *Tensor::FromBytes(onnx::TensorProto::BOOL, {}, std::string(1, branch ? 1 : 0));
    ExpectSameOutputs(model, legalized, {{"cond", &cond}, {"x", &x}});
  }
}

TEST(LegalizeSubgraphTest, FoldsIntoAConstantNodeInIr3Subgraphs) {
  // IR 3 wants every initializer listed as a graph input, and an If branch has no inputs. Every
  // DynamicSlice here folds, so the model stays at IR 3.
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
branches (bool cond) => (float[?,?] y) {
  table = Constant <value = float[2,3] {1, 2, 3, 4, 5, 6}> ()
  y = If (cond) <
    then_branch = then_body () => (float[?,?] then_y) {
      then_y = Constant <value = float[2,2] {7, 8, 9, 10}> ()
    },
    else_branch = else_body () => (float[?,?] else_y) {
      es = Constant <value = int64[1] {1}> ()
      ee = Constant <value = int64[1] {3}> ()
      ea = Constant <value = int64[1] {1}> ()
      else_y = DynamicSlice(table, es, ee, ea)
    }
  >
}
)");
  onnx::ModelProto legalized = LegalizedCopy(model);
  EXPECT_EQ(legalized.ir_version(), 3);
  const onnx::GraphProto* else_body = nullptr;
  for (const auto& node : legalized.graph().node()) {
    for (const auto& attribute : node.attribute()) {
      if (attribute.name() == "else_branch") else_body = &attribute.g();
    }
  }
  ASSERT_NE(else_body, nullptr);
  EXPECT_EQ(else_body->initializer_size(), 0);
  EXPECT_EQ(else_body->input_size(), 0);
  ASSERT_EQ(else_body->node_size(), 1);
  EXPECT_EQ(else_body->node(0).op_type(), "Constant");
  EXPECT_EQ(else_body->node(0).output(0), "else_y");
  for (bool branch : {true, false}) {
    Tensor cond = *Tensor::FromBytes(onnx::TensorProto::BOOL, {}, std::string(1, branch ? 1 : 0));
    ExpectSameOutputs(model, legalized, {{"cond", &cond}});
  }
}

// A Loop whose body slices a loop-carried tensor with indices computed from the iteration number.
constexpr char kLoopModel[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
looping (float[5,4] x) => (float[5,4] final, float[3,?,4] rows) {
  trips = Constant <value = int64 {3}> ()
  keep_going = Constant <value = bool {1}> ()
  final, rows = Loop (trips, keep_going, x) <
    body = loop_body (int64 i, bool cond_in, float[5,4] carried) => (bool cond_out, float[5,4] carried_out, float[?,4] row) {
      cond_out = Identity(cond_in)
      carried_out = Identity(carried)
      one = Constant <value = int64[1] {1}> ()
      start = Unsqueeze <axes = [0]> (i)
      end = Add(start, one)
      row = DynamicSlice(carried, start, end)
    }
  >
}
)";

TEST(LegalizeSubgraphTest, RewritesInsideLoopBodies) {
  onnx::ModelProto model = ParseModel(kLoopModel);
  Report report;
  onnx::ModelProto legalized = LegalizedCopy(model, {}, &report);
  EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].graph_path, "main/loop_body");
  EXPECT_EQ(report.nodes[0].action, Action::kRewritten);
  Tensor x = Iota({5, 4});
  ExpectSameOutputs(model, legalized, {{"x", &x}});
}

TEST(LegalizeSubgraphTest, ConvertsTheOtherNodesOfABodyToTheTargetOpset) {
  onnx::ModelProto model = ParseModel(kLoopModel);
  Options options;
  options.target_opset = 13;
  onnx::ModelProto copy = LegalizedCopy(model, options);
  EXPECT_EQ(DefaultOpset(copy), 13);
  EXPECT_EQ(CountOps(copy, "DynamicSlice"), 0);
  Tensor x = Iota({5, 4});
  ExpectSameOutputs(model, copy, {{"x", &x}});
}

// A value a branch computes hides an outer constant of the same name, for the branch and for graphs
// nested in it: the DynamicSlices that read it are rewritten, not folded with the outer constant. (onnx's
// checker refuses such names, so the model is refused once planned, naming why; runtimes resolve them to the
// innermost value, and so does the plan.)
TEST(LegalizeSubgraphTest, ABranchValueHidesAnOuterConstantOfTheSameName) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
hiding (bool cond, int64[1] from) => (float[?,?] y) {
  table = Constant <value = float[2,3] {1, 2, 3, 4, 5, 6}> ()
  s = Constant <value = int64[1] {0}> ()
  e = Constant <value = int64[1] {2}> ()
  y = If (cond) <
    then_branch = then_body () => (float[?,?] then_y) {
      s = Identity(from)
      then_y = If (cond) <
        then_branch = inner_then () => (float[?,?] inner_y) { inner_y = DynamicSlice(table, s, e) },
        else_branch = inner_else () => (float[?,?] inner_z) { inner_z = Identity(table) }
      >
    },
    else_branch = else_body () => (float[?,?] else_y) { else_y = DynamicSlice(table, s, e) }
  >
}
)");
  const absl::StatusOr<DynamicSlicePlan> plan = PlanDynamicSlices(model, Options{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->changes.size(), 2u);
  EXPECT_EQ(plan->changes[0].graph_path, "main/then_body/inner_then");
  EXPECT_EQ(plan->changes[0].action, Action::kRewritten) << "s is then_body's, computed at run time";
  EXPECT_EQ(plan->changes[1].graph_path, "main/else_body");
  EXPECT_EQ(plan->changes[1].action, Action::kFolded) << "the main graph's constant s";

  const std::string before = Serialize(model);
  const absl::StatusOr<Report> report = Legalize(model, Options{});
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition) << report.status();
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("'s' has been used as output names multiple times"));
  EXPECT_EQ(Serialize(model), before);
}

// A Scan-8 with a batch of one, moved past opset 8: the move renames the Scan's outputs (the Scan produces
// them unbatched, an Unsqueeze batches them again under the old names), and the DynamicSlices in its body,
// rewrites over body values and folds of an outer initializer and of a body Constant, must still be found
// there (issue 29: they were looked up by the Scan's old first output, and the lookup crashed).
constexpr char kScan8Model[] = R"(
<ir_version: 3, opset_import: ["" : 8]>
scan8 (float[1,5,3] x, float[1,3] init, float[3] offset_full) => (float[1,3] final, float[1,5,2] ys)
  <float[3] offset_full = {0.5, -1.25, 3}> {
  final, ys = Scan<num_scan_inputs=1, body = body (float[3] acc, float[3] xi) => (float[3] acc_out, float[2] y) {
    s = Constant <value = int64[1] {0}> ()
    e = Constant <value = int64[1] {3}> ()
    e2 = Constant <value = int64[1] {2}> ()
    sum = Add(acc, xi)
    acc_out = DynamicSlice(sum, s, e)
    head = DynamicSlice(sum, s, e2)
    offset = DynamicSlice(offset_full, s, e2)
    scale_full = Constant <value = float[3] {2, 4, 8}> ()
    scale = DynamicSlice(scale_full, s, e2)
    scaled = Mul(head, scale)
    y = Add(scaled, offset)
  }>(init, x)
}
)";

// kScan8Model with Scan-8's optional first input, sequence_lens, left out (which the text format cannot say).
onnx::ModelProto Scan8Model() {
  onnx::ModelProto model = ParseModel(kScan8Model);
  auto* inputs = model.mutable_graph()->mutable_node(0)->mutable_input();
  *inputs->Add() = "";
  for (int k = inputs->size() - 1; k > 0; --k) inputs->SwapElements(k, k - 1);
  return model;
}

TEST(LegalizeSubgraphTest, FindsTheBodyOfAScan8WhoseOutputsTheMoveRenamed) {
  // The model runner has no Scan: the outputs are compared in ONNX Runtime, on onnx's node/test_scan_sum with
  // DynamicSlices in its body (tests/differential/backend_models.json).
  const onnx::ModelProto model = Scan8Model();
  for (int64_t target : {0, 10, 13, 17}) {  // 0: the default target
    SCOPED_TRACE(target);
    Options options;
    if (target != 0) options.target_opset = target;
    Report report;
    onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
    EXPECT_EQ(CountOps(legalized, "DynamicSlice"), 0);
    EXPECT_EQ(DefaultOpset(legalized), target == 0 ? 10 : target);
    ASSERT_EQ(report.nodes.size(), 4u);
    for (const NodeReport& node : report.nodes) EXPECT_EQ(node.graph_path, "main/body");
    EXPECT_EQ(NodeFor(report, "acc_out").action, Action::kRewritten);
    EXPECT_EQ(NodeFor(report, "offset").action, Action::kFolded);
    EXPECT_EQ(NodeFor(report, "scale").action, Action::kFolded);
    EXPECT_EQ(CountOps(legalized, "Slice"), 2);
  }
}

TEST(LegalizeSubgraphTest, NamesTheSubgraphInErrors) {
  onnx::ModelProto model = ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
bad (bool cond, float[4] x, float[1] s) => (float[?] y) {
  y = If (cond) <
    then_branch = then_body () => (float[?] a) { a = DynamicSlice(x, s, s) },
    else_branch = else_body () => (float[?] b) { b = Identity(x) }
  >
}
)");
  onnx::ModelProto copy = model;
  absl::StatusOr<Report> report = Legalize(copy, Options{});
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("(graph main/then_body)"));
  EXPECT_EQ(Serialize(copy), Serialize(model));
}

}  // namespace
}  // namespace onnx_legalize
