// LegalizeFile: file -> ModelProto -> Legalize -> file, writing nothing unless every step succeeds.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "driver/legalize_internal.h"
#include "io/leftover_temporaries.h"
#include "io/model_io_internal.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {

// When the output does not exist yet it cannot be the input.
bool SameExistingFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

namespace {

// The report of legalizing `model` when that changes nothing (it holds no removed op, and onnx's checker accepts
// it): in place, such a model is left as it is rather than written again, so a file is rewritten only where it
// changes (a pre-commit hook or a build sees no change to the others). nullopt when legalizing changes it (then
// `model` is unspecified: the caller loads it again). Errors are Legalize's, named as LegalizeFile names them.
absl::StatusOr<std::optional<Report>> ReportIfNothingToLegalize(onnx::ModelProto& model, const Options& options) {
  absl::StatusOr<std::vector<CheckFinding>> findings = CheckModel(model);
  // A removed op that legalizing fixes always changes the model; malformed imports are Legalize's to report.
  if (findings.ok() &&
      std::any_of(findings->begin(), findings->end(), [](const CheckFinding& f) { return f.fixable; })) {
    return std::nullopt;
  }
  ASSIGN_OR_RETURN(Report report, Legalize(model, options));
  if (report.changed) return std::nullopt;
  return report;
}

absl::Status NamingTheFile(const absl::Status& status, const std::string& input_path) {
  // Appended: a message starts with what failed ("verification failed: ..."), and the file is where.
  return WithMessage(status, absl::StrCat(status.message(), " (model '", input_path, "')"));
}

// The attempts to legalize one file and save the result, one target after another (internal::TryLaterTargets).
// The output is written while the legalization is still being proven (a model of many rewrites spends about as
// long on each), and renamed into place only once the proofs hold. Failures are reported in the order the steps
// would run one after the other: the proofs' first.
class SavingAttempts {
 public:
  SavingAttempts(onnx::ModelProto loaded, std::string input_path, std::string output_path, SaveOptions save)
      : next_model_(std::move(loaded)),
        input_path_(std::move(input_path)),
        output_path_(std::move(output_path)),
        save_(std::move(save)) {}

  // Legalizes the model at `at` and saves it. The first attempt legalizes the model as loaded; a later one
  // reads the file again (a failed attempt may have left the model legalized).
  internal::Attempt LegalizeAndSave(const Options& at) {
    absl::StatusOr<onnx::ModelProto> model = TakeModel();
    RETURN_IF_ERROR(model.status());
    return internal::LegalizeAndUse(
        *model, at,
        [this](onnx::ModelProto& legalized, const DeferredTensors& streamed,
               const internal::AwaitProofs& await_proofs) { return Save(legalized, streamed, await_proofs); });
  }

  // Why saving failed once the proofs held, or OK: the caller's error as it is, whatever a later attempt gave
  // (no target avoids it, and it is not the model's to be named by its file).
  const absl::Status& save_failure() const { return save_failure_; }

 private:
  absl::StatusOr<onnx::ModelProto> TakeModel() {
    if (!next_model_.has_value()) return LoadModel(input_path_);
    onnx::ModelProto model = std::move(*next_model_);
    next_model_.reset();
    return model;
  }

  absl::Status Save(onnx::ModelProto& legalized, const DeferredTensors& streamed,
                    const internal::AwaitProofs& await_proofs) {
    absl::Status saved =
        internal::SaveModelIf(legalized, output_path_, save_, internal::kMaxProtoBytes, await_proofs, streamed);
    if (!saved.ok()) {
      RETURN_IF_ERROR(await_proofs());
      save_failure_ = saved;
    }
    return saved;
  }

  std::optional<onnx::ModelProto> next_model_;  // the model as loaded, until the first attempt takes it
  const std::string input_path_;
  const std::string output_path_;
  const SaveOptions save_;
  absl::Status save_failure_;
};

}  // namespace

absl::StatusOr<Report> LegalizeFile(const std::string& input_path, const std::string& output_path,
                                    const Options& options, const SaveOptions& save_options) {
  // The request first: a bad one is refused before any file is read.
  RETURN_IF_ERROR(ValidateOptions(options));
  RETURN_IF_ERROR(ValidateSaveOptions(save_options, output_path));
  // Writing over the input would lose the original if anything later went wrong in a way the atomic save
  // cannot see (a wrong legalization is still a complete file): only on explicit request.
  if (!save_options.in_place && SameExistingFile(input_path, output_path)) {
    return InvalidRequestError(
        "output_path",
        absl::StrCat("output '", output_path, "' is the input file '", input_path,
                     "'; refusing to overwrite the input (write to a different file, or ask for in-place)"));
  }
  // What a killed run left beside the output goes, whether or not this run writes it (in place, a model with
  // nothing to legalize is not written).
  RemoveLeftoverTemporaries(output_path);
  absl::StatusOr<onnx::ModelProto> loaded = LoadModel(input_path);
  RETURN_IF_ERROR(loaded.status());

  // External data is read only where a fold needs it, from the input's folder.
  std::unique_ptr<ExternalDataReader> reader;
  Options legalize_options = options;
  if (legalize_options.external_data == nullptr) {
    ASSIGN_OR_RETURN(reader, OpenExternalData(input_path));
    legalize_options.external_data = reader.get();
  }
  if (save_options.in_place) {
    absl::StatusOr<std::optional<Report>> unchanged = ReportIfNothingToLegalize(*loaded, legalize_options);
    if (!unchanged.ok()) return NamingTheFile(unchanged.status(), input_path);
    if (unchanged->has_value()) return **unchanged;
    loaded = LoadModel(input_path);
    RETURN_IF_ERROR(loaded.status());
  }
  SaveOptions save = save_options;
  if (save.external_data_folder.empty()) {
    const std::filesystem::path folder = std::filesystem::path(input_path).parent_path();
    save.external_data_folder = folder.empty() ? "." : folder.string();
  }
  SavingAttempts attempts(*std::move(loaded), input_path, output_path, save);
  absl::StatusOr<Report> report = internal::TryLaterTargets(
      legalize_options, [&attempts](const Options& at) { return attempts.LegalizeAndSave(at); });
  if (!attempts.save_failure().ok()) return attempts.save_failure();
  if (!report.ok()) return NamingTheFile(report.status(), input_path);
  return report;
}

}  // namespace onnx_legalize
