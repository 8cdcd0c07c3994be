// The atomic part of saving: every file of a save (the model, its data files, the files it refers to) is
// written to a temporary beside its destination and fsync'ed, and all are renamed into place together, the
// model last, only once every one is complete. Whatever is not committed is removed, so a failure at any step
// leaves the destinations as they were.
#ifndef ONNX_LEGALIZE_SRC_IO_STAGING_H_
#define ONNX_LEGALIZE_SRC_IO_STAGING_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "io/external_folder.h"

namespace onnx_legalize {

// Temporaries staged beside their destinations and renamed over them together by Commit; whatever is not
// committed (temporaries, folders made for them) is removed when the Staging goes.
class Staging {
 public:
  Staging() = default;
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  ~Staging();

  // Creates an empty temporary for `target` and returns its descriptor, which the caller closes. Mode
  // 0666 lets the umask decide, as for any new file (mkstemp would force 0600); a file it replaces
  // lends it its permission bits, as editors do.
  absl::StatusOr<int> Create(const std::filesystem::path& target);

  // Stages `target` as the same bytes as `source` without copying them when the filesystem allows: a
  // reflink (a copy-on-write clone, a true copy) or else a hard link (the same file under a second
  // name). False when neither is possible; the caller copies then.
  bool TryShare(const ExternalFile& source, const std::filesystem::path& target);

  // Makes `folder` (and missing parents) exist; the ones made here are removed again unless committed.
  absl::Status MakeFolders(const std::filesystem::path& folder);

  // Renames every temporary over its destination in the order staged (the model last), then flushes
  // their folders. A rename does not fail for want of space or data; should one fail anyway, the
  // temporaries not yet renamed are removed.
  absl::Status Commit();

 private:
  struct Staged {
    std::string temp;
    std::filesystem::path target;
  };
  std::vector<Staged> staged_;
  std::vector<std::filesystem::path> created_folders_;
  bool committed_ = false;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_STAGING_H_
