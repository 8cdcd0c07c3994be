// ReportToJson: the Report as a JSON document for tools and CI logs.
//
// The text is fully determined by the Report: keys come in a fixed order ("changed", the one-glance answer,
// first; then the other fields in the order the structs declare them, the node list last), two-space
// indentation, one trailing newline. The proof's "seconds" is the one member that varies from run to run (a
// wall time); every other follows from the model and the options. Shape:
//   {
//     "changed": true,
//     "opset_before": 9,
//     ...
//     "nodes": [
//       {
//         "graph_path": "main",
//         ...
//       }
//     ]
//   }
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "onnx_legalize/report.h"
#include "report/text_escape.h"

namespace onnx_legalize {
namespace {

absl::string_view ActionName(Action action) {
  switch (action) {
    case Action::kFolded: return "folded";
    case Action::kRewritten: return "rewritten";
  }
  return "unknown";  // Not reachable for a valid enum value.
}

// Appends `"key": ` at `indent`, preceded by a comma and newline unless it is the first member.
void AppendKey(absl::string_view key, int indent, bool& first, std::string& out) {
  out.append(first ? "\n" : ",\n");
  first = false;
  out.append(indent, ' ');
  AppendJsonString(key, out);
  out.append(": ");
}

void AppendMember(absl::string_view key, absl::string_view value, int indent, bool& first, std::string& out) {
  AppendKey(key, indent, first, out);
  AppendJsonString(value, out);
}

void AppendMember(absl::string_view key, int64_t value, int indent, bool& first, std::string& out) {
  AppendKey(key, indent, first, out);
  absl::StrAppend(&out, value);
}

void AppendBoolMember(absl::string_view key, bool value, int indent, bool& first, std::string& out) {
  AppendKey(key, indent, first, out);
  out.append(value ? "true" : "false");
}

// The proof's counts as an object. Seconds as a decimal with millisecond resolution: the proof's own timing
// is no finer, and a fixed format keeps the document free of exponents.
void AppendOpsetMoveProof(const OpsetMoveProof& proof, std::string& out) {
  constexpr int kIndent = 4;
  out.append("{");
  bool first = true;
  AppendBoolMember("executed", proof.executed, kIndent, first, out);
  AppendMember("input_sets", proof.input_sets, kIndent, first, out);
  AppendMember("nodes_executed", proof.nodes_executed, kIndent, first, out);
  AppendMember("nodes_shared", proof.nodes_shared, kIndent, first, out);
  AppendMember("nodes_skipped", proof.nodes_skipped, kIndent, first, out);
  AppendMember("work", proof.work, kIndent, first, out);
  AppendKey("seconds", kIndent, first, out);
  // Negative, infinite or NaN only from a broken clock; JSON has no NaN or infinity, so they read as 0.
  const double seconds = std::isfinite(proof.seconds) && proof.seconds > 0 ? proof.seconds : 0.0;
  absl::StrAppend(&out, absl::StrFormat("%.3f", seconds));
  AppendMember("why_not", proof.why_not, kIndent, first, out);
  out.append("\n  }");
}

// `items` as an array of objects at the document's second level ("[]" when it is empty), each object's members
// written by `members(item, first)` with AppendMember at indent 6.
template <typename Item, typename Members>
void AppendObjectArray(const std::vector<Item>& items, const Members& members, std::string& out) {
  if (items.empty()) out.append("[]");
  for (size_t i = 0; i < items.size(); ++i) {
    out.append(i == 0 ? "[\n    {" : ",\n    {");
    bool first = true;
    members(items[i], first);
    out.append(i + 1 == items.size() ? "\n    }\n  ]" : "\n    }");
  }
}

void AppendNode(const NodeReport& node, std::string& out) {
  constexpr int kIndent = 6;
  out.append("    {");
  bool first = true;
  AppendMember("op_type", node.op_type, kIndent, first, out);
  AppendMember("graph_path", node.graph_path, kIndent, first, out);
  AppendMember("node_name", node.node_name, kIndent, first, out);
  AppendMember("output", node.output, kIndent, first, out);
  AppendMember("action", ActionName(node.action), kIndent, first, out);
  AppendMember("slice_version", node.slice_version, kIndent, first, out);
  AppendMember("became", node.became, kIndent, first, out);
  AppendMember("detail", node.detail, kIndent, first, out);
  AppendMember("verification", node.verification, kIndent, first, out);
  out.append("\n    }");
}

}  // namespace

std::string ReportToJson(const Report& report) {
  constexpr int kIndent = 2;
  std::string out = "{";
  bool first = true;
  AppendBoolMember("changed", report.changed, kIndent, first, out);
  AppendMember("opset_before", report.opset_before, kIndent, first, out);
  AppendMember("opset_after", report.opset_after, kIndent, first, out);
  AppendMember("ir_version_before", report.ir_version_before, kIndent, first, out);
  AppendMember("ir_version_after", report.ir_version_after, kIndent, first, out);
  AppendMember("onnx_check", report.onnx_check, kIndent, first, out);
  AppendMember("opset_move", report.opset_move, kIndent, first, out);
  AppendKey("opset_move_proof", kIndent, first, out);
  AppendOpsetMoveProof(report.opset_move_proof, out);
  AppendKey("opset_move_changes", kIndent, first, out);
  AppendObjectArray(
      report.opset_move_changes,
      [&out](const OpsetMoveChange& change, bool& first_field) {
        AppendMember("op_type", change.op_type, 6, first_field, out);
        AppendMember("version_before", change.version_before, 6, first_field, out);
        AppendMember("op_type_after", change.op_type_after, 6, first_field, out);
        AppendMember("version_after", change.version_after, 6, first_field, out);
        AppendMember("how", change.how, 6, first_field, out);
        AppendMember("nodes", change.nodes, 6, first_field, out);
        AppendMember("first", change.first, 6, first_field, out);
      },
      out);
  AppendKey("legacy_repairs", kIndent, first, out);
  if (report.legacy_repairs.empty()) out.append("[]");
  for (size_t i = 0; i < report.legacy_repairs.size(); ++i) {
    out.append(i == 0 ? "[\n    " : ",\n    ");
    AppendJsonString(report.legacy_repairs[i], out);
    if (i + 1 == report.legacy_repairs.size()) out.append("\n  ]");
  }
  AppendKey("interface_changes", kIndent, first, out);
  AppendObjectArray(
      report.interface_changes,
      [&out](const InterfaceChange& change, bool& first_field) {
        AppendMember("value", change.value, 6, first_field, out);
        AppendMember("before", change.before, 6, first_field, out);
        AppendMember("after", change.after, 6, first_field, out);
        AppendMember("why", change.why, 6, first_field, out);
      },
      out);
  AppendKey("targets_passed_over", kIndent, first, out);
  AppendObjectArray(
      report.targets_passed_over,
      [&out](const PassedOverTarget& passed, bool& first_field) {
        AppendMember("opset", passed.opset, 6, first_field, out);
        AppendMember("reason", passed.reason, 6, first_field, out);
      },
      out);
  AppendKey("nodes", kIndent, first, out);
  if (report.nodes.empty()) {
    out.append("[]");
  } else {
    out.append("[\n");
    for (size_t i = 0; i < report.nodes.size(); ++i) {
      if (i > 0) out.append(",\n");
      AppendNode(report.nodes[i], out);
    }
    out.append("\n  ]");
  }
  out.append("\n}\n");
  return out;
}

}  // namespace onnx_legalize
