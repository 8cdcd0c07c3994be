#include "core/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

// raw_data is little-endian by definition (onnx.proto), and Tensor keeps the same bytes so that typed
// fields can be memcpy'd in and raw_data moved out without swapping. That is only right on a
// little-endian host; refuse to build anywhere else rather than produce byte-swapped models.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "onnx-legalize assumes a little-endian host");

namespace onnx_legalize {
namespace {

using onnx::TensorProto;

std::string DimsString(const std::vector<int64_t>& dims) { return absl::StrCat("[", absl::StrJoin(dims, ", "), "]"); }

// "float [2, 3]": the type and shape a message talks about.
std::string TypeAndDims(DataType type, const std::vector<int64_t>& dims) {
  return absl::StrCat(DataTypeName(type), " ", DimsString(dims));
}

// Messages name the tensor by where it came from when the caller knows, else by its own name.
std::string DescribeTensor(const TensorProto& proto, absl::string_view what) {
  if (!what.empty()) return std::string(what);
  if (proto.name().empty()) return "unnamed tensor";
  return absl::StrCat("tensor '", proto.name(), "'");
}

// Element count times element size, or InvalidArgument when the product overflows int64.
absl::StatusOr<int64_t> CheckedByteSize(DataType type, const std::vector<int64_t>& dims, int64_t count,
                                        absl::string_view what) {
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, ElementSize(type), &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", TypeAndDims(type, dims), " has ", count, " elements of ",
                                                   ElementSize(type), " bytes each; the byte size overflows int64"));
  }
  return bytes;
}

// The typed fields of TensorProto, for checking which one a tensor uses.
enum class Field { kFloat, kDouble, kInt32, kInt64, kUint64, kString };

const char* FieldName(Field field) {
  switch (field) {
    case Field::kFloat: return "float_data";
    case Field::kDouble: return "double_data";
    case Field::kInt32: return "int32_data";
    case Field::kInt64: return "int64_data";
    case Field::kUint64: return "uint64_data";
    case Field::kString: return "string_data";
  }
  return "?";
}

int64_t FieldSize(const TensorProto& proto, Field field) {
  switch (field) {
    case Field::kFloat: return proto.float_data_size();
    case Field::kDouble: return proto.double_data_size();
    case Field::kInt32: return proto.int32_data_size();
    case Field::kInt64: return proto.int64_data_size();
    case Field::kUint64: return proto.uint64_data_size();
    case Field::kString: return proto.string_data_size();
  }
  return 0;
}

// The one typed field onnx.proto allows for each type. bfloat16 in int32_data is not in onnx 1.12's
// comment, but onnx's own numpy_helper writes it there (as float16 is), and later onnx.proto states it.
Field TypedFieldFor(DataType type) {
  switch (type) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64: return Field::kFloat;
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128: return Field::kDouble;
    case TensorProto::INT64: return Field::kInt64;
    case TensorProto::UINT32:
    case TensorProto::UINT64: return Field::kUint64;
    case TensorProto::STRING: return Field::kString;
    default: return Field::kInt32;  // int32, int16, int8, uint16, uint8, bool, float16, bfloat16
  }
}

// Complex values are stored as (real, imaginary) pairs in float_data / double_data.
int64_t FieldValuesPerElement(DataType type) {
  return type == TensorProto::COMPLEX64 || type == TensorProto::COMPLEX128 ? 2 : 1;
}

// Copies a typed field whose values have exactly the element's width.
template <typename T, typename Repeated>
std::string CopyField(const Repeated& field) {
  static_assert(sizeof(*field.data()) == sizeof(T), "field width must match the element");
  std::string bytes(field.size() * sizeof(T), '\0');
  if (!bytes.empty()) std::memcpy(&bytes[0], field.data(), bytes.size());
  return bytes;
}

// Narrows a wider typed field (int32_data for int8/bool/float16..., uint64_data for uint32) into
// elements of T, rejecting values outside [lo, hi]. ONNX writers store the value itself (or a 16-bit
// float's bit pattern), so a value that does not fit means a broken model; truncating it would hide that.
template <typename T, typename Repeated>
absl::StatusOr<std::string> NarrowField(const Repeated& field, int64_t lo, uint64_t hi, DataType type, Field field_id,
                                        absl::string_view what) {
  std::string bytes(field.size() * sizeof(T), '\0');
  for (int i = 0; i < field.size(); ++i) {
    const auto value = field.Get(i);
    // Compare in the field's own signedness so that uint64 values above INT64_MAX stay out of range.
    bool fits;
    if constexpr (std::is_signed<decltype(value)>::value) {
      fits = value >= lo && value <= static_cast<int64_t>(hi);
    } else {
      fits = value <= hi;
    }
    if (!fits) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", FieldName(field_id), " value ", value, " at index ", i,
                                                     " does not fit ", DataTypeName(type), " (range [", lo, ", ", hi,
                                                     "])"));
    }
    const T narrowed = static_cast<T>(value);
    std::memcpy(&bytes[i * sizeof(T)], &narrowed, sizeof(T));
  }
  return bytes;
}

// Decodes the typed field of `proto`, whose count has already been checked against the dims.
absl::StatusOr<std::string> DecodeTypedField(const TensorProto& proto, absl::string_view what) {
  const DataType type = proto.data_type();
  const Field field = TypedFieldFor(type);
  switch (type) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64: return CopyField<float>(proto.float_data());
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128: return CopyField<double>(proto.double_data());
    case TensorProto::INT32: return CopyField<int32_t>(proto.int32_data());
    case TensorProto::INT64: return CopyField<int64_t>(proto.int64_data());
    case TensorProto::UINT64: return CopyField<uint64_t>(proto.uint64_data());
    case TensorProto::UINT32:
      return NarrowField<uint32_t>(proto.uint64_data(), 0, std::numeric_limits<uint32_t>::max(), type, field, what);
    case TensorProto::INT16: return NarrowField<int16_t>(proto.int32_data(), -32768, 32767, type, field, what);
    case TensorProto::INT8: return NarrowField<int8_t>(proto.int32_data(), -128, 127, type, field, what);
    case TensorProto::UINT8: return NarrowField<uint8_t>(proto.int32_data(), 0, 255, type, field, what);
    case TensorProto::BOOL: return NarrowField<uint8_t>(proto.int32_data(), 0, 1, type, field, what);
    // 16-bit floats are stored as their uint16 bit patterns (onnx.proto), so the range is uint16's.
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: return NarrowField<uint16_t>(proto.int32_data(), 0, 65535, type, field, what);
    default: return absl::InternalError(absl::StrCat(what, ": no typed-field decoder for ", DataTypeName(type)));
  }
}

// onnx.proto: "Boolean type MUST be written one byte per tensor element (00000001 for true, 00000000 for
// false)". Other bytes are rejected for the same reason out-of-range int32_data values are.
absl::Status CheckBoolBytes(std::string_view bytes, absl::string_view what) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int byte = static_cast<unsigned char>(bytes[i]);
    if (byte > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": bool raw_data byte ", byte, " at index ", i, " is neither 0 nor 1"));
    }
  }
  return absl::OkStatus();
}

// The checks on TensorFromProto's data fields, made before it allocates anything. `count` and
// `byte_size` are already proven to fit int64.
absl::Status ValidateDataFields(const TensorProto& proto, const std::vector<int64_t>& dims, int64_t count,
                                int64_t byte_size, absl::string_view what) {
  const DataType type = proto.data_type();
  const Field typed = TypedFieldFor(type);
  for (Field other : {Field::kFloat, Field::kDouble, Field::kInt32, Field::kInt64, Field::kUint64, Field::kString}) {
    if (other != typed && FieldSize(proto, other) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": ", FieldName(other), " has ", FieldSize(proto, other), " values, but a ", DataTypeName(type),
          " tensor stores its values in ", FieldName(typed), type == TensorProto::STRING ? "" : " or raw_data"));
    }
  }
  // onnx.proto: raw_data "MUST NOT be STRING or UNDEFINED".
  if (type == TensorProto::STRING && proto.has_raw_data()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": raw_data has ", proto.raw_data().size(),
                                                   " bytes, but a string tensor stores its values in string_data"));
  }
  const int64_t field_size = FieldSize(proto, typed);
  if (proto.has_raw_data() && field_size > 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": both raw_data (", proto.raw_data().size(), " bytes) and ",
                                                   FieldName(typed), " (", field_size,
                                                   " values) are set; exactly one may hold the data"));
  }
  if (proto.has_raw_data()) {
    if (static_cast<int64_t>(proto.raw_data().size()) != byte_size) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": raw_data has ", proto.raw_data().size(), " bytes, but ",
                                                     TypeAndDims(type, dims), " needs ", byte_size));
    }
    return absl::OkStatus();
  }
  // count * 2 cannot overflow: byte_size proved count * 8 fits for both complex types.
  const int64_t expected = count * FieldValuesPerElement(type);
  if (field_size != expected) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", FieldName(typed), " has ", field_size, " values, but ",
                                                   TypeAndDims(type, dims), " needs ", expected));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t ElementSize(DataType type) {
  switch (type) {
    case TensorProto::UINT8:
    case TensorProto::INT8:
    case TensorProto::BOOL: return 1;
    case TensorProto::UINT16:
    case TensorProto::INT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: return 2;
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32: return 4;
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
    case TensorProto::UINT64:
    case TensorProto::COMPLEX64: return 8;
    case TensorProto::COMPLEX128: return 16;
    default: return 0;  // STRING, UNDEFINED and types this library does not know
  }
}

std::string DataTypeName(DataType type) {
  switch (type) {
    case TensorProto::UNDEFINED: return "undefined";
    case TensorProto::FLOAT: return "float";
    case TensorProto::UINT8: return "uint8";
    case TensorProto::INT8: return "int8";
    case TensorProto::UINT16: return "uint16";
    case TensorProto::INT16: return "int16";
    case TensorProto::INT32: return "int32";
    case TensorProto::INT64: return "int64";
    case TensorProto::STRING: return "string";
    case TensorProto::BOOL: return "bool";
    case TensorProto::FLOAT16: return "float16";
    case TensorProto::DOUBLE: return "double";
    case TensorProto::UINT32: return "uint32";
    case TensorProto::UINT64: return "uint64";
    case TensorProto::COMPLEX64: return "complex64";
    case TensorProto::COMPLEX128: return "complex128";
    case TensorProto::BFLOAT16: return "bfloat16";
    default: return absl::StrCat("data_type ", type);
  }
}

bool IsSupportedDataType(DataType type) { return type >= TensorProto::FLOAT && type <= TensorProto::BFLOAT16; }

absl::StatusOr<int64_t> CheckedElementCount(const std::vector<int64_t>& dims, absl::string_view what) {
  int64_t count = 1;  // a scalar (dims {}) has one element
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": dim ", i, " of ", DimsString(dims), " is negative (", dims[i], ")"));
    }
  }
  // Checked after the sign test so that a 0 anywhere cannot hide a negative dim, and before any product,
  // because {INT64_MAX, 2, 0} overflows midway yet holds no element.
  for (int64_t dim : dims) {
    if (dim == 0) return 0;
  }
  for (int64_t dim : dims) {
    if (__builtin_mul_overflow(count, dim, &count)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the element count of dims ", DimsString(dims), " overflows int64"));
    }
  }
  return count;
}

absl::StatusOr<Tensor> Tensor::Zeros(DataType type, std::vector<int64_t> dims) {
  const std::string what = absl::StrCat("zero ", DataTypeName(type), " tensor");
  if (!IsSupportedDataType(type)) {
    return absl::InvalidArgumentError(absl::StrCat("Tensor::Zeros: unsupported data_type ", type));
  }
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, what));
  Tensor tensor;
  tensor.type_ = type;
  tensor.element_count_ = count;
  if (type == TensorProto::STRING) {
    // vector::resize throws beyond max_size(); that must come back as a Status, not an exception.
    if (static_cast<uint64_t>(count) > tensor.strings_.max_size()) {
      return absl::ResourceExhaustedError(absl::StrCat(what, ": ", count, " strings exceed what a vector can hold"));
    }
    tensor.strings_.resize(count);
  } else {
    ASSIGN_OR_RETURN(const int64_t size, CheckedByteSize(type, dims, count, what));
    if (static_cast<uint64_t>(size) > tensor.bytes_.max_size()) {
      return absl::ResourceExhaustedError(absl::StrCat(what, ": ", size, " bytes exceed what a string can hold"));
    }
    tensor.bytes_.assign(size, '\0');
  }
  tensor.dims_ = std::move(dims);
  return tensor;
}

// A tensor of `type` and `dims` without its bytes yet, once `byte_count` is found to be what they need.
// `caller` names the factory in the message.
absl::StatusOr<Tensor> Tensor::Shell(DataType type, std::vector<int64_t> dims, size_t byte_count, const char* caller) {
  if (!IsSupportedDataType(type) || type == TensorProto::STRING) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tensor::", caller, ": data_type ", type, " (", DataTypeName(type), ") has no byte encoding"));
  }
  const std::string what = absl::StrCat(DataTypeName(type), " tensor");
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, what));
  ASSIGN_OR_RETURN(const int64_t size, CheckedByteSize(type, dims, count, what));
  if (static_cast<int64_t>(byte_count) != size) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": got ", byte_count, " bytes, but ", TypeAndDims(type, dims), " needs ", size));
  }
  Tensor tensor;
  tensor.type_ = type;
  tensor.dims_ = std::move(dims);
  tensor.element_count_ = count;
  return tensor;
}

absl::StatusOr<Tensor> Tensor::Uninitialized(DataType type, std::vector<int64_t> dims) {
  const std::string what = absl::StrCat(DataTypeName(type), " tensor");
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, what));
  ASSIGN_OR_RETURN(const int64_t size, CheckedByteSize(type, dims, count, what));
  ASSIGN_OR_RETURN(Tensor tensor, Shell(type, std::move(dims), static_cast<size_t>(size), "Uninitialized"));
  // new char[] leaves the bytes as they are and is aligned for every fundamental type; one byte at least, so
  // that an empty tensor's view points somewhere.
  tensor.buffer_.reset(new (std::nothrow) char[static_cast<size_t>(std::max<int64_t>(size, 1))]);
  if (tensor.buffer_ == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": ", size, " bytes could not be allocated"));
  }
  tensor.viewed_ = std::string_view(tensor.buffer_.get(), static_cast<size_t>(size));
  return tensor;
}

absl::StatusOr<Tensor> Tensor::FromBytes(DataType type, std::vector<int64_t> dims, std::string bytes) {
  ASSIGN_OR_RETURN(Tensor tensor, Shell(type, std::move(dims), bytes.size(), "FromBytes"));
  tensor.bytes_ = std::move(bytes);
  return tensor;
}

absl::StatusOr<Tensor> Tensor::ViewOfBytes(DataType type, std::vector<int64_t> dims, std::string_view bytes) {
  ASSIGN_OR_RETURN(Tensor tensor, Shell(type, std::move(dims), bytes.size(), "ViewOfBytes"));
  tensor.viewed_ = bytes;
  return tensor;
}

std::string& Tensor::mutable_bytes() {
  if (viewed_.has_value()) {
    bytes_.assign(viewed_->data(), viewed_->size());
    viewed_.reset();
    buffer_.reset();
    owner_.reset();
  }
  return bytes_;
}

char* Tensor::mutable_data() {
  if (buffer_ != nullptr) return buffer_.get();
  return mutable_bytes().data();
}

std::string Tensor::release_bytes() {
  if (viewed_.has_value()) return std::string(*viewed_);
  return std::move(bytes_);
}

absl::StatusOr<Tensor> Tensor::FromStrings(std::vector<int64_t> dims, std::vector<std::string> strings) {
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, "string tensor"));
  if (static_cast<int64_t>(strings.size()) != count) {
    return absl::InvalidArgumentError(
        absl::StrCat("string tensor: got ", strings.size(), " strings, but dims ", DimsString(dims), " need ", count));
  }
  Tensor tensor;
  tensor.type_ = TensorProto::STRING;
  tensor.dims_ = std::move(dims);
  tensor.element_count_ = count;
  tensor.strings_ = std::move(strings);
  return tensor;
}

Tensor Tensor::FromInt64s(const std::vector<int64_t>& values) {
  Tensor tensor;
  tensor.type_ = TensorProto::INT64;
  tensor.dims_ = {static_cast<int64_t>(values.size())};
  tensor.element_count_ = static_cast<int64_t>(values.size());
  tensor.bytes_.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int64_t));
  return tensor;
}

Tensor Tensor::FromInt32s(const std::vector<int32_t>& values) {
  Tensor tensor;
  tensor.type_ = TensorProto::INT32;
  tensor.dims_ = {static_cast<int64_t>(values.size())};
  tensor.element_count_ = static_cast<int64_t>(values.size());
  tensor.bytes_.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int32_t));
  return tensor;
}

Tensor Tensor::Clone() const {
  Tensor tensor;
  tensor.type_ = type_;
  tensor.dims_ = dims_;
  tensor.element_count_ = element_count_;
  tensor.bytes_ = std::string(bytes());
  tensor.strings_ = strings_;
  return tensor;
}

bool Tensor::is_string() const { return type_ == TensorProto::STRING; }

absl::StatusOr<std::vector<int64_t>> Tensor::ToInt64s(absl::string_view what) const {
  if ((type_ != TensorProto::INT32 && type_ != TensorProto::INT64) || rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a 1-D or scalar int32/int64 tensor, got ", TypeAndDims(type_, dims_)));
  }
  std::vector<int64_t> values(element_count_);
  const std::string_view bytes = this->bytes();
  if (type_ == TensorProto::INT64) {
    if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
  for (int64_t i = 0; i < element_count_; ++i) {
    int32_t value;
    std::memcpy(&value, bytes.data() + i * sizeof(int32_t), sizeof(int32_t));
    values[i] = value;
  }
  return values;
}

bool Tensor::BitwiseEquals(const Tensor& other) const {
  // The bytes compare as bytes, never as floats, so NaN payloads and the sign of zero are part of equality.
  return type_ == other.type_ && dims_ == other.dims_ && bytes() == other.bytes() && strings_ == other.strings_;
}

namespace {

// TensorFromProto and TensorViewFromProto: `view` says whether a large raw_data is viewed.
absl::StatusOr<Tensor> DecodeTensorProto(const TensorProto& proto, absl::string_view what_arg, bool view) {
  const std::string what = DescribeTensor(proto, what_arg);
  const DataType type = proto.data_type();
  if (!IsSupportedDataType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": data_type ", type, " (", DataTypeName(type), ") is not a tensor element type"));
  }
  if (proto.has_segment()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": segment [", proto.segment().begin(), ", ",
                                                   proto.segment().end(),
                                                   ") is set; a tensor stored in segments is not supported"));
  }
  if (proto.data_location() == TensorProto::EXTERNAL) {
    return absl::InvalidArgumentError(
        absl::StrCat(what,
                     ": data_location is EXTERNAL; its bytes must be loaded from its file and decoded with "
                     "TensorFromExternalData"));
  }
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(dims, what));
  // Checked for typed fields too: a Tensor keeps raw bytes, so their size must be representable.
  ASSIGN_OR_RETURN(const int64_t byte_size, CheckedByteSize(type, dims, count, what));
  RETURN_IF_ERROR(ValidateDataFields(proto, dims, count, byte_size, what));

  // Counts are now proven consistent with the dims; only from here on is memory allocated.
  if (type == TensorProto::STRING) {
    return Tensor::FromStrings(std::move(dims), {proto.string_data().begin(), proto.string_data().end()});
  }
  if (proto.has_raw_data()) {
    if (type == TensorProto::BOOL) RETURN_IF_ERROR(CheckBoolBytes(proto.raw_data(), what));
    if (view && static_cast<int64_t>(proto.raw_data().size()) >= kMinViewedBytes) {
      return Tensor::ViewOfBytes(type, std::move(dims), proto.raw_data());
    }
    return Tensor::FromBytes(type, std::move(dims), proto.raw_data());
  }
  ASSIGN_OR_RETURN(std::string bytes, DecodeTypedField(proto, what));
  return Tensor::FromBytes(type, std::move(dims), std::move(bytes));
}

}  // namespace

absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto, absl::string_view what) {
  return DecodeTensorProto(proto, what, /*view=*/false);
}

absl::StatusOr<Tensor> TensorViewFromProto(const TensorProto& proto, absl::string_view what) {
  return DecodeTensorProto(proto, what, /*view=*/true);
}

namespace {

// What an external tensor's bytes must be: its dims and byte size, once the proto is checked to describe a tensor
// whose bytes can be stored elsewhere (a fixed-size type, no inline data beside the reference).
struct ExternalShape {
  std::vector<int64_t> dims;
  int64_t byte_size = 0;
};

absl::StatusOr<ExternalShape> CheckExternalTensor(const TensorProto& proto, const std::string& what) {
  const DataType type = proto.data_type();
  if (proto.data_location() != TensorProto::EXTERNAL) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": data_location is not EXTERNAL"));
  }
  if (!IsSupportedDataType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": data_type ", type, " (", DataTypeName(type), ") is not a tensor element type"));
  }
  // External data holds what raw_data would, and onnx.proto: raw_data "MUST NOT be STRING".
  if (type == TensorProto::STRING) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": a string tensor cannot be stored as external data (raw bytes)"));
  }
  if (proto.has_segment()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": segment [", proto.segment().begin(), ", ",
                                                   proto.segment().end(),
                                                   ") is set; a tensor stored in segments is not supported"));
  }
  for (Field field : {Field::kFloat, Field::kDouble, Field::kInt32, Field::kInt64, Field::kUint64, Field::kString}) {
    if (FieldSize(proto, field) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": data_location is EXTERNAL but ", FieldName(field),
                                                     " holds ", FieldSize(proto, field),
                                                     " values too; exactly one may hold the data"));
    }
  }
  if (proto.has_raw_data()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": data_location is EXTERNAL but raw_data holds ",
                                                   proto.raw_data().size(),
                                                   " bytes too; exactly one may hold the data"));
  }
  ExternalShape shape;
  shape.dims.assign(proto.dims().begin(), proto.dims().end());
  ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(shape.dims, what));
  ASSIGN_OR_RETURN(shape.byte_size, CheckedByteSize(type, shape.dims, count, what));
  return shape;
}

// The external bytes must be exactly the tensor's, and a bool's each 0 or 1.
absl::Status CheckExternalBytes(const TensorProto& proto, const ExternalShape& shape, std::string_view bytes,
                                const std::string& what) {
  if (static_cast<int64_t>(bytes.size()) != shape.byte_size) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": its external data has ", bytes.size(), " bytes, but ",
                                                   TypeAndDims(proto.data_type(), shape.dims), " needs ",
                                                   shape.byte_size));
  }
  if (proto.data_type() == TensorProto::BOOL) RETURN_IF_ERROR(CheckBoolBytes(bytes, what));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> TensorFromExternalData(const TensorProto& proto,
                                              const std::function<absl::StatusOr<std::string>()>& read,
                                              absl::string_view what_arg) {
  const std::string what = DescribeTensor(proto, what_arg);
  ASSIGN_OR_RETURN(ExternalShape shape, CheckExternalTensor(proto, what));
  ASSIGN_OR_RETURN(std::string bytes, read());
  RETURN_IF_ERROR(CheckExternalBytes(proto, shape, bytes, what));
  return Tensor::FromBytes(proto.data_type(), std::move(shape.dims), std::move(bytes));
}

absl::StatusOr<Tensor> TensorViewOfExternalData(const TensorProto& proto,
                                                const std::function<absl::StatusOr<std::string_view>()>& bytes,
                                                absl::string_view what_arg) {
  const std::string what = DescribeTensor(proto, what_arg);
  ASSIGN_OR_RETURN(ExternalShape shape, CheckExternalTensor(proto, what));
  ASSIGN_OR_RETURN(const std::string_view viewed, bytes());
  RETURN_IF_ERROR(CheckExternalBytes(proto, shape, viewed, what));
  return Tensor::ViewOfBytes(proto.data_type(), std::move(shape.dims), viewed);
}

TensorProto TensorToProto(Tensor tensor, const std::string& name) {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(tensor.type());
  for (int64_t dim : tensor.dims()) proto.add_dims(dim);
  if (tensor.is_string()) {
    for (std::string& s : tensor.mutable_strings()) proto.add_string_data(std::move(s));
  } else {
    // Set even when empty, so the proto states where its (zero) elements live.
    proto.set_raw_data(tensor.release_bytes());
  }
  return proto;
}

}  // namespace onnx_legalize
