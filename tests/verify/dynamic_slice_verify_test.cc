// Verification executes both forms of every change; a replacement that computes something else is caught.
#include "verify/dynamic_slice_verify.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "eval/mt19937_64.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_models.h"
#include "verify/streamed_fold.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::ParseModel;
using ::testing::HasSubstr;
using ::testing::StartsWith;

absl::StatusOr<DynamicSlicePlan> PlanFor(const char* text, const Options& options = {}) {
  // A plan points into its model: keep every model alive for the whole test program.
  static std::deque<onnx::ModelProto> models;
  models.push_back(ParseModel(text));
  return PlanDynamicSlices(models.back(), options);
}

constexpr char kRewrite[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
rewrite (float[4,6] x) => (float[2,3] y) {
  s = Constant <value = int64[2] {1, 2}> ()
  e = Constant <value = int64[2] {3, 5}> ()
  a = Constant <value = int64[2] {0, -1}> ()
  y = DynamicSlice(x, s, e, a)
}
)";

constexpr char kFold[] = R"(
<ir_version: 4, opset_import: ["" : 9]>
fold (float[1] unused) => (float[1,3] y) {
  data = Constant <value = float[2,4] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  s = Constant <value = int64[2] {1, 0}> ()
  e = Constant <value = int64[2] {2, 3}> ()
  y = DynamicSlice(data, s, e)
}
)";

TEST(VerifyTest, AcceptsACorrectRewrite) {
  absl::StatusOr<DynamicSlicePlan> plan = PlanFor(kRewrite);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->changes.size(), 1u);
  plan->changes[0].slice_version = 10;
  ASSERT_TRUE(VerifyDynamicSliceChange(plan->changes[0], Options{}).ok());
  EXPECT_THAT(plan->changes[0].verification, HasSubstr("8 identical results"));
}

TEST(VerifyTest, CatchesWronglyNormalizedAxes) {
  absl::StatusOr<DynamicSlicePlan> plan = PlanFor(kRewrite);
  ASSERT_TRUE(plan.ok()) << plan.status();
  DynamicSliceChange& change = plan->changes[0];
  change.slice_version = 10;
  ASSERT_NE(change.new_axes, nullptr) << "axis -1 of a rank-2 tensor is normalized";
  change.new_axes = std::make_shared<const Tensor>(Tensor::FromInt64s({0, 0}));  // should be {0, 1}
  absl::Status status = VerifyDynamicSliceChange(change, Options{});
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), StartsWith("verification failed: DynamicSlice producing 'y'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("seed"));
  EXPECT_TRUE(IsVerificationFailure(status));
}

// Callers (the CLI's exit code 4, the Python module's VerificationError) tell a verification failure
// by its payload, not by its message: another Internal error that happens to read alike is not one.
TEST(VerifyTest, MarksOnlyVerificationFailuresAsSuch) {
  absl::StatusOr<DynamicSlicePlan> plan = PlanFor(kFold);
  ASSERT_TRUE(plan.ok()) << plan.status();
  DynamicSliceChange& change = plan->changes[0];
  Tensor wrong = change.folded->Clone();
  wrong.mutable_bytes()[0] ^= 1;
  change.folded = std::make_shared<Tensor>(std::move(wrong));
  const absl::Status failure = VerifyDynamicSliceChange(change, Options{});
  EXPECT_TRUE(IsVerificationFailure(failure));
  // A copy with context added, as LegalizeFile makes, keeps the mark only with the payloads.
  absl::Status renamed(failure.code(), absl::StrCat(failure.message(), " (model 'm.onnx')"));
  EXPECT_FALSE(IsVerificationFailure(renamed));
  failure.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) { renamed.SetPayload(url, payload); });
  EXPECT_TRUE(IsVerificationFailure(renamed));

  EXPECT_FALSE(IsVerificationFailure(absl::InternalError("verification failed: said, not marked")));
  EXPECT_FALSE(IsVerificationFailure(absl::OkStatus()));
  absl::Status other_code = absl::InvalidArgumentError("x");
  other_code.SetPayload(kVerificationFailurePayloadUrl, absl::Cord("y"));
  EXPECT_FALSE(IsVerificationFailure(other_code));
}

TEST(VerifyTest, CatchesWrongSlice1Attributes) {
  Options keep;
  keep.keep_opset = true;
  absl::StatusOr<DynamicSlicePlan> plan = PlanFor(kRewrite, keep);
  ASSERT_TRUE(plan.ok()) << plan.status();
  DynamicSliceChange& change = plan->changes[0];
  change.slice_version = 1;
  change.attribute_ends = {3, 6};  // should be {3, 5}
  absl::Status status = VerifyDynamicSliceChange(change, keep);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("DynamicSlice gives float[2,3], Slice gives float[2,4]"));
}

TEST(VerifyTest, AcceptsACorrectFold) {
  absl::StatusOr<DynamicSlicePlan> plan = PlanFor(kFold);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->changes[0].action, Action::kFolded);
  ASSERT_TRUE(VerifyDynamicSliceChange(plan->changes[0], Options{}).ok());
  EXPECT_THAT(plan->changes[0].verification, HasSubstr("identical"));
}

TEST(VerifyTest, CatchesAFoldWhoseValueIsWrong) {
  absl::StatusOr<DynamicSlicePlan> plan = PlanFor(kFold);
  ASSERT_TRUE(plan.ok()) << plan.status();
  DynamicSliceChange& change = plan->changes[0];
  Tensor wrong = change.folded->Clone();
  wrong.mutable_bytes()[0] ^= 1;  // one bit of the first float
  change.folded = std::make_shared<Tensor>(std::move(wrong));
  absl::Status status = VerifyDynamicSliceChange(change, Options{});
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), StartsWith("verification failed"));
}

// A fold of 12 MiB, recomputed in parts of kStreamedPartBytes and compared part by part: a wrong byte in the last
// part is caught as surely as one in the first.
absl::StatusOr<DynamicSlicePlan> PlanOfALargeFold() {
  static std::deque<onnx::ModelProto> models;
  models.push_back(ParseModel(R"(
<ir_version: 4, opset_import: ["" : 9]>
fold (float[1] unused) => (float[3,1048576] y) {
  data = Constant <value = float[1] {0}> ()
  s = Constant <value = int64[1] {0}> ()
  e = Constant <value = int64[1] {3}> ()
  y = DynamicSlice(data, s, e)
}
)"));
  onnx::TensorProto& data = *models.back().mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t();
  constexpr int64_t kColumns = int64_t{1} << 20;
  data.clear_float_data();
  data.clear_dims();
  data.add_dims(3);
  data.add_dims(kColumns);
  std::vector<float> values(3 * kColumns);
  std::iota(values.begin(), values.end(), 0.0f);
  data.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return PlanDynamicSlices(models.back(), Options{});
}

TEST(VerifyTest, ComparesALargeFoldPartByPart) {
  absl::StatusOr<DynamicSlicePlan> plan = PlanOfALargeFold();
  ASSERT_TRUE(plan.ok()) << plan.status();
  DynamicSliceChange& change = plan->changes[0];
  ASSERT_EQ(change.action, Action::kFolded);
  ASSERT_GT(static_cast<int64_t>(change.folded->bytes().size()), 2 * kStreamedPartBytes);
  ASSERT_TRUE(VerifyDynamicSliceChange(change, Options{}).ok());
  EXPECT_THAT(change.verification, HasSubstr("float[3,1048576], identical"));

  Tensor wrong = change.folded->Clone();
  wrong.mutable_bytes().back() ^= 1;  // the last float's top bit: in the last part
  change.folded = std::make_shared<Tensor>(std::move(wrong));
  const absl::Status status = VerifyDynamicSliceChange(change, Options{});
  EXPECT_TRUE(IsVerificationFailure(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("with different bytes"));
}

TEST(VerifyTest, TrialsAreTheSameForTheSameSeed) {
  absl::StatusOr<DynamicSlicePlan> first = PlanFor(kRewrite);
  absl::StatusOr<DynamicSlicePlan> second = PlanFor(kRewrite);
  ASSERT_TRUE(first.ok() && second.ok());
  first->changes[0].slice_version = second->changes[0].slice_version = 10;
  // A wrong replacement fails on the same trial both times, and names it identically.
  for (DynamicSlicePlan* plan : {&*first, &*second}) {
    plan->changes[0].new_axes = std::make_shared<const Tensor>(Tensor::FromInt64s({1, 0}));
  }
  absl::Status a = VerifyDynamicSliceChange(first->changes[0], Options{});
  absl::Status b = VerifyDynamicSliceChange(second->changes[0], Options{});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.message(), b.message());
}

// Trials are drawn from Mt19937_64, which must give std::mt19937_64's numbers (the same seed, the same
// trials as ever), and shuffle as it does.
TEST(VerifyTest, TrialEngineGivesStdMt19937_64sNumbers) {
  for (uint64_t seed :
       {uint64_t{0}, uint64_t{0x5eed}, uint64_t{0x5eed} ^ std::hash<std::string>()("main/y"), ~uint64_t{0}}) {
    std::mt19937_64 expected(seed);
    Mt19937_64 actual(seed);
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(actual(), expected()) << "seed " << seed << ", number " << i;
    std::vector<int> a(100), b(100);
    std::iota(a.begin(), a.end(), 0);
    std::iota(b.begin(), b.end(), 0);
    std::shuffle(a.begin(), a.end(), expected);
    std::shuffle(b.begin(), b.end(), actual);
    EXPECT_EQ(a, b);
    EXPECT_EQ(actual(), expected());
  }
}

}  // namespace
}  // namespace onnx_legalize
