// How kernels read and write elements (src/eval/kernels/numeric.h): ElementsAs reads a tensor where it is stored
// when its type is the computing type and widens float16 into a copy; OutputAs writes a tensor in place and rounds
// float16 computed in float once, when it is finished.
#include "eval/kernels/numeric.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "kernel_test_support.h"

namespace onnx_legalize {
namespace {

using ::onnx::TensorProto;
using testing::Doubles;
using testing::Floats;
using testing::Halves;
using testing::Int64s;

TEST(ElementsAsTest, ReadsATensorOfItsComputingTypeWhereItIsStored) {
  const Tensor tensor = Floats({3}, {1.5f, -2, 0});
  const ElementsAs<float> values(tensor);
  EXPECT_EQ(static_cast<const void*>(values.data()), static_cast<const void*>(tensor.bytes().data()));
  EXPECT_EQ(std::vector<float>(values.begin(), values.end()), (std::vector<float>{1.5f, -2, 0}));
}

TEST(ElementsAsTest, WidensFloat16IntoACopy) {
  const Tensor tensor = Halves({2}, {0.5f, -3});
  const ElementsAs<float> values(tensor);
  EXPECT_NE(static_cast<const void*>(values.data()), static_cast<const void*>(tensor.bytes().data()));
  EXPECT_EQ(std::vector<float>(values.begin(), values.end()), (std::vector<float>{0.5f, -3}));
}

TEST(ElementsAsTest, CopiesBytesThatAreNotAlignedForTheType) {
  // A view one byte into a buffer: reading a double there in place would be misaligned.
  const Tensor source = Doubles({2}, {2.25, -1});
  std::string shifted = " " + std::string(source.bytes());
  absl::StatusOr<Tensor> view = Tensor::ViewOfBytes(TensorProto::DOUBLE, {2}, std::string_view(shifted).substr(1));
  ASSERT_TRUE(view.ok()) << view.status();
  const ElementsAs<double> values(*view);
  EXPECT_EQ(std::vector<double>(values.begin(), values.end()), (std::vector<double>{2.25, -1}));
}

TEST(ElementsAsTest, ReadsAnEmptyTensor) {
  const ElementsAs<int64_t> values(Int64s({0}, {}));
  EXPECT_TRUE(values.empty());
  EXPECT_EQ(values.begin(), values.end());
}

TEST(OutputAsTest, WritesTheTensorInPlace) {
  absl::StatusOr<OutputAs<int64_t>> out = OutputAs<int64_t>::Make(TensorProto::INT64, {2});
  ASSERT_TRUE(out.ok()) << out.status();
  (*out)[0] = -4;
  (*out)[1] = 9;
  EXPECT_TRUE(std::move(*out).Finish().BitwiseEquals(Int64s({2}, {-4, 9})));
}

TEST(OutputAsTest, RoundsFloat16ComputedInFloatOnceToNearestEven) {
  absl::StatusOr<OutputAs<float>> out = OutputAs<float>::Make(TensorProto::FLOAT16, {3});
  ASSERT_TRUE(out.ok()) << out.status();
  // 1 + 2^-11 lies halfway between float16's 1 and 1 + 2^-10: it rounds to the even one, 1.
  (*out)[0] = 1.0f + 1.0f / 2048;
  (*out)[1] = 0.25f;
  (*out)[2] = -65504.0f;
  EXPECT_TRUE(std::move(*out).Finish().BitwiseEquals(Halves({3}, {1.0f, 0.25f, -65504.0f})));
}

TEST(OutputAsTest, RefusesDimsATensorCannotHave) {
  EXPECT_EQ(OutputAs<float>::Make(TensorProto::FLOAT, {-1}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace onnx_legalize
