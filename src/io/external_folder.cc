// The folder external data locations resolve against: resolving (stat only), ranges, opening the file that
// was resolved and no other. What is checked, and why: external_folder.h.
#include "io/external_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "io/posix_file.h"

namespace onnx_legalize {

namespace fs = std::filesystem;

absl::StatusOr<ExternalFolder> ExternalFolder::OfModel(const std::string& model_path) {
  const fs::path parent = fs::path(model_path).parent_path();
  return At(parent.empty() ? fs::path(".") : parent);
}

absl::StatusOr<ExternalFolder> ExternalFolder::At(const fs::path& folder) {
  std::error_code ec;
  fs::path canonical = fs::canonical(folder, ec);
  if (ec) {
    return ErrnoStatus(ec.value(), absl::StrCat("cannot resolve the folder '", folder.string(), "'"));
  }
  return ExternalFolder(std::move(canonical));
}

PlaceInFolder PlaceOf(const fs::path& path, const fs::path& folder) {
  auto p = path.begin();
  for (const fs::path& component : folder) {
    if (component.empty()) continue;  // a trailing separator on the folder
    if (p == path.end() || *p != component) return PlaceInFolder::kOutside;
    ++p;
  }
  return p != path.end() && !p->empty() ? PlaceInFolder::kInside : PlaceInFolder::kTheFolderItself;
}

absl::StatusOr<ExternalFile> ExternalFolder::Resolve(const std::string& location, absl::string_view what) const {
  const fs::path relative(location);
  if (relative.is_absolute()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": external data location '", location,
                                                   "' is absolute; it must be relative to the model's folder '",
                                                   folder_.string(), "'"));
  }
  const fs::path normal = relative.lexically_normal();
  if (normal.empty() || normal == "." || *normal.begin() == "..") {
    // Caught before any system call: nothing outside the folder is even looked at.
    return absl::InvalidArgumentError(absl::StrCat(what, ": external data location '", location,
                                                   "' leaves the model's folder '", folder_.string(), "'"));
  }
  const fs::path joined = folder_ / normal;
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(joined, ec);
  if (ec) {
    const bool missing = ec.value() == ENOENT || ec.value() == ENOTDIR;
    return absl::Status(
        missing ? absl::StatusCode::kNotFound : absl::StatusCode::kInvalidArgument,
        absl::StrCat(what, ": cannot resolve external data file '", joined.string(), "': ", ec.message()));
  }
  if (!Holds(resolved)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": external data location '", location, "' resolves to '",
                                                   resolved.string(), "', outside the model's folder '",
                                                   folder_.string(), "' (a symbolic link points out)"));
  }
  struct stat st;
  if (::stat(resolved.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat(what, ": external data file '", joined.string(), "' does not exist"));
    }
    return ErrnoStatus(error, absl::StrCat(what, ": cannot read external data file '", joined.string(), "'"));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": external data file '", joined.string(), "' is not a regular file"));
  }
  return ExternalFile{resolved, st.st_dev, st.st_ino, static_cast<int64_t>(st.st_size)};
}

absl::StatusOr<int64_t> ExternalFolder::RangeLength(const ExternalDataRef& ref, const ExternalFile& file,
                                                    absl::string_view what) {
  if (ref.offset > file.size) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": external data offset ", ref.offset, " is past the end of '",
                                                   file.path.string(), "' (", file.size, " bytes)"));
  }
  const int64_t available = file.size - ref.offset;
  if (ref.length.has_value() && *ref.length > available) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": external data offset ", ref.offset, " + length ",
                                                   *ref.length, " is past the end of '", file.path.string(), "' (",
                                                   file.size, " bytes)"));
  }
  return ref.length.value_or(available);
}

absl::StatusOr<int> ExternalFolder::Open(const ExternalFile& file, absl::string_view what) {
  // O_NONBLOCK: should a FIFO have been swapped in, open does not wait for a writer (and the check
  // below refuses it); it changes nothing for a regular file.
  const int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) {
      return absl::NotFoundError(absl::StrCat(what, ": external data file '", file.path.string(), "' does not exist"));
    }
    return ErrnoStatus(error, absl::StrCat(what, ": cannot open external data file '", file.path.string(), "'"));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != file.device || st.st_ino != file.inode ||
      st.st_size < file.size) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat(what, ": external data file '", file.path.string(),
                                                      "' changed between its checks and its reading"));
  }
  return fd;
}

}  // namespace onnx_legalize
