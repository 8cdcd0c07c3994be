// Legalize with Options::target_opset below the model's own opset: the model moves down to it, the move proved by
// executing both forms as a move up is, or it is refused as ErrorKind::kNoFormAtOpset naming the first node that
// has no form there, the model untouched.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/error_kind.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"
#include "test_tensors.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::DefaultOpset;
using ::onnx_legalize::testing::ExpectSameOutputs;
using ::onnx_legalize::testing::Iota;
using ::onnx_legalize::testing::kPyTorchExportAt13;
using ::onnx_legalize::testing::LegalizedCopy;
using ::onnx_legalize::testing::ParseModel;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(LegalizeDownTest, MovesAModelDownToTheTargetAndProvesTheMove) {
  const onnx::ModelProto model = ParseModel(kPyTorchExportAt13);
  for (int64_t target : {12, 11, 9, 7}) {
    Options options;
    options.target_opset = target;
    Report report;
    const onnx::ModelProto moved = LegalizedCopy(model, options, &report);
    EXPECT_EQ(DefaultOpset(moved), target);
    EXPECT_EQ(report.opset_before, 13);
    EXPECT_EQ(report.opset_after, target);
    EXPECT_TRUE(report.changed);
    EXPECT_THAT(report.opset_move,
                StartsWith("executed in the model runner at opset 13 and " + std::to_string(target)));
    EXPECT_TRUE(report.opset_move_proof.executed);
    EXPECT_EQ(moved.producer_name(), "pytorch") << "what the move does not concern stays";
    const Tensor x = Iota({2, 3});
    const Tensor w = Iota({3, 4});
    ExpectSameOutputs(model, moved, {{"x", &x}, {"w", &w}});
  }
}

// The report says what the move did to the nodes, by op and way.
TEST(LegalizeDownTest, TheReportListsWhatTheMoveChanged) {
  Options options;
  options.target_opset = 11;
  Report report;
  LegalizedCopy(ParseModel(kPyTorchExportAt13), options, &report);
  std::vector<std::string> changes;
  for (const OpsetMoveChange& change : report.opset_move_changes) {
    changes.push_back(absl::StrCat(change.nodes, " ", change.op_type, "-", change.version_before, " -> ",
                                   change.version_after, " ", change.how, ", first ", change.first));
  }
  EXPECT_THAT(changes, ElementsAre("1 MatMul-13 -> 9 version, first MatMul producing 'mm' (graph main)",
                                   "1 Relu-13 -> 6 version, first Relu producing 'act' (graph main)",
                                   "1 Unsqueeze-13 -> 11 rewritten, first Unsqueeze producing 'y' (graph main)",
                                   "1 ReduceSum-13 -> 11 rewritten, first ReduceSum producing 'total' (graph main)",
                                   "1 Softmax-13 -> 11 rewritten, first Softmax producing 'probs' (graph main)",
                                   "1 Constant-13 -> 0 removed, first Constant producing 'axes' (graph main)"));
}

TEST(LegalizeDownTest, RefusesANodeWithNoFormAtTheTargetAndLeavesTheModelUntouched) {
  // Gather-11 reads negative indices from the back; Gather-1 has no such reading, and these come at run time.
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 6, opset_import: ["" : 11]>
g (float[2, 3] x, int64[1] i) => (float[2, 1] y) { h = Relu (x)  y = Gather <axis = 1> (h, i) }
)ONNX");
  model.mutable_graph()->mutable_node(1)->set_name("pick");
  const std::string before = model.SerializeAsString();
  Options options;
  options.target_opset = 9;
  const absl::StatusOr<Report> report = Legalize(model, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(ErrorKindOf(report.status()), ErrorKind::kNoFormAtOpset) << report.status();
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("Gather 'pick' (graph main) has no form at opset 9: its indices are computed at run time"));
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("the lowest opset it can be moved to is 11"));
  EXPECT_EQ(model.SerializeAsString(), before);
}

TEST(LegalizeDownTest, AMoveDownAlsoLegalizesTheRemovedOps) {
  // A DynamicSlice in an opset-12 model moved to 11: its rewrite, Slice, is there from 10.
  onnx::ModelProto model = ParseModel(R"ONNX(
<ir_version: 7, opset_import: ["" : 12]>
g (float[3, 10] x, int64[1] starts, int64[1] ends) => (float[?, 10] y) {
  h = Relu (x)
  y = DynamicSlice (h, starts, ends)
}
)ONNX");
  Options options;
  options.target_opset = 11;
  Report report;
  const onnx::ModelProto legalized = LegalizedCopy(model, options, &report);
  EXPECT_EQ(DefaultOpset(legalized), 11);
  EXPECT_EQ(testing::CountOps(legalized, "DynamicSlice"), 0);
  EXPECT_EQ(testing::CountOps(legalized, "Slice"), 1);
}

}  // namespace
}  // namespace onnx_legalize
