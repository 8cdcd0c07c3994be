// The CI gate's formats for --check results, and the opset policy. See check_report.h.
//
// Rule ids come from CheckFinding::reason, whose leading words report/check.cc writes from a fixed set (one per
// rule of CheckModel); a reason this file does not know maps to "no-schema", so a new kind of finding is
// still reported, under a generic id, until it gets its own.
#include "onnx_legalize/check_report.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/status_macros.h"
#include "graph/ir_features.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "onnx_legalize/findings.h"
#include "report/text_escape.h"
#include "upgrade/opset_upgrade.h"

namespace onnx_legalize {
namespace {

constexpr char kTool[] = "onnx-legalize";
constexpr char kOpsetRule[] = "opset-out-of-range";

// How a node's finding of CheckOpsetPolicy starts, and its model finding about the IR version.
constexpr char kNoFormReasonPrefix[] = "no form at opset";
constexpr char kIrReasonPrefix[] = "IR version";

struct Rule {
  const char* id;
  const char* reason_prefix;  // how CheckFinding::reason starts for this rule; "" for the policy's
  const char* description;
};

// In SARIF's rules array in this order; ruleIndex points into it.
constexpr Rule kRules[] = {
    {"removed-experimental-op", "removed experimental op",
     "An experimental op onnx removed in 1.5 (DynamicSlice, ImageScaler, Crop, ...); onnx-legalize rewrites it."},
    {"unknown-op", "no schema in onnx", "The op has no schema in onnx at any opset: removed, or never defined."},
    {"op-newer-than-opset", "exists only from opset",
     "The op exists only from a later opset than the one the model imports."},
    {"deprecated-op", "deprecated since opset", "The op's schema at the imported opset is deprecated."},
    {"domain-not-imported", "the model imports no opset for domain",
     "The model imports no opset for the node's domain, so no runtime can resolve the op."},
    {kOpsetRule, "",
     "The model's default-domain opset is outside the range the policy allows (its min_opset and "
     "max_opset)."},
    {"removed-op-attributes", "written with the attributes of the removed",
     "The node is a removed experimental op under a name a later op took (MVN-1's attributes); onnx-legalize "
     "rewrites it."},
    {"schema-mismatch", "does not match the schema of",
     "The node does not match its op's schema at the imported opset (attributes, their types, input or output "
     "counts), so no runtime loads it."},
    {"legacy-era", kLegacyEraReasonPrefix,
     "The model is written as ONNX's first exporters wrote it (an opset it only implies, attributes without "
     "their type, nodes out of order, legacy attributes); onnx-legalize writes it as onnx reads it."},
    {"no-form-at-max-opset", kNoFormReasonPrefix,
     "The node has no form at the policy's max_opset: moving the model down there cannot keep it (its op did not "
     "exist yet, or changed in a way nothing moves back)."},
    {"ir-version-out-of-range", kIrReasonPrefix,
     "The model's IR version is above the policy's max_ir_version (a runtime reads the IR versions up to its own), "
     "and legalizing does not bring it there."},
    {"no-schema", "", "The op has no schema at the opset the model imports."},
};
constexpr size_t kPolicyRule = 5;
constexpr size_t kIrRule = 10;
static_assert(std::string_view(kRules[kIrRule].id) == "ir-version-out-of-range", "kIrRule indexes the IR's rule");
constexpr size_t kGenericRule = sizeof(kRules) / sizeof(kRules[0]) - 1;
static_assert(std::string_view(kRules[kPolicyRule].id) == kOpsetRule, "kPolicyRule indexes the policy's rule");
static_assert(std::string_view(kRules[kGenericRule].id) == "no-schema", "the generic rule comes last");

bool IsModelFinding(const CheckFinding& finding) { return finding.op_type.empty() && finding.graph_path.empty(); }

size_t RuleIndex(const CheckFinding& finding) {
  if (IsModelFinding(finding) && !absl::StartsWith(finding.reason, kLegacyEraReasonPrefix)) {
    return absl::StartsWith(finding.reason, kIrReasonPrefix) ? kIrRule : kPolicyRule;
  }
  for (size_t i = 0; i < kGenericRule; ++i) {
    if (kRules[i].reason_prefix[0] != '\0' && absl::StartsWith(finding.reason, kRules[i].reason_prefix)) return i;
  }
  return kGenericRule;
}

std::string Quoted(const std::string& name) {
  return name.empty() ? "(unnamed)" : absl::StrCat("'", EscapeForLine(name), "'");
}

// "main: node 'n' op DynamicSlice (domain ai.onnx, opset 9): removed ..." (the text after "FILE: ").
std::string FindingLine(const CheckFinding& f) {
  if (IsModelFinding(f)) {
    return absl::StrCat("model (domain ", EscapeForLine(f.domain), ", opset ", f.opset, "): ", EscapeForLine(f.reason),
                        f.fixable ? absl::StrCat("; onnx-legalize fixes it: ", f.fix) : std::string());
  }
  return absl::StrCat(EscapeForLine(f.graph_path), ": node ", Quoted(f.node_name), " op ", EscapeForLine(f.op_type),
                      " (domain ", EscapeForLine(f.domain), ", opset ", f.opset, "): ", EscapeForLine(f.reason), "; ",
                      f.fixable ? absl::StrCat("onnx-legalize fixes it: ", f.fix) : "onnx-legalize cannot fix it");
}

struct Totals {
  size_t findings = 0;
  size_t files_with_findings = 0;
  size_t errors = 0;
};

Totals Count(absl::Span<const CheckedFile> files) {
  Totals totals;
  for (const CheckedFile& file : files) {
    if (!file.status.ok()) ++totals.errors;
    totals.findings += file.findings.size();
    if (!file.findings.empty()) ++totals.files_with_findings;
  }
  return totals;
}

std::string Summary(absl::Span<const CheckedFile> files) {
  const Totals totals = Count(files);
  const char* files_word = files.size() == 1 ? " file" : " files";
  std::string text = totals.findings == 0
                         ? absl::StrCat("no findings in ", files.size(), files_word)
                         : absl::StrCat(totals.findings, totals.findings == 1 ? " finding in " : " findings in ",
                                        totals.files_with_findings, " of ", files.size(), files_word);
  if (totals.errors > 0) text.append(" (some could not be checked)");
  return text;
}

std::string FormatText(absl::Span<const CheckedFile> files) {
  std::string out;
  for (const CheckedFile& file : files) {
    if (file.findings.empty()) continue;
    const std::string path = EscapeForLine(file.path);
    for (const CheckFinding& finding : file.findings) {
      absl::StrAppend(&out, path, ": ", FindingLine(finding), "\n");
    }
  }
  absl::StrAppend(&out, Summary(files), "\n");
  return out;
}

// GitHub workflow commands: a message escapes %, CR and LF; a property value also ':' and ','.
// (EscapeForLine has already turned CR and LF into text.)
std::string GithubData(absl::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '%') {
      out.append("%25");
    } else if (c == '\r') {
      out.append("%0D");
    } else if (c == '\n') {
      out.append("%0A");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string GithubProperty(absl::string_view text) {
  std::string out;
  for (char c : GithubData(text)) {
    if (c == ':') {
      out.append("%3A");
    } else if (c == ',') {
      out.append("%2C");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string FormatGithub(absl::Span<const CheckedFile> files) {
  std::string out;
  for (const CheckedFile& file : files) {
    const std::string path = GithubProperty(EscapeForLine(file.path));
    if (!file.status.ok()) {
      absl::StrAppend(&out, "::error file=", path, ",title=", GithubProperty("onnx-legalize: unreadable model"),
                      "::", GithubData(EscapeForLine(file.status.message())), "\n");
    }
    for (const CheckFinding& finding : file.findings) {
      absl::StrAppend(&out, "::error file=", path,
                      ",title=", GithubProperty(absl::StrCat("onnx-legalize: ", kRules[RuleIndex(finding)].id)),
                      "::", GithubData(FindingLine(finding)), "\n");
    }
  }
  absl::StrAppend(&out, Summary(files), "\n");
  return out;
}

// ---------------------------------------------------------------------------------------------------
// JSON and SARIF: written by hand, two-space indentation, keys in a fixed order, like ReportToJson.

class JsonWriter {
 public:
  // Members and elements: `key` is "" inside an array.
  void Open(absl::string_view key, char bracket) {
    Prefix(key);
    out_.push_back(bracket);
    first_.push_back(true);
  }
  void Close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) {
      out_.push_back('\n');
      out_.append(2 * first_.size(), ' ');
    }
    out_.push_back(bracket);
  }
  void String(absl::string_view key, absl::string_view value) {
    Prefix(key);
    // ASCII needs no UTF-8 escaping (and most names are ASCII): no temporary then.
    const bool ascii = std::all_of(value.begin(), value.end(), [](char c) { return (c & 0x80) == 0; });
    AppendJsonString(ascii ? value : absl::string_view(EscapeInvalidUtf8(value)), out_);
  }
  void Int(absl::string_view key, int64_t value) {
    Prefix(key);
    absl::StrAppend(&out_, value);
  }
  void Bool(absl::string_view key, bool value) {
    Prefix(key);
    out_.append(value ? "true" : "false");
  }
  std::string Finish() {
    out_.push_back('\n');
    return std::move(out_);
  }

 private:
  void Prefix(absl::string_view key) {
    if (!first_.empty()) {
      out_.append(first_.back() ? "\n" : ",\n");
      first_.back() = false;
      out_.append(2 * first_.size(), ' ');
    }
    if (!key.empty()) {
      AppendJsonString(key, out_);
      out_.append(": ");
    }
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: no member written yet
};

void WriteFindingFields(const std::string& path, const CheckFinding& f, JsonWriter& json) {
  json.String("file", path);
  json.String("rule", kRules[RuleIndex(f)].id);
  json.String("graph_path", f.graph_path);
  json.String("node_name", f.node_name);
  json.String("op_type", f.op_type);
  json.String("domain", f.domain);
  json.Int("opset", f.opset);
  json.String("reason", f.reason);
  json.Bool("fixable", f.fixable);
  json.String("fix", f.fix);
}

std::string FormatJson(absl::Span<const CheckedFile> files) {
  JsonWriter json;
  json.Open("", '{');
  json.String("tool", kTool);
  json.String("version", ONNX_LEGALIZE_VERSION);
  json.Int("files_checked", static_cast<int64_t>(files.size()));
  json.Open("findings", '[');
  for (const CheckedFile& file : files) {
    for (const CheckFinding& finding : file.findings) {
      json.Open("", '{');
      WriteFindingFields(file.path, finding, json);
      json.Close('}');
    }
  }
  json.Close(']');
  json.Open("errors", '[');
  for (const CheckedFile& file : files) {
    if (file.status.ok()) continue;
    json.Open("", '{');
    json.String("file", file.path);
    json.String("code", absl::StatusCodeToString(file.status.code()));
    json.String("message", file.status.message());
    json.Close('}');
  }
  json.Close(']');
  json.Close('}');
  return json.Finish();
}

// A relative URI reference for a path (RFC 3986): unreserved characters and '/' as they are, every other
// byte percent-encoded (which also makes bytes that are not UTF-8 valid). Absolute paths become file URIs.
std::string PathUri(absl::string_view path) {
  std::string out = absl::StartsWith(path, "/") ? "file://" : "";
  while (absl::StartsWith(path, "./")) path.remove_prefix(2);
  for (char c : path) {
    const unsigned char u = static_cast<unsigned char>(c);
    const bool unreserved = (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u == '-' ||
                            u == '.' || u == '_' || u == '~' || u == '/';
    if (unreserved) {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "%%%02X", u);
    }
  }
  return out;
}

void WriteArtifactLocation(const std::string& path, JsonWriter& json) {
  json.Open("", '{');
  json.Open("physicalLocation", '{');
  json.Open("artifactLocation", '{');
  json.String("uri", PathUri(path));
  json.Close('}');
  json.Close('}');
}

// The SARIF run's tool: onnx-legalize and every rule it reports under.
void WriteSarifTool(JsonWriter& json) {
  json.Open("tool", '{');
  json.Open("driver", '{');
  json.String("name", kTool);
  json.String("version", ONNX_LEGALIZE_VERSION);
  json.Open("rules", '[');
  for (const Rule& rule : kRules) {
    json.Open("", '{');
    json.String("id", rule.id);
    json.Open("shortDescription", '{');
    json.String("text", rule.description);
    json.Close('}');
    json.Open("defaultConfiguration", '{');
    json.String("level", "error");
    json.Close('}');
    json.Close('}');
  }
  json.Close(']');
  json.Close('}');
  json.Close('}');
}

// The SARIF run's invocation: whether every file could be checked, and a notification per file that could not.
void WriteSarifInvocation(absl::Span<const CheckedFile> files, const Totals& totals, JsonWriter& json) {
  json.Open("invocations", '[');
  json.Open("", '{');
  json.Bool("executionSuccessful", totals.errors == 0);
  json.Open("toolExecutionNotifications", '[');
  for (const CheckedFile& file : files) {
    if (file.status.ok()) continue;
    json.Open("", '{');
    json.String("level", "error");
    json.Open("message", '{');
    json.String("text", file.status.message());
    json.Close('}');
    json.Open("locations", '[');
    WriteArtifactLocation(file.path, json);
    json.Close('}');
    json.Close(']');
    json.Close('}');
  }
  json.Close(']');
  json.Close('}');
  json.Close(']');
}

// One SARIF result: the finding's rule and line, located in its file and, logically, in the model.
void WriteSarifResult(const std::string& path, const CheckFinding& finding, JsonWriter& json) {
  const size_t rule = RuleIndex(finding);
  json.Open("", '{');
  json.String("ruleId", kRules[rule].id);
  json.Int("ruleIndex", static_cast<int64_t>(rule));
  json.String("level", "error");
  json.Open("message", '{');
  json.String("text", FindingLine(finding));
  json.Close('}');
  json.Open("locations", '[');
  WriteArtifactLocation(path, json);
  if (!IsModelFinding(finding)) {
    // Where in the model: graph path and node, as a logical location.
    json.Open("logicalLocations", '[');
    json.Open("", '{');
    json.String("fullyQualifiedName",
                absl::StrCat(finding.graph_path, "/", finding.node_name.empty() ? finding.op_type : finding.node_name));
    json.String("kind", "member");
    json.Close('}');
    json.Close(']');
  }
  json.Close('}');
  json.Close(']');
  json.Close('}');
}

std::string FormatSarif(absl::Span<const CheckedFile> files) {
  JsonWriter json;
  json.Open("", '{');
  json.String("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  json.String("version", "2.1.0");
  json.Open("runs", '[');
  json.Open("", '{');
  WriteSarifTool(json);
  WriteSarifInvocation(files, Count(files), json);
  json.Open("results", '[');
  for (const CheckedFile& file : files) {
    for (const CheckFinding& finding : file.findings) WriteSarifResult(file.path, finding, json);
  }
  json.Close(']');
  json.Close('}');
  json.Close(']');
  json.Close('}');
  return json.Finish();
}

// The model's finding when its default opset is outside the policy's range, and above max_opset one per node
// that has no form at max_opset.
absl::StatusOr<std::vector<CheckFinding>> OpsetFindings(const onnx::ModelProto& model, const OpsetPolicy& policy) {
  ASSIGN_OR_RETURN(const OpsetImports imports, ModelOpsetImports(model));
  auto default_import = imports.find(kDefaultDomain);
  if (!policy.min_opset.has_value() && !policy.max_opset.has_value()) return std::vector<CheckFinding>();

  CheckFinding finding;
  finding.domain = kDefaultDomainAlias;
  if (default_import == imports.end()) {
    finding.reason = "the model imports no default-domain opset; the policy requires one";
    return std::vector<CheckFinding>{finding};
  }
  const int64_t at = default_import->second;
  finding.opset = at;
  if (policy.min_opset.has_value() && at < *policy.min_opset) {
    finding.reason = absl::StrCat("default opset ", at, " is below the minimum ", *policy.min_opset, " (min_opset)");
    return std::vector<CheckFinding>{finding};
  }
  if (!policy.max_opset.has_value() || at <= *policy.max_opset) return std::vector<CheckFinding>();
  const int64_t max = *policy.max_opset;
  ASSIGN_OR_RETURN(const std::vector<NodeWithoutForm> without_form, NodesWithoutFormAt(model, max));
  finding.reason = absl::StrCat("default opset ", at, " is above the maximum ", max, " (max_opset)");
  // Each node is judged above as it stands; the move may still refuse one for what only shape inference of the whole
  // model knows (the rank of an input whose axis counts from the back): a move of a light copy says.
  const absl::Status moves = without_form.empty() ? TryMovingDown(model, max) : absl::OkStatus();
  if (!moves.ok()) {
    absl::StrAppend(&finding.reason, "; --target-opset=", max, " refuses it: ", moves.message());
  } else if (without_form.empty()) {
    finding.fixable = true;
    finding.fix = absl::StrCat("--target-opset=", max, " moves it down (every node has a form there), to IR version ",
                               IrVersionAfterMovingDown(model, max));
  } else {
    absl::StrAppend(&finding.reason, "; ", without_form.size(), without_form.size() == 1 ? " node has" : " nodes have",
                    " no form there");
  }
  std::vector<CheckFinding> findings = {finding};
  for (const NodeWithoutForm& node : without_form) {
    CheckFinding of_node;
    of_node.graph_path = node.graph_path;
    of_node.node_name = node.node_name;
    of_node.op_type = node.op_type;
    of_node.domain = kDefaultDomainAlias;
    of_node.opset = at;
    of_node.reason = absl::StrCat(kNoFormReasonPrefix, " ", max, ": ", node.why, "; the lowest opset it can go to is ",
                                  node.lowest_opset);
    findings.push_back(std::move(of_node));
  }
  return findings;
}

// The model's finding when its IR version is above the policy's max_ir_version and stays there: a move down that
// fixes the opset also lowers the IR (graph/ir_features.h), and where that brings it within, the opset's finding
// says so.
std::optional<CheckFinding> IrFinding(const onnx::ModelProto& model, const OpsetPolicy& policy,
                                      const std::vector<CheckFinding>& opset_findings) {
  if (!policy.max_ir_version.has_value() || model.ir_version() <= *policy.max_ir_version) return std::nullopt;
  const int64_t max = *policy.max_ir_version;
  const bool moves_down = !opset_findings.empty() && opset_findings.front().fixable && policy.max_opset.has_value();
  if (moves_down && IrVersionAfterMovingDown(model, *policy.max_opset) <= max) return std::nullopt;
  CheckFinding finding;
  finding.domain = kDefaultDomainAlias;
  finding.opset = opset_findings.empty() ? 0 : opset_findings.front().opset;
  if (finding.opset == 0) {
    absl::StatusOr<int64_t> opset = DefaultOpset(model);
    finding.opset = opset.ok() ? *opset : 0;
  }
  const int64_t needed = IrVersionItsContentsNeed(model);
  finding.reason =
      absl::StrCat(kIrReasonPrefix, " ", model.ir_version(), " is above the maximum ", max, " (max_ir_version); ");
  if (needed > max) {
    absl::StrAppend(&finding.reason, "what the model holds needs IR version ", needed);
  } else if (moves_down) {
    absl::StrAppend(&finding.reason, "moved down to opset ", *policy.max_opset, " it keeps IR version ",
                    IrVersionAfterMovingDown(model, *policy.max_opset));
  } else {
    absl::StrAppend(&finding.reason,
                    "onnx-legalize lowers the IR version only where it moves a model down, and this one's opset is "
                    "within the range");
  }
  return finding;
}

}  // namespace

absl::StatusOr<std::vector<CheckFinding>> CheckOpsetPolicy(const onnx::ModelProto& model, const OpsetPolicy& policy) {
  ASSIGN_OR_RETURN(std::vector<CheckFinding> findings, OpsetFindings(model, policy));
  if (std::optional<CheckFinding> ir = IrFinding(model, policy, findings)) {
    findings.insert(findings.begin() + (findings.empty() ? 0 : 1), *std::move(ir));
  }
  return findings;
}

std::string CheckFindingRule(const CheckFinding& finding) { return kRules[RuleIndex(finding)].id; }

std::optional<CheckFormat> ParseCheckFormat(absl::string_view name) {
  if (name == "text") return CheckFormat::kText;
  if (name == "json") return CheckFormat::kJson;
  if (name == "sarif") return CheckFormat::kSarif;
  if (name == "github") return CheckFormat::kGithub;
  return std::nullopt;
}

std::string FormatCheckResults(absl::Span<const CheckedFile> files, CheckFormat format) {
  switch (format) {
    case CheckFormat::kText: return FormatText(files);
    case CheckFormat::kJson: return FormatJson(files);
    case CheckFormat::kSarif: return FormatSarif(files);
    case CheckFormat::kGithub: return FormatGithub(files);
  }
  return FormatText(files);  // Not reachable for a valid enum value.
}

}  // namespace onnx_legalize
