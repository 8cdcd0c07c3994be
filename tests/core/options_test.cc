// ValidateOptions and ValidateSaveOptions: what a request may ask, and the kind of error (ErrorKindOf) a bad
// one is, with the field it names.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {
namespace {

using ::testing::HasSubstr;

// Expects `status` to be an invalid request about `field` whose message says `what`.
void ExpectInvalidRequest(const absl::Status& status, const std::string& field, const std::string& what) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(ErrorKindOf(status), ErrorKind::kInvalidRequest) << status;
  EXPECT_EQ(InvalidRequestField(status), field) << status;
  EXPECT_THAT(status.message(), HasSubstr(what));
}

TEST(ValidateOptionsTest, AcceptsTheDefaults) { EXPECT_TRUE(ValidateOptions(Options{}).ok()); }

TEST(ValidateOptionsTest, AcceptsEveryTargetInTheRange) {
  for (int64_t opset = kMinTargetOpset; opset <= kMaxTargetOpset; ++opset) {
    Options options;
    options.target_opset = opset;
    EXPECT_TRUE(ValidateOptions(options).ok()) << opset;
  }
}

TEST(ValidateOptionsTest, RejectsATargetOutsideTheRange) {
  Options options;
  options.target_opset = kMinTargetOpset - 1;
  ExpectInvalidRequest(ValidateOptions(options), "target_opset", "target_opset 0 is outside 1..28");
  options.target_opset = kMaxTargetOpset + 1;
  ExpectInvalidRequest(ValidateOptions(options), "target_opset", "target_opset 29 is outside 1..28");
}

TEST(ValidateOptionsTest, RejectsKeepOpsetWithATarget) {
  Options options;
  options.keep_opset = true;
  options.target_opset = 11;
  ExpectInvalidRequest(ValidateOptions(options), "keep_opset", "contradict");
}

TEST(ValidateOptionsTest, RejectsNegativeFoldLimits) {
  Options options;
  options.max_fold_bytes = -1;
  ExpectInvalidRequest(ValidateOptions(options), "max_fold_bytes", "max_fold_bytes is -1; it must be >= 0");
  options = Options{};
  options.max_total_fold_bytes = -5;
  ExpectInvalidRequest(ValidateOptions(options), "max_total_fold_bytes", "max_total_fold_bytes is -5");
}

TEST(ValidateOptionsTest, AcceptsZeroFoldLimits) {
  Options options;
  options.max_fold_bytes = 0;
  options.max_total_fold_bytes = 0;
  EXPECT_TRUE(ValidateOptions(options).ok());
}

TEST(ValidateOptionsTest, RejectsANegativeProofBudgetAndAcceptsZero) {
  Options options;
  options.proof_budget = -1;
  ExpectInvalidRequest(ValidateOptions(options), "proof_budget", "proof_budget is -1; it must be >= 0");
  options.proof_budget = 0;  // executes nothing, which is the caller's to ask
  EXPECT_TRUE(ValidateOptions(options).ok());
}

TEST(ValidateOptionsTest, RejectsFewerThanOneTrial) {
  Options options;
  options.verify_trials = 0;
  ExpectInvalidRequest(ValidateOptions(options), "verify_trials", "verify_trials is 0; it must be >= 1");
}

TEST(ValidateOptionsTest, LegalizeRefusesWhatItRejectsAndLeavesTheModelAlone) {
  onnx::ModelProto model;
  model.add_opset_import()->set_version(9);
  const std::string before = model.SerializeAsString();
  Options options;
  options.max_fold_bytes = -1;
  const absl::StatusOr<Report> report = Legalize(model, options);
  ExpectInvalidRequest(report.status(), "max_fold_bytes", "max_fold_bytes is -1");
  EXPECT_EQ(model.SerializeAsString(), before);
}

TEST(ValidateSaveOptionsTest, AcceptsTheDefaultsAndAPlainDataFileName) {
  EXPECT_TRUE(ValidateSaveOptions(SaveOptions{}, "out/model.onnx").ok());
  SaveOptions options;
  options.external_data_name = "weights.bin";
  EXPECT_TRUE(ValidateSaveOptions(options, "out/model.onnx").ok());
}

TEST(ValidateSaveOptionsTest, RejectsANegativeThreshold) {
  SaveOptions options;
  options.external_data_threshold = -1;
  ExpectInvalidRequest(ValidateSaveOptions(options, "model.onnx"), "external_data_threshold",
                       "external_data_threshold is -1; it must be >= 0");
}

TEST(ValidateSaveOptionsTest, RejectsADataFileNameThatIsNotAPlainFileName) {
  for (const char* name : {"sub/w.bin", "../w.bin", ".", ".."}) {
    SaveOptions options;
    options.external_data_name = name;
    ExpectInvalidRequest(ValidateSaveOptions(options, "model.onnx"), "external_data_name", "must be a plain file name");
  }
}

TEST(ValidateSaveOptionsTest, RejectsTheModelsOwnFileNameAsDataFile) {
  SaveOptions options;
  options.external_data_name = "model.onnx";
  ExpectInvalidRequest(ValidateSaveOptions(options, "out/model.onnx"), "external_data_name",
                       "'model.onnx' is the model's own file name");
}

TEST(ErrorKindTest, FollowsTheStatusCodeWhereNoMarkSaysOtherwise) {
  EXPECT_EQ(ErrorKindOf(absl::OkStatus()), ErrorKind::kOk);
  EXPECT_EQ(ErrorKindOf(absl::InvalidArgumentError("x")), ErrorKind::kInvalidModel);
  EXPECT_EQ(ErrorKindOf(absl::FailedPreconditionError("x")), ErrorKind::kNotLegalizable);
  EXPECT_EQ(ErrorKindOf(absl::UnimplementedError("x")), ErrorKind::kNotLegalizable);
  EXPECT_EQ(ErrorKindOf(absl::ResourceExhaustedError("x")), ErrorKind::kResourceLimit);
  EXPECT_EQ(ErrorKindOf(absl::NotFoundError("x")), ErrorKind::kFileSystem);
  EXPECT_EQ(ErrorKindOf(absl::PermissionDeniedError("x")), ErrorKind::kFileSystem);
  EXPECT_EQ(ErrorKindOf(absl::InternalError("x")), ErrorKind::kInternal);
  // An Internal error is not a verification failure unless marked so, whatever its message says.
  EXPECT_EQ(ErrorKindOf(absl::InternalError("verification failed: looks like one")), ErrorKind::kInternal);
  EXPECT_FALSE(IsVerificationFailure(absl::InternalError("verification failed: looks like one")));
}

TEST(ErrorKindTest, OnlyTheMarkOnItsOwnCodeMakesAnInvalidRequest) {
  EXPECT_EQ(InvalidRequestField(absl::InvalidArgumentError("max_fold_bytes is -1")), "");
  Options options;
  options.max_fold_bytes = -1;
  absl::Status marked = ValidateOptions(options);
  // Context added as LegalizeFile adds it keeps the kind with the payloads.
  absl::Status named(marked.code(), std::string(marked.message()) + " (model 'm.onnx')");
  EXPECT_EQ(ErrorKindOf(named), ErrorKind::kInvalidModel);
  marked.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) { named.SetPayload(url, payload); });
  EXPECT_EQ(ErrorKindOf(named), ErrorKind::kInvalidRequest);
  // The mark on another code is not ours.
  absl::Status recoded(absl::StatusCode::kInternal, marked.message());
  marked.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) { recoded.SetPayload(url, payload); });
  EXPECT_EQ(ErrorKindOf(recoded), ErrorKind::kInternal);
}

TEST(ErrorKindTest, NamesEveryKind) {
  EXPECT_STREQ(ErrorKindName(ErrorKind::kOk), "ok");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kInvalidRequest), "invalid_request");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kInvalidModel), "invalid_model");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kNotLegalizable), "not_legalizable");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kVerificationFailed), "verification_failed");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kResourceLimit), "resource_limit");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kFileSystem), "file_system");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kInternal), "internal");
}

}  // namespace
}  // namespace onnx_legalize
