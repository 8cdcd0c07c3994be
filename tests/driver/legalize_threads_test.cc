// Legalize from several threads at once, as the Python module's callers do (it releases the GIL). Each
// call also checks its input with onnx on a second thread, and onnx's checker writes warnings to the
// console, which Legalize silences: the silencing must hold up with every call overlapping every other. And
// without threads (Options::use_threads), the same result.
#include <iostream>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize {
namespace {

using ::onnx_legalize::testing::ParseModel;
using ::onnx_legalize::testing::WithoutProofSeconds;

// DynamicSlice draws a warning from onnx's checker (an experimental op) on every call.
constexpr char kDynamicSliceModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[20, 10, 5] x, int64[1] starts, int64[1] ends) => (float[M, 10, 5] y) {
  y = DynamicSlice (x, starts, ends)
}
)ONNX";

TEST(LegalizeThreadsTest, ConcurrentCallsGiveTheSequentialResult) {
  std::streambuf* const console_out = std::cout.rdbuf();
  std::streambuf* const console_err = std::cerr.rdbuf();
  onnx::ModelProto expected = ParseModel(kDynamicSliceModel);
  ASSERT_TRUE(Legalize(expected, Options{}).ok());
  const std::string expected_bytes = expected.SerializeAsString();

  constexpr int kThreads = 8;
  constexpr int kRounds = 25;
  std::vector<std::string> results(kThreads * kRounds);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &results] {
      for (int round = 0; round < kRounds; ++round) {
        onnx::ModelProto model = ParseModel(kDynamicSliceModel);
        absl::StatusOr<Report> report = Legalize(model, Options{});
        results[t * kRounds + round] = report.ok() ? model.SerializeAsString() : report.status().ToString();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& result : results) EXPECT_EQ(result, expected_bytes);
  // The console is the caller's again.
  EXPECT_EQ(std::cout.rdbuf(), console_out);
  EXPECT_EQ(std::cerr.rdbuf(), console_err);
}

// Options::use_threads false runs every proof on the caller's thread: the same model, report and errors.
TEST(LegalizeThreadsTest, WithoutThreadsTheResultIsTheSame) {
  // A rewrite (dynamic indices), a fold (constant ones) and a removed op (ImageScaler), so that every proof
  // runs: verification, onnx's check of the input and of the result.
  constexpr char kModel[] = R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1, 3, 4, 4] x, int64[1] starts, int64[1] ends) => (float[1, 3, M, 4] y, float[2] z) {
  s = ImageScaler <scale = 2.0, bias = [1.0, 2.0, 3.0]> (x)
  y = DynamicSlice (s, starts, ends)
  w = Constant <value = float[4] {1.0, 2.0, 3.0, 4.0}> ()
  b = Constant <value = int64[1] {1}> ()
  e = Constant <value = int64[1] {3}> ()
  z = DynamicSlice (w, b, e)
}
)ONNX";
  onnx::ModelProto threaded = ParseModel(kModel);
  absl::StatusOr<Report> threaded_report = Legalize(threaded, Options{});
  ASSERT_TRUE(threaded_report.ok()) << threaded_report.status();
  Options alone;
  alone.use_threads = false;
  onnx::ModelProto unthreaded = ParseModel(kModel);
  absl::StatusOr<Report> unthreaded_report = Legalize(unthreaded, alone);
  ASSERT_TRUE(unthreaded_report.ok()) << unthreaded_report.status();
  EXPECT_EQ(unthreaded.SerializeAsString(), threaded.SerializeAsString());
  EXPECT_EQ(WithoutProofSeconds(ReportToJson(*unthreaded_report)), WithoutProofSeconds(ReportToJson(*threaded_report)));
  EXPECT_EQ(unthreaded_report->nodes.size(), 3u);

  // A refusal too: a target that cannot express the rewrite.
  alone.target_opset = 10;
  onnx::ModelProto bfloat = ParseModel(R"ONNX(
<ir_version: 4, opset_import: ["" : 9]>
g (bfloat16[4] x, int64[1] starts, int64[1] ends) => (bfloat16[M] y) {
  y = DynamicSlice (x, starts, ends)
}
)ONNX");
  const std::string before = bfloat.SerializeAsString();
  absl::StatusOr<Report> refused = Legalize(bfloat, alone);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_EQ(bfloat.SerializeAsString(), before);
}

}  // namespace
}  // namespace onnx_legalize
