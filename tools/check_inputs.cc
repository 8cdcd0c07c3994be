#include "check_inputs.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace onnx_legalize::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kModelSuffix[] = ".onnx";

absl::Status ListingError(const fs::path& folder, const std::error_code& error) {
  return absl::Status(absl::ErrnoToStatusCode(error.value()),
                      absl::StrCat("cannot list folder '", folder.string(), "': ", error.message()));
}

// True when `path` (canonical) is `root` (canonical) or below it.
bool IsInside(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

// Appends the *.onnx files below `folder` to `found`; folders that cannot be listed become errors.
void Walk(const fs::path& folder, const fs::path& canonical_root, std::vector<CheckInput>& found) {
  std::error_code error;
  fs::directory_iterator it(folder, error);
  if (error) {
    found.push_back({folder.string(), ListingError(folder, error)});
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    std::error_code status_error;
    const fs::file_status link_status = it->symlink_status(status_error);
    if (status_error) continue;  // vanished since it was listed
    const bool named_as_model = absl::EndsWith(path.filename().string(), kModelSuffix);
    if (fs::is_symlink(link_status)) {
      if (!named_as_model) continue;  // links to folders are never followed
      std::error_code target_error;
      const fs::path target = fs::canonical(path, target_error);
      if (target_error || !IsInside(target, canonical_root) || !fs::is_regular_file(target, target_error)) {
        continue;  // dangling, or leading out of the tree
      }
      found.push_back({path.string(), absl::OkStatus()});
    } else if (fs::is_directory(link_status)) {
      Walk(path, canonical_root, found);
    } else if (fs::is_regular_file(link_status) && named_as_model) {
      found.push_back({path.string(), absl::OkStatus()});
    }
  }
  if (error) found.push_back({folder.string(), ListingError(folder, error)});
}

}  // namespace

std::vector<CheckInput> ExpandCheckPaths(const std::vector<std::string>& arguments) {
  std::vector<CheckInput> inputs;
  for (const std::string& argument : arguments) {
    std::error_code error;
    if (!fs::is_directory(argument, error)) {
      inputs.push_back({argument, absl::OkStatus()});
      continue;
    }
    const fs::path canonical_root = fs::canonical(argument, error);
    if (error) {
      inputs.push_back({argument, ListingError(argument, error)});
      continue;
    }
    std::vector<CheckInput> found;
    Walk(fs::path(argument), canonical_root, found);
    std::sort(found.begin(), found.end(), [](const CheckInput& a, const CheckInput& b) { return a.path < b.path; });
    inputs.insert(inputs.end(), found.begin(), found.end());
  }
  return inputs;
}

}  // namespace onnx_legalize::cli
