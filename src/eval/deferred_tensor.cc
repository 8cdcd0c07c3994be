#include "eval/deferred_tensor.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace onnx_legalize {

int64_t DeferredTensor::ByteSize() const {
  int64_t bytes = ElementSize(type());
  for (int64_t dim : dims()) bytes *= dim;  // a value that exists in a model fits int64
  return bytes;
}

bool IsDeferredStub(const onnx::TensorProto& tensor) {
  return tensor.data_location() == onnx::TensorProto::EXTERNAL && tensor.external_data_size() == 0;
}

absl::Status MaterializeDeferred(const DeferredTensors& deferred, onnx::ModelProto& model) {
  for (onnx::TensorProto& initializer : *model.mutable_graph()->mutable_initializer()) {
    auto value = deferred.find(initializer.name());
    if (value == deferred.end() || !IsDeferredStub(initializer)) continue;
    std::string bytes;
    bytes.reserve(static_cast<size_t>(value->second->ByteSize()));
    RETURN_IF_ERROR(value->second->WriteTo([&bytes](absl::string_view part) {
      bytes.append(part.data(), part.size());
      return absl::OkStatus();
    }));
    initializer.clear_data_location();
    initializer.set_raw_data(std::move(bytes));
  }
  return absl::OkStatus();
}

absl::Status ForEachRowMajorPart(
    const std::vector<int64_t>& dims, int64_t element_size, int64_t max_part_bytes,
    const std::function<absl::Status(const std::vector<int64_t>& offset, const std::vector<int64_t>& size)>& part) {
  if (std::any_of(dims.begin(), dims.end(), [](int64_t dim) { return dim <= 0; })) return absl::OkStatus();
  const auto rank = static_cast<int64_t>(dims.size());
  if (rank == 0) return part({}, {});
  // The split axis: the first (from the front) whose trailing axes, taken whole, fit a part; `inner` is the
  // bytes of one index of it. Trailing axes are always taken whole, so each part is one contiguous run.
  int64_t split = rank - 1;
  int64_t inner = element_size;
  while (split > 0 && inner <= max_part_bytes / dims[static_cast<size_t>(split)]) {
    inner *= dims[static_cast<size_t>(split)];
    --split;
  }
  const int64_t split_dim = dims[static_cast<size_t>(split)];
  const int64_t rows = std::min(split_dim, std::max<int64_t>(1, max_part_bytes / inner));
  std::vector<int64_t> offset(dims.size(), 0);
  std::vector<int64_t> size = dims;
  for (int64_t a = 0; a < split; ++a) size[static_cast<size_t>(a)] = 1;
  while (true) {
    for (int64_t row = 0; row < split_dim; row += rows) {
      offset[static_cast<size_t>(split)] = row;
      size[static_cast<size_t>(split)] = std::min(rows, split_dim - row);
      RETURN_IF_ERROR(part(offset, size));
    }
    // The next index of the axes before the split one, row-major (an odometer); done when it wraps.
    int64_t a = split - 1;
    while (a >= 0 && ++offset[static_cast<size_t>(a)] == dims[static_cast<size_t>(a)]) {
      offset[static_cast<size_t>(a)] = 0;
      --a;
    }
    if (a < 0) return absl::OkStatus();
  }
}

}  // namespace onnx_legalize
