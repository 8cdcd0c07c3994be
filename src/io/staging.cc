// Temporaries beside their destinations, renamed into place together: what staging.h promises, and the
// unique names that let concurrent writers stage beside the same destination.
#include "io/staging.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "io/kill_points.h"
#include "io/leftover_temporaries.h"
#include "io/posix_file.h"

namespace onnx_legalize {
namespace {

namespace fs = std::filesystem;

// A name beside `target` that no other writer (another thread, process or run) picks at the same time:
// ".<name>.tmp-<pid>-<counter>-<random>" (io/leftover_temporaries.h). The leading dot keeps half-written files
// out of plain listings.
std::string TemporaryNameBeside(const fs::path& target) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random_bits{std::random_device{}()};
  return (target.parent_path() /
          TemporaryName(target, static_cast<int>(::getpid()), counter.fetch_add(1), random_bits()))
      .string();
}

}  // namespace

Staging::~Staging() {
  if (committed_) return;
  for (const Staged& staged : staged_) ::unlink(staged.temp.c_str());
  for (auto it = created_folders_.rbegin(); it != created_folders_.rend(); ++it) ::rmdir(it->c_str());
}

absl::StatusOr<int> Staging::Create(const fs::path& target) {
  RemoveLeftoverTemporaries(target);  // of an earlier run that was killed while it wrote there
  std::error_code ec;
  const fs::file_status target_status = fs::status(target, ec);
  if (target_status.type() == fs::file_type::directory) {
    return absl::FailedPreconditionError(absl::StrCat("cannot write '", target.string(), "': it is a directory"));
  }
  std::string temp;
  int fd = -1;
  // Unique name, O_EXCL: never reuses or clobbers another file.
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temp = TemporaryNameBeside(target);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    return ErrnoStatus(errno,
                       absl::StrCat("cannot write '", target.string(), "' (creating a temporary file beside it)"));
  }
  if (fs::is_regular_file(target_status)) {
    const auto perms = static_cast<mode_t>(target_status.permissions() & fs::perms::mask);
    if (::fchmod(fd, perms) != 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return ErrnoStatus(error, absl::StrCat("cannot write '", target.string(), "' (copying its permissions)"));
    }
  }
  staged_.push_back({temp, target});
  KillPoint(kKillPointCreated);
  return fd;
}

bool Staging::TryShare(const ExternalFile& source, const fs::path& target) {
  // Reflink first.
  absl::StatusOr<int> fd = Create(target);
  if (fd.ok()) {
    FdCloser closer(*fd);
    const int source_fd = ::open(source.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (source_fd >= 0) {
      FdCloser source_closer(source_fd);
      struct stat st;
      if (::fstat(source_fd, &st) == 0 && st.st_dev == source.device && st.st_ino == source.inode &&
          ::ioctl(*fd, FICLONE, source_fd) == 0 && ::fsync(*fd) == 0 && closer.Close() == 0) {
        return true;
      }
    }
    ::unlink(staged_.back().temp.c_str());
    staged_.pop_back();
  }
  // Then a hard link; it must be the file that was checked.
  const std::string temp = TemporaryNameBeside(target);
  if (::link(source.path.c_str(), temp.c_str()) != 0) return false;
  struct stat st;
  if (::lstat(temp.c_str(), &st) != 0 || st.st_dev != source.device || st.st_ino != source.inode) {
    ::unlink(temp.c_str());
    return false;
  }
  staged_.push_back({temp, target});
  return true;
}

absl::Status Staging::MakeFolders(const fs::path& folder) {
  std::vector<fs::path> missing;
  for (fs::path p = folder; !p.empty() && !fs::exists(p); p = p.parent_path()) missing.push_back(p);
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST) {
      return ErrnoStatus(errno, absl::StrCat("cannot make the folder '", it->string(), "'"));
    }
    created_folders_.push_back(*it);
  }
  return absl::OkStatus();
}

absl::Status Staging::Commit() {
  KillPoint(kKillPointWritten);
  std::set<std::string> folders;
  for (size_t i = 0; i < staged_.size(); ++i) {
    const Staged& staged = staged_[i];
    if (i > 0) KillPoint(kKillPointRenamed);
    if (::rename(staged.temp.c_str(), staged.target.c_str()) != 0) {
      const int error = errno;
      for (size_t j = i; j < staged_.size(); ++j) ::unlink(staged_[j].temp.c_str());
      committed_ = true;  // What was renamed stays; nothing is left to remove.
      return ErrnoStatus(error,
                         absl::StrCat("cannot write '", staged.target.string(), "' (renaming the temporary over it)"));
    }
    const fs::path parent = staged.target.parent_path();
    folders.insert(parent.empty() ? "." : parent.string());
  }
  committed_ = true;
  // Make the renames durable. Best effort where a folder cannot be opened for reading or some
  // filesystems cannot fsync a directory (EINVAL): the files are then as durable as that system allows.
  // A real I/O error is reported, though the new files are already in place by then.
  for (const std::string& folder : folders) {
    const int dir_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) continue;
    FdCloser dir_closer(dir_fd);
    if (::fsync(dir_fd) != 0 && errno != EINVAL && errno != EROFS) {
      return ErrnoStatus(
          errno, absl::StrCat("wrote '", staged_.back().target.string(), "' but could not flush its folder to disk"));
    }
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize
