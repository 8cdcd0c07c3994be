// The payloads that mark an error's kind (src/core/error_kind.h) survive the context added on the way up.
#include "core/error_kind.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "gtest/gtest.h"
#include "onnx_legalize/error_kind.h"

namespace onnx_legalize {
namespace {

TEST(WithMessageTest, KeepsTheCodeAndEveryPayload) {
  absl::Status failure = VerificationFailure("node 'n'", "DynamicSlice and Slice differ");
  failure.SetPayload("type.googleapis.com/test.Other", absl::Cord("kept too"));
  const absl::Status named = WithMessage(failure, std::string(failure.message()) + " (model 'm.onnx')");
  EXPECT_EQ(named.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(named.message(), "verification failed: DynamicSlice and Slice differ (model 'm.onnx')");
  EXPECT_EQ(ErrorKindOf(named), ErrorKind::kVerificationFailed);
  EXPECT_EQ(named.GetPayload("type.googleapis.com/test.Other"), absl::Cord("kept too"));
}

TEST(WithMessageTest, KeepsAnInvalidRequestsMark) {
  const absl::Status request = InvalidRequestError("target_opset", "target_opset 99 is past 17");
  const absl::Status prefixed = WithMessage(request, "Legalize: " + std::string(request.message()));
  EXPECT_EQ(ErrorKindOf(prefixed), ErrorKind::kInvalidRequest);
  EXPECT_EQ(prefixed.message(), "Legalize: target_opset 99 is past 17");
}

}  // namespace
}  // namespace onnx_legalize
