// Text taken from a model (names, op types, paths) made safe to print: protobuf does not hold string
// fields to UTF-8, so a node name may be any bytes, and a report or a log line must stay valid UTF-8.
#ifndef ONNX_LEGALIZE_SRC_REPORT_TEXT_ESCAPE_H_
#define ONNX_LEGALIZE_SRC_REPORT_TEXT_ESCAPE_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "onnx_legalize/check_report.h"

namespace onnx_legalize {

// Length of the well-formed UTF-8 sequence at the start of `s`, or 0 when it is not one (a stray
// continuation byte, a truncated sequence, an overlong form, a surrogate, or beyond U+10FFFF; RFC 3629).
size_t ValidUtf8SequenceLength(absl::string_view s);

// EscapeInvalidUtf8 (every byte not part of well-formed UTF-8 written as "\xNN", uppercase hex; for JSON,
// which escapes control characters itself) is public: onnx_legalize/check_report.h.

// EscapeInvalidUtf8, and control characters (below U+0020, and U+007F) written as "\xNN" too: for
// line-oriented output, where a newline in a name would start a line of its own.
std::string EscapeForLine(absl::string_view text);

// EscapeForTerminal (EscapeForLine but for the line breaks and tabs of a message's own layout, onnx's
// "==> Context:" lines) is public too: onnx_legalize/check_report.h.

// The same two, appended to `out` (no temporary string: a report of 100,000 findings formats fast).
void AppendEscapedInvalidUtf8(absl::string_view text, std::string& out);
void AppendEscapedForLine(absl::string_view text, std::string& out);

// Appends `text` as a JSON string literal: quotes, backslashes and control characters escaped. `text`
// must be well-formed UTF-8 (an ill-formed byte becomes U+FFFD, so the document stays valid whatever).
void AppendJsonString(absl::string_view text, std::string& out);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_REPORT_TEXT_ESCAPE_H_
