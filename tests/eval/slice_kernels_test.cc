// The specification of the two slicing evaluators: Slice (Slice-10/11/13) and DynamicSliceReference
// (DynamicSlice-1, shared/seeds/DynamicSlice-1.rst and shared/spec/DYNAMIC_SLICE.md).
//
// No expected value here comes from a kernel: each is a literal, onnx's conformance data, or the result of
// a per-element index formula written in this file (NaiveSources), which picks one element at a time and
// so shares nothing with the kernels' run-copying loops.
#include "eval/slice_kernels.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor.h"
#include "eval/deferred_tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx::TensorProto;
using ::testing::AllOf;
using testing::Floats;
using ::testing::HasSubstr;
using testing::Iota;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// Every element type ONNX defines; both kernels must slice each of them.
const std::vector<DataType> kAllTypes = {
    TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,   TensorProto::BFLOAT16,
    TensorProto::INT8,  TensorProto::INT16,  TensorProto::INT32,     TensorProto::INT64,
    TensorProto::UINT8, TensorProto::UINT16, TensorProto::UINT32,    TensorProto::UINT64,
    TensorProto::BOOL,  TensorProto::STRING, TensorProto::COMPLEX64, TensorProto::COMPLEX128};

// ---------------------------------------------------------------------------------------------------------
// Building tensors and expected results
// ---------------------------------------------------------------------------------------------------------

std::string Bracketed(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

template <typename T>
std::string BytesOf(T value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof(value));
}

// The bytes of element i of a test data tensor: the value i + 1 where the type can hold it, so that a
// slice taken from the wrong place shows (8-bit types and bool wrap, which the wider types make up for).
std::string ElementBytes(DataType type, int64_t i) {
  const int64_t v = i + 1;
  switch (type) {
    case TensorProto::FLOAT: return BytesOf(static_cast<float>(v));
    case TensorProto::DOUBLE: return BytesOf(static_cast<double>(v));
    // The bit pattern v itself: distinct for every i below 65535, and every pattern is a 16-bit float.
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: return BytesOf(static_cast<uint16_t>(v));
    case TensorProto::INT8: return BytesOf(static_cast<int8_t>(v));
    case TensorProto::INT16: return BytesOf(static_cast<int16_t>(v));
    case TensorProto::INT32: return BytesOf(static_cast<int32_t>(v));
    case TensorProto::INT64: return BytesOf(static_cast<int64_t>(v));
    case TensorProto::UINT8: return BytesOf(static_cast<uint8_t>(v));
    case TensorProto::UINT16: return BytesOf(static_cast<uint16_t>(v));
    case TensorProto::UINT32: return BytesOf(static_cast<uint32_t>(v));
    case TensorProto::UINT64: return BytesOf(static_cast<uint64_t>(v));
    case TensorProto::BOOL: return BytesOf(static_cast<uint8_t>(v % 2));
    case TensorProto::COMPLEX64: return BytesOf(static_cast<float>(v)) + BytesOf(static_cast<float>(-v));
    case TensorProto::COMPLEX128: return BytesOf(static_cast<double>(v)) + BytesOf(static_cast<double>(-v));
    default: ADD_FAILURE() << "no test elements for " << DataTypeName(type); return "";
  }
}

std::string StringElement(int64_t i) { return absl::StrCat("s", i + 1); }

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t dim : dims) product *= dim;
  return product;
}

Tensor Must(absl::StatusOr<Tensor> tensor) {
  if (!tensor.ok()) {
    ADD_FAILURE() << "building a test tensor failed: " << tensor.status();
    return Tensor();
  }
  return *std::move(tensor);
}

// A data tensor whose element i is ElementBytes(type, i) (StringElement(i) for strings).
Tensor MakeData(DataType type, const std::vector<int64_t>& dims) {
  const int64_t count = Product(dims);
  if (type == TensorProto::STRING) {
    std::vector<std::string> strings;
    for (int64_t i = 0; i < count; ++i) strings.push_back(StringElement(i));
    return Must(Tensor::FromStrings(dims, std::move(strings)));
  }
  std::string bytes;
  for (int64_t i = 0; i < count; ++i) bytes += ElementBytes(type, i);
  return Must(Tensor::FromBytes(type, dims, std::move(bytes)));
}

template <typename T>
Tensor Literal(DataType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  std::string bytes;
  for (const T& value : values) bytes += BytesOf(value);
  return Must(Tensor::FromBytes(type, std::move(dims), std::move(bytes)));
}

// 1-D index tensor of `index_type`; the caller keeps int32 values in int32's range.
Tensor Indices(DataType index_type, const std::vector<int64_t>& values) {
  if (index_type == TensorProto::INT64) return Tensor::FromInt64s(values);
  return Tensor::FromInt32s(std::vector<int32_t>(values.begin(), values.end()));
}

// The definition of slicing, one element at a time: the flat input index of every output element, in
// row-major output order, when output axis a takes the input indices axis_indices[a].
std::vector<int64_t> NaiveSources(const std::vector<int64_t>& data_dims,
                                  const std::vector<std::vector<int64_t>>& axis_indices) {
  const int64_t rank = static_cast<int64_t>(data_dims.size());
  int64_t out_count = 1;
  for (const auto& indices : axis_indices) out_count *= static_cast<int64_t>(indices.size());
  std::vector<int64_t> sources;
  for (int64_t o = 0; o < out_count; ++o) {
    int64_t rest = o;
    int64_t source = 0;
    int64_t stride = 1;
    for (int64_t a = rank - 1; a >= 0; --a) {
      const int64_t size = static_cast<int64_t>(axis_indices[a].size());
      source += axis_indices[a][rest % size] * stride;
      rest /= size;
      stride *= data_dims[a];
    }
    sources.push_back(source);
  }
  return sources;
}

// The tensor of `out_dims` whose elements are data's elements at `sources`, copied one by one.
Tensor Gathered(const Tensor& data, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& sources) {
  if (data.is_string()) {
    std::vector<std::string> strings;
    strings.reserve(sources.size());
    for (int64_t source : sources) strings.push_back(data.strings()[source]);
    return Must(Tensor::FromStrings(out_dims, std::move(strings)));
  }
  const int64_t size = ElementSize(data.type());
  std::string bytes;
  for (int64_t source : sources) bytes += data.bytes().substr(source * size, size);
  return Must(Tensor::FromBytes(data.type(), out_dims, std::move(bytes)));
}

std::string Describe(const Tensor& tensor) {
  std::string text = absl::StrCat(DataTypeName(tensor.type()), " ", Bracketed(tensor.dims()), " {");
  const int64_t shown = std::min<int64_t>(tensor.element_count(), 12);
  for (int64_t i = 0; i < shown; ++i) {
    if (i > 0) text += ", ";
    if (tensor.is_string()) {
      absl::StrAppend(&text, "\"", tensor.strings()[i], "\"");
    } else {
      const int64_t size = ElementSize(tensor.type());
      text += "0x";
      for (int64_t b = size - 1; b >= 0; --b) {  // little-endian bytes, printed most significant first
        absl::StrAppend(&text, absl::Hex(static_cast<uint8_t>(tensor.bytes()[i * size + b]), absl::kZeroPad2));
      }
    }
  }
  return absl::StrCat(text, tensor.element_count() > shown ? ", ...}" : "}");
}

// Passes when `got` holds a tensor bit-identical to `want`.
::testing::AssertionResult SameTensor(const absl::StatusOr<Tensor>& got, const Tensor& want) {
  if (!got.ok()) return ::testing::AssertionFailure() << "failed: " << got.status();
  if (!got->BitwiseEquals(want)) {
    return ::testing::AssertionFailure() << "got " << Describe(*got) << "\nwant " << Describe(want);
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------------------
// Running a kernel on plain index values
// ---------------------------------------------------------------------------------------------------------

enum class Kernel { kSlice, kDynamicSliceReference };

std::string KernelName(Kernel kernel) { return kernel == Kernel::kSlice ? "Slice" : "DynamicSliceReference"; }
void PrintTo(Kernel kernel, std::ostream* os) { *os << KernelName(kernel); }

struct SliceArgs {
  std::vector<int64_t> starts;
  std::vector<int64_t> ends;
  std::optional<std::vector<int64_t>> axes;   // nullopt: input omitted
  std::optional<std::vector<int64_t>> steps;  // nullopt: input omitted; Slice only
};

std::string Describe(const SliceArgs& args, DataType index_type) {
  return absl::StrCat(DataTypeName(index_type), " starts ", Bracketed(args.starts), " ends ", Bracketed(args.ends),
                      " axes ", args.axes ? Bracketed(*args.axes) : "omitted", " steps ",
                      args.steps ? Bracketed(*args.steps) : "omitted");
}

absl::StatusOr<Tensor> RunKernel(Kernel kernel, const Tensor& data, DataType index_type, const SliceArgs& args) {
  const Tensor starts = Indices(index_type, args.starts);
  const Tensor ends = Indices(index_type, args.ends);
  const Tensor axes = Indices(index_type, args.axes.value_or(std::vector<int64_t>{}));
  const Tensor steps = Indices(index_type, args.steps.value_or(std::vector<int64_t>{}));
  const Tensor* axes_input = args.axes ? &axes : nullptr;
  if (kernel == Kernel::kSlice) return Slice(data, starts, ends, axes_input, args.steps ? &steps : nullptr);
  EXPECT_FALSE(args.steps.has_value()) << "DynamicSlice has no steps";
  return DynamicSliceReference(data, starts, ends, axes_input);
}

// The input indices Slice-13 selects along one axis of size `dim`, found by walking: start and end are
// adjusted and clamped as Slice-13's text says, then index += step while it has not reached end.
std::vector<int64_t> NaiveIndicesAlong(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (dim == 0) return {};
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  std::vector<int64_t> indices;
  for (int64_t i = start; step > 0 ? i < end : i > end;) {
    indices.push_back(i);
    if (__builtin_add_overflow(i, step, &i)) break;  // a step beyond the dim leaves one element
  }
  return indices;
}

// The expected result of slicing `data` with valid `args`, element by element.
Tensor NaiveSlice(const Tensor& data, const SliceArgs& args) {
  const int64_t rank = data.rank();
  std::vector<std::vector<int64_t>> axis_indices(rank);
  for (int64_t a = 0; a < rank; ++a) axis_indices[a] = NaiveIndicesAlong(data.dims()[a], 0, data.dims()[a], 1);
  for (size_t i = 0; i < args.starts.size(); ++i) {
    int64_t axis = args.axes ? (*args.axes)[i] : static_cast<int64_t>(i);
    if (axis < 0) axis += rank;
    const int64_t step = args.steps ? (*args.steps)[i] : 1;
    axis_indices[axis] = NaiveIndicesAlong(data.dims()[axis], args.starts[i], args.ends[i], step);
  }
  std::vector<int64_t> out_dims;
  out_dims.reserve(axis_indices.size());
  for (const auto& indices : axis_indices) out_dims.push_back(static_cast<int64_t>(indices.size()));
  return Gathered(data, out_dims, NaiveSources(data.dims(), axis_indices));
}

// ---------------------------------------------------------------------------------------------------------
// Behaviour common to both kernels
// ---------------------------------------------------------------------------------------------------------

class BothKernelsTest : public ::testing::TestWithParam<Kernel> {
 protected:
  absl::StatusOr<Tensor> RunOn(const Tensor& data, const SliceArgs& args, DataType index_type = TensorProto::INT64) {
    return RunKernel(GetParam(), data, index_type, args);
  }
  absl::StatusOr<Tensor> RunTensors(const Tensor& data, const Tensor& starts, const Tensor& ends, const Tensor* axes,
                                    const OutputPart* part = nullptr) {
    if (GetParam() == Kernel::kSlice) return Slice(data, starts, ends, axes, nullptr, part);
    return DynamicSliceReference(data, starts, ends, axes, part);
  }
};

INSTANTIATE_TEST_SUITE_P(Kernels, BothKernelsTest, ::testing::Values(Kernel::kSlice, Kernel::kDynamicSliceReference),
                         [](const auto& info) { return KernelName(info.param); });

const std::vector<float> kDocData = {1, 2, 3, 4, 5, 6, 7, 8};  // [[1, 2, 3, 4], [5, 6, 7, 8]]

// LegalizeFile writes large folds part by part (eval/deferred_tensor.h): the parts, in order, are the whole.
TEST_P(BothKernelsTest, GivesAnyPartOfItsOutputAsThatPartOfTheWhole) {
  const Tensor data = Iota({4, 5, 6});
  const Tensor starts = Literal<int64_t>(TensorProto::INT64, {3}, {1, -4, 0});
  const Tensor ends = Literal<int64_t>(TensorProto::INT64, {3}, {4, 5, 5});
  const Tensor axes = Literal<int64_t>(TensorProto::INT64, {3}, {0, 1, -1});
  absl::StatusOr<Tensor> whole = RunTensors(data, starts, ends, &axes);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_EQ(whole->dims(), (std::vector<int64_t>{3, 4, 5}));
  // Budgets below one element, of one element, of part of a row, of rows, of planes, of the whole.
  for (int64_t budget : {1, 4, 12, 20, 24, 80, 100, 160, 400, 1 << 20}) {
    std::string parts;
    int count = 0;
    const absl::Status walked =
        ForEachRowMajorPart(whole->dims(), 4, budget,
                            [&](const std::vector<int64_t>& offset, const std::vector<int64_t>& size) -> absl::Status {
                              const OutputPart part{offset, size};
                              absl::StatusOr<Tensor> piece = RunTensors(data, starts, ends, &axes, &part);
                              if (!piece.ok()) return piece.status();
                              EXPECT_EQ(piece->dims(), size);
                              EXPECT_LE(static_cast<int64_t>(piece->bytes().size()), std::max<int64_t>(budget, 4));
                              parts.append(piece->bytes());
                              ++count;
                              return absl::OkStatus();
                            });
    ASSERT_TRUE(walked.ok()) << walked;
    EXPECT_EQ(parts, std::string(whole->bytes())) << "budget " << budget;
    if (budget >= 240) EXPECT_EQ(count, 1) << "budget " << budget;
  }
}

TEST_P(BothKernelsTest, RejectsAPartThatIsNotInsideItsOutput) {
  const Tensor data = Iota({4, 5});
  const Tensor starts = Literal<int64_t>(TensorProto::INT64, {1}, {1});
  const Tensor ends = Literal<int64_t>(TensorProto::INT64, {1}, {3});  // output [2, 5]
  const std::vector<OutputPart> outside = {{{0, 0}, {3, 5}},  {{2, 0}, {1, 1}},        {{0, 4}, {1, 2}},
                                           {{0}, {1}},        {{0, 0, 0}, {1, 1, 1}},  {{-1, 0}, {1, 1}},
                                           {{0, 0}, {1, -1}}, {{1, 0}, {kInt64Max, 1}}};
  for (const OutputPart& part : outside) {
    absl::StatusOr<Tensor> piece = RunTensors(data, starts, ends, nullptr, &part);
    EXPECT_EQ(piece.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(piece.status().message()), ::testing::HasSubstr("is not inside the"));
  }
  const OutputPart empty_at_the_end{{2, 5}, {0, 0}};
  absl::StatusOr<Tensor> piece = RunTensors(data, starts, ends, nullptr, &empty_at_the_end);
  ASSERT_TRUE(piece.ok()) << piece.status();
  EXPECT_EQ(piece->element_count(), 0);
}

TEST(DynamicSliceReferenceDimsTest, AreTheDimsOfWhatTheKernelGives) {
  const Tensor data = Iota({4, 5, 6});
  const Tensor starts = Literal<int64_t>(TensorProto::INT64, {2}, {-100, 2});
  const Tensor ends = Literal<int64_t>(TensorProto::INT64, {2}, {2, 1});
  absl::StatusOr<std::vector<int64_t>> dims = DynamicSliceReferenceDims(data, starts, ends, nullptr);
  ASSERT_TRUE(dims.ok()) << dims.status();
  EXPECT_EQ(*dims, (std::vector<int64_t>{2, 0, 6}));
  EXPECT_EQ(DynamicSliceReference(data, starts, ends, nullptr)->dims(), *dims);
  const Tensor axes = Literal<int64_t>(TensorProto::INT64, {2}, {0, 0});
  EXPECT_EQ(DynamicSliceReferenceDims(data, starts, ends, &axes).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_P(BothKernelsTest, DocumentationExample1) {
  const Tensor data = Floats({2, 4}, kDocData);
  EXPECT_TRUE(SameTensor(RunOn(data, {{1, 0}, {2, 3}, std::vector<int64_t>{0, 1}, {}}), Floats({1, 3}, {5, 6, 7})));
}

TEST_P(BothKernelsTest, DocumentationExample2) {
  const Tensor data = Floats({2, 4}, kDocData);
  EXPECT_TRUE(SameTensor(RunOn(data, {{0, 1}, {-1, 1000}, std::nullopt, {}}), Floats({1, 3}, {2, 3, 4})));
}

TEST_P(BothKernelsTest, ClampsExtremeIndicesOfBothIndexTypes) {
  const Tensor data = Literal<int32_t>(TensorProto::INT32, {5}, {10, 11, 12, 13, 14});
  const Tensor all = Literal<int32_t>(TensorProto::INT32, {5}, {10, 11, 12, 13, 14});
  EXPECT_TRUE(SameTensor(RunOn(data, {{kInt64Min}, {kInt64Max}, std::nullopt, {}}), all));
  EXPECT_TRUE(SameTensor(RunOn(data, {{kInt32Min}, {kInt32Max}, std::nullopt, {}}, TensorProto::INT32), all));
  EXPECT_TRUE(SameTensor(RunOn(data, {{kInt32Min}, {kInt32Max}, std::nullopt, {}}, TensorProto::INT64), all));
  const Tensor none = Literal<int32_t>(TensorProto::INT32, {0}, {});
  EXPECT_TRUE(SameTensor(RunOn(data, {{kInt64Max}, {kInt64Min}, std::nullopt, {}}), none));
  EXPECT_TRUE(SameTensor(RunOn(data, {{kInt32Max}, {kInt32Min}, std::nullopt, {}}, TensorProto::INT32), none));
}

TEST_P(BothKernelsTest, IndicesBelowMinusDimClampToZero) {
  // DynamicSlice-1 adds dim to a negative index once; what is still negative, the runtimes clamp to 0.
  const Tensor data = Literal<int16_t>(TensorProto::INT16, {5}, {10, 11, 12, 13, 14});
  EXPECT_TRUE(
      SameTensor(RunOn(data, {{-6}, {2}, std::nullopt, {}}), Literal<int16_t>(TensorProto::INT16, {2}, {10, 11})));
  EXPECT_TRUE(SameTensor(RunOn(data, {{-5}, {-6}, std::nullopt, {}}), Literal<int16_t>(TensorProto::INT16, {0}, {})));
}

TEST_P(BothKernelsTest, StartAtOrAfterEndGivesAnEmptyAxis) {
  const Tensor data = MakeData(TensorProto::FLOAT, {3, 4});
  EXPECT_TRUE(SameTensor(RunOn(data, {{2}, {1}, std::vector<int64_t>{1}, {}}), MakeData(TensorProto::FLOAT, {3, 0})));
  EXPECT_TRUE(SameTensor(RunOn(data, {{-1}, {-1}, std::vector<int64_t>{0}, {}}), MakeData(TensorProto::FLOAT, {0, 4})));
}

TEST_P(BothKernelsTest, EmptyStartsReturnTheWholeTensor) {
  const Tensor data = MakeData(TensorProto::STRING, {2, 3});
  EXPECT_TRUE(SameTensor(RunOn(data, {{}, {}, std::vector<int64_t>{}, {}}), MakeData(TensorProto::STRING, {2, 3})));
  EXPECT_TRUE(SameTensor(RunOn(data, {{}, {}, std::nullopt, {}}), MakeData(TensorProto::STRING, {2, 3})));
}

TEST_P(BothKernelsTest, SlicesStringsElementByElement) {
  const Tensor data = Must(Tensor::FromStrings({3, 3}, {"1", "2", "3", "4", "5", "6", "7", "8", "9"}));
  EXPECT_TRUE(SameTensor(RunOn(data, {{1, 1}, {3, 3}, std::vector<int64_t>{0, 1}, {}}),
                         Must(Tensor::FromStrings({2, 2}, {"5", "6", "8", "9"}))));
}

TEST_P(BothKernelsTest, SlicesBoolsAsOneByteEach) {
  const Tensor data = Literal<uint8_t>(TensorProto::BOOL, {3, 3}, {1, 0, 1, 0, 1, 0, 1, 0, 1});
  EXPECT_TRUE(SameTensor(RunOn(data, {{1, 1}, {3, 3}, std::vector<int64_t>{0, 1}, {}}, TensorProto::INT32),
                         Literal<uint8_t>(TensorProto::BOOL, {2, 2}, {1, 0, 0, 1})));
}

// --- Rejections: every guard clause, on both kernels ---

TEST_P(BothKernelsTest, RejectsScalarData) {
  const Tensor data = MakeData(TensorProto::FLOAT, {});
  const auto result = RunOn(data, {{}, {}, std::nullopt, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("scalar"));
}

TEST_P(BothKernelsTest, RejectsDuplicateAxes) {
  const auto result = RunOn(MakeData(TensorProto::FLOAT, {2, 2, 2, 2}), {{0, 0, 0}, {1, 1, 1}, {{0, 3, 3}}, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("axes holds 3 twice (axes [0, 3, 3], data rank 4)"));
}

TEST_P(BothKernelsTest, RejectsAxesThatAreDuplicatesOnceNegativesAreNormalized) {
  const auto result = RunOn(MakeData(TensorProto::FLOAT, {2, 2, 2}), {{0, 0}, {1, 1}, {{1, -2}}, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              HasSubstr("axes holds 1 and -2, which both name axis 1 (axes [1, -2], data rank 3)"));
}

TEST_P(BothKernelsTest, RejectsAxisEqualToRank) {
  const auto result = RunOn(MakeData(TensorProto::FLOAT, {2, 2, 2}), {{0}, {1}, {{3}}, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("axes holds 3, outside [-3, 2] for data rank 3"));
}

TEST_P(BothKernelsTest, RejectsAxisBelowMinusRank) {
  const auto result = RunOn(MakeData(TensorProto::FLOAT, {2, 2, 2}), {{0}, {1}, {{-4}}, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("axes holds -4, outside [-3, 2] for data rank 3"));
}

TEST_P(BothKernelsTest, RejectsMoreStartsThanAxesWhenAxesAreOmitted) {
  const auto result = RunOn(MakeData(TensorProto::FLOAT, {2, 2}), {{0, 0, 0}, {1, 1, 1}, std::nullopt, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), AllOf(HasSubstr("omitted"), HasSubstr("2")));
}

TEST_P(BothKernelsTest, RejectsEndsOfAnotherLength) {
  const auto result = RunOn(MakeData(TensorProto::FLOAT, {2, 2}), {{0, 0}, {1}, std::nullopt, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("starts has 2 values but ends has 1"));
}

TEST_P(BothKernelsTest, RejectsAxesOfAnotherLength) {
  const auto result = RunOn(MakeData(TensorProto::FLOAT, {2, 2, 2}), {{0, 0}, {1, 1}, {{0, 1, 2}}, {}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("starts has 2 values but axes has 3"));
}

TEST_P(BothKernelsTest, RejectsStartsThatAreNot1D) {
  const Tensor data = MakeData(TensorProto::FLOAT, {2, 2});
  const Tensor starts_2d = Literal<int64_t>(TensorProto::INT64, {2, 1}, {0, 0});
  const Tensor ends = Tensor::FromInt64s({1, 1});
  const auto result = RunTensors(data, starts_2d, ends, nullptr);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), AllOf(HasSubstr("starts"), HasSubstr("1-D"), HasSubstr("[2, 1]")));
}

TEST_P(BothKernelsTest, RejectsScalarEnds) {
  const Tensor data = MakeData(TensorProto::FLOAT, {2, 2});
  const Tensor starts = Tensor::FromInt64s({0});
  const Tensor scalar_end = Literal<int64_t>(TensorProto::INT64, {}, {1});
  const auto result = RunTensors(data, starts, scalar_end, nullptr);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), AllOf(HasSubstr("ends"), HasSubstr("1-D"), HasSubstr("[]")));
}

TEST_P(BothKernelsTest, RejectsAxesThatAreNot1D) {
  const Tensor data = MakeData(TensorProto::FLOAT, {2, 2});
  const Tensor starts = Tensor::FromInt64s({0});
  const Tensor ends = Tensor::FromInt64s({1});
  const Tensor axes_2d = Literal<int64_t>(TensorProto::INT64, {1, 1}, {0});
  const auto result = RunTensors(data, starts, ends, &axes_2d);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), AllOf(HasSubstr("axes"), HasSubstr("1-D"), HasSubstr("[1, 1]")));
}

TEST_P(BothKernelsTest, RejectsFloatIndices) {
  const Tensor data = MakeData(TensorProto::FLOAT, {2, 2});
  const Tensor float_starts = Floats({1}, {0});
  const Tensor ends = Tensor::FromInt64s({1});
  const auto result = RunTensors(data, float_starts, ends, nullptr);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), AllOf(HasSubstr("starts"), HasSubstr("int32 or int64"), HasSubstr("float")));
}

TEST_P(BothKernelsTest, RejectsStartsAndEndsOfDifferentIndexTypes) {
  const Tensor data = MakeData(TensorProto::FLOAT, {2, 2});
  const Tensor starts = Tensor::FromInt64s({0});
  const Tensor ends = Tensor::FromInt32s({1});
  const auto result = RunTensors(data, starts, ends, nullptr);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("starts is int64"), HasSubstr("ends is int32"), HasSubstr("Tind")));
}

TEST_P(BothKernelsTest, RejectsAxesOfAnotherIndexType) {
  const Tensor data = MakeData(TensorProto::FLOAT, {2, 2});
  const Tensor starts = Tensor::FromInt32s({0});
  const Tensor ends = Tensor::FromInt32s({1});
  const Tensor axes = Tensor::FromInt64s({1});
  const auto result = RunTensors(data, starts, ends, &axes);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("starts is int32"), HasSubstr("axes is int64"), HasSubstr("Tind")));
}

// ---------------------------------------------------------------------------------------------------------
// DynamicSlice's test vectors, on both kernels, both index types and every element type
// ---------------------------------------------------------------------------------------------------------

struct DynamicSliceVector {
  const char* name;
  std::vector<int64_t> data_dims;
  SliceArgs args;
  std::vector<int64_t> want_dims;
  // Either where the result begins along each data axis (the numpy slice x[b0:b0+n0, b1:b1+n1, ...])...
  std::vector<int64_t> want_begin;
  // ...or, when non-empty, the result's values literally, data being 1, 2, 3, ... (ElementBytes' i + 1).
  std::vector<int64_t> want_values;
};

void PrintTo(const DynamicSliceVector& vector, std::ostream* os) { *os << vector.name; }

const std::vector<DynamicSliceVector>& Vectors() {
  static const auto* vectors = new std::vector<DynamicSliceVector>{
      // onnx 1.4's DynamicSlice backend tests, all on x = randn(20, 10, 5).
      {"dynamic_slice", {20, 10, 5}, {{0, 0}, {3, 10}, {{0, 1}}, {}}, {3, 10, 5}, {0, 0, 0}, {}},
      {"dynamic_slice_neg", {20, 10, 5}, {{0}, {-1}, {{1}}, {}}, {20, 9, 5}, {0, 0, 0}, {}},
      {"dynamic_slice_start_out_of_bounds", {20, 10, 5}, {{1000}, {1000}, {{1}}, {}}, {20, 0, 5}, {0, 0, 0}, {}},
      {"dynamic_slice_end_out_of_bounds", {20, 10, 5}, {{1}, {1000}, {{1}}, {}}, {20, 9, 5}, {0, 1, 0}, {}},
      {"dynamic_slice_default_axes",
       {20, 10, 5},
       {{0, 0, 3}, {20, 10, 4}, std::nullopt, {}},
       {20, 10, 1},
       {0, 0, 3},
       {}},
      // ONNX Runtime's DynamicSlice tests, on data 1..9 (3x3) or 1..27 (3x3x3).
      {"ort_2d", {3, 3}, {{1, 1}, {3, 3}, {{0, 1}}, {}}, {2, 2}, {}, {5, 6, 8, 9}},
      {"ort_negative_axis", {3, 3}, {{1}, {3}, {{-1}}, {}}, {3, 2}, {}, {2, 3, 5, 6, 8, 9}},
      {"ort_unsorted_axes", {3, 3, 3}, {{1, 0, 1}, {2, 1, 3}, {{2, 0, 1}}, {}}, {1, 2, 1}, {}, {5, 8}},
  };
  return *vectors;
}

using VectorParam = std::tuple<DynamicSliceVector, DataType, DataType, Kernel>;

class DynamicSliceVectorTest : public ::testing::TestWithParam<VectorParam> {};

TEST_P(DynamicSliceVectorTest, GivesTheDocumentedResult) {
  const auto& [vector, type, index_type, kernel] = GetParam();
  const Tensor data = MakeData(type, vector.data_dims);
  std::vector<int64_t> sources;
  if (!vector.want_values.empty()) {
    for (int64_t value : vector.want_values) sources.push_back(value - 1);
  } else {
    std::vector<std::vector<int64_t>> axis_indices(vector.data_dims.size());
    for (size_t a = 0; a < axis_indices.size(); ++a) {
      for (int64_t i = 0; i < vector.want_dims[a]; ++i) axis_indices[a].push_back(vector.want_begin[a] + i);
    }
    sources = NaiveSources(vector.data_dims, axis_indices);
  }
  ASSERT_EQ(static_cast<int64_t>(sources.size()), Product(vector.want_dims)) << "malformed test vector";
  EXPECT_TRUE(SameTensor(RunKernel(kernel, data, index_type, vector.args), Gathered(data, vector.want_dims, sources)));
}

INSTANTIATE_TEST_SUITE_P(AllTypes, DynamicSliceVectorTest,
                         ::testing::Combine(::testing::ValuesIn(Vectors()), ::testing::ValuesIn(kAllTypes),
                                            ::testing::Values(TensorProto::INT32, TensorProto::INT64),
                                            ::testing::Values(Kernel::kSlice, Kernel::kDynamicSliceReference)),
                         [](const ::testing::TestParamInfo<VectorParam>& info) {
                           return absl::StrCat(std::get<0>(info.param).name, "_", DataTypeName(std::get<1>(info.param)),
                                               "_", DataTypeName(std::get<2>(info.param)), "_indices_",
                                               KernelName(std::get<3>(info.param)));
                         });

// ---------------------------------------------------------------------------------------------------------
// Slice alone: steps, and SliceOutputDims
// ---------------------------------------------------------------------------------------------------------

absl::StatusOr<Tensor> SliceInt64(const Tensor& data, const SliceArgs& args) {
  return RunKernel(Kernel::kSlice, data, TensorProto::INT64, args);
}

TEST(SliceTest, ReversesWithStepMinusOneFromTheEndToInt64Min) {
  // Slice-13 recommends INT_MIN as the end "when slicing backward".
  EXPECT_TRUE(SameTensor(SliceInt64(Floats({5}, {1, 2, 3, 4, 5}), {{-1}, {kInt64Min}, std::nullopt, {{-1}}}),
                         Floats({5}, {5, 4, 3, 2, 1})));
}

TEST(SliceTest, ReversesWithInt32Indices) {
  const Tensor data = Floats({4}, {1, 2, 3, 4});
  EXPECT_TRUE(
      SameTensor(RunKernel(Kernel::kSlice, data, TensorProto::INT32, {{kInt32Max}, {kInt32Min}, std::nullopt, {{-1}}}),
                 Floats({4}, {4, 3, 2, 1})));
}

TEST(SliceTest, NegativeStepStopsBeforeEnd) {
  // numpy: x[3:0:-1] == x[3], x[2], x[1]; end -1 + dim = 3 would give nothing, end -5 + dim = -1 clamps to
  // -1 and includes element 0.
  const Tensor data = Floats({4}, {1, 2, 3, 4});
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{3}, {0}, std::nullopt, {{-1}}}), Floats({3}, {4, 3, 2})));
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{3}, {-1}, std::nullopt, {{-1}}}), Floats({0}, {})));
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{3}, {-5}, std::nullopt, {{-1}}}), Floats({4}, {4, 3, 2, 1})));
}

TEST(SliceTest, StepsGreaterThanOneSkipElements) {
  const Tensor data = Floats({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{1}, {8}, std::nullopt, {{3}}}), Floats({3}, {1, 4, 7})));
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{1}, {7}, std::nullopt, {{3}}}), Floats({2}, {1, 4})));
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{8}, {0}, std::nullopt, {{-3}}}), Floats({3}, {8, 5, 2})));
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{kInt64Max}, {kInt64Min}, std::nullopt, {{-4}}}), Floats({3}, {9, 5, 1})));
}

TEST(SliceTest, HugeStepsTakeOneElement) {
  const Tensor data = Floats({4}, {1, 2, 3, 4});
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{1}, {kInt64Max}, std::nullopt, {{kInt64Max}}}), Floats({1}, {2})));
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{kInt64Max}, {kInt64Min}, std::nullopt, {{kInt64Min}}}), Floats({1}, {4})));
  EXPECT_TRUE(SameTensor(RunKernel(Kernel::kSlice, data, TensorProto::INT32, {{0}, {4}, std::nullopt, {{kInt32Min}}}),
                         Floats({0}, {})));
}

TEST(SliceTest, StepsOnSeveralAxesInAnyOrder) {
  // 3x4 data 0..11; rows 2, 1, 0 (step -1), columns 0, 2 (step 2).
  const Tensor data = Floats({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{0, -1}, {kInt64Max, kInt64Min}, {{1, 0}}, {{2, -1}}}),
                         Floats({3, 2}, {8, 10, 4, 6, 0, 2})));
}

TEST(SliceTest, NegativeStepOnAnEmptyAxisIsEmpty) {
  // Slice-13's ranges [0, dim-1] and [-1, dim-1] are empty for dim 0; numpy gives an empty axis.
  EXPECT_TRUE(SameTensor(SliceInt64(MakeData(TensorProto::INT8, {0, 3}), {{-1}, {kInt64Min}, {{0}}, {{-1}}}),
                         MakeData(TensorProto::INT8, {0, 3})));
}

TEST(SliceTest, NegativeStepTreatsAnEndOfIntMaxAsAnIndex) {
  // Slice-13 clamps end to [-1, dim-1] for negative steps, so INT_MAX is dim-1 there, not "to the end"
  // (numpy and onnx's reference agree; ONNX Runtime instead reads it as "to the start").
  EXPECT_TRUE(
      SameTensor(SliceInt64(Floats({4}, {1, 2, 3, 4}), {{2}, {kInt32Max}, std::nullopt, {{-1}}}), Floats({0}, {})));
}

TEST(SliceTest, ExplicitUnitStepsEqualOmittedSteps) {
  const Tensor data = MakeData(TensorProto::UINT16, {3, 4, 5});
  EXPECT_TRUE(SameTensor(SliceInt64(data, {{1, -3}, {3, 4}, {{0, 2}}, {{1, 1}}}),
                         Must(SliceInt64(data, {{1, -3}, {3, 4}, {{0, 2}}, std::nullopt}))));
}

TEST(SliceTest, ReversesStringsAndComplexValues) {
  for (DataType type : {TensorProto::STRING, TensorProto::COMPLEX128}) {
    const Tensor data = MakeData(type, {2, 3});
    EXPECT_TRUE(
        SameTensor(SliceInt64(data, {{-1}, {kInt64Min}, {{-1}}, {{-1}}}), Gathered(data, {2, 3}, {2, 1, 0, 5, 4, 3})))
        << DataTypeName(type);
  }
}

TEST(SliceTest, RejectsZeroStep) {
  const auto result = SliceInt64(MakeData(TensorProto::FLOAT, {3, 3}), {{0, 0}, {3, 3}, std::nullopt, {{1, 0}}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("steps holds 0 at position 1 (steps [1, 0])"));
}

TEST(SliceTest, RejectsStepsOfAnotherLength) {
  const auto result = SliceInt64(MakeData(TensorProto::FLOAT, {3, 3}), {{0, 0}, {3, 3}, std::nullopt, {{1}}});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("starts has 2 values but steps has 1"));
}

TEST(SliceTest, RejectsStepsOfAnotherIndexType) {
  const Tensor data = MakeData(TensorProto::FLOAT, {3});
  const Tensor starts = Tensor::FromInt64s({0});
  const Tensor ends = Tensor::FromInt64s({3});
  const Tensor steps = Tensor::FromInt32s({1});
  const auto result = Slice(data, starts, ends, nullptr, &steps);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), AllOf(HasSubstr("steps is int32"), HasSubstr("Tind")));
}

TEST(SliceTest, RejectsStepsThatAreNot1D) {
  const Tensor data = MakeData(TensorProto::FLOAT, {3});
  const Tensor starts = Tensor::FromInt64s({0});
  const Tensor ends = Tensor::FromInt64s({3});
  const Tensor steps = Literal<int64_t>(TensorProto::INT64, {}, {1});
  const auto result = Slice(data, starts, ends, nullptr, &steps);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), AllOf(HasSubstr("steps"), HasSubstr("1-D")));
}

TEST(SliceOutputDimsTest, CountsHugeShapesWithoutOverflowOrAllocation) {
  const auto dims = [](const std::vector<int64_t>& data_dims, const SliceArgs& args) {
    const Tensor starts = Tensor::FromInt64s(args.starts);
    const Tensor ends = Tensor::FromInt64s(args.ends);
    const Tensor steps = Tensor::FromInt64s(args.steps.value_or(std::vector<int64_t>{}));
    return SliceOutputDims(data_dims, starts, ends, nullptr, args.steps ? &steps : nullptr);
  };
  using V = std::vector<int64_t>;
  EXPECT_EQ(*dims({kInt64Max, 3}, {{1}, {kInt64Max}, std::nullopt, std::nullopt}), (V{kInt64Max - 1, 3}));
  EXPECT_EQ(*dims({kInt64Max}, {{0}, {kInt64Max}, std::nullopt, {{2}}}), (V{int64_t{1} << 62}));
  EXPECT_EQ(*dims({kInt64Max}, {{1}, {kInt64Max}, std::nullopt, {{3}}}), (V{3074457345618258602}));
  EXPECT_EQ(*dims({kInt64Max}, {{kInt64Max}, {kInt64Min}, std::nullopt, {{-1}}}), (V{kInt64Max}));
  EXPECT_EQ(*dims({kInt64Max}, {{kInt64Max}, {kInt64Min}, std::nullopt, {{kInt64Min}}}), (V{1}));
  EXPECT_EQ(*dims({kInt64Max}, {{kInt64Min}, {kInt64Max}, std::nullopt, {{kInt64Max}}}), (V{1}));
}

TEST(SliceOutputDimsTest, RejectsWhatSliceRejects) {
  const Tensor starts = Tensor::FromInt64s({0, 0});
  const Tensor ends = Tensor::FromInt64s({1, 1});
  const Tensor axes = Tensor::FromInt64s({2, -1});
  const auto result = SliceOutputDims({4, 4, 4}, starts, ends, &axes, nullptr);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("axes holds 2 and -1, which both name axis 2"));
  EXPECT_EQ(SliceOutputDims({}, starts, ends, nullptr, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SliceOutputDimsTest, RejectsNegativeDataDims) {
  const Tensor starts = Tensor::FromInt64s({0});
  const Tensor ends = Tensor::FromInt64s({1});
  const auto result = SliceOutputDims({4, -2}, starts, ends, nullptr, nullptr);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("data dim 1 of [4, -2] is negative"));
}

// ---------------------------------------------------------------------------------------------------------
// onnx's Slice conformance data (opset 13)
// ---------------------------------------------------------------------------------------------------------

class SliceConformanceTest : public ::testing::TestWithParam<const char*> {};

template <typename Proto>
::testing::AssertionResult ReadProto(const std::string& path, Proto& proto) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return ::testing::AssertionFailure() << "cannot open " << path
                                         << " (ctest's fixture onnx_node_test_data writes onnx's node tests there)";
  if (!proto.ParseFromIstream(&in)) return ::testing::AssertionFailure() << "cannot parse " << path;
  return ::testing::AssertionSuccess();
}

TEST_P(SliceConformanceTest, MatchesOnnxBackendTestData) {
  const std::string dir = absl::StrCat(ONNX_NODE_TEST_DIR, "/", GetParam());
  onnx::ModelProto model;
  ASSERT_TRUE(ReadProto(dir + "/model.onnx", model));
  ASSERT_EQ(model.graph().node_size(), 1);
  const onnx::NodeProto& node = model.graph().node(0);
  ASSERT_EQ(node.op_type(), "Slice");

  // input_N.pb holds graph input N; the node names which of them are its data, starts, ends, axes, steps.
  std::map<std::string, Tensor> by_name;
  for (int i = 0; i < model.graph().input_size(); ++i) {
    TensorProto proto;
    ASSERT_TRUE(ReadProto(absl::StrCat(dir, "/test_data_set_0/input_", i, ".pb"), proto));
    auto tensor = TensorFromProto(proto, model.graph().input(i).name());
    ASSERT_TRUE(tensor.ok()) << tensor.status();
    by_name.emplace(model.graph().input(i).name(), *std::move(tensor));
  }
  const auto input = [&](int i) -> const Tensor* {
    if (i >= node.input_size() || node.input(i).empty()) return nullptr;  // an optional input left out
    const auto it = by_name.find(node.input(i));
    return it == by_name.end() ? nullptr : &it->second;
  };
  ASSERT_TRUE(input(0) && input(1) && input(2)) << "data, starts and ends must be graph inputs";
  TensorProto want_proto;
  ASSERT_TRUE(ReadProto(dir + "/test_data_set_0/output_0.pb", want_proto));
  const auto want = TensorFromProto(want_proto, "output_0");
  ASSERT_TRUE(want.ok()) << want.status();

  EXPECT_TRUE(SameTensor(Slice(*input(0), *input(1), *input(2), input(3), input(4)), *want));

  // Without steps, or with steps of 1 only, DynamicSlice means the same.
  if (input(4) != nullptr) {
    const auto steps = input(4)->ToInt64s("steps");
    ASSERT_TRUE(steps.ok()) << steps.status();
    if (std::any_of(steps->begin(), steps->end(), [](int64_t step) { return step != 1; })) return;
  }
  EXPECT_TRUE(SameTensor(DynamicSliceReference(*input(0), *input(1), *input(2), input(3)), *want));
}

INSTANTIATE_TEST_SUITE_P(Onnx, SliceConformanceTest,
                         ::testing::Values("test_slice", "test_slice_default_axes", "test_slice_default_steps",
                                           "test_slice_end_out_of_bounds", "test_slice_neg", "test_slice_neg_steps",
                                           "test_slice_negative_axes", "test_slice_start_out_of_bounds"),
                         [](const auto& info) { return std::string(info.param); });

// ---------------------------------------------------------------------------------------------------------
// Seeded random cases
// ---------------------------------------------------------------------------------------------------------

class RandomCases {
 public:
  explicit RandomCases(uint64_t seed) : rng_(seed) {}

  int64_t Uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }
  template <typename T>
  T Pick(const std::vector<T>& values) {
    return values[Uniform(0, static_cast<int64_t>(values.size()) - 1)];
  }

  // Rank 0-6 (rank 0 must be rejected), dims 0-4 (mostly 1-4), so every case stays small.
  std::vector<int64_t> Dims() {
    std::vector<int64_t> dims(Uniform(0, 6));
    for (int64_t& dim : dims) dim = Chance(10) ? 0 : Uniform(1, MaxDim(dims.size()));
    return dims;
  }

  // A start or end for an axis of size `dim`: mostly near the axis, sometimes an extreme of the index type.
  int64_t Index(int64_t dim, DataType index_type) {
    if (Chance(80)) return Uniform(-dim - 3, dim + 3);
    if (index_type == TensorProto::INT32) return Pick<int64_t>({kInt32Min, kInt32Max});
    return Pick<int64_t>({kInt32Min, kInt32Max, kInt64Min, kInt64Max});
  }

  // starts, ends and axes for `dims`: a random subset of axes in random order, some written negative, or
  // axes omitted. With `allow_invalid`, some cases break one rule both kernels must enforce.
  SliceArgs Args(const std::vector<int64_t>& dims, DataType index_type, bool allow_invalid) {
    const int64_t rank = static_cast<int64_t>(dims.size());
    SliceArgs args;
    std::vector<int64_t> axes(rank);
    for (int64_t a = 0; a < rank; ++a) axes[a] = a;
    const bool omit_axes = Chance(20);
    if (!omit_axes) std::shuffle(axes.begin(), axes.end(), rng_);
    axes.resize(Uniform(0, rank));
    for (int64_t axis : axes) {
      args.starts.push_back(Index(dims[axis], index_type));
      args.ends.push_back(Index(dims[axis], index_type));
    }
    if (!omit_axes) {
      for (int64_t& axis : axes) {
        if (Chance(30)) axis -= rank;
      }
      args.axes = axes;
    }
    if (allow_invalid && Chance(15)) Break(args, rank);
    return args;
  }

 private:
  // Keeps rank 5 and 6 cases at most 3^6 elements.
  static int64_t MaxDim(size_t rank) { return rank >= 5 ? 3 : 4; }

  // Breaks one rule: a duplicate axis (maybe written the other way), an axis out of range, a length
  // mismatch, or more starts than axes when axes are omitted.
  void Break(SliceArgs& args, int64_t rank) {
    switch (Uniform(0, 3)) {
      case 0:
        if (args.axes && !args.axes->empty()) {
          const int64_t axis = Pick(*args.axes);
          args.axes->push_back(Chance(50) ? axis : (axis < 0 ? axis + rank : axis - rank));
          args.starts.push_back(0);
          args.ends.push_back(1);
        }
        break;
      case 1:
        if (args.axes) {
          args.axes->push_back(Pick<int64_t>({rank, -rank - 1, rank + 5, kInt32Max, kInt32Min}));
          args.starts.push_back(0);
          args.ends.push_back(1);
        }
        break;
      case 2:
        if (Chance(50)) {
          args.ends.push_back(0);
        } else if (args.axes) {
          args.axes->push_back(0);
        }
        break;
      default:
        if (!args.axes) {
          while (static_cast<int64_t>(args.starts.size()) <= rank) {
            args.starts.push_back(0);
            args.ends.push_back(1);
          }
        }
        break;
    }
  }

  std::mt19937_64 rng_;
};

// Slice without steps (or with steps all 1) and DynamicSliceReference are the same function: they must
// agree on accepting, and on every byte of the result. A quarter of the cases are also checked against
// NaiveSlice.
TEST(RandomSliceTest, SliceAndDynamicSliceReferenceAgree) {
  RandomCases random(20190301);
  int accepted = 0;
  int rejected = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const DataType type = random.Pick(kAllTypes);
    const DataType index_type = random.Chance(50) ? TensorProto::INT32 : TensorProto::INT64;
    const std::vector<int64_t> dims = random.Dims();
    const Tensor data = MakeData(type, dims);
    const SliceArgs args = random.Args(dims, index_type, /*allow_invalid=*/true);
    SliceArgs slice_args = args;
    if (random.Chance(50)) slice_args.steps = std::vector<int64_t>(args.starts.size(), 1);

    const auto reference = RunKernel(Kernel::kDynamicSliceReference, data, index_type, args);
    const auto slice = RunKernel(Kernel::kSlice, data, index_type, slice_args);
    const std::string what = absl::StrCat("trial ", trial, ": ", DataTypeName(type), " data ", Bracketed(dims), ", ",
                                          Describe(slice_args, index_type));
    ASSERT_EQ(reference.ok(), slice.ok())
        << what << "\nreference: " << reference.status() << "\nslice: " << slice.status();
    if (dims.empty()) {
      ASSERT_FALSE(slice.ok()) << what << ": scalar data must be rejected";
    }
    if (!slice.ok()) {
      ASSERT_EQ(slice.status().code(), absl::StatusCode::kInvalidArgument) << what << slice.status();
      ASSERT_EQ(reference.status().code(), absl::StatusCode::kInvalidArgument) << what << reference.status();
      ++rejected;
      continue;
    }
    ++accepted;
    ASSERT_TRUE(SameTensor(slice, *reference)) << what;
    if (trial % 4 == 0) ASSERT_TRUE(SameTensor(slice, NaiveSlice(data, args))) << what;
  }
  // The generator must exercise both outcomes substantially.
  EXPECT_GT(accepted, 15000);
  EXPECT_GT(rejected, 2000);
}

// Slice with random steps (negative, > 1, beyond the dim, extreme) against NaiveSlice.
TEST(RandomSliceTest, SliceWithStepsMatchesElementByElementSlicing) {
  RandomCases random(20190415);
  for (int trial = 0; trial < 10000; ++trial) {
    const DataType type = random.Pick(kAllTypes);
    const DataType index_type = random.Chance(50) ? TensorProto::INT32 : TensorProto::INT64;
    std::vector<int64_t> dims = random.Dims();
    if (dims.empty()) dims.push_back(random.Uniform(0, 5));
    const Tensor data = MakeData(type, dims);
    SliceArgs args = random.Args(dims, index_type, /*allow_invalid=*/false);
    args.steps.emplace();
    for (size_t i = 0; i < args.starts.size(); ++i) {
      int64_t step = random.Chance(90) ? random.Uniform(1, 3) * (random.Chance(50) ? 1 : -1)
                                       : random.Pick<int64_t>({kInt32Min, kInt32Max, kInt64Min, kInt64Max});
      if (index_type == TensorProto::INT32) step = std::clamp(step, kInt32Min, kInt32Max);
      args.steps->push_back(step);
    }
    const auto slice = RunKernel(Kernel::kSlice, data, index_type, args);
    ASSERT_TRUE(SameTensor(slice, NaiveSlice(data, args)))
        << "trial " << trial << ": " << DataTypeName(type) << " data " << Bracketed(dims) << ", "
        << Describe(args, index_type);
  }
}

}  // namespace
}  // namespace onnx_legalize
