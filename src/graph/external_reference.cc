#include "graph/external_reference.h"

#include <filesystem>
#include <limits>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace onnx_legalize {
namespace {

// A non-negative decimal integer that fits int64, as onnx writes offsets and lengths (str(int)).
std::optional<int64_t> ParseNonNegative(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

absl::StatusOr<ExternalDataRef> ParseExternalDataRef(const onnx::TensorProto& tensor, absl::string_view what) {
  ExternalDataRef ref;
  bool has_location = false;
  std::set<std::string> seen;
  for (const auto& entry : tensor.external_data()) {
    if (!seen.insert(entry.key()).second) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": external_data has the key '", entry.key(), "' twice"));
    }
    if (entry.key() == kLocationKey) {
      has_location = true;
      ref.location = entry.value();
    } else if (entry.key() == kOffsetKey || entry.key() == kLengthKey) {
      std::optional<int64_t> value = ParseNonNegative(entry.value());
      if (!value.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(what, ": external_data ", entry.key(), " '", entry.value(),
                                                       "' is not a non-negative decimal integer"));
      }
      if (entry.key() == kOffsetKey) {
        ref.offset = *value;
      } else {
        ref.length = *value;
      }
    }
    // Other keys (checksum, and any a newer writer adds) say nothing about where the bytes are.
  }
  if (!has_location || ref.location.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": data_location is EXTERNAL but external_data has no ",
                                                   has_location ? "non-empty " : "", "location"));
  }
  if (ref.location.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": external data location contains a NUL byte"));
  }
  const std::filesystem::path location(ref.location);
  if (location.is_absolute()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": external data location '", ref.location,
                                                   "' is absolute; it must be relative to the model's folder"));
  }
  const std::filesystem::path normal = location.lexically_normal();
  if (normal.empty() || normal == "." || *normal.begin() == "..") {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": external data location '", ref.location, "' leaves the model's folder"));
  }
  return ref;
}

}  // namespace onnx_legalize
