// ReportToJson: the Report as a JSON document for tools and CI logs.
//
// The text is fully determined by the Report: keys come in a fixed order ("changed", the one-glance answer,
// first; then the other fields in the order the structs declare them, the node list last), two-space
// indentation, one trailing newline. Shape:
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
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {
namespace {

absl::string_view ActionName(Action action) {
  switch (action) {
    case Action::kFolded:
      return "folded";
    case Action::kRewritten:
      return "rewritten";
  }
  return "unknown";  // Not reachable for a valid enum value.
}

// Length of the well-formed UTF-8 sequence at the start of `s`, or 0 when it is not one (a stray
// continuation byte, a truncated sequence, an overlong form, a surrogate, or beyond U+10FFFF).
size_t ValidUtf8SequenceLength(absl::string_view s) {
  const auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  size_t length;
  unsigned char min_second = 0x80, max_second = 0xBF;  // Ranges from RFC 3629's UTF8-2..UTF8-4.
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) min_second = 0xA0;  // overlong
    if (lead == 0xED) max_second = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) min_second = 0x90;  // overlong
    if (lead == 0xF4) max_second = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  if (byte(1) < min_second || byte(1) > max_second) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

// A JSON string literal for `text`. Quotes, backslashes and control characters are escaped; well-formed
// UTF-8 passes through unchanged. Names come from the model, where protobuf does not enforce UTF-8, so an
// ill-formed byte becomes U+FFFD: the document stays valid JSON whatever the model holds.
void AppendJsonString(absl::string_view text, std::string& out) {
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t length = ValidUtf8SequenceLength(text.substr(i));
      if (length == 0) {
        out.append("\\ufffd");
        ++i;
      } else {
        out.append(text.data() + i, length);
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
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
