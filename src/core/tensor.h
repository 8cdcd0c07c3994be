// A tensor value the evaluator computes with, and its conversion from and to onnx::TensorProto.
//
// Elements are stored contiguously in row-major order as little-endian bytes (what TensorProto.raw_data
// holds), except strings, which are kept one std::string per element. Tensors move; they are not copied
// by accident (the copy constructor is explicit through Clone()). A tensor decoded from a large raw_data
// may view the TensorProto's bytes instead of owning a copy (TensorViewFromProto): a weight of gigabytes
// is then read where the model holds it.
#ifndef ONNX_LEGALIZE_SRC_CORE_TENSOR_H_
#define ONNX_LEGALIZE_SRC_CORE_TENSOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// An ONNX element type, as onnx::TensorProto_DataType numbers it.
using DataType = int32_t;

// Bytes one element of `type` occupies in raw_data; 0 for STRING and for types the evaluator does not know.
int64_t ElementSize(DataType type);

// "float", "int64", ...: the spelling ONNX's documentation uses, for messages.
std::string DataTypeName(DataType type);

// True for every element type DynamicSlice or Slice accepts as data (every type but UNDEFINED).
bool IsSupportedDataType(DataType type);

// The least raw_data TensorViewFromProto views instead of copying: copying less costs less than keeping
// track of whose bytes they are.
inline constexpr int64_t kMinViewedBytes = int64_t{64} * 1024;

// Product of `dims`, or InvalidArgument when a dim is negative or the product overflows int64.
// `what` names the tensor in the message.
absl::StatusOr<int64_t> CheckedElementCount(const std::vector<int64_t>& dims, absl::string_view what);

class Tensor {
 public:
  Tensor() = default;
  Tensor(Tensor&&) = default;
  Tensor& operator=(Tensor&&) = default;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // A tensor of `type` and `dims` whose bytes (or strings) are zero-filled (or empty).
  // InvalidArgument on negative dims or an overflowing element count or byte size.
  static absl::StatusOr<Tensor> Zeros(DataType type, std::vector<int64_t> dims);
  // A tensor of `type` (not STRING) and `dims` whose bytes are left as the allocator gives them, for a kernel
  // that writes every one of them through mutable_data(): an activation of many megabytes is then written once,
  // not zero-filled first. Checked as Zeros.
  static absl::StatusOr<Tensor> Uninitialized(DataType type, std::vector<int64_t> dims);
  // A tensor that takes over `bytes`; InvalidArgument when their length does not fit type and dims.
  static absl::StatusOr<Tensor> FromBytes(DataType type, std::vector<int64_t> dims, std::string bytes);
  // A tensor that views `bytes`, which must outlive it and not change meanwhile; checked as FromBytes.
  static absl::StatusOr<Tensor> ViewOfBytes(DataType type, std::vector<int64_t> dims, std::string_view bytes);
  static absl::StatusOr<Tensor> FromStrings(std::vector<int64_t> dims, std::vector<std::string> strings);
  // 1-D int32 / int64 tensors, for index inputs.
  static Tensor FromInt64s(const std::vector<int64_t>& values);
  static Tensor FromInt32s(const std::vector<int32_t>& values);

  // A copy that owns its bytes, also of a tensor that views them.
  Tensor Clone() const;

  DataType type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  int64_t element_count() const { return element_count_; }
  bool is_string() const;

  // Raw little-endian element bytes; empty for STRING tensors.
  std::string_view bytes() const { return viewed_.has_value() ? *viewed_ : std::string_view(bytes_); }
  // The bytes to change in place; a tensor that views bytes copies them first, and owns them from then on.
  std::string& mutable_bytes();
  // The bytes to write in place, as mutable_bytes() but without turning an Uninitialized tensor's own buffer
  // into a string. Aligned for every element type.
  char* mutable_data();
  // The bytes, taken out of the tensor; a copy for a tensor that views them or was made Uninitialized.
  std::string release_bytes();
  // True when the bytes are another object's (TensorViewFromProto), not the tensor's own.
  bool views_bytes() const { return viewed_.has_value() && buffer_ == nullptr; }
  // Holds `owner`, the object whose bytes this tensor views (a memory map of external data), for as long as the
  // tensor views them: freeing the last tensor viewing a weight then unmaps it.
  void KeepAlive(std::shared_ptr<const void> owner) { owner_ = std::move(owner); }
  // One entry per element for STRING tensors; empty otherwise.
  const std::vector<std::string>& strings() const { return strings_; }
  std::vector<std::string>& mutable_strings() { return strings_; }

  // The values of a 1-D or scalar int32/int64 tensor widened to int64; InvalidArgument otherwise.
  absl::StatusOr<std::vector<int64_t>> ToInt64s(absl::string_view what) const;

  // Same type, dims and bytes (or strings), compared bit for bit: NaN payloads and -0.0 count.
  bool BitwiseEquals(const Tensor& other) const;

 private:
  static absl::StatusOr<Tensor> Shell(DataType type, std::vector<int64_t> dims, size_t byte_count, const char* caller);

  DataType type_ = 0;
  std::vector<int64_t> dims_;
  int64_t element_count_ = 0;
  std::string bytes_;
  std::optional<std::string_view> viewed_;  // set instead of bytes_ for a view, and over buffer_
  std::unique_ptr<char[]> buffer_;          // an Uninitialized tensor's own bytes (a string would zero-fill them)
  std::shared_ptr<const void> owner_;       // what holds the viewed bytes, when the tensor keeps it (KeepAlive)
  std::vector<std::string> strings_;
};

// Decodes `proto` from raw_data or from the typed field ONNX stores its type in (float16 and bool in
// int32_data, uint32 and uint64 in uint64_data, complex as pairs, ...). Validates before it allocates:
// negative dims, an overflowing element count or byte size, a raw_data length or typed-field count that
// does not match the dims, a typed field of the wrong kind for the type, both raw_data and a typed field,
// raw_data on a string tensor, a segment, an UNDEFINED or unknown data_type, and external data (which this
// function does not read; TensorFromExternalData decodes it from bytes its caller reads) are each an InvalidArgument
// naming the tensor and the numbers. A typed value that does not fit its type (int32_data 300 for uint8, 2 for bool,
// 70000 for a float16 bit pattern) and a bool raw_data byte other than 0 or 1 are InvalidArgument naming the value and
// its index: ONNX writers never produce them, and truncating would hide a broken model.
// `what` describes where the tensor came from, e.g. "initializer 'w' (graph main)"; when empty, the
// tensor's own name is used.
absl::StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto, absl::string_view what = "");

// TensorFromProto, except that a tensor whose raw_data holds at least kMinViewedBytes views those bytes
// instead of copying them (the same checks run, bool bytes included). `proto`'s raw_data must then stay
// where it is and unchanged for as long as the tensor, or a tensor moved from it, is read: a swap of the
// string's buffer between heap-allocated messages (Swap, std::string::swap) keeps the bytes where they are,
// but destroying, clearing or assigning the field does not, nor does a Swap across arenas (a copy).
absl::StatusOr<Tensor> TensorViewFromProto(const onnx::TensorProto& proto, absl::string_view what = "");

// Decodes `proto`, whose data_location is EXTERNAL, from its external bytes. Validates the tensor first
// (a fixed-size element type, dims and byte size as TensorFromProto does, no inline data beside the
// reference), then calls `read` for the bytes, so nothing is read or allocated for a tensor that cannot be
// decoded; the bytes must be exactly the tensor's size and move into the result. Errors are
// InvalidArgument naming the tensor, except `read`'s own, which are returned as they are.
absl::StatusOr<Tensor> TensorFromExternalData(const onnx::TensorProto& proto,
                                              const std::function<absl::StatusOr<std::string>()>& read,
                                              absl::string_view what = "");

// TensorFromExternalData for bytes that lie elsewhere already (a memory map of the external file): the same
// checks, then a tensor viewing `bytes`' result, which must outlive it and not change meanwhile.
absl::StatusOr<Tensor> TensorViewOfExternalData(const onnx::TensorProto& proto,
                                                const std::function<absl::StatusOr<std::string_view>()>& bytes,
                                                absl::string_view what = "");

// Encodes `tensor` as a TensorProto named `name`: raw_data for every type but STRING (string_data).
// Takes the tensor by value so its bytes move into the proto.
onnx::TensorProto TensorToProto(Tensor tensor, const std::string& name);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_CORE_TENSOR_H_
