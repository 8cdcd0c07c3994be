// A tree of models: the files below the paths given, their outputs, and each legalized through LegalizeFile
// with a manifest that lets a rerun skip what an earlier run already wrote.
#include "onnx_legalize/legalize_tree.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "io/external_folder.h"
#include "io/leftover_temporaries.h"
#include "io/posix_file.h"
#include "io/staging.h"
#include "onnx_legalize/check_report.h"
#include "onnx_legalize/legalize.h"
#include "report/text_escape.h"

namespace onnx_legalize {
namespace {

namespace fs = std::filesystem;

constexpr char kModelSuffix[] = ".onnx";
// The manifest's folder below the destination, and the suffix of its entries.
constexpr char kManifestFolder[] = ".onnx-legalize";
constexpr char kManifestSuffix[] = ".done";
constexpr char kManifestMagic[] = "onnx-legalize-manifest 1";

// ---------------------------------------------------------------------------------------------------
// Finding the model files

absl::Status ListingError(const fs::path& folder, const std::error_code& error) {
  return absl::Status(absl::ErrnoToStatusCode(error.value()),
                      absl::StrCat("cannot list folder '", folder.string(), "': ", error.message()));
}

// Appends the *.onnx files below `folder` to `found`; folders that cannot be listed become errors.
void Walk(const fs::path& folder, const fs::path& root, const fs::path& canonical_root,
          std::vector<FoundModel>& found) {
  std::error_code error;
  fs::directory_iterator it(folder, error);
  if (error) {
    found.push_back({folder.string(), folder.lexically_relative(root).string(), ListingError(folder, error)});
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    std::error_code status_error;
    const fs::file_status link_status = it->symlink_status(status_error);
    if (status_error) continue;  // vanished since it was listed
    const bool named_as_model = absl::EndsWith(path.filename().string(), kModelSuffix);
    if (fs::is_symlink(link_status)) {
      if (!named_as_model) continue;  // links to folders are never followed
      std::error_code target_error;
      const fs::path target = fs::canonical(path, target_error);
      if (target_error || PlaceOf(target, canonical_root) == PlaceInFolder::kOutside ||
          !fs::is_regular_file(target, target_error)) {
        continue;  // dangling, or leading out of the tree
      }
      found.push_back({path.string(), path.lexically_relative(root).string(), absl::OkStatus()});
    } else if (fs::is_directory(link_status)) {
      Walk(path, root, canonical_root, found);
    } else if (fs::is_regular_file(link_status) && named_as_model) {
      found.push_back({path.string(), path.lexically_relative(root).string(), absl::OkStatus()});
    }
  }
  if (error) found.push_back({folder.string(), folder.lexically_relative(root).string(), ListingError(folder, error)});
}

// ---------------------------------------------------------------------------------------------------
// The manifest: what each output was written from

// FNV-1a, 64 bits, of the file's bytes: stable across runs, machines and builds (unlike absl::Hash).
absl::StatusOr<uint64_t> HashFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  uint64_t hash = 0xcbf29ce484222325ULL;
  std::vector<char> buffer(size_t{1} << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    for (std::streamsize i = 0; i < got; ++i) {
      hash = (hash ^ static_cast<unsigned char>(buffer[static_cast<size_t>(i)])) * 0x100000001b3ULL;
    }
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read '", path, "'"));
  return hash;
}

// Every option that changes the output or its report (the proofs' settings among them: a rerun with a raised
// proof budget proves what the earlier run could not), and the library's version: one line.
std::string OptionsKey(const Options& options, const SaveOptions& save_options) {
  return absl::StrCat("version=", ONNX_LEGALIZE_VERSION,
                      " target_opset=", options.target_opset.has_value() ? absl::StrCat(*options.target_opset) : "-",
                      " keep_opset=", options.keep_opset ? 1 : 0, " verify=", options.verify ? 1 : 0,
                      " max_fold_bytes=", options.max_fold_bytes,
                      " max_total_fold_bytes=", options.max_total_fold_bytes, " verify_trials=", options.verify_trials,
                      " verify_seed=", options.verify_seed, " proof_budget=", options.proof_budget,
                      " external_data_threshold=", save_options.external_data_threshold,
                      " external_data_name=", absl::CHexEscape(save_options.external_data_name));
}

// The output file as the manifest identifies it: size and modification time, so a file replaced or touched
// since is legalized again.
std::string OutputStamp(const std::string& path) {
  std::error_code error;
  const uintmax_t size = fs::file_size(path, error);
  if (error) return "";
  const fs::file_time_type time = fs::last_write_time(path, error);
  if (error) return "";
  return absl::StrCat(size, " ", time.time_since_epoch().count());
}

struct ManifestEntry {
  std::string input;    // "<hash> <size>"
  std::string options;  // OptionsKey
  std::string output;   // OutputStamp
  int64_t folded = 0;
  int64_t rewritten = 0;
  bool opset_moved = false;
  std::string report_json;
};

fs::path ManifestPath(const std::string& dest_dir, const std::string& relative) {
  return fs::path(dest_dir) / kManifestFolder / absl::StrCat(relative, kManifestSuffix);
}

std::string FormatManifest(const ManifestEntry& entry) {
  return absl::StrCat(kManifestMagic, "\ninput ", entry.input, "\noptions ", entry.options, "\noutput ", entry.output,
                      "\nfolded ", entry.folded, "\nrewritten ", entry.rewritten, "\nopset_moved ",
                      entry.opset_moved ? 1 : 0, "\nreport ", entry.report_json, "\n");
}

// The entry at `path`, or nullopt when there is none or it is not one this version wrote.
std::optional<ManifestEntry> ReadManifest(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string line;
  if (!std::getline(in, line) || line != kManifestMagic) return std::nullopt;
  std::map<std::string, std::string> fields;
  while (std::getline(in, line)) {
    const std::pair<std::string, std::string> field = absl::StrSplit(line, absl::MaxSplits(' ', 1));
    fields[field.first] = field.second;
  }
  ManifestEntry entry;
  entry.input = fields["input"];
  entry.options = fields["options"];
  entry.output = fields["output"];
  entry.report_json = fields["report"];
  int64_t opset_moved = 0;
  if (!absl::SimpleAtoi(fields["folded"], &entry.folded) || !absl::SimpleAtoi(fields["rewritten"], &entry.rewritten) ||
      !absl::SimpleAtoi(fields["opset_moved"], &opset_moved) || entry.report_json.empty()) {
    return std::nullopt;
  }
  entry.opset_moved = opset_moved != 0;
  return entry;
}

// Writes `bytes` to `path` atomically: a temporary beside it (named as Staging names them, so that a rerun
// removes one a killed run left), fsync'ed and renamed over it.
absl::Status WriteFileAtomically(const fs::path& path, const std::string& bytes) {
  Staging staging;
  RETURN_IF_ERROR(staging.MakeFolders(path.parent_path()));
  ASSIGN_OR_RETURN(const int fd, staging.Create(path));
  FdCloser closer(fd);
  for (size_t written = 0; written < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus(errno, absl::StrCat("cannot write '", path.string(), "'"));
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || closer.Close() != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot write '", path.string(), "'"));
  }
  return staging.Commit();
}

absl::Status CopyFileAtomically(const std::string& input, const std::string& output) {
  const int in = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return ErrnoStatus(errno, absl::StrCat("cannot copy '", input, "' to '", output, "'"));
  FdCloser in_closer(in);
  Staging staging;
  ASSIGN_OR_RETURN(const int fd, staging.Create(output));
  FdCloser closer(fd);
  std::vector<char> buffer(size_t{1} << 20);
  for (;;) {
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, absl::StrCat("cannot copy '", input, "' to '", output, "' (reading it)"));
    if (n == 0) break;
    for (ssize_t written = 0; written < n;) {
      const ssize_t w = ::write(fd, buffer.data() + written, static_cast<size_t>(n - written));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return ErrnoStatus(errno, absl::StrCat("cannot copy '", input, "' to '", output, "'"));
      written += w;
    }
  }
  if (::fsync(fd) != 0 || closer.Close() != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot copy '", input, "' to '", output, "'"));
  }
  return staging.Commit();
}

// ---------------------------------------------------------------------------------------------------
// One file

// ReportToJson's document on one line: whitespace outside strings dropped (strings hold no raw newlines).
std::string CompactJson(absl::string_view json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  bool escaped = false;
  for (char c : json) {
    if (in_string) {
      out.push_back(c);
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out.push_back(c);
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
      out.push_back(c);
    }
  }
  return out;
}

void Summarize(const Report& report, TreeFileResult& result) {
  result.report_json = CompactJson(ReportToJson(report));
  result.folded = 0;
  result.rewritten = 0;
  for (const NodeReport& node : report.nodes) {
    (node.action == Action::kFolded ? result.folded : result.rewritten) += 1;
  }
  result.opset_moved = report.opset_after != report.opset_before;
}

TreeFileResult Failed(TreeFileResult result, absl::Status status) {
  result.outcome = TreeOutcome::kFailed;
  result.status = std::move(status);
  return result;
}

TreeFileResult LegalizeInPlace(TreeFileResult result, const Options& options, const SaveOptions& save_options) {
  // LegalizeFile in place never writes a model with nothing to legalize.
  SaveOptions in_place = save_options;
  in_place.in_place = true;
  absl::StatusOr<Report> report = LegalizeFile(result.input, result.output, options, in_place);
  if (!report.ok()) return Failed(std::move(result), report.status());
  Summarize(*report, result);
  result.outcome = report->changed ? TreeOutcome::kLegalized : TreeOutcome::kAlreadyLegal;
  return result;
}

// The manifest entry an output written now from `file` with these options gets (input and options), or
// nullopt when the input cannot be read (LegalizeFile then says so).
std::optional<ManifestEntry> EntryFor(const TreeFile& file, int64_t input_bytes, const Options& options,
                                      const SaveOptions& save_options) {
  absl::StatusOr<uint64_t> hash = HashFile(file.input);
  if (!hash.ok()) return std::nullopt;
  ManifestEntry entry;
  entry.input = absl::StrFormat("%016x %d", *hash, input_bytes);
  entry.options = OptionsKey(options, save_options);
  return entry;
}

// The earlier run's result, when the manifest says it wrote this output from these bytes with these options
// and the output is still the file it wrote.
bool UpToDate(const ManifestEntry& now, const fs::path& manifest, TreeFileResult& result) {
  std::optional<ManifestEntry> earlier = ReadManifest(manifest);
  if (!earlier.has_value() || earlier->input != now.input || earlier->options != now.options ||
      earlier->output.empty() || earlier->output != OutputStamp(result.output)) {
    return false;
  }
  result.outcome = TreeOutcome::kUpToDate;
  result.report_json = earlier->report_json;
  result.folded = earlier->folded;
  result.rewritten = earlier->rewritten;
  result.opset_moved = earlier->opset_moved;
  return true;
}

// LegalizeFile into the destination folder (created as needed); a model with nothing to legalize is then
// replaced by a byte copy of the input.
TreeFileResult LegalizeInto(TreeFileResult result, const Options& options, const SaveOptions& save_options) {
  std::error_code error;
  const fs::path folder = fs::path(result.output).parent_path();
  if (!folder.empty()) {
    fs::create_directories(folder, error);
    if (error) {
      absl::Status failure(
          absl::ErrnoToStatusCode(error.value()),
          absl::StrCat("cannot create folder '", folder.string(), "' for '", result.input, "': ", error.message()));
      return Failed(std::move(result), std::move(failure));
    }
  }
  absl::StatusOr<Report> report = LegalizeFile(result.input, result.output, options, save_options);
  if (!report.ok()) return Failed(std::move(result), report.status());
  Summarize(*report, result);
  result.outcome = report->changed ? TreeOutcome::kLegalized : TreeOutcome::kAlreadyLegal;
  if (!report->changed) {
    // Left as it is: the input's own bytes, not their re-serialization.
    if (absl::Status copied = CopyFileAtomically(result.input, result.output); !copied.ok()) {
      return Failed(std::move(result), copied);
    }
  }
  return result;
}

}  // namespace

std::vector<FoundModel> FindModelFiles(const std::vector<std::string>& paths) {
  std::vector<FoundModel> models;
  for (const std::string& argument : paths) {
    std::error_code error;
    if (!fs::is_directory(argument, error)) {
      models.push_back({argument, fs::path(argument).filename().string(), absl::OkStatus()});
      continue;
    }
    const fs::path canonical_root = fs::canonical(argument, error);
    if (error) {
      models.push_back({argument, "", ListingError(argument, error)});
      continue;
    }
    std::vector<FoundModel> found;
    Walk(fs::path(argument), fs::path(argument), canonical_root, found);
    std::sort(found.begin(), found.end(), [](const FoundModel& a, const FoundModel& b) { return a.path < b.path; });
    models.insert(models.end(), found.begin(), found.end());
  }
  return models;
}

absl::StatusOr<std::vector<TreeFile>> PlanTree(const std::vector<std::string>& sources, const std::string& dest_dir) {
  if (sources.empty()) return InvalidRequestError("sources", "no model file or folder given");
  std::error_code error;
  if (!dest_dir.empty()) {
    if (fs::exists(dest_dir, error) && !fs::is_directory(dest_dir, error)) {
      return InvalidRequestError(
          "dest_dir", absl::StrCat("destination '", dest_dir, "' is a file; it must be a folder (or not exist)"));
    }
  }
  for (const std::string& source : sources) {
    if (!fs::exists(source, error)) {
      return InvalidRequestError("sources", absl::StrCat("'", source, "' does not exist"));
    }
    if (!dest_dir.empty() && fs::is_directory(source, error) &&
        PlaceOf(fs::weakly_canonical(dest_dir, error), fs::canonical(source, error)) != PlaceInFolder::kOutside) {
      return InvalidRequestError("dest_dir", absl::StrCat("destination '", dest_dir, "' is inside the source folder '",
                                                          source, "'; a rerun would legalize the outputs"));
    }
  }
  std::vector<TreeFile> plan;
  std::map<std::string, std::string> input_of_output;  // canonical output -> the input going there
  std::map<std::string, std::string> inputs;           // canonical input -> as given
  std::map<std::string, std::string> spelled;          // absolute, normalized input -> as given
  for (FoundModel& found : FindModelFiles(sources)) {
    TreeFile file;
    file.input = found.path;
    file.status = found.status;
    if (found.status.ok()) {
      // Given twice: the same path, however spelled (a symbolic link to another model of the tree is a file of
      // its own, and in place is replaced by its legalized model, not written through).
      const auto [earlier, inserted] =
          spelled.emplace(fs::absolute(found.path, error).lexically_normal().string(), found.path);
      inputs.emplace(fs::weakly_canonical(found.path, error).string(), found.path);
      if (!inserted) {
        return InvalidRequestError(
            "sources", absl::StrCat("'", found.path, "' is given twice (as '", earlier->second, "' before)"));
      }
      file.relative = dest_dir.empty() ? "" : found.relative;
      file.output = dest_dir.empty() ? found.path : (fs::path(dest_dir) / found.relative).string();
    }
    plan.push_back(std::move(file));
  }
  if (dest_dir.empty()) return plan;
  for (const TreeFile& file : plan) {
    if (!file.status.ok()) continue;
    const std::string output = fs::weakly_canonical(file.output, error).string();
    if (inputs.count(output)) {
      return InvalidRequestError("dest_dir", absl::StrCat("output '", file.output, "' of '", file.input,
                                                          "' is the input '", inputs[output], "'"));
    }
    const auto [it, inserted] = input_of_output.emplace(output, file.input);
    if (!inserted) {
      return InvalidRequestError("sources", absl::StrCat("'", it->second, "' and '", file.input,
                                                         "' would both be written to '", file.output, "'"));
    }
  }
  return plan;
}

const char* TreeOutcomeName(TreeOutcome outcome) {
  switch (outcome) {
    case TreeOutcome::kLegalized: return "legalized";
    case TreeOutcome::kAlreadyLegal: return "already_legal";
    case TreeOutcome::kUpToDate: return "up_to_date";
    case TreeOutcome::kFailed: return "failed";
  }
  return "failed";
}

TreeFileResult LegalizeTreeFile(const TreeFile& file, const std::string& dest_dir, const Options& options,
                                const SaveOptions& save_options) {
  TreeFileResult result;
  result.input = file.input;
  result.output = file.output;
  if (!file.status.ok()) return Failed(std::move(result), file.status);
  std::error_code error;
  const uintmax_t size = fs::file_size(file.input, error);
  result.input_bytes = error ? 0 : static_cast<int64_t>(size);
  if (dest_dir.empty()) return LegalizeInPlace(std::move(result), options, save_options);

  // The manifest first: an output written from these bytes with these options is kept as it is.
  std::optional<ManifestEntry> entry = EntryFor(file, result.input_bytes, options, save_options);
  const fs::path manifest = ManifestPath(dest_dir, file.relative);
  // What a killed run left beside an output goes, the output written again or not.
  RemoveLeftoverTemporaries(file.output);
  RemoveLeftoverTemporaries(manifest);
  if (entry.has_value() && UpToDate(*entry, manifest, result)) return result;
  result = LegalizeInto(std::move(result), options, save_options);
  if (result.outcome == TreeOutcome::kFailed || !entry.has_value()) return result;
  entry->output = OutputStamp(result.output);
  entry->folded = result.folded;
  entry->rewritten = result.rewritten;
  entry->opset_moved = result.opset_moved;
  entry->report_json = result.report_json;
  // A manifest that cannot be written costs a rerun this file's work, nothing more.
  (void)WriteFileAtomically(manifest, FormatManifest(*entry));
  return result;
}

std::string TreeFileResultToJson(const TreeFileResult& result) {
  std::string out = "{\"path\":";
  AppendJsonString(EscapeInvalidUtf8(result.input), out);
  out.append(",\"output\":");
  AppendJsonString(EscapeInvalidUtf8(result.output), out);
  out.append(",\"result\":");
  if (result.outcome != TreeOutcome::kFailed) {
    AppendJsonString(TreeOutcomeName(result.outcome), out);
    // The report's members follow, its opening brace dropped.
    const absl::string_view report = result.report_json;
    if (report.size() > 2) {
      out.append(",");
      out.append(report.data() + 1, report.size() - 1);
    } else {
      out.append("}");
    }
    return out;
  }
  AppendJsonString(IsVerificationFailure(result.status) ? "verification_failed" : "refused", out);
  out.append(",\"error_kind\":");
  AppendJsonString(ErrorKindName(ErrorKindOf(result.status)), out);
  out.append(",\"error\":");
  AppendJsonString(EscapeInvalidUtf8(result.status.message()), out);
  out.append("}");
  return out;
}

}  // namespace onnx_legalize
