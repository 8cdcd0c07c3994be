// The folder a model's external data locations resolve against, for loading (each reference checked, then
// read) and saving (data files read to be copied or repacked beside the output).
//
// A location resolves against the folder and must stay inside it: no absolute path, no "..", no symbolic link
// pointing out (the resolved path is canonical and compared component by component); the file must exist and
// be a regular file, and a reference's offset and length must lie within it. Resolving uses stat only; opening
// does not follow a final symbolic link and must find the very file (device, inode) that was resolved, so a
// file swapped in between cannot redirect a read outside the folder.
#ifndef ONNX_LEGALIZE_SRC_IO_EXTERNAL_FOLDER_H_
#define ONNX_LEGALIZE_SRC_IO_EXTERNAL_FOLDER_H_

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "io/external_data.h"

namespace onnx_legalize {

// A file an external reference resolved to, as stat saw it.
struct ExternalFile {
  std::filesystem::path path;  // canonical, inside the folder
  dev_t device = 0;
  ino_t inode = 0;
  int64_t size = 0;
};

// Where a path lies relative to a folder, both canonical (absolute, no symbolic links, no "." or ".."): their
// components then compare exactly. A trailing separator is no component.
enum class PlaceInFolder {
  kOutside,
  kTheFolderItself,
  kInside,  // strictly below it
};
PlaceInFolder PlaceOf(const std::filesystem::path& path, const std::filesystem::path& folder);

// A folder external data locations resolve against.
class ExternalFolder {
 public:
  // The folder of the model file at `model_path`.
  static absl::StatusOr<ExternalFolder> OfModel(const std::string& model_path);

  static absl::StatusOr<ExternalFolder> At(const std::filesystem::path& folder);

  const std::filesystem::path& path() const { return folder_; }

  // True when `path`, canonical, lies strictly inside the folder (PlaceOf).
  bool Holds(const std::filesystem::path& path) const { return PlaceOf(path, folder_) == PlaceInFolder::kInside; }

  // Resolves `location` (stat only; reads nothing). Errors start with `what` and name the path.
  absl::StatusOr<ExternalFile> Resolve(const std::string& location, absl::string_view what) const;

  // The number of bytes `ref` names in `file`; InvalidArgument when its range does not lie within it.
  static absl::StatusOr<int64_t> RangeLength(const ExternalDataRef& ref, const ExternalFile& file,
                                             absl::string_view what);

  // Opens `file` for reading. It must still be the file Resolve saw: a final symbolic link is not
  // followed, and the descriptor's device and inode must match, so nothing else is ever read.
  static absl::StatusOr<int> Open(const ExternalFile& file, absl::string_view what);

 private:
  explicit ExternalFolder(std::filesystem::path folder) : folder_(std::move(folder)) {}
  std::filesystem::path folder_;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_EXTERNAL_FOLDER_H_
