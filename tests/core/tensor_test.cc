#include "core/tensor.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace onnx_legalize {
namespace {

using ::onnx::TensorProto;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Little-endian bytes of `values`: each value's bit pattern written lowest byte first, spelled out here so
// the expectation does not reuse the code under test's memcpy of whole fields. (Like the library, this
// reads the bit pattern on a little-endian host.)
template <typename T>
std::string LittleEndian(std::initializer_list<T> values) {
  std::string bytes;
  for (T value : values) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));  // the value's bit pattern, as an integer
    for (size_t i = 0; i < sizeof(T); ++i) bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
  }
  return bytes;
}

// The value of `result`. abseil's value() throws on an error, which gtest reports as this test's failure
// instead of a crash that would also hide every later test.
template <typename T>
T ValueOf(absl::StatusOr<T> result) {
  return std::move(result).value();
}

// Expects an InvalidArgument whose message contains every one of `parts`.
void ExpectInvalidArgument(const absl::Status& status, const std::vector<std::string>& parts) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  for (const std::string& part : parts) EXPECT_THAT(std::string(status.message()), HasSubstr(part));
}

TensorProto MakeProto(DataType type, const std::vector<int64_t>& dims, const std::string& name = "w") {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(type);
  for (int64_t dim : dims) proto.add_dims(dim);
  return proto;
}

// ---------------------------------------------------------------------------------------------------------
// Round trips for every non-string type: the same two elements written as raw_data and as the typed field
// onnx.proto assigns to the type must decode to the same little-endian bytes and encode back as raw_data.

// TensorProtos holding only one typed field, to merge into a test's proto.
TensorProto FloatData(std::initializer_list<float> v) {
  TensorProto p;
  p.mutable_float_data()->Add(v.begin(), v.end());
  return p;
}
TensorProto DoubleData(std::initializer_list<double> v) {
  TensorProto p;
  p.mutable_double_data()->Add(v.begin(), v.end());
  return p;
}
TensorProto Int32Data(std::initializer_list<int32_t> v) {
  TensorProto p;
  p.mutable_int32_data()->Add(v.begin(), v.end());
  return p;
}
TensorProto Int64Data(std::initializer_list<int64_t> v) {
  TensorProto p;
  p.mutable_int64_data()->Add(v.begin(), v.end());
  return p;
}
TensorProto Uint64Data(std::initializer_list<uint64_t> v) {
  TensorProto p;
  p.mutable_uint64_data()->Add(v.begin(), v.end());
  return p;
}

struct TypeCase {
  std::string name;
  DataType type;
  TensorProto typed_field;  // the two elements in the typed field onnx.proto assigns to `type`
  std::string bytes;        // the two elements as raw_data holds them
};

std::vector<TypeCase> EveryNumericType() {
  return {
      {"Float", TensorProto::FLOAT, FloatData({1.5f, -0.0f}), LittleEndian<float>({1.5f, -0.0f})},
      {"Double", TensorProto::DOUBLE, DoubleData({-2.25, 1e300}), LittleEndian<double>({-2.25, 1e300})},
      // 16-bit floats travel in int32_data as their bit patterns: 1.0 and -65504 (the lowest float16).
      {"Float16", TensorProto::FLOAT16, Int32Data({0x3C00, 0xFBFF}), std::string("\x00\x3C\xFF\xFB", 4)},
      // bfloat16 1.0 and -inf.
      {"Bfloat16", TensorProto::BFLOAT16, Int32Data({0x3F80, 0xFF80}), std::string("\x80\x3F\x80\xFF", 4)},
      {"Int8", TensorProto::INT8, Int32Data({-128, 127}), std::string("\x80\x7F", 2)},
      {"Int16", TensorProto::INT16, Int32Data({-32768, 32767}), std::string("\x00\x80\xFF\x7F", 4)},
      {"Int32", TensorProto::INT32, Int32Data({INT32_MIN, 7}), LittleEndian<int32_t>({INT32_MIN, 7})},
      {"Int64", TensorProto::INT64, Int64Data({INT64_MIN, kInt64Max}), LittleEndian<int64_t>({INT64_MIN, kInt64Max})},
      {"Uint8", TensorProto::UINT8, Int32Data({0, 255}), std::string("\x00\xFF", 2)},
      {"Uint16", TensorProto::UINT16, Int32Data({0, 65535}), std::string("\x00\x00\xFF\xFF", 4)},
      {"Uint32", TensorProto::UINT32, Uint64Data({0, UINT32_MAX}), LittleEndian<uint32_t>({0, UINT32_MAX})},
      {"Uint64", TensorProto::UINT64, Uint64Data({UINT64_MAX, 1}), LittleEndian<uint64_t>({UINT64_MAX, 1})},
      {"Bool", TensorProto::BOOL, Int32Data({1, 0}), std::string("\x01\x00", 2)},
      // Complex values are (real, imaginary) pairs: 1+2i, 3+4i.
      {"Complex64", TensorProto::COMPLEX64, FloatData({1.f, 2.f, 3.f, 4.f}), LittleEndian<float>({1.f, 2.f, 3.f, 4.f})},
      {"Complex128", TensorProto::COMPLEX128, DoubleData({1., 2., 3., 4.}), LittleEndian<double>({1., 2., 3., 4.})},
  };
}

// Names the case in failure output instead of dumping its bytes.
void PrintTo(const TypeCase& c, std::ostream* os) { *os << c.name; }

class EveryNumericTypeTest : public ::testing::TestWithParam<TypeCase> {};

// The proto TensorToProto writes: raw_data, dims, data_type and name, no typed field.
void ExpectEncodedAsRawData(const TensorProto& out, const TypeCase& c) {
  EXPECT_EQ(out.name(), "out");
  EXPECT_EQ(out.data_type(), c.type);
  EXPECT_THAT(out.dims(), ElementsAre(1, 2));
  EXPECT_TRUE(out.has_raw_data());
  EXPECT_EQ(out.raw_data(), c.bytes);
  EXPECT_EQ(out.float_data_size() + out.double_data_size() + out.int32_data_size() + out.int64_data_size() +
                out.uint64_data_size() + out.string_data_size(),
            0);
}

TEST_P(EveryNumericTypeTest, RoundTripsFromRawData) {
  const TypeCase& c = GetParam();
  TensorProto in = MakeProto(c.type, {1, 2});
  in.set_raw_data(c.bytes);

  absl::StatusOr<Tensor> tensor = TensorFromProto(in);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->type(), c.type);
  EXPECT_THAT(tensor->dims(), ElementsAre(1, 2));
  EXPECT_EQ(tensor->element_count(), 2);
  EXPECT_EQ(tensor->bytes(), c.bytes);

  ExpectEncodedAsRawData(TensorToProto(std::move(*tensor), "out"), c);
}

TEST_P(EveryNumericTypeTest, RoundTripsFromTypedField) {
  const TypeCase& c = GetParam();
  TensorProto in = MakeProto(c.type, {1, 2});
  in.MergeFrom(c.typed_field);

  absl::StatusOr<Tensor> tensor = TensorFromProto(in);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->bytes(), c.bytes);

  const TensorProto out = TensorToProto(std::move(*tensor), "out");
  ExpectEncodedAsRawData(out, c);
  // And the raw form decodes to the same tensor as the typed form.
  absl::StatusOr<Tensor> again = TensorFromProto(out);
  absl::StatusOr<Tensor> original = TensorFromProto(in);
  ASSERT_TRUE(again.ok() && original.ok());
  EXPECT_TRUE(again->BitwiseEquals(*original));
}

INSTANTIATE_TEST_SUITE_P(TensorProto, EveryNumericTypeTest, ::testing::ValuesIn(EveryNumericType()),
                         [](const ::testing::TestParamInfo<TypeCase>& info) { return info.param.name; });

TEST(TensorFromProtoTest, RoundTripsStringsFromStringData) {
  TensorProto in = MakeProto(TensorProto::STRING, {3});
  in.add_string_data("abc");
  in.add_string_data("");
  in.add_string_data(std::string("a\0b", 3));  // bytes, not C strings

  absl::StatusOr<Tensor> tensor = TensorFromProto(in);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_TRUE(tensor->is_string());
  EXPECT_THAT(tensor->strings(), ElementsAre("abc", "", std::string("a\0b", 3)));
  EXPECT_TRUE(tensor->bytes().empty());

  const TensorProto out = TensorToProto(std::move(*tensor), "out");
  EXPECT_EQ(out.data_type(), TensorProto::STRING);
  EXPECT_THAT(out.dims(), ElementsAre(3));
  EXPECT_FALSE(out.has_raw_data());
  EXPECT_THAT(out.string_data(), ElementsAre("abc", "", std::string("a\0b", 3)));
}

TEST(TensorFromProtoTest, ScalarHasNoDimsAndOneElement) {
  TensorProto in = MakeProto(TensorProto::INT64, {});
  in.add_int64_data(42);

  absl::StatusOr<Tensor> tensor = TensorFromProto(in);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->rank(), 0);
  EXPECT_EQ(tensor->element_count(), 1);
  const TensorProto out = TensorToProto(std::move(*tensor), "out");
  EXPECT_EQ(out.dims_size(), 0);
  EXPECT_EQ(out.raw_data(), LittleEndian<int64_t>({42}));
}

TEST(TensorFromProtoTest, EmptyTensorNeedsNoData) {
  absl::StatusOr<Tensor> tensor = TensorFromProto(MakeProto(TensorProto::FLOAT, {2, 0}));
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->element_count(), 0);
  const TensorProto out = TensorToProto(std::move(*tensor), "out");
  EXPECT_TRUE(out.has_raw_data());
  EXPECT_EQ(out.raw_data(), "");
  EXPECT_THAT(out.dims(), ElementsAre(2, 0));
}

// ---------------------------------------------------------------------------------------------------------
// Validation: each a named InvalidArgument whose message names the tensor and the numbers.

TEST(TensorFromProtoTest, RejectsNegativeDim) {
  ExpectInvalidArgument(TensorFromProto(MakeProto(TensorProto::FLOAT, {2, -3})).status(), {"'w'", "dim 1", "-3"});
}

TEST(TensorFromProtoTest, RejectsElementCountOverflow) {
  ExpectInvalidArgument(TensorFromProto(MakeProto(TensorProto::FLOAT, {kInt64Max, 2})).status(),
                        {"'w'", "9223372036854775807, 2", "overflows int64"});
}

TEST(TensorFromProtoTest, RejectsByteSizeOverflow) {
  // The element count fits; times 8 bytes per double it does not.
  ExpectInvalidArgument(TensorFromProto(MakeProto(TensorProto::DOUBLE, {kInt64Max / 4})).status(),
                        {"'w'", "2305843009213693951", "8 bytes", "overflows int64"});
}

TEST(TensorFromProtoTest, RejectsHugeDimsWithoutAllocating) {
  // 2^40 int64 elements with one value: the count mismatch is found before 8 TiB are allocated.
  TensorProto in = MakeProto(TensorProto::INT64, {int64_t{1} << 40});
  in.add_int64_data(1);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "int64_data has 1 values", "1099511627776"});
}

TEST(TensorFromProtoTest, RejectsRawDataLengthMismatch) {
  TensorProto in = MakeProto(TensorProto::FLOAT, {2, 2});
  in.set_raw_data(std::string(12, '\0'));
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "raw_data has 12 bytes", "float [2, 2] needs 16"});
}

TEST(TensorFromProtoTest, RejectsTypedFieldWithTooFewValues) {
  TensorProto in = MakeProto(TensorProto::INT64, {4});
  for (int64_t v : {1, 2, 3}) in.add_int64_data(v);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "int64_data has 3 values", "int64 [4] needs 4"});
}

TEST(TensorFromProtoTest, RejectsTypedFieldWithTooManyValues) {
  TensorProto in = MakeProto(TensorProto::INT8, {1});
  in.add_int32_data(1);
  in.add_int32_data(2);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "int32_data has 2 values", "int8 [1] needs 1"});
}

TEST(TensorFromProtoTest, RejectsComplexFieldWithoutWholePairs) {
  TensorProto in = MakeProto(TensorProto::COMPLEX64, {2});
  for (float v : {1.f, 2.f, 3.f}) in.add_float_data(v);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "float_data has 3 values", "complex64 [2] needs 4"});
}

TEST(TensorFromProtoTest, RejectsMissingData) {
  ExpectInvalidArgument(TensorFromProto(MakeProto(TensorProto::FLOAT, {3})).status(),
                        {"'w'", "float_data has 0 values", "needs 3"});
}

TEST(TensorFromProtoTest, RejectsTypedFieldOfWrongKind) {
  TensorProto in = MakeProto(TensorProto::INT64, {1});
  in.add_float_data(1.0f);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "float_data has 1 values", "int64", "int64_data"});
}

TEST(TensorFromProtoTest, RejectsInt64DataOnInt32Tensor) {
  // int32 values belong in int32_data; int64_data is for INT64 only.
  TensorProto in = MakeProto(TensorProto::INT32, {1});
  in.add_int64_data(5);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "int64_data", "int32_data"});
}

TEST(TensorFromProtoTest, RejectsRawDataOnStringTensor) {
  TensorProto in = MakeProto(TensorProto::STRING, {1});
  in.set_raw_data("abc");
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "raw_data has 3 bytes", "string_data"});
}

TEST(TensorFromProtoTest, RejectsBothRawDataAndTypedField) {
  TensorProto in = MakeProto(TensorProto::FLOAT, {1});
  in.set_raw_data(LittleEndian<float>({1.f}));
  in.add_float_data(1.f);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "raw_data (4 bytes)", "float_data (1 values)"});
}

TEST(TensorFromProtoTest, RejectsExternalData) {
  TensorProto in = MakeProto(TensorProto::FLOAT, {1});
  in.set_data_location(TensorProto::EXTERNAL);
  auto* entry = in.add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "EXTERNAL", "loaded"});
}

// TensorFromExternalData: the bytes come from a reader, which is asked only for a tensor that can be
// decoded.
TensorProto ExternalProto(DataType type, const std::vector<int64_t>& dims) {
  TensorProto proto = MakeProto(type, dims);
  proto.set_data_location(TensorProto::EXTERNAL);
  auto* entry = proto.add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  return proto;
}

TEST(TensorFromExternalDataTest, DecodesTheBytesTheReaderGives) {
  int reads = 0;
  absl::StatusOr<Tensor> tensor = TensorFromExternalData(ExternalProto(TensorProto::FLOAT, {2}), [&]() {
    ++reads;
    return absl::StatusOr<std::string>(LittleEndian<float>({1.5f, -2.f}));
  });
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(reads, 1);
  EXPECT_THAT(tensor->dims(), ElementsAre(2));
  EXPECT_EQ(tensor->bytes(), LittleEndian<float>({1.5f, -2.f}));
}

TEST(TensorFromExternalDataTest, RejectsWhatCannotBeDecodedBeforeReading) {
  int reads = 0;
  auto read = [&]() {
    ++reads;
    return absl::StatusOr<std::string>(std::string(8, '\0'));
  };
  ExpectInvalidArgument(TensorFromExternalData(ExternalProto(TensorProto::STRING, {1}), read).status(),
                        {"'w'", "string tensor"});
  ExpectInvalidArgument(TensorFromExternalData(ExternalProto(TensorProto::FLOAT, {-1}), read).status(), {"'w'"});
  ExpectInvalidArgument(TensorFromExternalData(ExternalProto(TensorProto::FLOAT, {int64_t{1} << 62, 8}), read).status(),
                        {"'w'", "overflow"});
  TensorProto both = ExternalProto(TensorProto::FLOAT, {2});
  both.set_raw_data(std::string(8, '\0'));
  ExpectInvalidArgument(TensorFromExternalData(both, read).status(), {"'w'", "raw_data"});
  TensorProto typed = ExternalProto(TensorProto::FLOAT, {1});
  typed.add_float_data(1.f);
  ExpectInvalidArgument(TensorFromExternalData(typed, read).status(), {"'w'", "float_data"});
  ExpectInvalidArgument(TensorFromExternalData(MakeProto(TensorProto::FLOAT, {2}), read).status(),
                        {"'w'", "not EXTERNAL"});
  EXPECT_EQ(reads, 0);
}

TEST(TensorFromExternalDataTest, RejectsBytesOfTheWrongSize) {
  ExpectInvalidArgument(TensorFromExternalData(ExternalProto(TensorProto::FLOAT, {3}),
                                               [] { return absl::StatusOr<std::string>(std::string(8, 'x')); })
                            .status(),
                        {"'w'", "8 bytes", "needs 12"});
}

TEST(TensorFromExternalDataTest, RejectsBoolBytesOtherThanZeroOrOne) {
  ExpectInvalidArgument(TensorFromExternalData(ExternalProto(TensorProto::BOOL, {2}),
                                               [] { return absl::StatusOr<std::string>(std::string("\x01\x02", 2)); })
                            .status(),
                        {"'w'", "byte 2"});
}

TEST(TensorFromExternalDataTest, PassesTheReadersErrorThrough) {
  absl::StatusOr<Tensor> tensor = TensorFromExternalData(
      ExternalProto(TensorProto::FLOAT, {1}), [] { return absl::StatusOr<std::string>(absl::NotFoundError("gone")); });
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kNotFound);
}

TEST(TensorFromProtoTest, RejectsUndefinedDataType) {
  ExpectInvalidArgument(TensorFromProto(MakeProto(TensorProto::UNDEFINED, {1})).status(),
                        {"'w'", "data_type 0", "undefined"});
}

TEST(TensorFromProtoTest, RejectsUnknownDataType) {
  ExpectInvalidArgument(TensorFromProto(MakeProto(17, {1})).status(), {"'w'", "data_type 17"});
}

TEST(TensorFromProtoTest, RejectsSegment) {
  TensorProto in = MakeProto(TensorProto::FLOAT, {1});
  in.add_float_data(1.f);
  in.mutable_segment()->set_begin(3);
  in.mutable_segment()->set_end(5);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "segment [3, 5)"});
}

// Out-of-range typed values are rejected, not truncated as ONNX's own helpers would.

TEST(TensorFromProtoTest, RejectsInt32DataValueOutOfRangeForUint8) {
  TensorProto in = MakeProto(TensorProto::UINT8, {2});
  in.add_int32_data(7);
  in.add_int32_data(300);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "value 300 at index 1", "uint8", "[0, 255]"});
}

TEST(TensorFromProtoTest, RejectsInt32DataValueOutOfRangeForInt8) {
  TensorProto in = MakeProto(TensorProto::INT8, {1});
  in.add_int32_data(-129);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "value -129 at index 0", "int8"});
}

TEST(TensorFromProtoTest, RejectsInt32DataValueOtherThanZeroOrOneForBool) {
  TensorProto in = MakeProto(TensorProto::BOOL, {1});
  in.add_int32_data(2);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "value 2 at index 0", "bool"});
}

TEST(TensorFromProtoTest, RejectsFloat16BitPatternOutsideUint16) {
  // A sign-extended pattern (-1 for 0xFFFF) is not what onnx.proto asks writers to store.
  TensorProto in = MakeProto(TensorProto::FLOAT16, {1});
  in.add_int32_data(-1);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "value -1 at index 0", "float16", "[0, 65535]"});
}

TEST(TensorFromProtoTest, RejectsUint64DataValueOutOfRangeForUint32) {
  TensorProto in = MakeProto(TensorProto::UINT32, {1});
  in.add_uint64_data(uint64_t{1} << 32);
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "value 4294967296 at index 0", "uint32"});
}

TEST(TensorFromProtoTest, RejectsBoolRawDataByteOtherThanZeroOrOne) {
  TensorProto in = MakeProto(TensorProto::BOOL, {3});
  in.set_raw_data(std::string("\x01\x00\x02", 3));
  ExpectInvalidArgument(TensorFromProto(in).status(), {"'w'", "byte 2 at index 2"});
}

TEST(TensorFromProtoTest, NamesTensorByWhatWhenGiven) {
  const absl::Status status =
      TensorFromProto(MakeProto(TensorProto::FLOAT, {-1}), "initializer 'w' (graph main)").status();
  EXPECT_THAT(std::string(status.message()), HasSubstr("initializer 'w' (graph main): "));
}

TEST(TensorFromProtoTest, NamesTensorByItsNameOtherwise) {
  EXPECT_THAT(std::string(TensorFromProto(MakeProto(TensorProto::FLOAT, {-1}, "bias")).status().message()),
              HasSubstr("tensor 'bias': "));
  EXPECT_THAT(std::string(TensorFromProto(MakeProto(TensorProto::FLOAT, {-1}, "")).status().message()),
              HasSubstr("unnamed tensor: "));
}

// ---------------------------------------------------------------------------------------------------------
// CheckedElementCount, type helpers.

TEST(CheckedElementCountTest, ScalarHasOneElement) { EXPECT_EQ(ValueOf(CheckedElementCount({}, "x")), 1); }

TEST(CheckedElementCountTest, ZeroDimGivesZeroEvenWhenOtherDimsWouldOverflow) {
  EXPECT_EQ(ValueOf(CheckedElementCount({kInt64Max, 2, 0}, "x")), 0);
}

TEST(CheckedElementCountTest, AcceptsProductOfExactlyInt64Max) {
  EXPECT_EQ(ValueOf(CheckedElementCount({kInt64Max, 1}, "x")), kInt64Max);
}

TEST(CheckedElementCountTest, RejectsNegativeDimEvenNextToZero) {
  ExpectInvalidArgument(CheckedElementCount({0, -1}, "x").status(), {"x: ", "dim 1", "-1"});
}

TEST(CheckedElementCountTest, RejectsOverflow) {
  ExpectInvalidArgument(CheckedElementCount({int64_t{1} << 32, int64_t{1} << 31}, "x").status(),
                        {"x: ", "4294967296, 2147483648", "overflows"});
}

TEST(DataTypeTest, ElementSizesFollowRawDataLayout) {
  EXPECT_EQ(ElementSize(TensorProto::BOOL), 1);
  EXPECT_EQ(ElementSize(TensorProto::BFLOAT16), 2);
  EXPECT_EQ(ElementSize(TensorProto::UINT32), 4);
  EXPECT_EQ(ElementSize(TensorProto::COMPLEX64), 8);
  EXPECT_EQ(ElementSize(TensorProto::COMPLEX128), 16);
  EXPECT_EQ(ElementSize(TensorProto::STRING), 0);
  EXPECT_EQ(ElementSize(TensorProto::UNDEFINED), 0);
}

TEST(DataTypeTest, EveryTypeButUndefinedIsSupported) {
  EXPECT_FALSE(IsSupportedDataType(TensorProto::UNDEFINED));
  for (DataType type = TensorProto::FLOAT; type <= TensorProto::BFLOAT16; ++type) {
    EXPECT_TRUE(IsSupportedDataType(type)) << type;
  }
  EXPECT_FALSE(IsSupportedDataType(17));
  EXPECT_FALSE(IsSupportedDataType(-1));
}

TEST(DataTypeTest, NamesUseOnnxSpelling) {
  EXPECT_EQ(DataTypeName(TensorProto::FLOAT16), "float16");
  EXPECT_EQ(DataTypeName(TensorProto::INT64), "int64");
  EXPECT_EQ(DataTypeName(99), "data_type 99");
}

// ---------------------------------------------------------------------------------------------------------
// Tensor construction and access.

TEST(TensorTest, ZerosFillsEveryByte) {
  absl::StatusOr<Tensor> tensor = Tensor::Zeros(TensorProto::FLOAT, {2, 3});
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->element_count(), 6);
  EXPECT_EQ(tensor->bytes(), std::string(24, '\0'));
}

TEST(TensorTest, ZerosOfStringsAreEmptyStrings) {
  absl::StatusOr<Tensor> tensor = Tensor::Zeros(TensorProto::STRING, {2});
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_THAT(tensor->strings(), ElementsAre("", ""));
  EXPECT_TRUE(tensor->bytes().empty());
}

TEST(TensorTest, ZerosRejectsNegativeDim) {
  ExpectInvalidArgument(Tensor::Zeros(TensorProto::FLOAT, {-2}).status(), {"-2"});
}

TEST(TensorTest, ZerosRejectsByteSizeOverflow) {
  ExpectInvalidArgument(Tensor::Zeros(TensorProto::DOUBLE, {kInt64Max / 4}).status(),
                        {"2305843009213693951", "overflows"});
}

TEST(TensorTest, ZerosRejectsUndefinedType) {
  ExpectInvalidArgument(Tensor::Zeros(TensorProto::UNDEFINED, {1}).status(), {"data_type 0"});
}

TEST(TensorTest, UninitializedHoldsWhatIsWrittenThroughMutableData) {
  absl::StatusOr<Tensor> tensor = Tensor::Uninitialized(TensorProto::INT32, {2});
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->element_count(), 2);
  EXPECT_FALSE(tensor->views_bytes());  // its bytes are its own: the runner may move it on instead of copying it
  const int32_t values[] = {7, -8};
  std::memcpy(tensor->mutable_data(), values, sizeof(values));
  EXPECT_EQ(tensor->bytes(), LittleEndian<int32_t>({7, -8}));
  const Tensor moved = std::move(*tensor);
  EXPECT_EQ(moved.bytes(), LittleEndian<int32_t>({7, -8}));
  EXPECT_EQ(moved.Clone().bytes(), LittleEndian<int32_t>({7, -8}));
}

TEST(TensorTest, UninitializedGivesItsBytesUpAsAString) {
  absl::StatusOr<Tensor> tensor = Tensor::Uninitialized(TensorProto::INT64, {1});
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  const int64_t value = -3;
  std::memcpy(tensor->mutable_data(), &value, sizeof(value));
  std::string& bytes = tensor->mutable_bytes();  // from here a string holds them
  EXPECT_EQ(bytes, LittleEndian<int64_t>({-3}));
  bytes = LittleEndian<int64_t>({4});
  EXPECT_EQ(tensor->bytes(), LittleEndian<int64_t>({4}));
  EXPECT_EQ(tensor->release_bytes(), LittleEndian<int64_t>({4}));
}

TEST(TensorTest, UninitializedOfNothingIsEmpty) {
  absl::StatusOr<Tensor> tensor = Tensor::Uninitialized(TensorProto::FLOAT, {3, 0});
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_TRUE(tensor->bytes().empty());
}

TEST(TensorTest, UninitializedIsCheckedAsZeros) {
  ExpectInvalidArgument(Tensor::Uninitialized(TensorProto::FLOAT, {-2}).status(), {"-2"});
  ExpectInvalidArgument(Tensor::Uninitialized(TensorProto::DOUBLE, {kInt64Max / 4}).status(),
                        {"2305843009213693951", "overflows"});
  ExpectInvalidArgument(Tensor::Uninitialized(TensorProto::STRING, {1}).status(), {"data_type 8"});
  ExpectInvalidArgument(Tensor::Uninitialized(TensorProto::UNDEFINED, {1}).status(), {"data_type 0"});
}

TEST(TensorTest, FromBytesTakesMatchingBytes) {
  absl::StatusOr<Tensor> tensor = Tensor::FromBytes(TensorProto::UINT16, {2}, std::string("\x01\x00\x02\x00", 4));
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(tensor->element_count(), 2);
}

TEST(TensorTest, FromBytesRejectsLengthMismatch) {
  ExpectInvalidArgument(Tensor::FromBytes(TensorProto::INT32, {3}, std::string(8, '\0')).status(),
                        {"got 8 bytes", "int32 [3] needs 12"});
}

TEST(TensorTest, FromBytesRejectsStringType) {
  ExpectInvalidArgument(Tensor::FromBytes(TensorProto::STRING, {0}, "").status(), {"data_type 8"});
}

TEST(TensorTest, FromStringsRejectsCountMismatch) {
  ExpectInvalidArgument(Tensor::FromStrings({2, 2}, {"a"}).status(), {"got 1 strings", "[2, 2] need 4"});
}

TEST(TensorTest, FromInt64sMakesOneDimensionalInt64Tensor) {
  const Tensor tensor = Tensor::FromInt64s({-1, kInt64Max});
  EXPECT_EQ(tensor.type(), TensorProto::INT64);
  EXPECT_THAT(tensor.dims(), ElementsAre(2));
  EXPECT_EQ(tensor.bytes(), LittleEndian<int64_t>({-1, kInt64Max}));
}

TEST(TensorTest, FromInt32sMakesOneDimensionalInt32Tensor) {
  const Tensor tensor = Tensor::FromInt32s({-5, 6, 7});
  EXPECT_EQ(tensor.type(), TensorProto::INT32);
  EXPECT_THAT(tensor.dims(), ElementsAre(3));
  EXPECT_EQ(tensor.bytes(), LittleEndian<int32_t>({-5, 6, 7}));
}

TEST(TensorTest, FromInt64sOfNothingIsEmptyNotScalar) {
  const Tensor tensor = Tensor::FromInt64s({});
  EXPECT_THAT(tensor.dims(), ElementsAre(0));
  EXPECT_EQ(tensor.element_count(), 0);
}

TEST(TensorTest, CloneIsEqualAndIndependent) {
  const Tensor original = Tensor::FromInt32s({1, 2});
  Tensor clone = original.Clone();
  EXPECT_TRUE(clone.BitwiseEquals(original));
  clone.mutable_bytes()[0] = 9;
  EXPECT_FALSE(clone.BitwiseEquals(original));
  EXPECT_EQ(original.bytes(), LittleEndian<int32_t>({1, 2}));
}

TEST(TensorTest, ToInt64sWidensInt32) {
  EXPECT_THAT(ValueOf(Tensor::FromInt32s({-3, INT32_MAX}).ToInt64s("starts")), ElementsAre(-3, INT32_MAX));
}

TEST(TensorTest, ToInt64sReadsInt64AndScalars) {
  EXPECT_THAT(ValueOf(Tensor::FromInt64s({INT64_MIN, 4}).ToInt64s("ends")), ElementsAre(INT64_MIN, 4));
  absl::StatusOr<Tensor> scalar = Tensor::FromBytes(TensorProto::INT64, {}, LittleEndian<int64_t>({-7}));
  ASSERT_TRUE(scalar.ok());
  EXPECT_THAT(ValueOf(scalar->ToInt64s("axes")), ElementsAre(-7));
}

TEST(TensorTest, ToInt64sRejectsOtherTypes) {
  absl::StatusOr<Tensor> tensor = Tensor::Zeros(TensorProto::FLOAT, {2});
  ASSERT_TRUE(tensor.ok());
  ExpectInvalidArgument(tensor->ToInt64s("starts").status(), {"starts: ", "float [2]"});
}

TEST(TensorTest, ToInt64sRejectsTwoDimensionalTensors) {
  absl::StatusOr<Tensor> tensor = Tensor::Zeros(TensorProto::INT64, {1, 2});
  ASSERT_TRUE(tensor.ok());
  ExpectInvalidArgument(tensor->ToInt64s("axes").status(), {"axes: ", "int64 [1, 2]"});
}

// ---------------------------------------------------------------------------------------------------------
// BitwiseEquals: bits, not values.

// A one-element float tensor holding the bit pattern `bits` (NaN payloads, signed zeros).
Tensor FloatFromBits(uint32_t bits) {
  return ValueOf(Tensor::FromBytes(TensorProto::FLOAT, {1}, LittleEndian<uint32_t>({bits})));
}

TEST(BitwiseEqualsTest, SameNaNPayloadIsEqual) {
  EXPECT_TRUE(FloatFromBits(0x7FC00001).BitwiseEquals(FloatFromBits(0x7FC00001)));
}

TEST(BitwiseEqualsTest, DistinguishesNaNPayloads) {
  EXPECT_FALSE(FloatFromBits(0x7FC00000).BitwiseEquals(FloatFromBits(0x7FC00001)));
}

TEST(BitwiseEqualsTest, DistinguishesNegativeZero) {
  EXPECT_FALSE(FloatFromBits(0x80000000).BitwiseEquals(FloatFromBits(0x00000000)));  // -0.0f vs 0.0f
  const Tensor minus = ValueOf(Tensor::FromBytes(TensorProto::DOUBLE, {1}, LittleEndian<double>({-0.0})));
  const Tensor plus = ValueOf(Tensor::FromBytes(TensorProto::DOUBLE, {1}, LittleEndian<double>({0.0})));
  EXPECT_FALSE(minus.BitwiseEquals(plus));
}

TEST(BitwiseEqualsTest, DistinguishesTypeWithSameBytes) {
  EXPECT_FALSE(
      FloatFromBits(1).BitwiseEquals(ValueOf(Tensor::FromBytes(TensorProto::INT32, {1}, LittleEndian<int32_t>({1})))));
}

TEST(BitwiseEqualsTest, DistinguishesDimsWithSameBytes) {
  const Tensor flat = Tensor::FromInt32s({1, 2});
  const Tensor column = ValueOf(Tensor::FromBytes(TensorProto::INT32, {2, 1}, LittleEndian<int32_t>({1, 2})));
  EXPECT_FALSE(flat.BitwiseEquals(column));
}

TEST(BitwiseEqualsTest, ComparesStrings) {
  const Tensor ab = ValueOf(Tensor::FromStrings({2}, {"a", "b"}));
  EXPECT_TRUE(ab.BitwiseEquals(ValueOf(Tensor::FromStrings({2}, {"a", "b"}))));
  EXPECT_FALSE(ab.BitwiseEquals(ValueOf(Tensor::FromStrings({2}, {"a", "c"}))));
}

}  // namespace
}  // namespace onnx_legalize
