// PlanDynamicSlices: find every DynamicSlice and decide Fold | Rewrite, or fail with a message that names
// the node. Reads the model only.
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "eval/slice_kernels.h"
#include "graph/labels.h"
#include "graph/model_skeleton.h"
#include "graph/names.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/scoped_walk.h"
#include "rules/dynamic_slice.h"
#include "rules/registry.h"
#include "rules/typed_walk.h"

namespace onnx_legalize {
namespace {

bool IsIndexType(DataType type) { return type == onnx::TensorProto::INT32 || type == onnx::TensorProto::INT64; }

int64_t CountDynamicSlices(const onnx::GraphProto& graph) {
  int64_t count = 0;
  for (const auto& node : graph.node()) {
    if (node.op_type() == kDynamicSliceOp && IsDefaultDomain(node.domain())) ++count;
    ForEachSubgraph(
        node, [&](const std::string&, const onnx::GraphProto& subgraph) { count += CountDynamicSlices(subgraph); });
  }
  return count;
}

}  // namespace

class DynamicSlicePlanner::Impl {
 public:
  Impl(const onnx::ModelProto& model, const Options& options, bool stream_large_folds, FoldBudget& budget,
       DynamicSlicePlan& plan)
      : model_(model), options_(options), stream_large_folds_(stream_large_folds), plan_(plan), budget_(budget) {
    // One change per DynamicSlice: reserved, so that the changes are not moved again and again.
    plan_.changes.reserve(static_cast<size_t>(CountDynamicSlices(model.graph())));
    if (stream_large_folds_) {
      const absl::StatusOr<int64_t> opset = DefaultOpset(model);
      CollectInputsFoldedThrough(model.graph(), opset.ok() ? *opset : 0, folded_through_);
    }
  }

  // Plans `node` when it is a DynamicSlice. The walk's scopes are the plan's (its constants point into them).
  absl::Status Visit(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) {
    if (node.op_type() != kDynamicSliceOp || !IsDefaultDomain(node.domain())) return absl::OkStatus();
    return PlanNode(node, scope, locator);
  }

 private:
  // The operator's signature: data, starts, ends and an optional axes; one output; no attributes.
  static absl::Status CheckSignature(const onnx::NodeProto& node, const std::string& label) {
    auto invalid = [&](auto&&... parts) { return absl::InvalidArgumentError(absl::StrCat(label, ": ", parts...)); };
    if (node.input_size() < 3 || node.input_size() > 4) {
      return invalid("has ", node.input_size(), " inputs; DynamicSlice takes 3 or 4 (data, starts, ends[, axes])");
    }
    if (node.output_size() != 1 || node.output(0).empty()) {
      return invalid("has ", node.output_size(), " outputs; DynamicSlice has exactly one");
    }
    if (node.attribute_size() > 0) {
      return invalid("has attribute '", node.attribute(0).name(), "'; DynamicSlice takes none");
    }
    for (int i = 0; i < 3; ++i) {
      if (node.input(i).empty()) {
        return invalid("input ", i, " (", kInputNames[i], ") is empty; only axes may be omitted");
      }
    }
    return absl::OkStatus();
  }

  // What is known of the data: not a scalar, and of an element type onnx defines (elem_type 40 is a broken
  // model, not data to slice).
  static absl::Status CheckDataType(const DynamicSliceChange& change, const std::string& label) {
    const std::optional<std::vector<int64_t>>& data_dims = change.data_type.dims;
    if (data_dims.has_value() && data_dims->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": data '", change.data, "' is a scalar; DynamicSlice slices tensors of rank >= 1"));
    }
    if (change.data_type.elem_type != 0 && !IsSupportedDataType(change.data_type.elem_type)) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": data '", change.data, "' has element type ",
                                                     DataTypeName(change.data_type.elem_type),
                                                     ", which is not a tensor element type"));
    }
    return absl::OkStatus();
  }

  absl::Status PlanNode(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) {
    const std::string label = InGraph(NodeLabel(node), scope.path());
    auto invalid = [&](auto&&... parts) { return absl::InvalidArgumentError(absl::StrCat(label, ": ", parts...)); };
    RETURN_IF_ERROR(CheckSignature(node, label));

    DynamicSliceChange change;
    change.graph = locator;
    change.graph_path = scope.path();
    change.node_name = node.name();
    change.output = node.output(0);
    change.data = node.input(0);
    change.starts.name = node.input(1);
    change.ends.name = node.input(2);
    if (node.input_size() == 4) change.axes.name = node.input(3);

    auto lookup = [&](const std::string& name) -> absl::StatusOr<const Tensor*> {
      absl::StatusOr<const Tensor*> value = scope.FindConstant(name);
      if (!value.ok()) {
        return WithMessage(value.status(), absl::StrCat(label, ": ", value.status().message()));
      }
      return value;
    };
    // A weight stored as external data is read from its file only when the node folds (TryFold, after
    // the size check); its type and dims come from its TensorProto.
    const std::optional<std::vector<int64_t>> external_data_dims =
        scope.IsExternalData(change.data) ? scope.ConstantDims(change.data) : std::nullopt;
    if (!external_data_dims.has_value()) {
      ASSIGN_OR_RETURN(change.data_constant, lookup(change.data));
    }
    change.data_type = change.data_constant != nullptr
                           ? ValueType{change.data_constant->type(), change.data_constant->dims()}
                           : scope.FindType(change.data);
    if (external_data_dims.has_value()) change.data_type.dims = external_data_dims;
    IndexInput* indices[] = {&change.starts, &change.ends, &change.axes};
    for (IndexInput* index : indices) {
      if (index->name.empty()) continue;
      ASSIGN_OR_RETURN(index->constant, lookup(index->name));
    }
    RETURN_IF_ERROR(CheckIndexInputs(change, scope, invalid));
    RETURN_IF_ERROR(CheckDataType(change, label));

    const bool data_is_constant = change.data_constant != nullptr || external_data_dims.has_value();
    const bool all_constant = data_is_constant && change.starts.constant != nullptr &&
                              change.ends.constant != nullptr &&
                              (change.axes.name.empty() || change.axes.constant != nullptr);
    if (all_constant) {
      ASSIGN_OR_RETURN(bool folded, TryFold(change, invalid, lookup));
      if (folded) {
        if (!change.streamed) scope.AddConstant(change.output, change.folded);
        plan_.changes.push_back(std::move(change));
        return absl::OkStatus();
      }
    } else {
      change.detail = RunTimeInputs(change, data_is_constant, scope);
    }
    RETURN_IF_ERROR(PlanRewrite(change, label));
    plan_.changes.push_back(std::move(change));
    return absl::OkStatus();
  }

  // "data 'x' and ends 'n' are computed at run time": why a DynamicSlice is rewritten, not folded. An
  // input stored as external data that no reader can read is named apart, since it is no run-time value.
  static std::string RunTimeInputs(const DynamicSliceChange& change, bool data_is_constant, const GraphScope& scope) {
    std::vector<std::string> dynamic;
    std::vector<std::string> unread;
    auto add = [&](const char* kind, const std::string& name) {
      (scope.IsExternalData(name) ? unread : dynamic).push_back(absl::StrCat(kind, " '", name, "'"));
    };
    if (!data_is_constant) add(kInputNames[0], change.data);
    const IndexInput* indices[] = {&change.starts, &change.ends, &change.axes};
    for (int i = 0; i < 3; ++i) {
      if (!indices[i]->name.empty() && indices[i]->constant == nullptr) add(kInputNames[i + 1], indices[i]->name);
    }
    auto sentence = [](std::vector<std::string> names, const char* one, const char* many) {
      std::string last = names.back();
      names.pop_back();
      if (names.empty()) return absl::StrCat(last, one);
      return absl::StrCat(absl::StrJoin(names, ", "), " and ", last, many);
    };
    std::vector<std::string> parts;
    if (!dynamic.empty()) {
      parts.push_back(sentence(dynamic, " is computed at run time", " are computed at run time"));
    }
    if (!unread.empty()) {
      parts.push_back(sentence(unread, " is stored as external data, which was not read (no reader given)",
                               " are stored as external data, which was not read (no reader given)"));
    }
    return absl::StrJoin(parts, "; ");
  }

  // Index inputs are 1-D int32 or int64 tensors of one type and one length (DynamicSlice-1's Tind).
  template <typename Invalid>
  absl::Status CheckIndexInputs(DynamicSliceChange& change, const GraphScope& scope, Invalid& invalid) {
    const IndexInput* indices[] = {&change.starts, &change.ends, &change.axes};
    std::optional<int64_t> length;
    std::string length_from;
    for (int i = 0; i < 3; ++i) {
      const IndexInput& index = *indices[i];
      if (index.name.empty()) continue;
      ValueType type = index.constant != nullptr ? ValueType{index.constant->type(), index.constant->dims()}
                                                 : scope.FindType(index.name);
      if (type.elem_type != 0) {
        if (!IsIndexType(type.elem_type)) {
          return invalid(kInputNames[i + 1], " '", index.name, "' is ", DataTypeName(type.elem_type),
                         "; DynamicSlice takes int32 or int64 indices");
        }
        if (change.index_type != 0 && change.index_type != type.elem_type) {
          return invalid("index inputs mix ", DataTypeName(change.index_type), " and ", DataTypeName(type.elem_type),
                         " (", kInputNames[i + 1], " '", index.name, "'); starts, ends and axes share one type");
        }
        change.index_type = type.elem_type;
      }
      if (type.dims.has_value()) {
        if (type.dims->size() != 1) {
          return invalid(kInputNames[i + 1], " '", index.name, "' has rank ", type.dims->size(),
                         "; index inputs are 1-D");
        }
        int64_t n = (*type.dims)[0];
        if (n >= 0) {
          if (length.has_value() && *length != n) {
            return invalid(kInputNames[i + 1], " has ", n, " values but ", length_from, " has ", *length);
          }
          length = n;
          length_from = kInputNames[i + 1];
        }
      }
    }
    return absl::OkStatus();
  }

  // Folds when the result is small enough; false means "rewrite instead". Data stored as external data
  // is only read (with `lookup`) once the result is known to be small enough.
  template <typename Invalid, typename Lookup>
  absl::StatusOr<bool> TryFold(DynamicSliceChange& change, Invalid& invalid, Lookup& lookup) {
    const Tensor* axes = change.axes.constant;
    // data_type holds the constant's own type and dims (from its TensorProto when not decoded yet).
    const DataType data_type = change.data_type.elem_type;
    absl::StatusOr<std::vector<int64_t>> dims =
        SliceOutputDims(*change.data_type.dims, *change.starts.constant, *change.ends.constant, axes, nullptr);
    if (!dims.ok()) return invalid(dims.status().message());
    ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(*dims, change.output));
    // Strings have no fixed size: bound them by what a std::string costs at least.
    const int64_t element_bytes =
        std::max<int64_t>(ElementSize(data_type), data_type == onnx::TensorProto::STRING ? 32 : 1);
    const bool too_big = count > options_.max_fold_bytes / element_bytes;
    if (too_big) {
      change.detail = absl::StrCat("its constant result (", count, " elements of ", DataTypeName(data_type),
                                   ") is over max_fold_bytes (", options_.max_fold_bytes, ")");
      return false;
    }
    const int64_t bytes = count * element_bytes;  // no overflow: count <= max_fold_bytes / element_bytes
    if (!budget_.Fits(bytes)) {
      change.detail = absl::StrCat("its constant result (", bytes, " bytes) would take the folded total past ",
                                   "max_total_fold_bytes (", options_.max_total_fold_bytes, ")");
      return false;
    }
    budget_.Spend(bytes);
    if (change.data_constant == nullptr) {
      ASSIGN_OR_RETURN(change.data_constant, lookup(change.data));
      if (change.data_constant == nullptr) return invalid("data '", change.data, "' could not be read");
    }
    if (Streams(change, bytes)) {
      change.action = Action::kFolded;
      change.detail = "all inputs are constants";
      change.streamed = true;
      change.streamed_dims = *std::move(dims);
      return true;
    }
    absl::StatusOr<Tensor> value =
        DynamicSliceReference(*change.data_constant, *change.starts.constant, *change.ends.constant, axes);
    if (!value.ok()) return invalid(value.status().message());
    change.action = Action::kFolded;
    change.detail = "all inputs are constants";
    change.folded = std::make_shared<Tensor>(*std::move(value));
    return true;
  }

  absl::Status PlanRewrite(DynamicSliceChange& change, const std::string& label) {
    change.action = Action::kRewritten;
    const std::optional<std::vector<int64_t>>& dims = change.data_type.dims;
    const std::optional<int64_t> rank = dims.has_value() ? std::optional<int64_t>(dims->size()) : std::nullopt;
    if (change.data_type.elem_type == onnx::TensorProto::BFLOAT16) change.min_opset = 13;

    std::vector<int64_t> axes_values;
    bool axes_known = true;
    if (!change.axes.name.empty()) {
      if (change.axes.constant == nullptr) {
        // Axes computed at run time may be negative, which only Slice-11 defines.
        axes_known = false;
        change.min_opset = std::max<int64_t>(change.min_opset, 11);
      } else {
        ASSIGN_OR_RETURN(axes_values, change.axes.constant->ToInt64s("axes"));
        RETURN_IF_ERROR(CheckConstantAxes(axes_values, rank, label));
        const bool any_negative =
            std::any_of(axes_values.begin(), axes_values.end(), [](int64_t axis) { return axis < 0; });
        if (any_negative && rank.has_value()) {
          // Slice-10 leaves negative axes undefined: normalize them while the rank is known.
          for (int64_t& axis : axes_values) axis = axis < 0 ? axis + *rank : axis;
          change.new_axes_name = UniqueName(change.axes.name + "_nonnegative");
          change.new_axes = std::make_shared<const Tensor>(
              change.axes.constant->type() == onnx::TensorProto::INT32
                  ? Tensor::FromInt32s(std::vector<int32_t>(axes_values.begin(), axes_values.end()))
                  : Tensor::FromInt64s(axes_values));
        } else if (any_negative) {
          change.min_opset = std::max<int64_t>(change.min_opset, 11);
        }
      }
    } else if (change.starts.constant != nullptr) {
      // Omitted axes mean [0, ..., len(starts) - 1].
      for (int64_t i = 0; i < change.starts.constant->element_count(); ++i) axes_values.push_back(i);
    }

    if (!options_.keep_opset) return absl::OkStatus();
    // Slice-1 takes starts, ends and axes as attributes: all of them must be known now, and non-negative
    // axes, which Slice-1 does not define otherwise.
    auto must_be_constant = [&](const IndexInput& index, const char* what) -> absl::Status {
      if (index.constant != nullptr) return absl::OkStatus();
      return absl::FailedPreconditionError(
          absl::StrCat(label, ": keep_opset needs constant indices, but ", what, " '", index.name,
                       "' is computed at run time; without keep_opset it is rewritten to Slice-10 or later"));
    };
    RETURN_IF_ERROR(must_be_constant(change.starts, "starts"));
    RETURN_IF_ERROR(must_be_constant(change.ends, "ends"));
    if (!axes_known) RETURN_IF_ERROR(must_be_constant(change.axes, "axes"));
    if (change.min_opset > 10) {
      return absl::FailedPreconditionError(absl::StrCat(label, ": keep_opset cannot express it as Slice-1 (",
                                                        change.data_type.elem_type == onnx::TensorProto::BFLOAT16
                                                            ? "bfloat16 data"
                                                            : "negative axes on data of unknown rank",
                                                        ")"));
    }
    ASSIGN_OR_RETURN(change.attribute_starts, change.starts.constant->ToInt64s("starts"));
    ASSIGN_OR_RETURN(change.attribute_ends, change.ends.constant->ToInt64s("ends"));
    if (change.attribute_starts.size() != change.attribute_ends.size()) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": starts has ", change.attribute_starts.size(),
                                                     " values but ends has ", change.attribute_ends.size()));
    }
    if (!change.axes.name.empty()) change.attribute_axes = axes_values;
    change.new_axes_name.clear();
    change.new_axes.reset();
    return absl::OkStatus();
  }

  // Constant axes must be distinct and inside [-rank, rank - 1] (when the rank is known).
  static absl::Status CheckConstantAxes(const std::vector<int64_t>& axes, std::optional<int64_t> rank,
                                        const std::string& label) {
    std::unordered_set<int64_t> seen;
    for (int64_t axis : axes) {
      if (rank.has_value() && (axis < -*rank || axis >= *rank)) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": axis ", axis, " is outside [", -*rank, ", ", *rank - 1,
                                                       "] for data of rank ", *rank, " (axes [",
                                                       absl::StrJoin(axes, ", "), "])"));
      }
      const int64_t normalized = rank.has_value() && axis < 0 ? axis + *rank : axis;
      if (!seen.insert(normalized).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(label, ": axes name axis ", axis, " twice (axes [", absl::StrJoin(axes, ", "), "])"));
      }
    }
    return absl::OkStatus();
  }

  // Whether a fold of `bytes` is left to be computed as the output is written: large, in the main graph,
  // not strings, and read by no node that folds through it (whose planning needs its value).
  bool Streams(const DynamicSliceChange& change, int64_t bytes) const {
    return stream_large_folds_ && change.graph.steps.empty() &&
           change.data_type.elem_type != onnx::TensorProto::STRING && bytes > kSkeletonKeepBytes &&
           folded_through_.count(change.output) == 0;
  }

  // The inputs of every node of `graph` and its subgraphs that a planner folds through when they are constant:
  // DynamicSlices and the removed ops of a model importing default opset `opset` (by name: a superset where
  // scopes shadow).
  static void CollectInputsFoldedThrough(const onnx::GraphProto& graph, int64_t opset,
                                         std::unordered_set<std::string>& inputs) {
    for (const auto& node : graph.node()) {
      const bool dynamic_slice = node.op_type() == kDynamicSliceOp && IsDefaultDomain(node.domain());
      if (dynamic_slice || FindRemovedOpRule(node, opset) != nullptr) {
        inputs.insert(node.input().begin(), node.input().end());
      }
      ForEachSubgraph(node, [&](const std::string&, const onnx::GraphProto& subgraph) {
        CollectInputsFoldedThrough(subgraph, opset, inputs);
      });
    }
  }

  std::string UniqueName(const std::string& base) {
    // Every name of the model, collected the first time a name is made (rarely: normalized axes).
    if (!used_names_.has_value()) {
      used_names_.emplace();
      used_names_->ReserveAll(model_.graph());
    }
    return used_names_->Make(base);
  }

  static constexpr const char* kInputNames[] = {"data", "starts", "ends", "axes"};

  const onnx::ModelProto& model_;
  const Options options_;  // a copy: the planner may outlive the caller's options
  const bool stream_large_folds_;
  std::unordered_set<std::string> folded_through_;  // filled when folds may stream
  DynamicSlicePlan& plan_;
  FoldBudget& budget_;  // what the model's folds planned so far will allocate, against max_total_fold_bytes
  std::optional<FreshNames> used_names_;
};

DynamicSlicePlanner::DynamicSlicePlanner(const onnx::ModelProto& model, const Options& options, bool stream_large_folds,
                                         FoldBudget& budget, DynamicSlicePlan& plan)
    : impl_(std::make_unique<Impl>(model, options, stream_large_folds, budget, plan)) {}

DynamicSlicePlanner::~DynamicSlicePlanner() = default;

absl::Status DynamicSlicePlanner::Visit(const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) {
  return impl_->Visit(node, scope, locator);
}

int64_t SliceVersionAtOpset(int64_t opset) {
  if (opset >= 13) return 13;
  if (opset >= 11) return 11;
  if (opset >= 10) return 10;
  return 1;
}

absl::StatusOr<DynamicSlicePlan> PlanDynamicSlices(const onnx::ModelProto& model, const Options& options,
                                                   bool stream_large_folds) {
  DynamicSlicePlan plan;
  FoldBudget budget(options.max_total_fold_bytes);
  DynamicSlicePlanner planner(model, options, stream_large_folds, budget, plan);
  RETURN_IF_ERROR(WalkTypedModel(model, options.external_data, plan.scopes,
                                 [&](const onnx::NodeProto& node, GraphScope& scope, const GraphLocator& locator) {
                                   return planner.Visit(node, scope, locator);
                                 }));
  return plan;
}

}  // namespace onnx_legalize
