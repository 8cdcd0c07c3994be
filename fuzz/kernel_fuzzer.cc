// libFuzzer target: TensorProto decoding (TensorFromProto, TensorToProto) and the two slice kernels
// (Slice, DynamicSliceReference, SliceOutputDims) on fuzzer-made tensors and indices. Built and run by
// fuzz/run.sh.
//
// Input: [2 bytes little-endian L][L bytes: a serialized TensorProto, the data][the rest: choices]. When
// L is 0, or the proto does not parse or decode, the data tensor is built from the choices instead (type,
// small dims, bytes). The choices (FuzzedDataProvider) then pick the index type, starts, ends, axes and
// steps, mostly near the data's dims and at the int32/int64 limits, sometimes malformed (a wrong type or
// rank, mixed types, different lengths).
//
// Checks, beyond "no crash, no sanitizer report":
//  - a decoded tensor is consistent (bytes or strings match type and dims) and survives
//    TensorToProto -> TensorFromProto bit for bit;
//  - SliceOutputDims accepts exactly what Slice accepts, and gives Slice's output dims;
//  - Slice's output is never larger than its input and is a consistent tensor;
//  - without steps (or with steps all 1), Slice and DynamicSliceReference accept and reject the same
//    inputs (both headers list the same rejections), and when both accept, they agree bit for bit.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor.h"
#include "eval/slice_kernels.h"
#include "fuzz_support.h"
#include "onnx/onnx_pb.h"

namespace {

using onnx::TensorProto;
using onnx_legalize::DataType;
using onnx_legalize::Tensor;

using onnx_legalize::fuzz::Require;

std::string Describe(const Tensor& tensor) {
  return absl::StrCat(onnx_legalize::DataTypeName(tensor.type()), "[", absl::StrJoin(tensor.dims(), ","), "]");
}

std::string Describe(const absl::StatusOr<Tensor>& tensor) {
  return tensor.ok() ? Describe(*tensor) : std::string(tensor.status().message());
}

// The Tensor invariants every kernel relies on.
void RequireConsistent(const Tensor& tensor, const char* what) {
  int64_t count = 1;
  bool zero = false;
  for (int64_t dim : tensor.dims()) {
    Require(dim >= 0, what, "a negative dim");
    if (dim == 0) zero = true;
  }
  if (zero) {
    count = 0;
  } else {
    for (int64_t dim : tensor.dims()) Require(!__builtin_mul_overflow(count, dim, &count), what, "count overflows");
  }
  Require(tensor.element_count() == count, what, "element_count does not match the dims");
  if (tensor.is_string()) {
    Require(static_cast<int64_t>(tensor.strings().size()) == count && tensor.bytes().empty(), what,
            "strings do not match the dims");
  } else {
    Require(static_cast<int64_t>(tensor.bytes().size()) == count * onnx_legalize::ElementSize(tensor.type()) &&
                tensor.strings().empty(),
            what, "bytes do not match the dims");
  }
}

constexpr DataType kTypes[] = {
    TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,   TensorProto::BFLOAT16,
    TensorProto::INT8,  TensorProto::INT16,  TensorProto::INT32,     TensorProto::INT64,
    TensorProto::UINT8, TensorProto::UINT16, TensorProto::UINT32,    TensorProto::UINT64,
    TensorProto::BOOL,  TensorProto::STRING, TensorProto::COMPLEX64, TensorProto::COMPLEX128};

// A small data tensor made from the choices: rank 0..4, dims 0..5.
Tensor MakeData(FuzzedDataProvider& in) {
  const DataType type = in.PickValueInArray(kTypes);
  std::vector<int64_t> dims(in.ConsumeIntegralInRange<int>(0, 4));
  for (int64_t& dim : dims) dim = in.ConsumeIntegralInRange<int64_t>(0, 5);
  absl::StatusOr<Tensor> tensor = Tensor::Zeros(type, dims);
  Require(tensor.ok(), "Zeros rejected a small shape", std::string(tensor.status().message()));
  if (tensor->is_string()) {
    for (std::string& s : tensor->mutable_strings()) s = in.ConsumeRandomLengthString(4);
  } else {
    std::string& bytes = tensor->mutable_bytes();
    const std::string drawn = in.ConsumeBytesAsString(bytes.size());
    std::memcpy(bytes.data(), drawn.data(), drawn.size());
    if (type == TensorProto::BOOL) {
      for (char& byte : bytes) byte &= 1;
    }
  }
  return *std::move(tensor);
}

// Decodes the data tensor from the input's proto part; checks decoding's own promises on the way.
std::optional<Tensor> DecodeData(const uint8_t* bytes, size_t size) {
  TensorProto proto;
  if (!proto.ParseFromArray(bytes, static_cast<int>(size))) return std::nullopt;
  absl::StatusOr<Tensor> decoded = onnx_legalize::TensorFromProto(proto, "fuzzed tensor");
  if (!decoded.ok()) {
    Require(!decoded.status().message().empty(), "a decoding error without a message");
    return std::nullopt;
  }
  RequireConsistent(*decoded, "a decoded tensor is inconsistent");
  absl::StatusOr<Tensor> again =
      onnx_legalize::TensorFromProto(onnx_legalize::TensorToProto(decoded->Clone(), "again"));
  Require(again.ok() && again->BitwiseEquals(*decoded), "TensorToProto -> TensorFromProto is not lossless",
          Describe(again));
  return *std::move(decoded);
}

// One index value: mostly near [-dim, dim], sometimes an extreme of the index type.
int64_t DrawIndex(FuzzedDataProvider& in, int64_t dim, bool is32) {
  const int64_t low = is32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  const int64_t high = is32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  const int64_t near = std::min<int64_t>(dim, 1 << 20) + 2;
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return low;
    case 1: return high;
    case 2: return low + in.ConsumeIntegralInRange<int>(0, 2);
    case 3: return high - in.ConsumeIntegralInRange<int>(0, 2);
    case 4: return is32 ? in.ConsumeIntegral<int32_t>() : in.ConsumeIntegral<int64_t>();
    default: return in.ConsumeIntegralInRange<int64_t>(-near, near);
  }
}

Tensor MakeIndex(DataType type, const std::vector<int64_t>& values) {
  if (type == TensorProto::INT32) {
    return Tensor::FromInt32s(std::vector<int32_t>(values.begin(), values.end()));
  }
  return Tensor::FromInt64s(values);
}

// Sometimes makes an index tensor malformed: another element type or a rank other than 1.
Tensor MaybeMalform(FuzzedDataProvider& in, Tensor index) {
  if (in.ConsumeIntegralInRange<int>(0, 15) != 0) return index;
  const int64_t n = index.element_count();
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {  // the other index type
      absl::StatusOr<std::vector<int64_t>> values = index.ToInt64s("index");
      return MakeIndex(index.type() == TensorProto::INT32 ? TensorProto::INT64 : TensorProto::INT32, *values);
    }
    case 1:  // 2-D
      return *Tensor::FromBytes(index.type(), {1, n}, std::string(index.bytes()));
    case 2:  // a scalar (only when it holds one value)
      if (n == 1) return *Tensor::FromBytes(index.type(), {}, std::string(index.bytes()));
      return index;
    default:  // float
      return *Tensor::Zeros(TensorProto::FLOAT, {n});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size < 2) return 0;
  const size_t proto_size = std::min<size_t>(bytes[0] | (bytes[1] << 8), size - 2);
  std::optional<Tensor> decoded = proto_size > 0 ? DecodeData(bytes + 2, proto_size) : std::nullopt;
  FuzzedDataProvider in(bytes + 2 + proto_size, size - 2 - proto_size);
  Tensor data = decoded.has_value() ? *std::move(decoded) : MakeData(in);
  const int64_t rank = data.rank();

  const DataType index_type = in.ConsumeBool() ? TensorProto::INT64 : TensorProto::INT32;
  const bool is32 = index_type == TensorProto::INT32;
  // Usually one value per sliced axis; sometimes lengths that differ.
  const int n = in.ConsumeIntegralInRange<int>(0, static_cast<int>(std::min<int64_t>(rank, 6)) + 1);
  auto length = [&]() { return in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeIntegralInRange<int>(0, 7) : n; };

  const bool has_axes = in.ConsumeBool();
  std::vector<int64_t> axes(has_axes ? length() : 0);
  for (int64_t& axis : axes) {
    axis = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? DrawIndex(in, rank, is32)
                                                      : in.ConsumeIntegralInRange<int64_t>(-rank - 1, rank);
  }
  // The dim each position slices, where that is a valid axis (for drawing indices near it).
  auto dim_at = [&](size_t i) -> int64_t {
    int64_t axis = has_axes ? (i < axes.size() ? axes[i] : 0) : static_cast<int64_t>(i);
    if (axis < 0) axis += rank;
    return axis >= 0 && axis < rank ? data.dims()[axis] : 1;
  };
  std::vector<int64_t> starts(n), ends(length());
  for (size_t i = 0; i < starts.size(); ++i) starts[i] = DrawIndex(in, dim_at(i), is32);
  for (size_t i = 0; i < ends.size(); ++i) ends[i] = DrawIndex(in, dim_at(i), is32);

  const int steps_kind = in.ConsumeIntegralInRange<int>(0, 3);  // 0: none, 1: all 1, 2-3: drawn
  std::vector<int64_t> steps(steps_kind == 0 ? 0 : length());
  for (int64_t& step : steps) {
    if (steps_kind == 1) {
      step = 1;
    } else {
      step = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? DrawIndex(in, 0, is32)
                                                       : in.ConsumeIntegralInRange<int64_t>(-4, 4);
    }
  }

  const Tensor starts_t = MaybeMalform(in, MakeIndex(index_type, starts));
  const Tensor ends_t = MaybeMalform(in, MakeIndex(index_type, ends));
  const Tensor axes_t = MaybeMalform(in, MakeIndex(index_type, axes));
  const Tensor steps_t = MakeIndex(index_type, steps);
  const Tensor* axes_p = has_axes ? &axes_t : nullptr;
  const Tensor* steps_p = steps_kind == 0 ? nullptr : &steps_t;

  const std::string inputs = absl::StrCat("data ", Describe(data), ", starts [", absl::StrJoin(starts, ","),
                                          "], ends [", absl::StrJoin(ends, ","), "], axes ",
                                          has_axes ? absl::StrCat("[", absl::StrJoin(axes, ","), "]") : "none",
                                          ", steps ", absl::StrCat("[", absl::StrJoin(steps, ","), "]"));

  absl::StatusOr<std::vector<int64_t>> dims =
      onnx_legalize::SliceOutputDims(data.dims(), starts_t, ends_t, axes_p, steps_p);
  absl::StatusOr<Tensor> sliced = onnx_legalize::Slice(data, starts_t, ends_t, axes_p, steps_p);
  Require(dims.ok() == sliced.ok(), "SliceOutputDims and Slice disagree on accepting",
          absl::StrCat(inputs, "\nSliceOutputDims: ",
                       dims.ok() ? absl::StrJoin(*dims, ",") : std::string(dims.status().message()),
                       "\nSlice: ", Describe(sliced)));
  if (sliced.ok()) {
    Require(*dims == sliced->dims(), "SliceOutputDims does not give Slice's dims", inputs);
    RequireConsistent(*sliced, "Slice's output is inconsistent");
    Require(sliced->element_count() <= data.element_count() && sliced->type() == data.type(),
            "Slice's output is larger than its input, or of another type", inputs);
  }

  if (steps_kind <= 1) {
    absl::StatusOr<Tensor> reference = onnx_legalize::DynamicSliceReference(data, starts_t, ends_t, axes_p);
    // Explicit steps of 1 must be the same as none, unless they are what Slice rejects (a wrong length or
    // type).
    if (steps_kind == 0 || (steps.size() == starts.size() && steps_t.type() == starts_t.type())) {
      Require(reference.ok() == sliced.ok(), "Slice and DynamicSliceReference disagree on accepting",
              absl::StrCat(inputs, "\nSlice: ", Describe(sliced), "\nDynamicSlice: ", Describe(reference)));
    }
    if (reference.ok()) RequireConsistent(*reference, "DynamicSliceReference's output is inconsistent");
    if (reference.ok() && sliced.ok()) {
      Require(reference->BitwiseEquals(*sliced), "Slice and DynamicSliceReference give different results",
              absl::StrCat(inputs, "\nSlice: ", Describe(sliced), "\nDynamicSlice: ", Describe(reference)));
    }
  }
  return 0;
}
