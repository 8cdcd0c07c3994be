// onnx-legalize: makes legacy ONNX models that hold the experimental operators ONNX 1.5 removed legal again.
//
// Every removed op (DynamicSlice, ImageScaler, Crop, Affine, Scale, ScaledTanh, ParametricSoftplus,
// ThresholdedRelu before opset 10, MeanVarianceNormalization-1, ConstantFill, GivenTensorFill; main graph and
// If/Loop/Scan bodies at any depth) is either folded into an initializer, when its inputs are constants, or
// rewritten into standard ops (DynamicSlice into Slice-10+), with the rest of the model moved to the opset
// they need. Each change is proved by executing both forms and comparing them bit for bit.
//
// Errors are absl::Status values; no exception leaves the library.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/external_data_reader.h"

namespace onnx_legalize {

// The opsets onnx-legalize can target: any default opset onnx 1.12 (the version converter this library uses)
// knows, from the model's own up. A target must also express every rewrite: a DynamicSlice computed at run
// time needs Slice-10 (kFirstSliceWithIndexInputs), the removed ops' replacements 7 or 9 (a refusal names the
// node otherwise); runtimes pinned at opset 7-9 exist.
inline constexpr int64_t kMinTargetOpset = 1;
inline constexpr int64_t kMaxTargetOpset = 17;
// Slice-10 is the first Slice that takes its indices as inputs.
inline constexpr int64_t kFirstSliceWithIndexInputs = 10;

struct Options {
  // Largest folded output, in bytes. A DynamicSlice whose constant result is bigger is rewritten instead,
  // so a hostile or huge model cannot make the folder allocate without bound. Checked before allocation.
  int64_t max_fold_bytes = int64_t{64} << 20;

  // Largest total of all folded outputs, in bytes. Each fold may pass max_fold_bytes on its own, yet many
  // folds of one constant would multiply the memory by the node count: past this total, the remaining
  // constant DynamicSlices and removed ops (all of them together) are rewritten instead. Checked before
  // allocation.
  int64_t max_total_fold_bytes = int64_t{2} << 30;

  // The default-domain opset to rewrite to. Unset: the lowest opset >= max(10, current) that expresses
  // every rewrite. Must be within [kMinTargetOpset, kMaxTargetOpset] and not below the model's opset.
  std::optional<int64_t> target_opset;

  // Keep the model's opset (below 10): nodes whose indices are constant become Slice-1 with attributes;
  // any DynamicSlice that cannot be expressed so is an error (FailedPrecondition).
  bool keep_opset = false;

  // Execute the original and the replacement form of every change and compare them bit for bit.
  bool verify = true;

  // Seeded trials per rewritten node; each draws fresh data and, for dynamic indices, fresh index values.
  int verify_trials = 8;

  // Seed of the verification's random inputs: the same seed gives the same trials, run after run.
  uint64_t verify_seed = 0x5eed;

  // The opset-move proof's budget, in element operations: the elements each node of the model reads and writes,
  // and the multiply-adds of its contractions (Conv, Gemm, MatMul, ...) and windows (pools), counted over every
  // node the proof runs (both forms, every input set). A count of work, not of time, so that whether a proof
  // fits is the same on every machine. Past it the proof stops and the report says "not executed" and why; a
  // budget that holds one input set but not three runs one. The default, 2^38 (~2.7e11), keeps every proof that
  // ran before there was a budget: the largest real models tested (fast-neural-style networks at 720x720, by
  // their architecture about 1.3e11 for the proof) fit with room to spare. The runner does about 1.4e9 a second
  // on one core of a 2-vCPU VM (bench/ scenario 6), so the default bounds a proof to a few minutes; lower it to
  // bound it to seconds. 0 executes nothing.
  int64_t proof_budget = int64_t{1} << 38;

  // Run the proofs beside the work they prove: Legalize may start up to three helper threads at once
  // (verification of the changes, onnx's checker on the input and on the result), each joined before it
  // returns. false: everything runs on the calling thread, for embedders that own their threads. The result,
  // report and errors are the same either way.
  bool use_threads = true;

  // Reads initializers (and Constant values) stored as external data, only when a fold needs their
  // values; not owned, and must outlive the Legalize call. Null: the library reads no files, so such a
  // tensor is not a constant (its DynamicSlice is rewritten, and the report's detail says why); its type
  // and dims are still known. LegalizeFile sets it to the input's OpenExternalData.
  const ExternalDataReader* external_data = nullptr;
};

// What was done to one removed node.
enum class Action {
  kFolded,     // replaced by an initializer holding its value
  kRewritten,  // replaced by standard nodes (a Slice for DynamicSlice)
};

struct NodeReport {
  std::string op_type = "DynamicSlice";  // the removed op: DynamicSlice, ImageScaler, Crop, ...
  std::string graph_path;                // "main", "main/loop_body", ... (graph names joined by '/')
  std::string node_name;                 // the node's name; "" when the model gave it none
  std::string output;                    // the node's output name, which identifies it when it has no name
  Action action = Action::kFolded;
  int64_t slice_version = 0;  // for kRewritten: the Slice version it became (1 with keep_opset, else 10+)
  std::string became;         // what it became: "initializer", "Slice-10", "Mul + Add", ...
  std::string detail;         // why this action, in a few words
  std::string verification;   // what verification ran and its result, or "skipped (verification off)"
};

// What the opset move's proof ran (Report::opset_move_proof). Everything but `seconds` is the same from run to
// run for the same model and options.
struct OpsetMoveProof {
  // Both forms ran on at least one input set and every output was identical (a difference is an error, not a
  // report).
  bool executed = false;
  int64_t input_sets = 0;      // seeded input sets both forms ran to the end on
  int64_t nodes_executed = 0;  // node runs over both forms and every input set (subgraph nodes each time they run)
  int64_t work = 0;            // element operations those nodes did, in Options::proof_budget's unit
  // Wall time of the proof, for people reading the report; the one field that varies from run to run.
  double seconds = 0;
  // Why it did not execute (the text after "not executed: " in Report::opset_move; "verification off" when
  // Options::verify is false); "" when it executed or the opset did not move.
  std::string why_not;
};

// A target opset the library chose, tried and left for a later one (Options::target_opset unset).
struct PassedOverTarget {
  int64_t opset = 0;
  std::string reason;  // the failure at that opset
};

struct Report {
  int64_t opset_before = 0;  // default-domain opset
  int64_t opset_after = 0;
  int64_t ir_version_before = 0;
  int64_t ir_version_after = 0;
  // What the model's era left implicit or wrote as onnx no longer reads it, and legalizing wrote anew, one line
  // each ("the model: IR version 1 has no opset imports and means the default domain at opset 1: imported",
  // "graph main: nodes listed out of topological order, sorted (...)", "BatchNormalization 'bn' (graph main):
  // consumed_inputs, which BatchNormalization-1 requires ..."). Empty for a model of a later era.
  std::vector<std::string> legacy_repairs;
  // One per removed node found: the other removed ops (main graph first, subgraphs depth first), then
  // every DynamicSlice in graph order.
  std::vector<NodeReport> nodes;
  bool changed = false;  // false when the model held nothing to legalize and kept its opset
  // What onnx's checker and strict shape inference said of the result; "not run: ..." with the checker's
  // reason when it rejects the input itself (a result is held to them only when the input passes).
  std::string onnx_check;
  // How the opset move was proved: the model before and after it executed on seeded inputs with every output
  // identical, or "not executed: " and why (an op the library's model runner has no kernel for, ...); ""
  // when the opset did not move, "skipped (verification off)" with Options::verify false.
  std::string opset_move;
  // The same, counted: input sets, nodes executed, work and seconds, or why not. All zero and "" when the opset
  // did not move.
  OpsetMoveProof opset_move_proof;
  // With no target_opset given, the lowest target that expresses every rewrite is tried first; where onnx's
  // converter or checker fails there for a reason a later opset may avoid, the next ones are tried in turn
  // (up to 17). The targets passed over, lowest first, each with its failure.
  std::vector<PassedOverTarget> targets_passed_over;
};

// InvalidArgument of kind kInvalidRequest, naming the field and its value, when `options` holds a value out of
// range (negative byte limits or proof budget, a target opset outside [kMinTargetOpset, kMaxTargetOpset],
// verify_trials < 1)
// or two that contradict each other (keep_opset with target_opset). Legalize and LegalizeFile check it first;
// callers that collect options from users (the CLI) call it to tell a bad request from a bad model.
absl::Status ValidateOptions(const Options& options);

// Legalizes `model` in place: every op ONNX 1.5 removed (DynamicSlice, ImageScaler, Crop, Affine, ScaledTanh,
// ParametricSoftplus, Scale, ThresholdedRelu before opset 10, MeanVarianceNormalization-1, ConstantFill,
// GivenTensorFill) is folded or replaced by standard ops, and the result has a schema for every node.
// FailedPrecondition, naming every such node, when the model holds ops no one can legalize (ATen, GRUUnit,
// an op onnx never defined). Transactional: on any error `model` is left exactly as it was.
absl::StatusOr<Report> Legalize(onnx::ModelProto& model, const Options& options);

// What kind of failure a status of this library reports, for callers that act on it (the CLI's exit codes,
// the Python module's exception types) without matching messages. Two kinds are marked by a payload where the
// failure is made (kInvalidRequest, kVerificationFailed); the others follow from the status code, which the
// library picks by the same rule everywhere.
enum class ErrorKind {
  kOk,                  // not a failure
  kInvalidRequest,      // the caller's request, not the model: an option out of range or contradicting
                        // another (ValidateOptions, ValidateSaveOptions), an output that is the input file
  kInvalidModel,        // the model or its external data is malformed (InvalidArgument, OutOfRange, DataLoss)
  kNotLegalizable,      // a well-formed model that cannot be legalized as asked (FailedPrecondition, Unimplemented)
  kVerificationFailed,  // a legalized node, or the opset move, does not compute what the original did
  kResourceLimit,       // a size limit (ResourceExhausted): protobuf's 2 GiB, an allocation bound
  kFileSystem,          // a file could not be found, read or written (NotFound, PermissionDenied, ...)
  kInternal,            // a broken invariant of the library itself
};
ErrorKind ErrorKindOf(const absl::Status& status);

// A stable lower-case name of `kind` ("invalid_request", "verification_failed", ...), for logs and bindings.
const char* ErrorKindName(ErrorKind kind);

// The request field a kInvalidRequest status is about, spelled as the struct field is ("max_fold_bytes",
// "target_opset", "external_data_name", "output_path"); "" for any other status. The CLI names its flag by it.
std::string InvalidRequestField(const absl::Status& status);

// True when `status` (from Legalize or LegalizeFile) says verification failed: ErrorKindOf is
// kVerificationFailed. Such a status is Internal and its message starts "verification failed".
bool IsVerificationFailure(const absl::Status& status);

// Reads a model file; NotFound when it does not exist, InvalidArgument naming the path when it is not a
// valid ModelProto (empty, truncated, garbage, a directory, over protobuf's 2 GiB limit); other I/O errors
// carry the code of their errno.
// Tensors stored as external data keep their entries and are not read, but every reference is checked
// (with stat only): its location resolves relative to the model's folder and must stay inside it. An
// absolute location, one that leaves the folder ("..", a symbolic link pointing out), a file that is not
// a regular file, a malformed offset or length, or a range past the end of the file is InvalidArgument;
// a missing file is NotFound; each names the tensor and the path. Nothing outside the folder is read.
absl::StatusOr<onnx::ModelProto> LoadModel(const std::string& path);

// The same, parsed into `*model` (cleared first), which may live on a protobuf Arena: reading many models
// (--check over a repository) then allocates and frees each one's messages in a few blocks. On an error,
// what `*model` holds is unspecified.
absl::Status LoadModelInto(const std::string& path, onnx::ModelProto* model);

// A reader for the external data of the model file at `model_path`: locations resolve against its folder,
// under the rules LoadModel checks, which are checked again on every read (and the file opened must be
// the one checked). Opens nothing until Read. NotFound when the model's folder does not exist.
absl::StatusOr<std::unique_ptr<ExternalDataReader>> OpenExternalData(const std::string& model_path);

// Writes `model` to `path` atomically: a temporary file beside it, fsync'ed, then renamed over it, and the
// folder fsync'ed. On failure the temporary is removed and no file at `path` is created or changed. The
// bytes are deterministic (the same model gives the same file); a replaced file keeps its permissions.
// External data references are written as they are; a model past protobuf's 2 GiB limit is
// ResourceExhausted (the overload below moves weights to a data file instead).
absl::Status SaveModel(const onnx::ModelProto& model, const std::string& path);

// Initializers of at least this many bytes go to the data file when one is written (onnx's own default).
inline constexpr int64_t kDefaultExternalDataThreshold = 1024;

struct SaveOptions {
  // The folder the model's external data locations are relative to (the folder of the file it was
  // loaded from). When it is not the output's folder, every file still referenced is made available in
  // the output's folder under the same location: cloned (reflink) where the filesystem can, else
  // hard-linked (the same file under a second name) where both are on one filesystem, else copied
  // (streamed, never whole in memory); a file of that name there is replaced. In the output's own folder
  // the files are left as they are. "": references are written as they are.
  std::string external_data_folder;

  // The data file, a file name in the output's folder. "" : written only when the model would otherwise
  // pass protobuf's 2 GiB limit, as "<output file name>.data"; then it receives the inline initializers
  // of at least `external_data_threshold` bytes and any tensor whose location already is that name.
  // Set: always used, and it receives every tensor stored externally (existing references are repacked
  // into it) besides those initializers. Offsets are aligned (64 KiB for tensors of 1 MiB or more, else
  // 64 bytes). Written only when some tensor goes to it.
  std::string external_data_name;

  // Smallest initializer (raw bytes) that goes to the data file. Folded initializers count like any other;
  // tensors stored in typed fields (float_data, ...) and strings stay inline.
  int64_t external_data_threshold = kDefaultExternalDataThreshold;

  // LegalizeFile only: permits `output_path` to be the input file itself. Without it that is refused, so a
  // mistyped OUT cannot replace the original. A model that legalizing leaves unchanged (report.changed false)
  // is then not written at all: the file stays byte for byte as it was.
  bool in_place = false;
};

// The same for SaveOptions and the path they will write: a negative threshold, a data file name that is not
// a plain file name or is the output's own file name. Reads no file (LegalizeFile refuses an output that is
// the input file, also as kInvalidRequest, once it has looked).
absl::Status ValidateSaveOptions(const SaveOptions& options, const std::string& output_path);

// True when both paths exist and name one file, however spelled ("./a" and "a", hard and symbolic links).
bool SameExistingFile(const std::string& a, const std::string& b);

// SaveModel with external data (see SaveOptions). Every file (data files, then the model last) is written
// to a temporary beside its destination, fsync'ed, and renamed only once all are complete; on failure
// every temporary is removed and no destination is created or changed. `model` is changed during the
// call (weights moved out and back, in O(1)) and is exactly as it was on return.
absl::Status SaveModel(onnx::ModelProto& model, const std::string& path, const SaveOptions& options);

// Loads `input_path`, legalizes, verifies and saves to `output_path`; writes nothing on failure.
// External data is read through OpenExternalData(input_path) when a fold needs it (unless
// options.external_data is already set) and saved with `save_options`, whose external_data_folder
// defaults to the input's folder. FailedPrecondition when `output_path` is the input file itself (any
// spelling, link included) and save_options.in_place is not set.
absl::StatusOr<Report> LegalizeFile(const std::string& input_path, const std::string& output_path,
                                    const Options& options, const SaveOptions& save_options = {});

// The report as a JSON document (stable key order, for tools and CI logs).
std::string ReportToJson(const Report& report);

// Every node whose op has no schema at the opset its model imports for the op's domain (DynamicSlice and
// the other removed experimental ops among them), for `--check`. Nodes of the main graph, of If/Loop/Scan
// bodies at any depth and of model-local functions are checked, in graph order (depth first).
//  - "" and "ai.onnx" are one domain. A node whose domain the model does not import is a finding.
//  - The op must have a schema at the imported opset: absent (removed or never existed), introduced only at
//    a later opset (Resize at 9), or deprecated there (Upsample at 10+) are findings.
//  - Domains onnx has no schemas for at all (com.microsoft, a vendor's) are not judged: their ops are not
//    removed ONNX ops, and only the runtime that defines them can say. Calls to model-local functions too.
// InvalidArgument when the opset imports themselves are malformed (a version < 1, one domain imported at
// two versions).
struct CheckFinding {
  std::string graph_path;  // as in NodeReport; "function:<domain>.<name>" for a model-local function body
  std::string node_name;
  std::string op_type;
  std::string domain;
  int64_t opset = 0;   // the opset the model imports for the node's domain; 0 when it imports none
  std::string reason;  // why the node has no schema, in a few words ("removed from onnx", ...)
  // Whether legalizing fixes it (a removed op onnx-legalize folds or rewrites), and how, in a few words;
  // "" when it cannot, and the model is refused.
  bool fixable = false;
  std::string fix;
  // The op has a schema at the opset, but the node does not match it (attributes, input or output counts):
  // a fault of the node, not a removed op. Legalizing passes such a node through as it is (it refuses a
  // result only where legalizing made a node mismatch).
  bool mismatches_schema = false;
};
// How the reason of a finding starts when the model is written as ONNX's first exporters wrote it (an implied
// opset, untyped attributes, nodes out of order, legacy attributes) and legalizing writes it as onnx reads it.
inline constexpr char kLegacyEraReasonPrefix[] = "written as ONNX's first exporters wrote it";
absl::StatusOr<std::vector<CheckFinding>> CheckModel(const onnx::ModelProto& model);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_
