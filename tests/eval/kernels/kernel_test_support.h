// What the kernel tests share: tensors from values (test_tensors.h, and float16 here), one-input feeds, and assertions
// on a run's outputs and errors. The tests run one- or few-node models written in ONNX text through RunModel, the
// runner's public entry point, so that they check what a proof executes.
#ifndef ONNX_LEGALIZE_TESTS_EVAL_KERNELS_KERNEL_TEST_SUPPORT_H_
#define ONNX_LEGALIZE_TESTS_EVAL_KERNELS_KERNEL_TEST_SUPPORT_H_

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor.h"
#include "eval/model_runner.h"
#include "gtest/gtest.h"
#include "test_tensors.h"

namespace onnx_legalize::testing {

using Feeds = std::map<std::string, Tensor>;
using Results = absl::StatusOr<std::map<std::string, Tensor>>;

// Float16 from the float nearest each value (exact for the small values the tests use).
Tensor Halves(std::vector<int64_t> dims, const std::vector<float>& values);

// Feeds built from (name, tensor) pairs.
inline Feeds Feed(const std::string& name, Tensor tensor) {
  Feeds feeds;
  feeds.emplace(name, std::move(tensor));
  return feeds;
}
inline Feeds Feed(const std::string& a, Tensor ta, const std::string& b, Tensor tb) {
  Feeds feeds = Feed(a, std::move(ta));
  feeds.emplace(b, std::move(tb));
  return feeds;
}
inline Feeds Feed(const std::string& a, Tensor ta, const std::string& b, Tensor tb, const std::string& c, Tensor tc) {
  Feeds feeds = Feed(a, std::move(ta), b, std::move(tb));
  feeds.emplace(c, std::move(tc));
  return feeds;
}

// The run succeeded and its output `name` equals `want` bit for bit (type and dims included).
::testing::AssertionResult OutputIs(const Results& result, const std::string& name, const Tensor& want);
// The run succeeded and its float output `name` has `want`'s dims and values within `tolerance` each.
::testing::AssertionResult OutputNear(const Results& result, const std::string& name, const Tensor& want,
                                      float tolerance);
// The run failed with `code` and a message holding every one of `substrings`.
::testing::AssertionResult FailsWith(const Results& result, absl::StatusCode code,
                                     const std::vector<std::string>& substrings);

}  // namespace onnx_legalize::testing

#endif  // ONNX_LEGALIZE_TESTS_EVAL_KERNELS_KERNEL_TEST_SUPPORT_H_
