// The trees of an ai.onnx.ml TreeEnsembleClassifier or TreeEnsembleRegressor (ml opsets 1 and 3), read from the
// node's attributes as ONNX Runtime reads them, and the walk of one row down each tree to its leaf. The kernels of
// tree_ensemble.cc add up what the leaves hold.
//
// What ONNX Runtime 1.31 does and the op's text leaves open, followed here because the runner is checked against it
// (tests/differential/run_runner_kernels.py):
//   - a tree is a run of equal `nodes_treeids` in attribute order, rooted at the run's first node (not at node id 0);
//     a tree id that comes back later starts another tree, and trees are summed in this order;
//   - thresholds, leaf weights and base values are held as Threshold: double for double X, float for every other X
//     (an integer X is compared as float); a `*_as_tensor` attribute must hold that type;
//   - NaN goes to the true child only where `nodes_missing_value_tracks_true` is 1 (else IEEE's comparison decides:
//     false, except for BRANCH_NEQ);
//   - a leaf's weights are kept in attribute order; a weight on a branch node is ignored.
// ONNX Runtime folds a chain of BRANCH_EQ nodes over whole numbers 1..32 (1..64 for double) into one set test, and
// then reads the chain by its first node's missing-value flag and compares the chain's true subtrees by their first
// leaf weight only: a model with such a chain is refused (Unimplemented) rather than computed otherwise.
#ifndef ONNX_LEGALIZE_SRC_EVAL_KERNELS_TREE_FOREST_H_
#define ONNX_LEGALIZE_SRC_EVAL_KERNELS_TREE_FOREST_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

enum class TreeNodeMode { kLeq, kLt, kGte, kGt, kEq, kNeq, kLeaf };

template <typename Threshold>
struct TreeNode {
  TreeNodeMode mode = TreeNodeMode::kLeaf;
  int64_t feature = 0;
  Threshold value = 0;  // the threshold of a branch; what a leaf without weights gives a one-output ensemble
  bool nan_goes_true = false;
  int64_t true_child = -1;  // indices into Forest::nodes
  int64_t false_child = -1;
  std::vector<std::pair<int64_t, Threshold>> weights;  // (class or target id, weight), in attribute order
};

template <typename Threshold>
struct Forest {
  std::vector<TreeNode<Threshold>> nodes;  // in attribute order
  std::vector<int64_t> roots;              // one per tree, in the order trees are summed
  int64_t max_branch_feature = -1;         // the largest feature a branch reads
  bool any_negative_weight = false;
};

// The forest of `node`, whose weights are the attributes `<weights_prefix>ids`, `..._nodeids`, `..._treeids` and
// `..._weights` ("class_" or "target_"), each id in [0, outputs). InvalidArgument names what is malformed.
template <typename Threshold>
absl::StatusOr<Forest<Threshold>> ReadForest(const onnx::NodeProto& node, absl::string_view weights_prefix,
                                             int64_t outputs);

// The leaf row `features` (`feature_count` values) reaches from `root`; InvalidArgument when the walk loops.
template <typename Threshold>
absl::StatusOr<const TreeNode<Threshold>*> FindLeaf(const Forest<Threshold>& forest, int64_t root,
                                                    const Threshold* features);

// A float list attribute or its `_as_tensor` form (ml opset 3), as Threshold; empty when the node has neither.
template <typename Threshold>
absl::StatusOr<std::vector<Threshold>> ThresholdsAttribute(const onnx::NodeProto& node, absl::string_view name);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_KERNELS_TREE_FOREST_H_
