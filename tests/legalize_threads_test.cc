// Legalize from several threads at once, as the Python module's callers do (it releases the GIL). Each
// call also checks its input with onnx on a second thread, and onnx's checker writes warnings to the
// console, which Legalize silences: the silencing must hold up with every call overlapping every other.
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

}  // namespace
}  // namespace onnx_legalize
