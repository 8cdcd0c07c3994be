#include "io/leftover_temporaries.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace onnx_legalize {
namespace {

namespace fs = std::filesystem;

constexpr char kMarker[] = ".tmp-";
constexpr size_t kMarkerSize = sizeof(kMarker) - 1;

bool IsDigits(absl::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsLowerHex(absl::string_view text) {
  for (const char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

bool ProcessIsGone(int pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

// Whether this process has looked at `folder` already (and notes that it has now).
bool FirstLookAt(const fs::path& folder) {
  static std::mutex mutex;
  static auto* looked_at = new std::set<std::string>();
  const std::lock_guard<std::mutex> lock(mutex);
  return looked_at->insert(folder.lexically_normal().string()).second;
}

}  // namespace

std::string TemporaryName(const fs::path& target, int pid, uint64_t counter, uint64_t random) {
  return absl::StrFormat(".%s%s%d-%d-%016x", target.filename().string().substr(0, 160), kMarker, pid, counter, random);
}

std::optional<int> TemporaryMaker(const std::string& file_name) {
  const size_t marker = file_name.rfind(kMarker);
  // A leading dot and a name of at least one byte before the marker.
  if (file_name.size() < 2 || file_name[0] != '.' || marker == std::string::npos || marker < 2) return std::nullopt;
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(file_name).substr(marker + kMarkerSize), '-');
  int pid = 0;
  if (fields.size() != 3 || !IsDigits(fields[0]) || !IsDigits(fields[1]) || fields[2].size() != 16 ||
      !IsLowerHex(fields[2]) || !absl::SimpleAtoi(fields[0], &pid)) {
    return std::nullopt;
  }
  return pid;
}

void RemoveLeftoverTemporaries(const fs::path& destination) {
  const fs::path folder = destination.parent_path().empty() ? fs::path(".") : destination.parent_path();
  if (!FirstLookAt(folder)) return;
  // An unreadable or missing folder has none (writing there fails on its own, with its own message).
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::optional<int> pid = TemporaryMaker(it->path().filename().string());
    std::error_code type_ec;
    if (pid.has_value() && it->is_regular_file(type_ec) && ProcessIsGone(*pid)) ::unlink(it->path().c_str());
  }
}

}  // namespace onnx_legalize
