#include "report/text_escape.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace onnx_legalize {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7F; }

// Which control characters are escaped: none, all, or all but the line breaks and tabs of a message's own layout.
enum class Controls { kKept, kEscaped, kEscapedButLayout };

bool Escapes(Controls controls, unsigned char c) {
  if (!IsControl(c) || controls == Controls::kKept) return false;
  return controls == Controls::kEscaped || (c != '\n' && c != '\t');
}

void AppendEscaped(absl::string_view text, Controls controls, std::string& out) {
  // Most names are printable ASCII: one scan, one append.
  const bool plain = std::all_of(text.begin(), text.end(), [controls](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u < 0x80 && !Escapes(controls, u);
  });
  if (plain) {
    out.append(text.data(), text.size());
    return;
  }
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t length = ValidUtf8SequenceLength(text.substr(i));
      if (length == 0) {
        absl::StrAppendFormat(&out, "\\x%02X", c);
        ++i;
      } else {
        out.append(text.data() + i, length);
        i += length;
      }
      continue;
    }
    if (Escapes(controls, c)) {
      absl::StrAppendFormat(&out, "\\x%02X", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
    ++i;
  }
}

}  // namespace

size_t ValidUtf8SequenceLength(absl::string_view s) {
  if (s.empty()) return 0;
  const auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
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

void AppendEscapedInvalidUtf8(absl::string_view text, std::string& out) { AppendEscaped(text, Controls::kKept, out); }

void AppendEscapedForLine(absl::string_view text, std::string& out) { AppendEscaped(text, Controls::kEscaped, out); }

std::string EscapeInvalidUtf8(absl::string_view text) {
  std::string out;
  AppendEscapedInvalidUtf8(text, out);
  return out;
}

std::string EscapeForTerminal(absl::string_view text) {
  std::string out;
  AppendEscaped(text, Controls::kEscapedButLayout, out);
  return out;
}

std::string EscapeForLine(absl::string_view text) {
  std::string out;
  AppendEscapedForLine(text, out);
  return out;
}

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
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        if (IsControl(c)) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

}  // namespace onnx_legalize
