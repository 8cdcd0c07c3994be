// ValidateOptions and ValidateSaveOptions: what a request may ask, checked once for every door (the library's
// entry points, the CLI, the Python module). Each error names the field as the struct spells it.
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/error_kind.h"
#include "onnx/common/version.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/save_options.h"

namespace onnx_legalize {

absl::Status ValidateOptions(const Options& options) {
  if (options.max_fold_bytes < 0) {
    return InvalidRequestError("max_fold_bytes",
                               absl::StrCat("max_fold_bytes is ", options.max_fold_bytes, "; it must be >= 0"));
  }
  if (options.max_total_fold_bytes < 0) {
    return InvalidRequestError("max_total_fold_bytes", absl::StrCat("max_total_fold_bytes is ",
                                                                    options.max_total_fold_bytes, "; it must be >= 0"));
  }
  if (options.target_opset.has_value() &&
      (*options.target_opset < kMinTargetOpset || *options.target_opset > kMaxTargetOpset)) {
    return InvalidRequestError(
        "target_opset",
        absl::StrCat("target_opset ", *options.target_opset, " is outside ", kMinTargetOpset, "..", kMaxTargetOpset,
                     " (the default-domain opsets onnx " ONNX_VERSION_STRING " knows)"));
  }
  if (options.target_opset.has_value() && options.keep_opset) {
    return InvalidRequestError("keep_opset", "keep_opset and target_opset contradict each other; give one");
  }
  if (options.proof_budget < 0) {
    return InvalidRequestError("proof_budget",
                               absl::StrCat("proof_budget is ", options.proof_budget, "; it must be >= 0"));
  }
  if (options.verify_trials < 1) {
    return InvalidRequestError("verify_trials",
                               absl::StrCat("verify_trials is ", options.verify_trials, "; it must be >= 1"));
  }
  return absl::OkStatus();
}

absl::Status ValidateSaveOptions(const SaveOptions& options, const std::string& output_path) {
  if (options.external_data_threshold < 0) {
    return InvalidRequestError(
        "external_data_threshold",
        absl::StrCat("external_data_threshold is ", options.external_data_threshold, "; it must be >= 0"));
  }
  const std::string& name = options.external_data_name;
  if (name.empty()) return absl::OkStatus();
  if (name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\0') != std::string::npos) {
    return InvalidRequestError(
        "external_data_name",
        absl::StrCat("external_data_name '", name, "' must be a plain file name (it is written beside the model)"));
  }
  if (name == std::filesystem::path(output_path).filename().string()) {
    return InvalidRequestError("external_data_name",
                               absl::StrCat("external_data_name '", name, "' is the model's own file name"));
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize
