// A fold written part by part: its parts, in order, are the fold; a fold the kernels do not agree on fails
// as a verification failure naming the node, and so does one planned with other dims than DynamicSlice gives.
#include "verify/streamed_fold.h"

#include <string>
#include <vector>

#include "core/error_kind.h"
#include "core/tensor.h"
#include "eval/slice_kernels.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::Iota;
using ::testing::HasSubstr;

// A fold of rows 1..2999 of a [3000, 1024] float weight: 11.7 MiB, three parts of kStreamedPartBytes.
struct Fold {
  Tensor data = Iota({3000, 1024});
  Tensor starts = Tensor::FromInt64s({1});
  Tensor ends = Tensor::FromInt64s({-1});
  DynamicSliceChange change;

  Fold() {
    change.graph_path = "main";
    change.node_name = "crop";
    change.output = "cropped";
    change.action = Action::kFolded;
    change.data_constant = &data;
    change.starts.constant = &starts;
    change.ends.constant = &ends;
  }
};

// Everything `fold` writes, and how many parts it took.
absl::Status WriteAll(const StreamedFold& fold, std::string& bytes, int& parts) {
  return fold.WriteTo([&](absl::string_view part) {
    EXPECT_LE(static_cast<int64_t>(part.size()), kStreamedPartBytes);
    bytes.append(part.data(), part.size());
    ++parts;
    return absl::OkStatus();
  });
}

TEST(StreamedFoldTest, WritesTheFoldInPartsOfBoundedSize) {
  const Fold fold;
  for (const bool verify : {true, false}) {
    const StreamedFold streamed(fold.change, {2998, 1024}, verify);
    EXPECT_EQ(streamed.type(), onnx::TensorProto::FLOAT);
    EXPECT_EQ(streamed.ByteSize(), int64_t{2998} * 1024 * 4);
    std::string bytes;
    int parts = 0;
    ASSERT_TRUE(WriteAll(streamed, bytes, parts).ok());
    EXPECT_EQ(parts, 3);
    const Tensor whole = *DynamicSliceReference(fold.data, fold.starts, fold.ends, nullptr);
    EXPECT_TRUE(bytes == whole.bytes());
  }
}

TEST(StreamedFoldTest, RefusesAFoldPlannedWithOtherDimsThanDynamicSliceGives) {
  const Fold fold;
  const StreamedFold streamed(fold.change, {2999, 1024}, true);
  std::string bytes;
  int parts = 0;
  const absl::Status status = WriteAll(streamed, bytes, parts);
  EXPECT_TRUE(IsVerificationFailure(status)) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("DynamicSlice 'crop' (graph main): its fold was planned as float[2999,1024] but DynamicSlice "
                        "gives [2998,1024]"));
  EXPECT_EQ(parts, 0);
}

TEST(StreamedFoldTest, StopsAtTheSinksError) {
  const Fold fold;
  const StreamedFold streamed(fold.change, {2998, 1024}, true);
  int parts = 0;
  const absl::Status status = streamed.WriteTo(
      [&](absl::string_view) { return ++parts == 2 ? absl::DataLossError("disk full") : absl::OkStatus(); });
  EXPECT_EQ(status, absl::DataLossError("disk full"));
  EXPECT_EQ(parts, 2);
}

}  // namespace
}  // namespace onnx_legalize
