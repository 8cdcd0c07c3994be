// onnx-legalize as a CI gate: an opset policy beside CheckModel, and the findings of many model files in
// the formats CI systems read (`onnx-legalize --check --format=...`).
//
// Every format is valid UTF-8 whatever the models hold: a byte of a name or path that is not part of
// well-formed UTF-8 is written as "\xNN"; the line formats (text, github) write control characters so too,
// so that one finding is one line.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_CHECK_REPORT_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_CHECK_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/findings.h"

namespace onnx_legalize {

// The default-domain opsets and the IR versions a deployment's runtime supports. Unset bounds are open.
struct OpsetPolicy {
  std::optional<int64_t> min_opset;
  std::optional<int64_t> max_opset;
  std::optional<int64_t> max_ir_version;
};

// The policy of a runtime release whose limits are documented and were measured here, by name
// ("onnxruntime-1.10", ...; report/runtime_profiles.cc cites each); nullopt for a name it does not know.
std::optional<OpsetPolicy> RuntimeProfile(absl::string_view name);

// The names RuntimeProfile knows, in release order.
std::vector<std::string> RuntimeProfileNames();

// What keeps `model` out of `policy`'s range, first a finding about the whole model (graph_path "", no node, op or
// name) when its default-domain opset is outside the range, or when it imports none and the policy has a bound.
// Above max_opset, the model's finding says whether legalizing moves it down there (fixable, fix: every node has a
// form at max_opset, and the IR version the move writes), and a finding follows for each default-domain node that
// has none (rule no-form-at-max-opset: why, and the lowest opset the node can go to), in graph order. Above
// max_ir_version, a second model finding (rule ir-version-out-of-range) says why, unless the move down that fixes the
// opset also lowers the IR version within it. Empty when the model is within the policy.
// InvalidArgument when the model imports the default domain twice at different opsets.
absl::StatusOr<std::vector<CheckFinding>> CheckOpsetPolicy(const onnx::ModelProto& model, const OpsetPolicy& policy);

// A short, stable id for the kind of a finding, for SARIF's ruleId and JSON's "rule":
//   removed-experimental-op  DynamicSlice: onnx-legalize rewrites it
//   unknown-op               no schema in onnx at any opset (removed, or never defined)
//   op-newer-than-opset      the op exists only from a later opset than the model imports
//   deprecated-op            the op's schema at the imported opset is deprecated
//   domain-not-imported      the model imports no opset for the node's domain
//   opset-out-of-range       CheckOpsetPolicy's finding about the whole model
//   no-form-at-max-opset     CheckOpsetPolicy's finding about a node a move down to max_opset cannot keep
//   ir-version-out-of-range  CheckOpsetPolicy's finding about a model whose IR version stays above max_ir_version
std::string CheckFindingRule(const CheckFinding& finding);

// What checking one file gave: its findings, or why it could not be read or checked.
struct CheckedFile {
  std::string path;                    // as the user named it (or as found below a named folder)
  absl::Status status;                 // not OK: the file could not be read or checked; its message says why
  std::vector<CheckFinding> findings;  // empty when !status.ok()
};

enum class CheckFormat {
  kText,    // one line per finding, then a summary line; errors are not included (the CLI prints them to
            // stderr)
  kJson,    // one document: {"tool", "version", "files_checked", "findings": [...], "errors": [...]}
  kSarif,   // SARIF 2.1.0: one run, tool driver onnx-legalize, a rule per kind, the file as artifact
  kGithub,  // GitHub Actions workflow commands (::error file=...::...), one per finding and error, then a
            // summary line
};

// `text` with every byte that is not part of well-formed UTF-8 written as "\xNN": for messages (a Status's
// message may quote a model's names) that must be valid UTF-8.
std::string EscapeInvalidUtf8(absl::string_view text);

// EscapeInvalidUtf8, and control characters but line breaks and tabs (NUL, ESC, CR, ...) written as "\xNN"
// too: for a message printed to a terminal, where a name must not bring its own escape sequences or NUL bytes.
std::string EscapeForTerminal(absl::string_view text);

// "text", "json", "sarif", "github"; nullopt for anything else.
std::optional<CheckFormat> ParseCheckFormat(absl::string_view name);

// The results of checking `files` (in the order given) in `format`. Deterministic: the same results give
// the same bytes.
std::string FormatCheckResults(absl::Span<const CheckedFile> files, CheckFormat format);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_CHECK_REPORT_H_
