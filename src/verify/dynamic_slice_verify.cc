#include "verify/dynamic_slice_verify.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "eval/deferred_tensor.h"
#include "eval/mt19937_64.h"
#include "eval/slice_kernels.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "rules/trial_limits.h"
#include "verify/streamed_fold.h"

namespace onnx_legalize {
namespace {

// Highest rank a trial gives data of unknown rank: enough for any real model's indices.
constexpr int64_t kMaxTrialRank = 64;

std::string Label(const DynamicSliceChange& change) {
  return InGraph(NodeLabel(kDynamicSliceOp, change.node_name, change.output), change.graph_path);
}

std::string Describe(const Tensor& tensor) {
  std::string text = absl::StrCat(DataTypeName(tensor.type()), "[", absl::StrJoin(tensor.dims(), ","), "]");
  if ((tensor.type() == onnx::TensorProto::INT32 || tensor.type() == onnx::TensorProto::INT64) && tensor.rank() == 1) {
    absl::StatusOr<std::vector<int64_t>> values = tensor.ToInt64s("index");
    if (values.ok()) absl::StrAppend(&text, " {", absl::StrJoin(*values, ", "), "}");
  }
  return text;
}

// Compares what the two forms produced; either may have rejected its inputs. `describe_inputs()` says what
// the inputs were, and is called only when the forms disagree: a trial's description costs more than the
// trial itself.
template <typename DescribeInputs>
absl::Status Compare(const DynamicSliceChange& change, const absl::StatusOr<Tensor>& original,
                     const absl::StatusOr<Tensor>& replacement, const DescribeInputs& describe_inputs) {
  if (original.ok() && replacement.ok() && original->BitwiseEquals(*replacement)) return absl::OkStatus();
  if (!original.ok() && !replacement.ok()) return absl::OkStatus();
  std::string what;
  if (!original.ok()) {
    what = absl::StrCat("DynamicSlice rejects them (", original.status().message(), ") but Slice gives ",
                        Describe(*replacement));
  } else if (!replacement.ok()) {
    what = absl::StrCat("Slice rejects them (", replacement.status().message(), ") but DynamicSlice gives ",
                        Describe(*original));
  } else {
    what = absl::StrCat("DynamicSlice gives ", Describe(*original), ", Slice gives ", Describe(*replacement),
                        original->dims() == replacement->dims() ? " with different bytes" : "");
  }
  return VerificationFailure(Label(change), absl::StrCat(Label(change), " on inputs ", describe_inputs(), ": ", what));
}

// What a fold's verification says, the same whether the fold was held whole (and recomputed whole) or
// written part by part (and recomputed part by part): the report is the same through every door.
std::string FoldVerified(DataType type, const std::vector<int64_t>& dims) {
  return absl::StrCat("fold recomputed with the Slice kernel: ", DataTypeName(type), "[", absl::StrJoin(dims, ","),
                      "], identical");
}

// Whether Slice, recomputing `change`'s fold part by part into one buffer it reuses, gives the fold's bytes: a
// whole second copy of a large fold would double the memory it takes, and its fresh pages, which the kernel
// zeroes and the process faults in, cost more than the slicing. False also when Slice rejects the inputs or gives
// other dims; VerifyFold then recomputes the whole to say how they differ.
bool RecomputedInPartsEqual(const DynamicSliceChange& change) {
  const Tensor& folded = *change.folded;
  absl::StatusOr<std::vector<int64_t>> dims = SliceOutputDims(change.data_constant->dims(), *change.starts.constant,
                                                              *change.ends.constant, change.axes.constant, nullptr);
  if (folded.is_string() || !dims.ok() || *dims != folded.dims()) return false;
  const std::string_view expected = folded.bytes();
  size_t compared = 0;
  std::string storage;
  const absl::Status same = ForEachRowMajorPart(
      folded.dims(), ElementSize(folded.type()), kStreamedPartBytes,
      [&](const std::vector<int64_t>& offset, const std::vector<int64_t>& size) -> absl::Status {
        const OutputPart part{offset, size};
        absl::StatusOr<Tensor> recomputed = Slice(*change.data_constant, *change.starts.constant, *change.ends.constant,
                                                  change.axes.constant, nullptr, &part, std::move(storage));
        if (!recomputed.ok()) return recomputed.status();
        // The parts tile the fold in row-major order, so each one's bytes follow the last one's.
        const std::string_view bytes = recomputed->bytes();
        if (expected.substr(compared, bytes.size()) != bytes) return absl::DataLossError("the bytes differ");
        compared += bytes.size();
        storage = recomputed->release_bytes();
        return absl::OkStatus();
      });
  return same.ok() && compared == expected.size();
}

absl::Status VerifyFold(DynamicSliceChange& change) {
  if (!RecomputedInPartsEqual(change)) {
    absl::StatusOr<Tensor> recomputed =
        Slice(*change.data_constant, *change.starts.constant, *change.ends.constant, change.axes.constant, nullptr);
    absl::StatusOr<Tensor> folded = change.folded->Clone();
    RETURN_IF_ERROR(Compare(change, folded, recomputed, [&] {
      std::string inputs = absl::StrCat("data ", Describe(*change.data_constant), ", starts ",
                                        Describe(*change.starts.constant), ", ends ", Describe(*change.ends.constant));
      if (change.axes.constant != nullptr) absl::StrAppend(&inputs, ", axes ", Describe(*change.axes.constant));
      return inputs;
    }));
  }
  change.verification = FoldVerified(change.folded->type(), change.folded->dims());
  return absl::OkStatus();
}

// The inputs of one rewrite trial.
class TrialGenerator {
 public:
  TrialGenerator(const DynamicSliceChange& change, uint64_t seed)
      : change_(change), rng_(seed ^ std::hash<std::string>()(change.graph_path + "/" + change.output)) {}

  struct Trial {
    Tensor data, starts, ends, axes;
    bool has_axes = false;
  };

  Trial Next(int number) {
    Trial trial;
    const DataType index_type = change_.index_type != 0 ? change_.index_type : onnx::TensorProto::INT64;
    std::vector<int64_t> dims = PickDims();
    const int64_t rank = static_cast<int64_t>(dims.size());

    // Axes: constant as they are; dynamic ones a random subset of distinct axes, some written negative.
    std::vector<int64_t> axes;
    if (change_.axes.constant != nullptr) {
      axes = change_.axes.constant->ToInt64s("axes").value();
    } else if (!change_.axes.name.empty()) {
      std::vector<int64_t> all(rank);
      for (int64_t i = 0; i < rank; ++i) all[i] = i;
      std::shuffle(all.begin(), all.end(), rng_);
      all.resize(IndexLength(rank));
      for (int64_t& axis : all) axis = Uniform(0, 1) ? axis - rank : axis;
      axes = all;
    } else {
      for (int64_t i = 0; i < IndexLength(rank); ++i) axes.push_back(i);
    }
    trial.has_axes = !change_.axes.name.empty();
    if (trial.has_axes) trial.axes = MakeIndex(index_type, axes);

    auto values = [&](const IndexInput& input) {
      if (input.constant != nullptr) return input.constant->Clone();
      std::vector<int64_t> drawn;
      for (int64_t axis : axes) {
        const int64_t a = axis < 0 ? axis + rank : axis;
        const int64_t dim = a >= 0 && a < rank ? dims[a] : 1;
        drawn.push_back(DrawIndex(dim, index_type));
      }
      return MakeIndex(index_type, drawn);
    };
    trial.starts = values(change_.starts);
    trial.ends = values(change_.ends);
    trial.data = MakeData(number, std::move(dims));
    return trial;
  }

 private:
  int64_t Uniform(int64_t low, int64_t high) {  // inclusive
    return low + static_cast<int64_t>(rng_() % static_cast<uint64_t>(high - low + 1));
  }

  // How many values each index input holds, when nothing constant fixes it.
  int64_t IndexLength(int64_t rank) {
    for (const IndexInput* input : {&change_.starts, &change_.ends, &change_.axes}) {
      if (input->constant != nullptr) return input->constant->element_count();
    }
    return Uniform(1, rank);
  }

  // The rank the constant indices need at least, up to kMaxTrialRank: the model's values are a stranger's
  // (axis 2^60 on data of unknown rank), and data of a rank they need but no trial reaches is rejected by
  // both forms alike.
  int64_t RequiredRank() const {
    int64_t rank = 1;
    for (const IndexInput* input : {&change_.starts, &change_.ends}) {
      if (input->constant != nullptr) rank = std::max(rank, input->constant->element_count());
    }
    if (change_.axes.constant != nullptr) {
      // The planner checked that constant axes are int32/int64, so value() cannot fail here.
      const std::vector<int64_t> axes = change_.axes.constant->ToInt64s("axes").value();
      for (int64_t axis : axes) {
        if (axis >= -kMaxTrialRank && axis < kMaxTrialRank) rank = std::max(rank, axis < 0 ? -axis : axis + 1);
      }
    }
    return std::min(rank, kMaxTrialRank);
  }

  std::vector<int64_t> PickDims() {
    std::vector<int64_t> dims;
    if (change_.data_type.dims.has_value()) {
      dims = *change_.data_type.dims;
    } else {
      dims.assign(std::max<int64_t>(RequiredRank(), Uniform(1, 4)), -1);
    }
    for (int64_t& dim : dims) {
      if (dim < 0) dim = Uniform(0, 6);
    }
    // Scale a large known shape down, dim by dim, keeping each dim's relation to the indices varied.
    int64_t count = 1;
    for (int64_t dim : dims)
      count = dim == 0 ? 0 : (count > kMaxSliceTrialElements / dim ? kMaxSliceTrialElements + 1 : count * dim);
    // A declared shape is a stranger's too: any rank, and dims up to INT64_MAX beside a 0. Past the limit
    // (or past int64 in DrawIndex's [-dim-2, dim+2]) dims shrink, and once the kept ones fill the budget
    // the rest become 1.
    int64_t kept = 1;
    for (int64_t& dim : dims) {
      if (count > kMaxSliceTrialElements || dim > kMaxSliceTrialElements) dim = std::min<int64_t>(dim, Uniform(1, 8));
      if (dim > 0 && kept > kMaxSliceTrialElements / dim) dim = 1;
      kept *= std::max<int64_t>(dim, 1);
    }
    return dims;
  }

  int64_t DrawIndex(int64_t dim, DataType index_type) {
    const bool is32 = index_type == onnx::TensorProto::INT32;
    switch (Uniform(0, 9)) {
      case 0: return is32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
      case 1: return is32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
      default: return Uniform(-dim - 2, dim + 2);
    }
  }

  static Tensor MakeIndex(DataType type, const std::vector<int64_t>& values) {
    if (type == onnx::TensorProto::INT32) {
      return Tensor::FromInt32s(std::vector<int32_t>(values.begin(), values.end()));
    }
    return Tensor::FromInt64s(values);
  }

  Tensor MakeData(int number, std::vector<int64_t> dims) {
    // Data of unknown type is tried as a fixed-size type, a string and bool in turn.
    static constexpr DataType kUnknownTypeRotation[] = {onnx::TensorProto::FLOAT, onnx::TensorProto::STRING,
                                                        onnx::TensorProto::BOOL};
    DataType type = change_.data_type.elem_type;
    if (type == 0) type = kUnknownTypeRotation[number % 3];
    if (change_.data_constant != nullptr && change_.data_constant->dims() == dims) {
      return change_.data_constant->Clone();
    }
    Tensor data = *Tensor::Zeros(type, std::move(dims));
    if (data.is_string()) {
      for (std::string& s : data.mutable_strings())
        s = std::string(Uniform(0, 3), static_cast<char>('a' + Uniform(0, 25)));
    } else if (type == onnx::TensorProto::BOOL) {
      for (char& byte : data.mutable_bytes()) byte = static_cast<char>(Uniform(0, 1));
    } else {
      // Random bits: NaNs with payloads, infinities and -0.0 included for floating types. Eight bytes a
      // draw: filling the data is most of a trial's cost.
      std::string& bytes = data.mutable_bytes();
      for (size_t i = 0; i < bytes.size(); i += sizeof(uint64_t)) {
        const uint64_t bits = rng_();
        std::memcpy(&bytes[i], &bits, std::min(sizeof(uint64_t), bytes.size() - i));
      }
    }
    return data;
  }

  const DynamicSliceChange& change_;
  Mt19937_64 rng_;
};

absl::Status VerifyRewrite(DynamicSliceChange& change, const Options& options) {
  TrialGenerator generator(change, options.verify_seed);
  int agreed_values = 0;
  for (int number = 0; number < options.verify_trials; ++number) {
    TrialGenerator::Trial trial = generator.Next(number);
    absl::StatusOr<Tensor> original =
        DynamicSliceReference(trial.data, trial.starts, trial.ends, trial.has_axes ? &trial.axes : nullptr);
    // The replacement reads its own inputs: Slice-1's attributes, or normalized axes.
    const Tensor* starts = &trial.starts;
    const Tensor* ends = &trial.ends;
    const Tensor* axes = trial.has_axes ? &trial.axes : nullptr;
    Tensor attribute_starts, attribute_ends, attribute_axes;
    if (change.slice_version == 1) {
      attribute_starts = Tensor::FromInt64s(change.attribute_starts);
      attribute_ends = Tensor::FromInt64s(change.attribute_ends);
      starts = &attribute_starts;
      ends = &attribute_ends;
      if (trial.has_axes) attribute_axes = Tensor::FromInt64s(change.attribute_axes);
      axes = trial.has_axes ? &attribute_axes : nullptr;
    } else if (change.new_axes != nullptr) {
      axes = trial.has_axes ? change.new_axes.get() : nullptr;
    }
    absl::StatusOr<Tensor> replacement = Slice(trial.data, *starts, *ends, axes, nullptr);

    RETURN_IF_ERROR(Compare(change, original, replacement, [&] {
      std::string inputs = absl::StrCat("data ", Describe(trial.data), ", starts ", Describe(trial.starts), ", ends ",
                                        Describe(trial.ends));
      if (trial.has_axes) absl::StrAppend(&inputs, ", axes ", Describe(trial.axes));
      absl::StrAppend(&inputs, " (trial ", number, ", seed ", options.verify_seed, ")");
      return inputs;
    }));
    if (original.ok()) ++agreed_values;
  }
  change.verification =
      absl::StrCat(options.verify_trials, " seeded trials of DynamicSlice against Slice-", change.slice_version, ": ",
                   agreed_values, " identical results, ", options.verify_trials - agreed_values, " rejected by both");
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyDynamicSliceChange(DynamicSliceChange& change, const Options& options) {
  if (change.streamed) {
    // Proved part by part as it is written (verify/streamed_fold.h); a failure fails the write, so a report
    // that says this exists only once every part was identical.
    change.verification = FoldVerified(change.data_type.elem_type, change.streamed_dims);
    return absl::OkStatus();
  }
  return change.action == Action::kFolded ? VerifyFold(change) : VerifyRewrite(change, options);
}

}  // namespace onnx_legalize
