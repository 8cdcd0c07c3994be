// ai.onnx.ml's TreeEnsembleRegressor and TreeEnsembleClassifier (src/eval/kernels/tree_ensemble.cc,
// tree_forest.cc): small forests whose sums are worked out by hand here. tests/differential/run_runner_kernels.py
// checks random forests against ONNX Runtime bit for bit.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::absl::StatusCode;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Tensor Strings(std::vector<int64_t> dims, std::vector<std::string> values) {
  absl::StatusOr<Tensor> tensor = Tensor::FromStrings(std::move(dims), std::move(values));
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return *std::move(tensor);
}

// Two stumps over X [rows, 2]: tree 0 asks x0 <= 0.5 (1 if so, else 2), tree 1 asks x1 > 0 (10, else 20).
// `extra` adds attributes.
onnx::ModelProto TwoStumps(const std::string& op, const std::string& weights, const std::string& extra,
                           const std::string& outputs) {
  const std::string text = R"(
    <ir_version: 7, opset_import: ["" : 13, "ai.onnx.ml" : 1]>
    g (float[N,F] x) => ()" +
                           outputs + R"() {
      )" + (op == "TreeEnsembleRegressor" ? "y" : "label, z") +
                           " = ai.onnx.ml." + op + R"( <
        nodes_treeids = [0, 0, 0, 1, 1, 1], nodes_nodeids = [0, 1, 2, 0, 1, 2],
        nodes_featureids = [0, 0, 0, 1, 0, 0], nodes_values = [0.5, 0.0, 0.0, 0.0, 0.0, 0.0],
        nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF", "BRANCH_GT", "LEAF", "LEAF"],
        nodes_truenodeids = [1, 0, 0, 1, 0, 0], nodes_falsenodeids = [2, 0, 0, 2, 0, 0],
        )" + weights + extra +
                           R"(> (x)
    })";
  return ParseModel(text.c_str());
}

const char kStumpWeights[] =
    R"(target_treeids = [0, 0, 1, 1], target_nodeids = [1, 2, 1, 2], target_ids = [0, 0, 0, 0],
        target_weights = [1.0, 2.0, 10.0, 20.0], n_targets = 1)";

Tensor Rows() { return Floats({3, 2}, {0, 1, 1, -1, kNaN, kNaN}); }

TEST(TreeEnsembleKernelTest, RegressorAddsEachTreesLeafToTheBaseValue) {
  const auto model = TwoStumps("TreeEnsembleRegressor", kStumpWeights, ", base_values = [100.0]", "float[3,1] y");
  // NaN compares false: both trees take their false branch.
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Rows())), "y", Floats({3, 1}, {111, 122, 122})));
}

TEST(TreeEnsembleKernelTest, MissingValueTracksTrueSendsNaNToTheTrueBranch) {
  const auto model = TwoStumps("TreeEnsembleRegressor", kStumpWeights,
                               ", nodes_missing_value_tracks_true = [1, 0, 0, 0, 0, 0]", "float[3,1] y");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Rows())), "y", Floats({3, 1}, {11, 22, 21})));
}

TEST(TreeEnsembleKernelTest, AverageDividesByTheTreesBeforeTheBaseAndMinMaxPickALeaf) {
  for (const auto& [aggregate, want] : std::vector<std::pair<std::string, std::vector<float>>>{
           {"AVERAGE", {105.5F, 111, 111}}, {"MIN", {101, 102, 102}}, {"MAX", {110, 120, 120}}}) {
    const auto model = TwoStumps("TreeEnsembleRegressor", kStumpWeights,
                                 ", base_values = [100.0], aggregate_function = \"" + aggregate + "\"", "float[3,1] y");
    EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Rows())), "y", Floats({3, 1}, want))) << aggregate;
  }
}

TEST(TreeEnsembleKernelTest, ATargetNoLeafReachesIsZeroWhateverItsBase) {
  // Two targets; only tree 0's true leaf writes target 1.
  const auto model = TwoStumps("TreeEnsembleRegressor",
                               R"(target_treeids = [0, 0, 1, 1], target_nodeids = [1, 2, 1, 2],
        target_ids = [1, 0, 0, 0], target_weights = [1.0, 2.0, 10.0, 20.0], n_targets = 2, base_values = [5.0, 7.0])",
                               "", "float[3,2] y");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Rows())), "y", Floats({3, 2}, {15, 8, 27, 0, 27, 0})));
}

const char kThreeClasses[] =
    R"(class_treeids = [0, 0, 1, 1], class_nodeids = [1, 2, 1, 2], class_ids = [0, 1, 2, 1],
        class_weights = [0.5, 0.25, 0.75, 0.5], classlabels_strings = ["cat", "dog", "fox"])";

TEST(TreeEnsembleKernelTest, ClassifierLabelsTheLargestScoreFirstOnATie) {
  const auto model = TwoStumps("TreeEnsembleClassifier", kThreeClasses, "", "string[3] label, float[3,3] z");
  const Results result = RunModel(model, Feed("x", Rows()));
  // Row 0: class 0 gets 0.5, class 2 gets 0.75. Rows 1 and 2: class 1 gets 0.25 + 0.5; class 0 and 2 none (0).
  EXPECT_TRUE(OutputIs(result, "z", Floats({3, 3}, {0.5F, 0, 0.75F, 0, 0.75F, 0, 0, 0.75F, 0})));
  EXPECT_TRUE(OutputIs(result, "label", Strings({3}, {"fox", "dog", "dog"})));
  // Base values [0, 0.75, 0]: in row 0 classes 1 and 2 tie at 0.75, and the first wins.
  const auto tied = TwoStumps("TreeEnsembleClassifier", kThreeClasses, ", base_values = [0.0, 0.75, 0.0]",
                              "string[3] label, float[3,3] z");
  EXPECT_TRUE(OutputIs(RunModel(tied, Feed("x", Rows())), "label", Strings({3}, {"dog", "dog", "dog"})));
}

TEST(TreeEnsembleKernelTest, ClassifierSoftmaxIsOverEveryClass) {
  const auto model = TwoStumps("TreeEnsembleClassifier", kThreeClasses, ", post_transform = \"SOFTMAX\"",
                               "string[3] label, float[3,3] z");
  const float e0 = std::exp(0.5F - 0.75F);
  const float e2 = std::exp(0.0F);
  const float e1 = std::exp(0.0F - 0.75F);
  const float sum = e0 + e1 + e2;
  const Results result = RunModel(model, Feed("x", Rows()));
  EXPECT_TRUE(
      OutputIs(result, "z",
               Floats({3, 3}, {e0 / sum, e1 / sum, e2 / sum, e1 / (e1 + 1 + e1), 1 / (e1 + 1 + e1), e1 / (e1 + 1 + e1),
                               e1 / (e1 + 1 + e1), 1 / (e1 + 1 + e1), e1 / (e1 + 1 + e1)})));
  // The label is chosen before the transform, from the sums.
  EXPECT_TRUE(OutputIs(result, "label", Strings({3}, {"fox", "dog", "dog"})));
}

TEST(TreeEnsembleKernelTest, BinaryClassifierDecidesAtOneHalfAndGivesTheComplement) {
  // One column of weights (class 0's), all positive: the second label once its sum s passes one half, and the
  // scores [1 - s, s].
  const auto model = TwoStumps("TreeEnsembleClassifier",
                               R"(class_treeids = [0, 0, 1, 1], class_nodeids = [1, 2, 1, 2],
        class_ids = [0, 0, 0, 0], class_weights = [0.25, 0.5, 0.25, 0.125], classlabels_int64s = [7, 9])",
                               "", "int64[3] label, float[3,2] z");
  const Results result = RunModel(model, Feed("x", Rows()));
  // Row 0: 0.25 + 0.25 = 0.5, not past one half: the first label. Rows 1, 2: 0.5 + 0.125.
  EXPECT_TRUE(OutputIs(result, "label", Int64s({3}, {7, 9, 9})));
  EXPECT_TRUE(OutputIs(result, "z", Floats({3, 2}, {0.5F, 0.5F, 0.375F, 0.625F, 0.375F, 0.625F})));
}

TEST(TreeEnsembleKernelTest, ATreeIsRootedAtItsFirstListedNode) {
  // Tree 0 lists node 5 first: its root, though node ids start at 0 elsewhere.
  const auto model = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13, "ai.onnx.ml" : 1]>
    g (float[1,1] x) => (float[1,1] y) {
      y = ai.onnx.ml.TreeEnsembleRegressor <
        nodes_treeids = [0, 0, 0], nodes_nodeids = [5, 0, 1], nodes_featureids = [0, 0, 0],
        nodes_values = [0.0, 0.0, 0.0], nodes_modes = ["BRANCH_LT", "LEAF", "LEAF"],
        nodes_truenodeids = [0, 0, 0], nodes_falsenodeids = [1, 0, 0],
        target_treeids = [0, 0], target_nodeids = [0, 1], target_ids = [0, 0], target_weights = [3.0, 4.0],
        n_targets = 1> (x)
    })");
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1}, {-1}))), "y", Floats({1, 1}, {3})));
  EXPECT_TRUE(OutputIs(RunModel(model, Feed("x", Floats({1, 1}, {1}))), "y", Floats({1, 1}, {4})));
}

TEST(TreeEnsembleKernelTest, RefusesWhatOnnxRuntimeComputesOtherwiseThanTheOp) {
  // One target with LOGISTIC: ONNX Runtime leaves the transform out.
  const auto logistic =
      TwoStumps("TreeEnsembleRegressor", kStumpWeights, ", post_transform = \"LOGISTIC\"", "float[3,1] y");
  EXPECT_TRUE(FailsWith(RunModel(logistic, Feed("x", Rows())), StatusCode::kUnimplemented,
                        {"a post_transform other than PROBIT on one target"}));
  // One label: ONNX Runtime writes 0 or 1 for it.
  const auto one_label = TwoStumps("TreeEnsembleClassifier",
                                   R"(class_treeids = [0], class_nodeids = [1], class_ids = [0],
        class_weights = [1.0], classlabels_int64s = [4])",
                                   "", "int64[3] label, float[3,1] z");
  EXPECT_TRUE(
      FailsWith(RunModel(one_label, Feed("x", Rows())), StatusCode::kUnimplemented, {"a classifier of one label"}));
  // A chain of BRANCH_EQ over whole numbers whose true leaves differ in their second weight only: ONNX Runtime
  // folds it into one set test and gives the first leaf's weights for both.
  const auto chain = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13, "ai.onnx.ml" : 1]>
    g (float[1,1] x) => (float[1,2] y) {
      y = ai.onnx.ml.TreeEnsembleRegressor <
        nodes_treeids = [0, 0, 0, 0, 0], nodes_nodeids = [0, 1, 2, 3, 4], nodes_featureids = [0, 0, 0, 0, 0],
        nodes_values = [1.0, 0.0, 3.0, 0.0, 0.0], nodes_modes = ["BRANCH_EQ", "LEAF", "BRANCH_EQ", "LEAF", "LEAF"],
        nodes_truenodeids = [1, 0, 3, 0, 0], nodes_falsenodeids = [2, 0, 4, 0, 0],
        target_treeids = [0, 0, 0, 0], target_nodeids = [1, 1, 3, 3], target_ids = [0, 1, 0, 1],
        target_weights = [5.0, 1.0, 5.0, 2.0], n_targets = 2> (x)
    })");
  EXPECT_TRUE(FailsWith(RunModel(chain, Feed("x", Floats({1, 1}, {3}))), StatusCode::kUnimplemented,
                        {"a chain of BRANCH_EQ nodes over feature 0", "folds into one set test"}));
}

TEST(TreeEnsembleKernelTest, RejectsMalformedForestsNamingWhat) {
  const auto missing_child = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13, "ai.onnx.ml" : 1]>
    g (float[1,1] x) => (float[1,1] y) {
      y = ai.onnx.ml.TreeEnsembleRegressor <
        nodes_treeids = [0, 0], nodes_nodeids = [0, 1], nodes_featureids = [0, 0], nodes_values = [0.0, 0.0],
        nodes_modes = ["BRANCH_LT", "LEAF"], nodes_truenodeids = [1, 0], nodes_falsenodeids = [7, 0],
        target_treeids = [0], target_nodeids = [1], target_ids = [0], target_weights = [3.0], n_targets = 1> (x)
    })");
  EXPECT_TRUE(FailsWith(RunModel(missing_child, Feed("x", Floats({1, 1}, {1}))), StatusCode::kInvalidArgument,
                        {"node 0's false branch names node 7 of tree 0, which is not there"}));
  const auto loop = ParseModel(R"(
    <ir_version: 7, opset_import: ["" : 13, "ai.onnx.ml" : 1]>
    g (float[1,1] x) => (float[1,1] y) {
      y = ai.onnx.ml.TreeEnsembleRegressor <
        nodes_treeids = [0, 0], nodes_nodeids = [0, 1], nodes_featureids = [0, 0], nodes_values = [0.0, 0.0],
        nodes_modes = ["BRANCH_LT", "LEAF"], nodes_truenodeids = [1, 0], nodes_falsenodeids = [0, 0],
        target_treeids = [0], target_nodeids = [1], target_ids = [0], target_weights = [3.0], n_targets = 1> (x)
    })");
  EXPECT_TRUE(FailsWith(RunModel(loop, Feed("x", Floats({1, 1}, {1}))), StatusCode::kInvalidArgument,
                        {"the tree rooted at node 0 loops"}));
  const auto wide = TwoStumps("TreeEnsembleRegressor", kStumpWeights, "", "float[3,1] y");
  EXPECT_TRUE(FailsWith(RunModel(wide, Feed("x", Floats({3, 1}, {1, 2, 3}))), StatusCode::kInvalidArgument,
                        {"the trees read feature 1, past X's 1"}));
  const auto bad_id = TwoStumps("TreeEnsembleClassifier",
                                R"(class_treeids = [0], class_nodeids = [1], class_ids = [3],
        class_weights = [1.0], classlabels_int64s = [4, 5, 6])",
                                "", "int64[3] label, float[3,3] z");
  EXPECT_TRUE(FailsWith(RunModel(bad_id, Feed("x", Rows())), StatusCode::kInvalidArgument,
                        {"class_ids holds 3, outside [0, 3)"}));
}

}  // namespace
}  // namespace onnx_legalize::testing
