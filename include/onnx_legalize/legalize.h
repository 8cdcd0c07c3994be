// onnx-legalize: makes legacy ONNX models that hold the removed experimental operator DynamicSlice legal.
//
// Every DynamicSlice (main graph and If/Loop/Scan bodies at any depth) is either folded into an initializer,
// when its inputs are constants, or rewritten into a standard Slice (opset 10+), with the rest of the model
// moved to that opset. Each change is proved by executing both forms and comparing them bit for bit.
//
// Errors are absl::Status values; no exception leaves the library.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The opsets onnx-legalize can target: Slice-10 is the first Slice that takes its indices as inputs, and
// onnx 1.12 (the version converter this library uses) knows default opsets up to 17.
inline constexpr int64_t kMinTargetOpset = 10;
inline constexpr int64_t kMaxTargetOpset = 17;

// Reads the bytes of tensors stored as external data (data_location EXTERNAL; the external_data keys
// location, offset and length say where). OpenExternalData gives one for a model file; tests and callers
// with their own storage implement it.
class ExternalDataReader {
 public:
  virtual ~ExternalDataReader() = default;
  // `tensor`'s external bytes: exactly what its raw_data would hold. Errors name the tensor and the file.
  virtual absl::StatusOr<std::string> Read(const onnx::TensorProto& tensor) const = 0;
};

struct Options {
  // Largest folded output, in bytes. A DynamicSlice whose constant result is bigger is rewritten instead,
  // so a hostile or huge model cannot make the folder allocate without bound. Checked before allocation.
  int64_t max_fold_bytes = int64_t{64} << 20;

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

  // Reads initializers (and Constant values) stored as external data, only when a fold needs their
  // values; not owned, and must outlive the Legalize call. Null: the library reads no files, so such a
  // tensor is not a constant (its DynamicSlice is rewritten, and the report's detail says why); its type
  // and dims are still known. LegalizeFile sets it to the input's OpenExternalData.
  const ExternalDataReader* external_data = nullptr;
};

// What was done to one DynamicSlice.
enum class Action {
  kFolded,     // replaced by an initializer holding its value
  kRewritten,  // replaced by a standard Slice node
};

struct NodeReport {
  std::string graph_path;  // "main", "main/loop_body", ... (graph names joined by '/')
  std::string node_name;   // the node's name; "" when the model gave it none
  std::string output;      // the node's output name, which identifies it when it has no name
  Action action = Action::kFolded;
  int64_t slice_version = 0;  // for kRewritten: the Slice version it became (1 with keep_opset, else 10+)
  std::string detail;         // why this action, in a few words
  std::string verification;   // what verification ran and its result, or "skipped (--no-verify)"
};

struct Report {
  int64_t opset_before = 0;  // default-domain opset
  int64_t opset_after = 0;
  int64_t ir_version_before = 0;
  int64_t ir_version_after = 0;
  std::vector<NodeReport> nodes;  // one per DynamicSlice found, in graph order (depth first)
  bool changed = false;           // false when the model held no DynamicSlice
  std::string onnx_check;         // what onnx's checker and strict shape inference said of the result
};

// Legalizes `model` in place. Transactional: on any error `model` is left exactly as it was.
absl::StatusOr<Report> Legalize(onnx::ModelProto& model, const Options& options);

// Reads a model file; NotFound when it does not exist, InvalidArgument naming the path when it is not a
// valid ModelProto (empty, truncated, garbage, a directory, over protobuf's 2 GiB limit); other I/O errors
// carry the code of their errno. Tensors stored as external data are not read: their entries are kept.
absl::StatusOr<onnx::ModelProto> LoadModel(const std::string& path);

// Writes `model` to `path` atomically: a temporary file beside it, fsync'ed, then renamed over it, and the
// folder fsync'ed. On failure the temporary is removed and no file at `path` is created or changed. The
// bytes are deterministic (the same model gives the same file); a replaced file keeps its permissions.
absl::Status SaveModel(const onnx::ModelProto& model, const std::string& path);

// Loads `input_path`, legalizes, verifies and saves to `output_path`; writes nothing on failure.
// FailedPrecondition when `output_path` is the input file itself (any spelling, link included).
absl::StatusOr<Report> LegalizeFile(const std::string& input_path, const std::string& output_path,
                                    const Options& options);

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
};
absl::StatusOr<std::vector<CheckFinding>> CheckModel(const onnx::ModelProto& model);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_H_
