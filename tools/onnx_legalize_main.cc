// onnx-legalize: the command line. Flags -> Options -> LegalizeFile / CheckModel -> exit code.
//
// Flags are parsed by absl::ParseCommandLine, after flag_spelling.h has mapped our hyphenated spellings
// to absl's and rejected unknown flags and malformed values (absl would exit 1, which here means "--check
// found something"); a guard turns any exit during absl's parse into 2.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "check_inputs.h"
#include "flag_spelling.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/stubs/logging.h"
#include "onnx/common/version.h"
#include "onnx_legalize/check_report.h"
#include "onnx_legalize/legalize.h"
#include "onnx_legalize/legalize_tree.h"
#include "tree_mode.h"

ABSL_FLAG(bool, check, false, "List nodes without a schema at the model's opset; write nothing.");
ABSL_FLAG(std::string, o, "", "Output model file (instead of the second positional argument).");
ABSL_FLAG(std::string, report, "", "Write the JSON report to this file ('-': stdout).");
ABSL_FLAG(std::optional<int64_t>, target_opset, std::nullopt, "Default-domain opset to rewrite to.");
ABSL_FLAG(bool, keep_opset, false, "Keep the model's opset; only constant-index DynamicSlice is legal.");
ABSL_FLAG(bool, verify, true, "Execute both forms of every change and compare them.");
ABSL_FLAG(int64_t, max_total_fold_bytes, onnx_legalize::Options{}.max_total_fold_bytes,
          "Largest total of all folded results, in bytes.");
ABSL_FLAG(int64_t, max_fold_bytes, onnx_legalize::Options{}.max_fold_bytes,
          "Largest DynamicSlice result folded into an initializer, in bytes.");
ABSL_FLAG(int64_t, proof_budget, onnx_legalize::Options{}.proof_budget,
          "The opset move's proof budget, in element operations.");
ABSL_FLAG(bool, in_place, false, "Write the legalized model over IN.");
ABSL_FLAG(std::string, external_data, "", "Write weights to this data file beside OUT.");
ABSL_FLAG(int64_t, external_data_threshold, onnx_legalize::kDefaultExternalDataThreshold,
          "Smallest initializer, in bytes, that goes to the data file.");
ABSL_FLAG(std::string, format, "text", "--check's output: text, json, sarif or github.");
ABSL_FLAG(std::optional<int64_t>, min_opset, std::nullopt, "--check: lowest default opset allowed.");
ABSL_FLAG(std::optional<int64_t>, max_opset, std::nullopt, "--check: highest default opset allowed.");
ABSL_FLAG(std::optional<int64_t>, max_ir_version, std::nullopt, "--check: highest IR version allowed.");
ABSL_FLAG(std::string, runtime, "", "--check: the opset range and IR ceiling of a runtime release.");
ABSL_FLAG(int64_t, j, 1, "--check: files checked in parallel.");

namespace {

using onnx_legalize::cli::FlagKind;
using onnx_legalize::cli::FlagSpelling;
using onnx_legalize::cli::MappedCommandLine;
using onnx_legalize::cli::MapToAbslSpelling;

// The flags above as users write them, for MapToAbslSpelling; a flag missing here is an unknown flag.
constexpr FlagSpelling kFlagSpellings[] = {
    {"check", "check", FlagKind::kBool},
    {"o", "o", FlagKind::kString},
    {"report", "report", FlagKind::kString},
    {"target-opset", "target_opset", FlagKind::kInt},
    {"keep-opset", "keep_opset", FlagKind::kBool},
    {"verify", "verify", FlagKind::kBool},
    {"max-fold-bytes", "max_fold_bytes", FlagKind::kInt},
    {"max-total-fold-bytes", "max_total_fold_bytes", FlagKind::kInt},
    {"proof-budget", "proof_budget", FlagKind::kInt},
    {"in-place", "in_place", FlagKind::kBool},
    {"external-data", "external_data", FlagKind::kString},
    {"external-data-threshold", "external_data_threshold", FlagKind::kInt},
    {"format", "format", FlagKind::kString},
    {"min-opset", "min_opset", FlagKind::kInt},
    {"max-opset", "max_opset", FlagKind::kInt},
    {"max-ir-version", "max_ir_version", FlagKind::kInt},
    {"runtime", "runtime", FlagKind::kString},
    {"j", "j", FlagKind::kInt},
    {"help", "", FlagKind::kHelp},
    {"h", "", FlagKind::kHelp},
    {"version", "", FlagKind::kVersion},
};

// The flags that --check takes besides itself (the others are about writing a model), and that only it
// takes (--report is shared).
const std::set<std::string> kCheckFlags = {"report",         "format",  "min-opset", "max-opset",
                                           "max-ir-version", "runtime", "j"};
const std::set<std::string> kCheckOnlyFlags = {"format", "min-opset", "max-opset", "max-ir-version", "runtime"};

// Files checked in parallel at most: --check -j N.
constexpr int64_t kMaxCheckJobs = 256;

constexpr char kProgram[] = "onnx-legalize";

// Exit codes, as --help documents them.
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;
constexpr int kExitUsage = 2;
constexpr int kExitModel = 3;
constexpr int kExitVerification = 4;

constexpr char kUsage[] = R"(Usage:
  onnx-legalize IN.onnx OUT.onnx [flags]
  onnx-legalize IN.onnx -o OUT.onnx [flags]
  onnx-legalize --in-place IN.onnx [flags]
  onnx-legalize SRC... -o DEST_DIR [-j N] [flags]     (SRC: model files and folders)
  onnx-legalize --in-place PATH... [-j N] [flags]
  onnx-legalize --check PATH... [--format=text|json|sarif|github] [--min-opset=N] [--max-opset=N]
                [--max-ir-version=N] [--runtime=NAME] [-j N] [--report=FILE]

Makes a legacy model legal again: every op onnx 1.5 removed (DynamicSlice, ImageScaler, Crop, Affine,
Scale, ScaledTanh, ParametricSoftplus, ThresholdedRelu before opset 10, MeanVarianceNormalization-1,
ConstantFill, GivenTensorFill; Upsample at opset 10 and later) is folded into a constant or rewritten
into standard ops, the model moves to the lowest opset that expresses them all (when its own does not),
each change is verified by executing both forms, and OUT is written atomically. IN is never modified, unless
--in-place asks for it. Exit 0 means OUT is legal: onnx {onnx_version}'s check_model(full_check=True), the
checker this tool is built with, accepts it whole.

Flags:
  -o OUT.onnx           the output model (instead of a second positional argument)
  --in-place            write the result over IN (atomically; its external data files too)
  --check               list every node whose op has no schema at the opset the model imports
                        (DynamicSlice and other removed ops, ops newer than the imported opset,
                        domains the model does not import), one line each, then a summary; writes
                        no model. PATH is a model file or a folder (every *.onnx below it, sorted;
                        symbolic links are not followed out of it)
  --format=F            --check's output: text (default), json (one document), sarif (SARIF 2.1.0)
                        or github (workflow commands that annotate a pull request)
  --min-opset=N, --max-opset=N
                        --check: a model whose default opset is outside [N, M] is a finding too;
                        above M, it says whether --target-opset=M moves the model down, and names
                        each node that has no form at M
  --max-ir-version=N    --check: a model whose IR version is above N, and stays there when it is
                        moved down to --max-opset, is a finding too
  --runtime=NAME        --check: the opset range and IR ceiling of a runtime release, as its
                        documentation says and as it loads (--min-opset, --max-opset and
                        --max-ir-version, each overridden when also given):
                        {runtimes}
  -j N                  --check, or several models: N files at a time (the output is the same for
                        every N; with one model, ignored)
  --report=FILE         write the report as JSON to FILE ('-' for stdout) instead of the summary;
                        with --check, the output in --format to FILE (a summary line to stdout)
  --target-opset=N      default-domain opset to rewrite to, 1..28 (default: the lowest from the model's
                        own that expresses every rewrite and passes onnx's checker); below the model's own,
                        the model moves down, proved like a move up, or is refused naming the first node
                        that has no form at N and the lowest opset it can go to; its IR version goes down
                        to that of N's onnx release, or to the lowest that holds what it holds
  --keep-opset          keep the model's opset: every removed op whose replacement exists there is
                        legalized (a DynamicSlice with constant indices as Slice-1); any other is an error
  --no-verify           skip executing the original and legalized forms to compare them
  --max-fold-bytes=N    largest result folded into a constant; bigger ones are rewritten
                        (default {max_fold_bytes})
  --max-total-fold-bytes=N
                        largest total of all folded results; past it, the remaining ones are
                        rewritten (default {max_total_fold_bytes})
  --proof-budget=N      the opset move's proof stops past N element operations (each node's elements
                        read and written, plus the multiply-adds of Conv, Gemm, MatMul, ... and the
                        windows of pools, over both forms and every input set; a count, so the same
                        on every machine) and the report says "not executed" and why; a budget that
                        holds one input set but not three runs one. 0 executes nothing
                        (default {proof_budget})
  --external-data=NAME  store the weights in the data file NAME beside OUT: every initializer of at
                        least --external-data-threshold bytes and every tensor already stored
                        externally. Without it, a model that would pass protobuf's 2 GiB limit
                        gets OUT.data automatically; external data files of IN stay as they are
                        and, when OUT is in another folder, are linked or copied there
  --external-data-threshold=BYTES
                        smallest initializer that goes to the data file (default {threshold})
  --help, -h            this text
  --version             the version of onnx-legalize and its libraries
Boolean flags also take --flag=true|false and --no-flag.

Several models, or folders (every *.onnx below them): each file is legalized as a single-file run
would write it, below DEST_DIR at its path relative to the folder given (external data files carried
along), or over itself with --in-place. Every file is tried; models already legal are copied unchanged
(in place: left untouched); refused ones are not written. A rerun skips outputs an earlier run wrote
from the same input with the same options (DEST_DIR/.onnx-legalize/ records them). A summary table
ends the run; --report=FILE writes one JSON object per file (JSON Lines). On a terminal, a progress
line. Ctrl-C finishes the files in hand, so no partial file is left, says what was done, exits 130.

Exit codes:
  0  success (with --check: no findings)
  1  --check found something
  2  usage error: unknown flag, wrong number of arguments, bad flag value, OUT is IN
     without --in-place
  3  the input model is unreadable, malformed or cannot be legalized, or an output cannot be written
     (with --check: a file or folder could not be read or checked; every other file is still checked
     and reported)
  4  verification failed: a legalized node does not compute what the original did
With several models, the worst of the files' codes (0 < 3 < 4); usage errors before any file is read.
On every exit but 0 and 1, OUT (and its data file) is not created and an existing one is left
untouched.
Messages go to stderr as "onnx-legalize: <message>". Bytes of names and paths that are not UTF-8 are
written as \xNN in --check's output.
)";

// Messages quote names and paths from models and users, which need not be UTF-8 and may hold control characters
// (a NUL, an escape sequence): such bytes become \xNN.
void PrintError(absl::string_view message) {
  std::cerr << kProgram << ": " << onnx_legalize::EscapeForTerminal(message) << "\n";
}

int UsageError(absl::string_view message) {
  PrintError(message);
  std::cerr << "Try '" << kProgram << " --help' for more information.\n";
  return kExitUsage;
}

// A request the library refused (ValidateOptions, ValidateSaveOptions, LegalizeFile's same-file guard) as a
// usage error, led by the flag or argument that set the field it names.
int RequestError(const absl::Status& status) {
  static const auto* const kArgumentOfField = new std::map<std::string, std::string>{
      {"max_fold_bytes", "--max-fold-bytes"},
      {"max_total_fold_bytes", "--max-total-fold-bytes"},
      {"proof_budget", "--proof-budget"},
      {"target_opset", "--target-opset"},
      {"keep_opset", "--keep-opset"},
      {"external_data_threshold", "--external-data-threshold"},
      {"external_data_name", "--external-data"},
      {"output_path", "OUT"},
  };
  const std::string field = onnx_legalize::InvalidRequestField(status);
  const auto argument = kArgumentOfField->find(field);
  if (argument == kArgumentOfField->end()) return UsageError(status.message());
  // The library says "ask for in-place"; here that is a flag.
  const char* hint = field == "output_path" ? "; use --in-place to write over IN" : "";
  return UsageError(absl::StrCat(argument->second, ": ", status.message(), hint));
}

// ---------------------------------------------------------------------------------------------------
// Flag parsing

// absl::ParseCommandLine calls exit(1) on errors; the mapping should leave none, but should one slip
// through, this keeps it from reading as "--check found something".
std::atomic<bool> g_parsing_flags{false};
void ExitAsUsageErrorDuringParse() {
  if (g_parsing_flags.load()) std::_Exit(kExitUsage);
}

// Positional arguments after absl has consumed the flags.
std::vector<std::string> ParseFlags(const MappedCommandLine& mapped) {
  std::vector<char*> argv;
  std::vector<std::string> storage = mapped.args;
  argv.reserve(storage.size() + 1);
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::atexit(ExitAsUsageErrorDuringParse);
  g_parsing_flags = true;
  std::vector<char*> rest = absl::ParseCommandLine(static_cast<int>(storage.size()), argv.data());
  g_parsing_flags = false;
  return std::vector<std::string>(rest.begin() + 1, rest.end());
}

// ---------------------------------------------------------------------------------------------------
// Modes

std::string Quoted(const std::string& name) { return name.empty() ? "(unnamed)" : absl::StrCat("'", name, "'"); }

// Refuses a report destination that cannot be written, before anything is written: the report comes last,
// and OUT should not appear when the command fails.
absl::Status CheckReportDestination(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return absl::FailedPreconditionError(absl::StrCat("cannot write report '", path, "': it is a directory"));
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    return absl::NotFoundError(
        absl::StrCat("cannot write report '", path, "': folder '", parent.string(), "' does not exist"));
  }
  return absl::OkStatus();
}

absl::Status WriteReport(const std::string& path, const std::string& json) {
  if (path == "-") {
    std::cout << json << std::flush;
    return std::cout ? absl::OkStatus() : absl::UnavailableError("cannot write the report to stdout");
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << json;
  file.close();
  if (!file) return absl::UnavailableError(absl::StrCat("cannot write report '", path, "'"));
  return absl::OkStatus();
}

// One file of --check: load (graphs; external data is never read), CheckModel, the opset policy.
onnx_legalize::CheckedFile CheckOneFile(const onnx_legalize::cli::CheckInput& input,
                                        const onnx_legalize::OpsetPolicy& policy) {
  onnx_legalize::CheckedFile checked;
  checked.path = input.path;
  if (!input.status.ok()) {
    checked.status = input.status;
    return checked;
  }
  // The model's messages live on an arena: allocated in a few blocks, freed at once (a repository of many
  // small graphs otherwise spends a third of its time in malloc and free). Its first block is this thread's
  // and serves file after file; larger graphs add blocks of up to 1 MiB.
  thread_local std::vector<char> first_block(size_t{1} << 20);
  google::protobuf::ArenaOptions arena_options;
  arena_options.initial_block = first_block.data();
  arena_options.initial_block_size = first_block.size();
  arena_options.start_block_size = size_t{64} << 10;
  arena_options.max_block_size = size_t{1} << 20;
  google::protobuf::Arena arena(arena_options);
  onnx::ModelProto* model = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  if (absl::Status loaded = onnx_legalize::LoadModelInto(input.path, model); !loaded.ok()) {
    checked.status = std::move(loaded);  // LoadModel's messages name the path
    return checked;
  }
  absl::StatusOr<std::vector<onnx_legalize::CheckFinding>> findings = onnx_legalize::CheckModel(*model);
  absl::StatusOr<std::vector<onnx_legalize::CheckFinding>> opset = onnx_legalize::CheckOpsetPolicy(*model, policy);
  const absl::Status status = !findings.ok() ? findings.status() : opset.status();
  if (!status.ok()) {
    checked.status = absl::Status(status.code(), absl::StrCat(input.path, ": ", status.message()));
    return checked;
  }
  // The policy's first: the model-wide finding is about the whole file, and the nodes it names follow it.
  checked.findings = *std::move(opset);
  checked.findings.insert(checked.findings.end(), findings->begin(), findings->end());
  return checked;
}

// Checks every input, `jobs` at a time; the results come in the inputs' order whatever the scheduling.
std::vector<onnx_legalize::CheckedFile> CheckFiles(const std::vector<onnx_legalize::cli::CheckInput>& inputs,
                                                   const onnx_legalize::OpsetPolicy& policy, int64_t jobs) {
  std::vector<onnx_legalize::CheckedFile> results(inputs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < inputs.size(); i = next++) results[i] = CheckOneFile(inputs[i], policy);
  };
  std::vector<std::thread> threads;
  const int64_t workers = std::min<int64_t>(jobs, static_cast<int64_t>(inputs.size()));
  for (int64_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  return results;
}

int RunCheck(const std::vector<std::string>& positionals, const std::set<std::string>& given) {
  if (positionals.empty()) return UsageError("--check needs at least one model file or folder");
  const std::string format_name = absl::GetFlag(FLAGS_format);
  const std::optional<onnx_legalize::CheckFormat> format = onnx_legalize::ParseCheckFormat(format_name);
  if (!format.has_value()) {
    return UsageError(absl::StrCat("--format=", format_name, " is not one of text, json, sarif, github"));
  }
  onnx_legalize::OpsetPolicy policy;
  if (given.count("runtime") > 0) {
    const std::optional<onnx_legalize::OpsetPolicy> profile =
        onnx_legalize::RuntimeProfile(absl::GetFlag(FLAGS_runtime));
    if (!profile.has_value()) {
      return UsageError(absl::StrCat("--runtime=", absl::GetFlag(FLAGS_runtime), " is not one of ",
                                     absl::StrJoin(onnx_legalize::RuntimeProfileNames(), ", ")));
    }
    policy = *profile;
  }
  if (given.count("min-opset") > 0) policy.min_opset = absl::GetFlag(FLAGS_min_opset);
  if (given.count("max-opset") > 0) policy.max_opset = absl::GetFlag(FLAGS_max_opset);
  if (given.count("max-ir-version") > 0) policy.max_ir_version = absl::GetFlag(FLAGS_max_ir_version);
  for (const auto& [flag, value] : {std::pair{"--min-opset", policy.min_opset},
                                    {"--max-opset", policy.max_opset},
                                    {"--max-ir-version", policy.max_ir_version}}) {
    if (value.has_value() && *value < 1) return UsageError(absl::StrCat(flag, "=", *value, " is below 1"));
  }
  if (policy.min_opset.has_value() && policy.max_opset.has_value() && *policy.min_opset > *policy.max_opset) {
    return UsageError(absl::StrCat("--min-opset=", *policy.min_opset, " is above --max-opset=", *policy.max_opset));
  }
  const int64_t jobs = absl::GetFlag(FLAGS_j);
  if (jobs < 1 || jobs > kMaxCheckJobs) {
    return UsageError(absl::StrCat("-j ", jobs, " is outside 1..", kMaxCheckJobs));
  }
  const std::string report_path = given.count("report") ? absl::GetFlag(FLAGS_report) : "";
  if (!report_path.empty() && report_path != "-") {
    if (absl::Status status = CheckReportDestination(report_path); !status.ok()) {
      PrintError(status.message());
      return kExitModel;
    }
  }

  const std::vector<onnx_legalize::CheckedFile> results =
      CheckFiles(onnx_legalize::cli::ExpandCheckPaths(positionals), policy, jobs);
  bool any_error = false;
  bool any_finding = false;
  for (const onnx_legalize::CheckedFile& file : results) {
    if (!file.status.ok()) {
      PrintError(file.status.message());
      any_error = true;
    }
    any_finding = any_finding || !file.findings.empty();
  }
  const std::string output = onnx_legalize::FormatCheckResults(results, *format);
  // --report=- is stdout, which then holds the document alone (a JSON or SARIF reader takes all of it).
  if (report_path.empty() || report_path == "-") {
    std::cout << output << std::flush;
  } else {
    if (absl::Status status = WriteReport(report_path, output); !status.ok()) {
      PrintError(status.message());
      return kExitModel;
    }
    // The last line of the text format is its summary, for the log.
    const std::string text = onnx_legalize::FormatCheckResults(results, onnx_legalize::CheckFormat::kText);
    const size_t summary = text.rfind('\n', text.size() - 2);
    std::cout << (summary == std::string::npos ? text : text.substr(summary + 1)) << std::flush;
  }
  if (any_error) return kExitModel;
  return any_finding ? kExitFindings : kExitOk;
}

// "opset 6 -> 9", or what a model of no default-domain node (ai.onnx.ml alone) has instead.
std::string OpsetText(const onnx_legalize::Report& report) {
  if (report.opset_before == 0 && report.opset_after == 0) return "no default-domain opset (no node of it to move)";
  return absl::StrCat("opset ", report.opset_before, " -> ", report.opset_after);
}

void PrintSummary(const std::string& input, const std::string& output, const onnx_legalize::Report& report,
                  bool in_place) {
  // Written whole, then escaped as error messages are (PrintError): a path or a name that is not UTF-8 shows
  // its bytes as \xNN on every line the tool prints.
  std::ostringstream out;
  const auto print = [&out] { std::cout << onnx_legalize::EscapeForTerminal(out.str()); };
  out << input << " -> " << output << ": ";
  if (!report.changed) {
    out << "no removed op; model " << (in_place ? "left as it is, not written" : "written unchanged") << " ("
        << (report.opset_after == 0 ? OpsetText(report) : absl::StrCat("opset ", report.opset_after)) << ")\n";
    print();
    return;
  }
  int folded = 0;
  std::map<std::string, int> by_op;
  for (const onnx_legalize::NodeReport& node : report.nodes) {
    folded += node.action == onnx_legalize::Action::kFolded ? 1 : 0;
    ++by_op[node.op_type];
  }
  std::vector<std::string> counts;
  counts.reserve(by_op.size());
  for (const auto& [op, count] : by_op) counts.push_back(absl::StrCat(count, " ", op));
  out << (counts.empty() ? std::string("nothing") : absl::StrJoin(counts, ", ")) << " legalized (" << folded
      << " folded, " << report.nodes.size() - folded << " rewritten); " << OpsetText(report) << ", IR version "
      << report.ir_version_before << " -> " << report.ir_version_after << "\n";
  for (const std::string& repair : report.legacy_repairs) out << "  read as its era wrote it: " << repair << "\n";
  for (const onnx_legalize::InterfaceChange& change : report.interface_changes) {
    out << "  output '" << change.value << "' declared anew: " << change.before << " -> " << change.after << " ("
        << change.why << ")\n";
  }
  for (const onnx_legalize::NodeReport& node : report.nodes) {
    out << "  " << node.graph_path << ": " << node.op_type << " node " << Quoted(node.node_name) << " (output '"
        << node.output << "'): ";
    if (node.action == onnx_legalize::Action::kFolded) {
      out << "folded";
    } else {
      out << "rewritten as " << node.became;
    }
    if (!node.detail.empty()) out << " (" << node.detail << ")";
    out << "; verification: " << node.verification << "\n";
  }
  if (!report.onnx_check.empty()) out << "  onnx check: " << report.onnx_check << "\n";
  if (!report.opset_move.empty()) out << "  opset move: " << report.opset_move << "\n";
  for (const onnx_legalize::OpsetMoveChange& change : report.opset_move_changes) {
    out << "  opset move changed: " << change.nodes << " " << change.op_type;
    if (change.version_before > 0 && change.version_after > 0) {
      out << " (" << change.op_type << "-" << change.version_before << " -> " << change.op_type_after << "-"
          << change.version_after << ")";
    }
    out << " " << change.how << ", first " << change.first << "\n";
  }
  // What the proof ran, when it ran anything (also when it stopped: how far it got against the budget).
  const onnx_legalize::OpsetMoveProof& proof = report.opset_move_proof;
  if (proof.nodes_executed > 0 || proof.nodes_skipped > 0) {
    out << "  opset move proof: " << proof.input_sets << (proof.input_sets == 1 ? " input set, " : " input sets, ")
        << proof.nodes_executed << " nodes executed (" << proof.nodes_shared
        << " left as they were by the move, computed once for both forms), " << proof.nodes_skipped
        << " not executed (left as they were, read by nothing the move changed), " << proof.work
        << " element operations, " << absl::StrFormat("%.3f", proof.seconds) << " s\n";
  }
  for (const onnx_legalize::PassedOverTarget& passed : report.targets_passed_over) {
    out << "  opset " << passed.opset << " passed over: " << passed.reason << "\n";
  }
  print();
}

// Options and SaveOptions from the flags; a usage error's exit code when they are invalid.
std::optional<int> ReadOptions(onnx_legalize::Options& options, onnx_legalize::SaveOptions& save_options,
                               const std::string& output) {
  options.target_opset = absl::GetFlag(FLAGS_target_opset);
  options.keep_opset = absl::GetFlag(FLAGS_keep_opset);
  options.verify = absl::GetFlag(FLAGS_verify);
  options.max_fold_bytes = absl::GetFlag(FLAGS_max_fold_bytes);
  options.max_total_fold_bytes = absl::GetFlag(FLAGS_max_total_fold_bytes);
  options.proof_budget = absl::GetFlag(FLAGS_proof_budget);
  if (absl::Status valid = onnx_legalize::ValidateOptions(options); !valid.ok()) return RequestError(valid);
  save_options.in_place = absl::GetFlag(FLAGS_in_place);
  save_options.external_data_name = absl::GetFlag(FLAGS_external_data);
  save_options.external_data_threshold = absl::GetFlag(FLAGS_external_data_threshold);
  if (absl::Status valid = onnx_legalize::ValidateSaveOptions(save_options, output); !valid.ok()) {
    return RequestError(valid);
  }
  return std::nullopt;
}

// Tree mode: several models, or folders (PlanTree says what each SRC stands for).
int RunTreeMode(const std::vector<std::string>& sources, const std::string& dest_dir,
                const std::set<std::string>& given) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!dest_dir.empty() && !fs::exists(dest_dir, ec) && absl::EndsWith(dest_dir, ".onnx")) {
    return UsageError(absl::StrCat("-o '", dest_dir, "' looks like a model file; with several models or a folder, ",
                                   "-o names the folder the results go to"));
  }
  if (given.count("external-data")) {
    return UsageError(
        "--external-data names one data file for one model; with several models or folders, "
        "each model keeps its own (OUT.data past 2 GiB)");
  }
  onnx_legalize::cli::TreeRequest request;
  request.dest_dir = dest_dir;
  // The destination stands in for OUT: the checks that do not depend on it pass for any model name.
  if (std::optional<int> error = ReadOptions(request.options, request.save_options, "model.onnx"); error) {
    return *error;
  }
  request.jobs = absl::GetFlag(FLAGS_j);
  if (request.jobs < 1 || request.jobs > kMaxCheckJobs) {
    return UsageError(absl::StrCat("-j ", request.jobs, " is outside 1..", kMaxCheckJobs));
  }
  absl::StatusOr<std::vector<onnx_legalize::TreeFile>> plan = onnx_legalize::PlanTree(sources, dest_dir);
  if (!plan.ok()) return UsageError(plan.status().message());
  request.plan = *std::move(plan);
  request.report_path = given.count("report") ? absl::GetFlag(FLAGS_report) : "";
  if (!request.report_path.empty() && request.report_path != "-") {
    for (const onnx_legalize::TreeFile& file : request.plan) {
      if (onnx_legalize::SameExistingFile(request.report_path, file.input) ||
          (!file.output.empty() &&
           (request.report_path == file.output || onnx_legalize::SameExistingFile(request.report_path, file.output)))) {
        return UsageError(
            absl::StrCat("--report='", request.report_path, "' names a model of the run ('", file.input, "')"));
      }
    }
    if (absl::Status status = CheckReportDestination(request.report_path); !status.ok()) {
      PrintError(status.message());
      return kExitModel;
    }
  }
  return onnx_legalize::cli::RunTree(request);
}

// Tree mode when a source is a folder, there are several, or the destination is a folder: a folder that
// exists, or one named with a trailing '/'. The destination ("" in place), or nullopt for a single file.
std::optional<std::string> TreeDestination(const std::vector<std::string>& positionals, bool in_place,
                                           const std::string& output_flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto is_folder = [&ec](const std::string& path) {
    return fs::is_directory(path, ec) || (!path.empty() && path.back() == '/');
  };
  const bool folder_source = !positionals.empty() && is_folder(positionals[0]);
  if (in_place) {
    if (positionals.size() > 1 || folder_source) return std::string();
    return std::nullopt;
  }
  if (!output_flag.empty()) {
    if (positionals.size() > 1 || folder_source || is_folder(output_flag)) return output_flag;
    return std::nullopt;
  }
  if (positionals.size() == 2 && (folder_source || is_folder(positionals[1]))) return positionals[1];
  return std::nullopt;
}

int RunLegalize(const std::vector<std::string>& positionals, const std::set<std::string>& given) {
  std::string output = absl::GetFlag(FLAGS_o);
  const bool in_place = absl::GetFlag(FLAGS_in_place);
  if (positionals.empty()) return UsageError("missing the input model (IN.onnx)");
  if (in_place && given.count("o")) return UsageError("--in-place writes over each input: give no OUT");
  if (given.count("o") && output.empty()) return UsageError("-o names no output");
  if (const std::optional<std::string> dest = TreeDestination(positionals, in_place, output); dest.has_value()) {
    std::vector<std::string> sources = positionals;
    if (!in_place && output.empty()) sources.pop_back();  // SRC DEST
    return RunTreeMode(sources, *dest, given);
  }
  // -j with one model has one file to legalize (a pre-commit hook's args serve one staged file and many).
  if (in_place) output = positionals[0];
  if (output.empty()) {
    if (positionals.size() != 2) {
      return UsageError(positionals.size() < 2 ? "missing the output model (OUT.onnx or -o OUT.onnx)"
                                               : "too many arguments: give IN.onnx and OUT.onnx");
    }
    output = positionals[1];
  }
  const std::string& input = positionals[0];

  onnx_legalize::Options options;
  onnx_legalize::SaveOptions save_options;
  if (std::optional<int> error = ReadOptions(options, save_options, output); error) return *error;
  const std::string report_path = given.count("report") ? absl::GetFlag(FLAGS_report) : "";
  if (!report_path.empty() && report_path != "-") {
    if (report_path == output || onnx_legalize::SameExistingFile(report_path, output) ||
        onnx_legalize::SameExistingFile(report_path, input)) {
      return UsageError(absl::StrCat("--report='", report_path, "' names the input or output model"));
    }
    if (absl::Status status = CheckReportDestination(report_path); !status.ok()) {
      PrintError(status.message());
      return kExitModel;
    }
  }

  absl::StatusOr<onnx_legalize::Report> report = onnx_legalize::LegalizeFile(input, output, options, save_options);
  if (!report.ok()) {
    // A request LegalizeFile refused (OUT is the input file) is a usage error, like those refused above.
    if (onnx_legalize::ErrorKindOf(report.status()) == onnx_legalize::ErrorKind::kInvalidRequest) {
      return RequestError(report.status());
    }
    PrintError(report.status().message());
    return onnx_legalize::IsVerificationFailure(report.status()) ? kExitVerification : kExitModel;
  }
  if (report_path.empty()) {
    PrintSummary(input, output, *report, save_options.in_place);
    return kExitOk;
  }
  if (absl::Status status = WriteReport(report_path, onnx_legalize::ReportToJson(*report)); !status.ok()) {
    PrintError(absl::StrCat(status.message(), " (the model itself was written to '", output, "')"));
    return kExitModel;
  }
  return kExitOk;
}

// The names --runtime knows, comma-separated, in lines that fit --help's column for flag descriptions.
std::string RuntimeNamesForHelp() {
  std::string text, line;
  for (const std::string& name : onnx_legalize::RuntimeProfileNames()) {
    if (!line.empty() && line.size() + name.size() + 2 > 70) {
      absl::StrAppend(&text, line, ",\n                        ");
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : ", ", name);
  }
  return text + line;
}

int Run(int argc, char** argv) {
  const MappedCommandLine mapped =
      MapToAbslSpelling(kFlagSpellings, absl::Span<const char* const>(argv, static_cast<size_t>(argc)));
  if (mapped.help) {
    std::cout << absl::StrReplaceAll(
        kUsage, {{"{onnx_version}", ONNX_VERSION_STRING},
                 {"{max_fold_bytes}", absl::StrCat(onnx_legalize::Options{}.max_fold_bytes)},
                 {"{max_total_fold_bytes}", absl::StrCat(onnx_legalize::Options{}.max_total_fold_bytes)},
                 {"{proof_budget}", absl::StrCat(onnx_legalize::Options{}.proof_budget)},
                 {"{threshold}", absl::StrCat(onnx_legalize::kDefaultExternalDataThreshold)},
                 {"{runtimes}", RuntimeNamesForHelp()}});
    return kExitOk;
  }
  if (mapped.version) {
    std::cout << kProgram << " " << ONNX_LEGALIZE_VERSION << " (onnx " << onnx::LAST_RELEASE_VERSION << ", protobuf "
              << google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION) << ")\n";
    return kExitOk;
  }
  if (!mapped.error.empty()) return UsageError(mapped.error);
  const std::vector<std::string> positionals = ParseFlags(mapped);

  const bool check = absl::GetFlag(FLAGS_check);
  // --check takes only its own flags (the others are about writing a model), and they go only with it.
  std::vector<std::string> misplaced;
  for (const FlagSpelling& flag : kFlagSpellings) {
    const std::string name = flag.name;
    if (flag.kind == FlagKind::kHelp || flag.kind == FlagKind::kVersion || name == "check") continue;
    const bool fits = check ? kCheckFlags.count(name) > 0 : kCheckOnlyFlags.count(name) == 0;
    if (!fits && mapped.given.count(name)) misplaced.push_back(absl::StrCat(name.size() == 1 ? "-" : "--", name));
  }
  if (!misplaced.empty()) {
    return UsageError(check ? absl::StrCat("--check writes no model and takes only --format, --min-opset, "
                                           "--max-opset, --max-ir-version, --runtime, -j and --report; got ",
                                           absl::StrJoin(misplaced, ", "))
                            : absl::StrCat(absl::StrJoin(misplaced, ", "), " only go with --check"));
  }
  if (check) return RunCheck(positionals, mapped.given);
  return RunLegalize(positionals, mapped.given);
}

}  // namespace

int main(int argc, char** argv) {
  // libprotobuf writes its own lines to stderr ("[libprotobuf ERROR ...] String field ... contains invalid UTF-8"
  // for a doc_string a model's exporter wrote in Latin-1): the tool says what is wrong in its own words, once.
  google::protobuf::SetLogHandler(nullptr);
  // The library returns errors as values; this only catches what escapes that promise (out of memory).
  try {
    return Run(argc, argv);
  } catch (const std::bad_alloc&) {
    PrintError("out of memory");
  } catch (const std::exception& e) {
    PrintError(absl::StrCat("internal error: ", e.what()));
  }
  return kExitModel;
}
