// Reading a tree ensemble's attributes into a Forest and walking it (tree_forest.h says what ONNX Runtime does
// that the op's text leaves open, and which of it is followed here).
#include "eval/kernels/tree_forest.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "eval/kernels/kernel_support.h"
#include "eval/typed_elements.h"
#include "graph/attributes.h"

namespace onnx_legalize {
namespace {

using ::absl::StrCat;

absl::StatusOr<std::vector<int64_t>> IntsOrEmpty(const onnx::NodeProto& node, absl::string_view name) {
  ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> values, IntsAttribute(node, name));
  return values.value_or(std::vector<int64_t>{});
}

absl::StatusOr<TreeNodeMode> ModeNamed(const std::string& name) {
  static const std::map<std::string, TreeNodeMode> kModes = {
      {"BRANCH_LEQ", TreeNodeMode::kLeq}, {"BRANCH_LT", TreeNodeMode::kLt}, {"BRANCH_GTE", TreeNodeMode::kGte},
      {"BRANCH_GT", TreeNodeMode::kGt},   {"BRANCH_EQ", TreeNodeMode::kEq}, {"BRANCH_NEQ", TreeNodeMode::kNeq},
      {"LEAF", TreeNodeMode::kLeaf}};
  const auto found = kModes.find(name);
  if (found == kModes.end()) return absl::InvalidArgumentError(StrCat("nodes_modes holds '", name, "'"));
  return found->second;
}

absl::StatusOr<std::vector<TreeNodeMode>> Modes(const onnx::NodeProto& node) {
  std::vector<TreeNodeMode> modes;
  const onnx::AttributeProto* attribute = FindAttribute(node, "nodes_modes");
  if (attribute == nullptr) return modes;
  for (const std::string& name : attribute->strings()) {
    ASSIGN_OR_RETURN(const TreeNodeMode mode, ModeNamed(name));
    modes.push_back(mode);
  }
  return modes;
}

// Whether `value` is a whole number ONNX Runtime folds into a BRANCH_EQ chain's set test: 1..32 for float, 1..64
// for double.
template <typename Threshold>
bool FoldsIntoSetTest(Threshold value) {
  const Threshold bits = std::is_same_v<Threshold, double> ? 64 : 32;
  return value >= 1 && value <= bits && value == std::floor(value);
}

// Whether the subtrees at `a` and `b` are alike: as ONNX Runtime compares them before folding (modes, features and
// thresholds, leaves by their first weight), or wholly (missing-value flags and every weight too). nullopt when
// the comparison would take more steps than the forest has nodes (trees that share subtrees many times).
template <typename Threshold>
std::optional<bool> SubtreesAlike(const Forest<Threshold>& forest, int64_t a, int64_t b, bool wholly) {
  std::vector<std::pair<int64_t, int64_t>> pending = {{a, b}};
  size_t steps = 0;
  while (!pending.empty()) {
    if (++steps > 4 * forest.nodes.size()) return std::nullopt;
    const auto [i, j] = pending.back();
    pending.pop_back();
    const TreeNode<Threshold>& x = forest.nodes[i];
    const TreeNode<Threshold>& y = forest.nodes[j];
    if (x.mode != y.mode) return false;
    if (x.mode == TreeNodeMode::kLeaf) {
      if (wholly ? x.weights != y.weights
                 : (x.weights.empty() != y.weights.empty() ||
                    (!x.weights.empty() && x.weights[0].second != y.weights[0].second))) {
        return false;
      }
      continue;
    }
    if (x.feature != y.feature || x.value != y.value) return false;
    if (wholly && x.nan_goes_true != y.nan_goes_true) return false;
    pending.emplace_back(x.true_child, y.true_child);
    pending.emplace_back(x.false_child, y.false_child);
  }
  return true;
}

// Unimplemented where ONNX Runtime would fold a BRANCH_EQ chain in a way that computes otherwise than the chain
// read node by node (tree_forest.h).
template <typename Threshold>
absl::Status RefuseChainsFoldedOtherwise(const Forest<Threshold>& forest) {
  for (const TreeNode<Threshold>& head : forest.nodes) {
    if (head.mode != TreeNodeMode::kEq || !FoldsIntoSetTest(head.value)) continue;
    const TreeNode<Threshold>& next = forest.nodes[head.false_child];
    if (next.mode != TreeNodeMode::kEq || next.feature != head.feature || !FoldsIntoSetTest(next.value)) continue;
    const std::optional<bool> folds = SubtreesAlike(forest, head.true_child, next.true_child, /*wholly=*/false);
    const std::optional<bool> same = SubtreesAlike(forest, head.true_child, next.true_child, /*wholly=*/true);
    if (!folds.has_value() || !same.has_value() || (*folds && !(*same && head.nan_goes_true == next.nan_goes_true))) {
      return absl::UnimplementedError(StrCat(
          "a chain of BRANCH_EQ nodes over feature ", head.feature, " (thresholds ", head.value, " and ", next.value,
          ") that ONNX Runtime folds into one set test, which then computes otherwise than the "
          "chain node by node"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

template <typename Threshold>
absl::StatusOr<std::vector<Threshold>> ThresholdsAttribute(const onnx::NodeProto& node, absl::string_view name) {
  const onnx::AttributeProto* as_tensor = FindAttribute(node, StrCat(name, "_as_tensor"));
  if (as_tensor != nullptr) {
    if (FindAttribute(node, name) != nullptr) {
      return absl::InvalidArgumentError(StrCat("the node has both ", name, " and ", name, "_as_tensor"));
    }
    const auto want = std::is_same_v<Threshold, double> ? onnx::TensorProto::DOUBLE : onnx::TensorProto::FLOAT;
    ASSIGN_OR_RETURN(const Tensor tensor, TensorFromProto(as_tensor->t(), StrCat(name, "_as_tensor")));
    if (tensor.type() != want) {
      return absl::InvalidArgumentError(StrCat(name, "_as_tensor is ", Describe(tensor), ", where X's type asks for ",
                                               want == onnx::TensorProto::DOUBLE ? "double" : "float"));
    }
    return ElementsOf<Threshold>(tensor);
  }
  ASSIGN_OR_RETURN(std::optional<std::vector<float>> floats, FloatsAttribute(node, name));
  if (!floats.has_value()) return std::vector<Threshold>{};
  return std::vector<Threshold>(floats->begin(), floats->end());
}

template <typename Threshold>
absl::StatusOr<Forest<Threshold>> ReadForest(const onnx::NodeProto& node, absl::string_view weights_prefix,
                                             int64_t outputs) {
  ASSIGN_OR_RETURN(const std::vector<int64_t> tree_ids, IntsOrEmpty(node, "nodes_treeids"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> node_ids, IntsOrEmpty(node, "nodes_nodeids"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> features, IntsOrEmpty(node, "nodes_featureids"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> true_ids, IntsOrEmpty(node, "nodes_truenodeids"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> false_ids, IntsOrEmpty(node, "nodes_falsenodeids"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> nan_true, IntsOrEmpty(node, "nodes_missing_value_tracks_true"));
  ASSIGN_OR_RETURN(const std::vector<TreeNodeMode> modes, Modes(node));
  ASSIGN_OR_RETURN(const std::vector<Threshold> values, ThresholdsAttribute<Threshold>(node, "nodes_values"));
  const size_t count = tree_ids.size();
  if (count == 0) return absl::InvalidArgumentError("the ensemble has no nodes (nodes_treeids is empty)");
  for (const auto& [name, size] : {std::pair<const char*, size_t>{"nodes_nodeids", node_ids.size()},
                                   {"nodes_featureids", features.size()},
                                   {"nodes_truenodeids", true_ids.size()},
                                   {"nodes_falsenodeids", false_ids.size()},
                                   {"nodes_modes", modes.size()},
                                   {"nodes_values", values.size()}}) {
    if (size != count) {
      return absl::InvalidArgumentError(StrCat(name, " holds ", size, " values, nodes_treeids ", count));
    }
  }
  if (nan_true.size() > count) {
    return absl::InvalidArgumentError(
        StrCat("nodes_missing_value_tracks_true holds ", nan_true.size(), " values for ", count, " nodes"));
  }

  Forest<Threshold> forest;
  forest.nodes.resize(count);
  std::map<std::pair<int64_t, int64_t>, int64_t> index_of;  // (tree id, node id) -> index
  for (size_t i = 0; i < count; ++i) {
    if (!index_of.emplace(std::make_pair(tree_ids[i], node_ids[i]), static_cast<int64_t>(i)).second) {
      return absl::InvalidArgumentError(StrCat("node ", node_ids[i], " of tree ", tree_ids[i], " is there twice"));
    }
    if (i == 0 || tree_ids[i] != tree_ids[i - 1]) forest.roots.push_back(static_cast<int64_t>(i));
  }
  const auto find = [&](int64_t tree, int64_t id, absl::string_view what) -> absl::StatusOr<int64_t> {
    const auto found = index_of.find({tree, id});
    if (found == index_of.end()) {
      return absl::InvalidArgumentError(StrCat(what, " names node ", id, " of tree ", tree, ", which is not there"));
    }
    return found->second;
  };
  for (size_t i = 0; i < count; ++i) {
    TreeNode<Threshold>& tree_node = forest.nodes[i];
    tree_node.mode = modes[i];
    tree_node.feature = features[i];
    tree_node.value = values[i];
    tree_node.nan_goes_true = i < nan_true.size() && nan_true[i] == 1;
    if (tree_node.mode == TreeNodeMode::kLeaf) continue;
    if (features[i] < 0) return absl::InvalidArgumentError(StrCat("node ", i, " reads feature ", features[i]));
    forest.max_branch_feature = std::max(forest.max_branch_feature, features[i]);
    ASSIGN_OR_RETURN(tree_node.true_child, find(tree_ids[i], true_ids[i], StrCat("node ", i, "'s true branch")));
    ASSIGN_OR_RETURN(tree_node.false_child, find(tree_ids[i], false_ids[i], StrCat("node ", i, "'s false branch")));
  }

  const std::string prefix(weights_prefix);
  ASSIGN_OR_RETURN(const std::vector<int64_t> ids, IntsOrEmpty(node, prefix + "ids"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> weight_nodes, IntsOrEmpty(node, prefix + "nodeids"));
  ASSIGN_OR_RETURN(const std::vector<int64_t> weight_trees, IntsOrEmpty(node, prefix + "treeids"));
  ASSIGN_OR_RETURN(const std::vector<Threshold> weights, ThresholdsAttribute<Threshold>(node, prefix + "weights"));
  if (weight_nodes.size() != ids.size() || weight_trees.size() != ids.size() || weights.size() != ids.size()) {
    return absl::InvalidArgumentError(
        StrCat(prefix, "ids, ", prefix, "nodeids, ", prefix, "treeids and ", prefix, "weights differ in length"));
  }
  for (size_t k = 0; k < ids.size(); ++k) {
    if (ids[k] < 0 || ids[k] >= outputs) {
      return absl::InvalidArgumentError(StrCat(prefix, "ids holds ", ids[k], ", outside [0, ", outputs, ")"));
    }
    ASSIGN_OR_RETURN(const int64_t leaf, find(weight_trees[k], weight_nodes[k], StrCat(prefix, "weights ", k)));
    forest.any_negative_weight = forest.any_negative_weight || weights[k] < 0;
    // ONNX Runtime ignores a weight on a branch node.
    if (forest.nodes[leaf].mode == TreeNodeMode::kLeaf) forest.nodes[leaf].weights.emplace_back(ids[k], weights[k]);
  }
  RETURN_IF_ERROR(RefuseChainsFoldedOtherwise(forest));
  return forest;
}

template <typename Threshold>
absl::StatusOr<const TreeNode<Threshold>*> FindLeaf(const Forest<Threshold>& forest, int64_t root,
                                                    const Threshold* features) {
  const TreeNode<Threshold>* at = &forest.nodes[root];
  for (size_t steps = 0; at->mode != TreeNodeMode::kLeaf; ++steps) {
    if (steps == forest.nodes.size()) {
      return absl::InvalidArgumentError(StrCat("the tree rooted at node ", root, " loops"));
    }
    const Threshold v = features[at->feature];
    bool goes_true = false;
    switch (at->mode) {
      case TreeNodeMode::kLeq: goes_true = v <= at->value; break;
      case TreeNodeMode::kLt: goes_true = v < at->value; break;
      case TreeNodeMode::kGte: goes_true = v >= at->value; break;
      case TreeNodeMode::kGt: goes_true = v > at->value; break;
      case TreeNodeMode::kEq: goes_true = v == at->value; break;
      case TreeNodeMode::kNeq: goes_true = v != at->value; break;
      case TreeNodeMode::kLeaf: break;
    }
    goes_true = goes_true || (at->nan_goes_true && std::isnan(v));
    at = &forest.nodes[goes_true ? at->true_child : at->false_child];
  }
  return at;
}

template absl::StatusOr<std::vector<float>> ThresholdsAttribute<float>(const onnx::NodeProto&, absl::string_view);
template absl::StatusOr<std::vector<double>> ThresholdsAttribute<double>(const onnx::NodeProto&, absl::string_view);
template absl::StatusOr<Forest<float>> ReadForest<float>(const onnx::NodeProto&, absl::string_view, int64_t);
template absl::StatusOr<Forest<double>> ReadForest<double>(const onnx::NodeProto&, absl::string_view, int64_t);
template absl::StatusOr<const TreeNode<float>*> FindLeaf<float>(const Forest<float>&, int64_t, const float*);
template absl::StatusOr<const TreeNode<double>*> FindLeaf<double>(const Forest<double>&, int64_t, const double*);

}  // namespace onnx_legalize
