// LoadModel / SaveModel / OpenExternalData: the only library code that touches files.
//
// Loading parses straight from the file descriptor (no whole-file string copy), reading large weights
// directly into place (io/model_file_streams.h), with protobuf's limits raised to the format's own ceiling.
// Saving is atomic: the bytes go to a temporary file beside the destination, are fsync'ed, and the
// temporary is renamed over the destination; a failure at any step removes the temporary and leaves an
// existing destination untouched.
//
// External data (TensorProto.data_location EXTERNAL):
//  - Load: every reference is checked with stat only: its location resolves against the model's folder
//    and must stay inside it (no absolute path, no "..", no symbolic link pointing out: the resolved path
//    is canonical and compared component by component), the file must exist and be a regular file, and
//    offset and length must lie within it. Nothing is read.
//  - Read (OpenExternalData): the same checks on every read, then the file is opened without following a
//    final symbolic link and must be the very file (device, inode) that was checked, so a file swapped in
//    between cannot redirect the read outside the folder. Only the tensor's range is read.
//  - Save: see SaveOptions in legalize.h. Data files are staged like the model (temporary, fsync) and all
//    are renamed into place only once every one is complete, the model last.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "eval/tensor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "graph/graph_validation.h"
#include "io/external_data.h"
#include "io/model_file_streams.h"
#include "io/model_io_internal.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"
#include "status_macros.h"

namespace onnx_legalize {

// Deep enough for a model nested kMaxSubgraphDepth levels (three messages a level, and a few more for the
// tensors and types inside the deepest graph), shallow enough that parsing cannot exhaust the stack.
constexpr int kParseRecursionLimit = 3 * kMaxSubgraphDepth + 32;
namespace {

namespace fs = std::filesystem;

using internal::kMaxProtoBytes;

// Offsets in a data file we write: tensors of kLargeTensorBytes or more start on a multiple of
// kLargeAlignment (64 KiB: a multiple of every common page size and of Windows' mapping granularity, so
// a runtime can map them directly), smaller ones on a multiple of kSmallAlignment (any element type, a
// cache line). ONNX Runtime's writer uses the same 1 MiB / 64 KiB rule.
constexpr int64_t kLargeTensorBytes = int64_t{1} << 20;
constexpr int64_t kLargeAlignment = int64_t{64} << 10;
constexpr int64_t kSmallAlignment = 64;

// Copies move at most this much per system call (and through user memory, when the kernel cannot copy).
constexpr size_t kCopyChunkBytes = size_t{1} << 20;

// strerror() is not thread-safe; std::generic_category() gives the same text safely.
std::string ErrnoText(int error_number) { return std::error_code(error_number, std::generic_category()).message(); }

absl::Status ErrnoStatus(int error_number, const std::string& message) {
  return absl::Status(absl::ErrnoToStatusCode(error_number), absl::StrCat(message, ": ", ErrnoText(error_number)));
}

// Closes a descriptor on scope exit unless released.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Closes now and reports close()'s errno (0 on success): a deferred write error may surface here.
  int Close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

// A name beside `target` that no other writer (another thread, process or run) picks at the same time:
// ".<name>.tmp-<pid>-<counter>-<random>". The leading dot keeps half-written files out of plain listings.
// The name part is shortened so that the whole stays within NAME_MAX (255) for any file name.
std::string TemporaryNameBeside(const fs::path& target) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random_bits{std::random_device{}()};
  std::string name = absl::StrFormat(".%s.tmp-%d-%d-%016x", target.filename().string().substr(0, 160),
                                     static_cast<int>(::getpid()), counter.fetch_add(1), random_bits());
  return (target.parent_path() / name).string();
}

// Writes `model` (sizes cached) deterministically to the open descriptor `fd`, its `deferred` values computed
// as they are written, then fsyncs it.
absl::Status WriteAndSync(const onnx::ModelProto& model, const DeferredTensors& deferred, int fd,
                          const std::string& path) {
  absl::Status value_failure;
  const int write_errno = deferred.empty() ? SerializeModelToFile(model, fd)
                                           : SerializeModelWithDeferredToFile(model, deferred, fd, value_failure);
  if (!value_failure.ok()) return value_failure;
  if (write_errno != 0) return ErrnoStatus(write_errno, absl::StrCat("cannot write '", path, "'"));
  if (::fsync(fd) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot flush '", path, "' to disk"));
  }
  return absl::OkStatus();
}

// Writes all of `data` at the descriptor's position.
absl::Status WriteAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, std::min(size, kCopyChunkBytes));
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, absl::StrCat("cannot write '", path, "'"));
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return absl::OkStatus();
}

absl::Status WriteZeros(int fd, int64_t count, const std::string& path) {
  static const char kZeros[kSmallAlignment * 64] = {};
  while (count > 0) {
    const size_t n = static_cast<size_t>(std::min<int64_t>(count, sizeof(kZeros)));
    RETURN_IF_ERROR(WriteAll(fd, kZeros, n, path));
    count -= static_cast<int64_t>(n);
  }
  return absl::OkStatus();
}

// Copies `length` bytes at `offset` of `in_fd` to the position of `out_fd`, in the kernel when it can
// (copy_file_range), else through a bounded buffer: never the whole range in memory.
absl::Status CopyRange(int in_fd, int64_t offset, int64_t length, int out_fd, const std::string& in_path,
                       const std::string& out_path) {
  bool kernel_copy = true;
  std::string buffer;
  while (length > 0) {
    const size_t chunk = static_cast<size_t>(std::min<int64_t>(length, kCopyChunkBytes));
    ssize_t copied = -1;
    if (kernel_copy) {
      loff_t in_offset = offset;
      copied = ::copy_file_range(in_fd, &in_offset, out_fd, nullptr, chunk, 0);
      if (copied < 0 && errno == EINTR) continue;
      if (copied < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
                         errno == EPERM || errno == ETXTBSY)) {
        kernel_copy = false;  // This pair of files cannot be copied in the kernel: copy through memory.
        continue;
      }
      if (copied < 0) {
        const int error = errno;
        // ENOSPC, EFBIG, EIO...: whichever side failed, the write side is the likely one.
        return ErrnoStatus(error, absl::StrCat("cannot copy '", in_path, "' to '", out_path, "'"));
      }
    } else {
      if (buffer.empty()) buffer.resize(kCopyChunkBytes);
      copied = ::pread(in_fd, buffer.data(), chunk, offset);
      if (copied < 0 && errno == EINTR) continue;
      if (copied < 0) return ErrnoStatus(errno, absl::StrCat("cannot read '", in_path, "'"));
      if (copied > 0) RETURN_IF_ERROR(WriteAll(out_fd, buffer.data(), static_cast<size_t>(copied), out_path));
    }
    if (copied == 0) {
      return absl::DataLossError(
          absl::StrCat("'", in_path, "' ended ", length, " bytes early while it was being copied"));
    }
    offset += copied;
    length -= copied;
  }
  return absl::OkStatus();
}

// Reads `length` bytes at `offset`.
absl::StatusOr<std::string> ReadRange(int fd, int64_t offset, int64_t length, const std::string& path) {
  std::string bytes(static_cast<size_t>(length), '\0');
  int64_t done = 0;
  while (done < length) {
    const size_t chunk = static_cast<size_t>(std::min<int64_t>(length - done, int64_t{1} << 30));
    const ssize_t n = ::pread(fd, bytes.data() + done, chunk, offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, absl::StrCat("cannot read '", path, "'"));
    if (n == 0) {
      return absl::DataLossError(
          absl::StrCat("'", path, "' ended ", length - done, " bytes early while it was being read"));
    }
    done += n;
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------------
// Resolving external data locations

// True when `path` lies strictly inside `folder`; both are canonical (absolute, no symbolic links, no
// "." or ".."), so a comparison of their components is exact.
bool IsInside(const fs::path& path, const fs::path& folder) {
  auto p = path.begin();
  for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
    if (f->empty()) continue;  // A trailing separator on the folder.
    if (p == path.end() || *p != *f) return false;
  }
  return p != path.end() && !p->empty();
}

// A file an external reference resolved to, as stat saw it.
struct ExternalFile {
  fs::path path;  // canonical, inside the folder
  dev_t device = 0;
  ino_t inode = 0;
  int64_t size = 0;
};

// A folder external data locations resolve against.
class ExternalFolder {
 public:
  // The folder of the model file at `model_path`.
  static absl::StatusOr<ExternalFolder> OfModel(const std::string& model_path) {
    const fs::path parent = fs::path(model_path).parent_path();
    return At(parent.empty() ? fs::path(".") : parent);
  }

  static absl::StatusOr<ExternalFolder> At(const fs::path& folder) {
    std::error_code ec;
    fs::path canonical = fs::canonical(folder, ec);
    if (ec) {
      return ErrnoStatus(ec.value(), absl::StrCat("cannot resolve the folder '", folder.string(), "'"));
    }
    return ExternalFolder(std::move(canonical));
  }

  const fs::path& path() const { return folder_; }

  // Resolves `location` (stat only; reads nothing). Errors start with `what` and name the path.
  absl::StatusOr<ExternalFile> Resolve(const std::string& location, absl::string_view what) const {
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
    if (!IsInside(resolved, folder_)) {
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

  // The number of bytes `ref` names in `file`; InvalidArgument when its range does not lie within it.
  static absl::StatusOr<int64_t> RangeLength(const ExternalDataRef& ref, const ExternalFile& file,
                                             absl::string_view what) {
    if (ref.offset > file.size) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": external data offset ", ref.offset,
                                                     " is past the end of '", file.path.string(), "' (", file.size,
                                                     " bytes)"));
    }
    const int64_t available = file.size - ref.offset;
    if (ref.length.has_value() && *ref.length > available) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": external data offset ", ref.offset, " + length ",
                                                     *ref.length, " is past the end of '", file.path.string(), "' (",
                                                     file.size, " bytes)"));
    }
    return ref.length.value_or(available);
  }

  // Opens `file` for reading. It must still be the file Resolve saw: a final symbolic link is not
  // followed, and the descriptor's device and inode must match, so nothing else is ever read.
  static absl::StatusOr<int> Open(const ExternalFile& file, absl::string_view what) {
    // O_NONBLOCK: should a FIFO have been swapped in, open does not wait for a writer (and the check
    // below refuses it); it changes nothing for a regular file.
    const int fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
      const int error = errno;
      if (error == ENOENT) {
        return absl::NotFoundError(
            absl::StrCat(what, ": external data file '", file.path.string(), "' does not exist"));
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

 private:
  explicit ExternalFolder(fs::path folder) : folder_(std::move(folder)) {}
  fs::path folder_;
};

// The bytes a tensor's dims and element type call for; nullopt when they cannot be known (strings, bad
// dims), in which case the decoder reports the problem.
std::optional<int64_t> ExpectedByteSize(const onnx::TensorProto& tensor) {
  const int64_t element_size = ElementSize(tensor.data_type());
  if (element_size == 0) return std::nullopt;
  absl::StatusOr<int64_t> count =
      CheckedElementCount(std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end()), "");
  int64_t bytes = 0;
  if (!count.ok() || __builtin_mul_overflow(*count, element_size, &bytes)) return std::nullopt;
  return bytes;
}

std::string DescribeTensor(const onnx::TensorProto& tensor) {
  return tensor.name().empty() ? "unnamed tensor" : absl::StrCat("tensor '", tensor.name(), "'");
}

class FileExternalDataReader final : public ExternalDataReader {
 public:
  explicit FileExternalDataReader(ExternalFolder folder) : folder_(std::move(folder)) {}

  absl::StatusOr<std::string> Read(const onnx::TensorProto& tensor) const override {
    const std::string what = DescribeTensor(tensor);
    if (!IsExternal(tensor)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": data_location is not EXTERNAL"));
    }
    ASSIGN_OR_RETURN(const ExternalDataRef ref, ParseExternalDataRef(tensor, what));
    ASSIGN_OR_RETURN(const ExternalFile file, folder_.Resolve(ref.location, what));
    ASSIGN_OR_RETURN(const int64_t length, ExternalFolder::RangeLength(ref, file, what));
    // Refuse before allocating when the range cannot be the tensor (a length-less reference to a big
    // shared file, say): the decoder would refuse it after reading it all.
    const std::optional<int64_t> expected = ExpectedByteSize(tensor);
    if (expected.has_value() && *expected != length) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": its external data in '", file.path.string(), "' has ",
                                                     length, " bytes, but its type and dims need ", *expected));
    }
    ASSIGN_OR_RETURN(const int fd, ExternalFolder::Open(file, what));
    FdCloser closer(fd);
    return ReadRange(fd, ref.offset, length, file.path.string());
  }

 private:
  ExternalFolder folder_;
};

// Checks every external reference of `model`, loaded from `path` (stat only, each file once).
absl::Status CheckExternalReferences(const onnx::ModelProto& model, const std::string& path) {
  std::optional<ExternalFolder> folder;
  std::map<std::string, ExternalFile> resolved;  // by location as written
  absl::Status status;
  ForEachTensor(model, [&](const onnx::TensorProto& tensor, const TensorSite& site) {
    if (!status.ok() || !IsExternal(tensor)) return;
    status = [&]() -> absl::Status {
      const std::string what = absl::StrCat("model '", path, "': ", site.what);
      ASSIGN_OR_RETURN(const ExternalDataRef ref, ParseExternalDataRef(tensor, what));
      if (!folder.has_value()) {
        ASSIGN_OR_RETURN(folder, ExternalFolder::OfModel(path));
      }
      auto it = resolved.find(ref.location);
      if (it == resolved.end()) {
        ASSIGN_OR_RETURN(ExternalFile file, folder->Resolve(ref.location, what));
        it = resolved.emplace(ref.location, std::move(file)).first;
      }
      return ExternalFolder::RangeLength(ref, it->second, what).status();
    }();
  });
  return status;
}

// ---------------------------------------------------------------------------------------------------
// Saving

// Temporaries staged beside their destinations and renamed over them together by Commit; whatever is not
// committed (temporaries, folders made for them) is removed when the Staging goes.
class Staging {
 public:
  Staging() = default;
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  ~Staging() {
    if (committed_) return;
    for (const Staged& staged : staged_) ::unlink(staged.temp.c_str());
    for (auto it = created_folders_.rbegin(); it != created_folders_.rend(); ++it) ::rmdir(it->c_str());
  }

  // Creates an empty temporary for `target` and returns its descriptor, which the caller closes. Mode
  // 0666 lets the umask decide, as for any new file (mkstemp would force 0600); a file it replaces
  // lends it its permission bits, as editors do.
  absl::StatusOr<int> Create(const fs::path& target) {
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
    return fd;
  }

  // Stages `target` as the same bytes as `source` without copying them when the filesystem allows: a
  // reflink (a copy-on-write clone, a true copy) or else a hard link (the same file under a second
  // name). False when neither is possible; the caller copies then.
  bool TryShare(const ExternalFile& source, const fs::path& target) {
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

  // Makes `folder` (and missing parents) exist; the ones made here are removed again unless committed.
  absl::Status MakeFolders(const fs::path& folder) {
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

  // Renames every temporary over its destination in the order staged (the model last), then flushes
  // their folders. A rename does not fail for want of space or data; should one fail anyway, the
  // temporaries not yet renamed are removed.
  absl::Status Commit() {
    std::set<std::string> folders;
    for (size_t i = 0; i < staged_.size(); ++i) {
      const Staged& staged = staged_[i];
      if (::rename(staged.temp.c_str(), staged.target.c_str()) != 0) {
        const int error = errno;
        for (size_t j = i; j < staged_.size(); ++j) ::unlink(staged_[j].temp.c_str());
        committed_ = true;  // What was renamed stays; nothing is left to remove.
        return ErrnoStatus(
            error, absl::StrCat("cannot write '", staged.target.string(), "' (renaming the temporary over it)"));
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

 private:
  struct Staged {
    std::string temp;
    fs::path target;
  };
  std::vector<Staged> staged_;
  std::vector<fs::path> created_folders_;
  bool committed_ = false;
};

// Puts back, on scope exit, how the tensors SaveModel changed were stored. Moving bytes out and back is
// a string swap: O(1), whatever their size.
class TensorRestorer {
 public:
  TensorRestorer() = default;
  TensorRestorer(const TensorRestorer&) = delete;
  TensorRestorer& operator=(const TensorRestorer&) = delete;
  ~TensorRestorer() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      onnx::TensorProto& tensor = *it->tensor;
      *tensor.mutable_external_data() = std::move(it->external_data);
      if (it->had_data_location) {
        tensor.set_data_location(it->data_location);
      } else {
        tensor.clear_data_location();
      }
      if (it->had_raw_data) tensor.mutable_raw_data()->swap(it->raw_data);
    }
  }

  // Takes `tensor`'s raw_data out (kept here) and remembers how it was stored.
  void MoveOut(onnx::TensorProto& tensor) {
    Remember(tensor);
    saved_.back().had_raw_data = true;
    saved_.back().raw_data.swap(*tensor.mutable_raw_data());
    tensor.clear_raw_data();
  }

  // Remembers how `tensor` refers to its external data, before it is pointed elsewhere.
  void Remember(onnx::TensorProto& tensor) {
    Saved saved;
    saved.tensor = &tensor;
    saved.had_data_location = tensor.has_data_location();
    saved.data_location = tensor.data_location();
    saved.external_data = tensor.external_data();
    saved_.push_back(std::move(saved));
  }

 private:
  struct Saved {
    onnx::TensorProto* tensor = nullptr;
    bool had_data_location = false;
    onnx::TensorProto::DataLocation data_location = onnx::TensorProto::DEFAULT;
    google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto> external_data;
    bool had_raw_data = false;
    std::string raw_data;
  };
  std::vector<Saved> saved_;
};

int64_t AlignUp(int64_t offset, int64_t length) {
  const int64_t alignment = length >= kLargeTensorBytes ? kLargeAlignment : kSmallAlignment;
  return (offset + alignment - 1) / alignment * alignment;
}

struct ExternalTensor {
  onnx::TensorProto* tensor;
  std::string what;
  ExternalDataRef ref;
};

// Writes the data file `name` in `out_folder`: the inline initializers of at least `threshold` bytes and
// the external tensors `rehome` selects, each pointed at its new place. Nothing when none qualifies.
absl::Status StageDataFile(onnx::ModelProto& model, const std::string& name, const fs::path& out_folder,
                           int64_t threshold, const std::function<bool(const ExternalTensor&)>& rehome,
                           std::vector<ExternalTensor>& externals, const std::optional<ExternalFolder>& source,
                           std::unordered_set<const onnx::TensorProto*>& rehomed, Staging& staging,
                           TensorRestorer& restorer) {
  struct Entry {
    onnx::TensorProto* tensor;
    const ExternalTensor* external;  // null: inline raw_data
  };
  std::vector<Entry> entries;
  std::map<const onnx::TensorProto*, const ExternalTensor*> external_of;
  for (const ExternalTensor& external : externals) external_of[external.tensor] = &external;
  ForEachMutableTensor(model, [&](onnx::TensorProto& tensor, const TensorSite& site) {
    if (IsExternal(tensor)) {
      const ExternalTensor* external = external_of[&tensor];
      if (rehome(*external)) entries.push_back({&tensor, external});
      return;
    }
    // Strings have no raw form; typed fields (float_data, ...) stay where the model put them.
    if (site.is_initializer && tensor.has_raw_data() && tensor.data_type() != onnx::TensorProto::STRING &&
        !tensor.raw_data().empty() && static_cast<int64_t>(tensor.raw_data().size()) >= threshold) {
      entries.push_back({&tensor, nullptr});
    }
  });
  if (entries.empty()) return absl::OkStatus();

  const fs::path data_path = out_folder / name;
  const std::string display = data_path.string();
  ASSIGN_OR_RETURN(const int fd, staging.Create(data_path));
  FdCloser closer(fd);
  int64_t offset = 0;
  for (const Entry& entry : entries) {
    onnx::TensorProto& tensor = *entry.tensor;
    int64_t length = 0;
    if (entry.external == nullptr) {
      length = static_cast<int64_t>(tensor.raw_data().size());
    } else {
      if (!source.has_value()) {
        return absl::FailedPreconditionError(absl::StrCat(entry.external->what, ": its data in '",
                                                          entry.external->ref.location, "' goes to '", display,
                                                          "', but no external data folder was given to read it from"));
      }
      ASSIGN_OR_RETURN(const ExternalFile file, source->Resolve(entry.external->ref.location, entry.external->what));
      ASSIGN_OR_RETURN(length, ExternalFolder::RangeLength(entry.external->ref, file, entry.external->what));
      const int64_t aligned = AlignUp(offset, length);
      RETURN_IF_ERROR(WriteZeros(fd, aligned - offset, display));
      ASSIGN_OR_RETURN(const int source_fd, ExternalFolder::Open(file, entry.external->what));
      FdCloser source_closer(source_fd);
      RETURN_IF_ERROR(CopyRange(source_fd, entry.external->ref.offset, length, fd, file.path.string(), display));
      restorer.Remember(tensor);
      SetExternalDataRef(tensor, name, aligned, length);
      rehomed.insert(&tensor);
      offset = aligned + length;
      continue;
    }
    const int64_t aligned = AlignUp(offset, length);
    RETURN_IF_ERROR(WriteZeros(fd, aligned - offset, display));
    RETURN_IF_ERROR(WriteAll(fd, tensor.raw_data().data(), tensor.raw_data().size(), display));
    restorer.MoveOut(tensor);
    SetExternalDataRef(tensor, name, aligned, length);
    offset = aligned + length;
  }
  if (::fsync(fd) != 0) return ErrnoStatus(errno, absl::StrCat("cannot flush '", display, "' to disk"));
  if (int close_errno = closer.Close(); close_errno != 0) {
    return ErrnoStatus(close_errno, absl::StrCat("cannot write '", display, "'"));
  }
  return absl::OkStatus();
}

// Makes every file still referenced from `source` available under the same location in `out_folder`.
absl::Status StageReferencedFiles(const std::vector<ExternalTensor>& externals,
                                  const std::unordered_set<const onnx::TensorProto*>& rehomed,
                                  const ExternalFolder& source, const ExternalFolder& out_folder,
                                  const fs::path& model_target, Staging& staging) {
  std::set<std::string> done;
  for (const ExternalTensor& external : externals) {
    if (rehomed.count(external.tensor)) continue;
    const fs::path location = fs::path(external.ref.location).lexically_normal();
    if (!done.insert(location.string()).second) continue;
    ASSIGN_OR_RETURN(const ExternalFile file, source.Resolve(external.ref.location, external.what));
    RETURN_IF_ERROR(ExternalFolder::RangeLength(external.ref, file, external.what).status());
    const fs::path target = out_folder.path() / location;
    std::error_code ec;
    if (fs::equivalent(target, model_target, ec)) {
      return absl::InvalidArgumentError(absl::StrCat(external.what, ": external data location '", external.ref.location,
                                                     "' names the output model itself"));
    }
    if (target.lexically_normal() == fs::weakly_canonical(model_target, ec)) {
      return absl::InvalidArgumentError(absl::StrCat(external.what, ": external data location '", external.ref.location,
                                                     "' names the output model itself"));
    }
    if (fs::equivalent(target, file.path, ec)) continue;  // Already there (a link, or the same folder).
    RETURN_IF_ERROR(staging.MakeFolders(target.parent_path()));
    // A subfolder of the output's folder that is a symbolic link pointing out would put the file outside.
    const fs::path parent = fs::weakly_canonical(target.parent_path(), ec);
    if (ec || (parent != out_folder.path() && !IsInside(parent, out_folder.path()))) {
      return absl::InvalidArgumentError(absl::StrCat(external.what, ": external data location '", external.ref.location,
                                                     "' would be written outside '", out_folder.path().string(), "'"));
    }
    if (staging.TryShare(file, target)) continue;
    ASSIGN_OR_RETURN(const int fd, staging.Create(target));
    FdCloser closer(fd);
    ASSIGN_OR_RETURN(const int source_fd, ExternalFolder::Open(file, external.what));
    FdCloser source_closer(source_fd);
    RETURN_IF_ERROR(CopyRange(source_fd, 0, file.size, fd, file.path.string(), target.string()));
    if (::fsync(fd) != 0) return ErrnoStatus(errno, absl::StrCat("cannot flush '", target.string(), "' to disk"));
    if (int close_errno = closer.Close(); close_errno != 0) {
      return ErrnoStatus(close_errno, absl::StrCat("cannot write '", target.string(), "'"));
    }
  }
  return absl::OkStatus();
}

// The bytes `model` serializes to with its `deferred` values filled in; caches the sizes the writers read.
int64_t SerializedBytes(const onnx::ModelProto& model, const DeferredTensors& deferred) {
  return deferred.empty() ? static_cast<int64_t>(model.ByteSizeLong()) : SerializedSizeWithDeferred(model, deferred);
}

// Stages the model itself (last, so it is renamed after its data files), its `deferred` values computed as
// they are written.
absl::Status StageModel(const onnx::ModelProto& model, const DeferredTensors& deferred, const fs::path& target,
                        int64_t max_model_bytes, Staging& staging) {
  const int64_t byte_size = SerializedBytes(model, deferred);
  if (byte_size > max_model_bytes) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "cannot write '%s': the model serializes to %d bytes, beyond protobuf's 2 GiB limit even with its "
        "raw initializers above the external data threshold moved to a data file (tensors in typed fields "
        "or node attributes stay inline)",
        target.string(), static_cast<uint64_t>(byte_size)));
  }
  ASSIGN_OR_RETURN(const int fd, staging.Create(target));
  FdCloser closer(fd);
  RETURN_IF_ERROR(WriteAndSync(model, deferred, fd, target.string()));
  if (int close_errno = closer.Close(); close_errno != 0) {
    return ErrnoStatus(close_errno, absl::StrCat("cannot write '", target.string(), "'"));
  }
  return absl::OkStatus();
}

absl::Status CheckModelTarget(const std::string& path) {
  if (fs::path(path).filename().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': not a file name"));
  }
  return absl::OkStatus();
}

// What a parsed model must have beyond protobuf's well-formedness.
absl::Status CheckParsedModel(const onnx::ModelProto& model, const std::string& path) {
  // Protobuf accepts many byte strings as a message made only of unknown fields; a real model has at
  // least an IR version and a graph.
  if (model.ir_version() <= 0 || !model.has_graph()) {
    return absl::InvalidArgumentError(absl::StrCat("model file '", path, "' is not a valid ONNX model (",
                                                   model.ir_version() <= 0 ? "no ir_version" : "no graph", ")"));
  }
  return CheckExternalReferences(model, path);
}

}  // namespace

absl::StatusOr<onnx::ModelProto> LoadModel(const std::string& path) {
  onnx::ModelProto model;
  RETURN_IF_ERROR(LoadModelInto(path, &model));
  return model;
}

absl::Status LoadModelInto(const std::string& path, onnx::ModelProto* model_out) {
  onnx::ModelProto& model = *model_out;
  model.Clear();
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    return absl::NotFoundError(absl::StrCat("model file '", path, "' does not exist"));
  }
  if (ec) return ErrnoStatus(ec.value(), absl::StrCat("cannot read model file '", path, "'"));
  if (status.type() == fs::file_type::directory) {
    return absl::InvalidArgumentError(absl::StrCat("model file '", path, "' is a directory, not an ONNX model"));
  }

  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot open model file '", path, "'"));
  FdCloser closer(fd);

  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot read model file '", path, "'"));
  }
  if (S_ISREG(st.st_mode)) {
    // Guard clauses on the size first: both answers are cheaper and clearer than a parse failure.
    if (st.st_size == 0) {
      return absl::InvalidArgumentError(absl::StrCat("model file '", path, "' is empty, not an ONNX model"));
    }
    if (st.st_size > kMaxProtoBytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("model file '%s' is %d bytes, beyond protobuf's 2 GiB limit for one message "
                          "(models that large keep their weights as external data)",
                          path, static_cast<int64_t>(st.st_size)));
    }
  }

  if (S_ISREG(st.st_mode)) {
    int read_errno = 0;
    if (ParseModelFromFile(fd, st.st_size, kParseRecursionLimit, model, &read_errno)) {
      return CheckParsedModel(model, path);
    }
    if (read_errno != 0) return ErrnoStatus(read_errno, absl::StrCat("cannot read model file '", path, "'"));
    // Not a well-formed model: protobuf's own parse below gives the verdict.
    model.Clear();
    if (::lseek(fd, 0, SEEK_SET) != 0) {
      return ErrnoStatus(errno, absl::StrCat("cannot read model file '", path, "'"));
    }
  }
  google::protobuf::io::FileInputStream file_stream(fd);
  bool parsed = false;
  {
    google::protobuf::io::CodedInputStream coded(&file_stream);
    // protobuf's own ceiling: a single message cannot be larger than INT_MAX bytes.
    coded.SetTotalBytesLimit(static_cast<int>(kMaxProtoBytes));
    // Each level of subgraph nesting is three messages deep (Graph -> Node -> Attribute -> Graph):
    // protobuf's default limit of 100 would stop at about 32 levels, before ValidateGraphs can name a
    // model nested past kMaxSubgraphDepth.
    coded.SetRecursionLimit(kParseRecursionLimit);
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  if (file_stream.GetErrno() != 0) {
    return ErrnoStatus(file_stream.GetErrno(), absl::StrCat("cannot read model file '", path, "'"));
  }
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("model file '", path,
                     "' is not a valid ONNX model (protobuf parse failed: truncated, not a ModelProto, or "
                     "subgraphs nested far deeper than the ",
                     kMaxSubgraphDepth, " levels supported)"));
  }
  return CheckParsedModel(model, path);
}

absl::StatusOr<std::unique_ptr<ExternalDataReader>> OpenExternalData(const std::string& model_path) {
  ASSIGN_OR_RETURN(ExternalFolder folder, ExternalFolder::OfModel(model_path));
  return std::unique_ptr<ExternalDataReader>(new FileExternalDataReader(std::move(folder)));
}

absl::Status SaveModel(const onnx::ModelProto& model, const std::string& path) {
  RETURN_IF_ERROR(CheckModelTarget(path));
  Staging staging;
  RETURN_IF_ERROR(StageModel(model, {}, path, kMaxProtoBytes, staging));
  return staging.Commit();
}

absl::Status SaveModel(onnx::ModelProto& model, const std::string& path, const SaveOptions& options) {
  return internal::SaveModelWithLimit(model, path, options, kMaxProtoBytes);
}

namespace internal {

absl::Status SaveModelWithLimit(onnx::ModelProto& model, const std::string& path, const SaveOptions& options,
                                int64_t max_model_bytes) {
  return SaveModelIf(model, path, options, max_model_bytes, [] { return absl::OkStatus(); });
}

absl::Status SaveModelIf(onnx::ModelProto& model, const std::string& path, const SaveOptions& options,
                         int64_t max_model_bytes, const std::function<absl::Status()>& before_commit,
                         const DeferredTensors& deferred) {
  RETURN_IF_ERROR(CheckModelTarget(path));
  const fs::path target(path);
  RETURN_IF_ERROR(ValidateSaveOptions(options, path));

  std::vector<ExternalTensor> externals;
  absl::Status status;
  ForEachMutableTensor(model, [&](onnx::TensorProto& tensor, const TensorSite& site) {
    if (!status.ok() || !IsExternal(tensor)) return;
    if (IsDeferredStub(tensor) && deferred.count(tensor.name()) > 0) return;  // filled below, not external
    absl::StatusOr<ExternalDataRef> ref = ParseExternalDataRef(tensor, site.what);
    if (!ref.ok()) {
      status = ref.status();
      return;
    }
    externals.push_back({&tensor, site.what, *std::move(ref)});
  });
  RETURN_IF_ERROR(status);

  std::string data_name = options.external_data_name;
  const bool explicit_name = !data_name.empty();
  if (!explicit_name && SerializedBytes(model, deferred) > max_model_bytes) {
    data_name = absl::StrCat(target.filename().string(), ".data");
  }
  std::optional<ExternalFolder> source;
  if (!options.external_data_folder.empty() && (!externals.empty() || !data_name.empty())) {
    ASSIGN_OR_RETURN(source, ExternalFolder::At(options.external_data_folder));
  }

  Staging staging;
  // Declared after staging: the model is restored before the temporaries go, and either way on return.
  TensorRestorer restorer;
  if (data_name.empty() && !source.has_value()) {
    RETURN_IF_ERROR(StageModel(model, deferred, target, max_model_bytes, staging));
    RETURN_IF_ERROR(before_commit());
    return staging.Commit();
  }
  // Packing a data file moves raw bytes around, which deferred values do not have until they are computed.
  RETURN_IF_ERROR(MaterializeDeferred(deferred, model));
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  absl::StatusOr<ExternalFolder> out_folder = ExternalFolder::At(parent);
  if (!out_folder.ok()) {
    return absl::Status(out_folder.status().code(),
                        absl::StrCat("cannot write '", path, "': ", out_folder.status().message()));
  }

  std::unordered_set<const onnx::TensorProto*> rehomed;
  if (!data_name.empty()) {
    // With an explicit name every external tensor is repacked into it; otherwise only those already
    // stored under that name, whose file is being replaced.
    const fs::path data_location = fs::path(data_name).lexically_normal();
    auto rehome = [&](const ExternalTensor& external) {
      return explicit_name || fs::path(external.ref.location).lexically_normal() == data_location;
    };
    RETURN_IF_ERROR(StageDataFile(model, data_name, out_folder->path(), options.external_data_threshold, rehome,
                                  externals, source, rehomed, staging, restorer));
  }
  if (source.has_value() && source->path() != out_folder->path()) {
    RETURN_IF_ERROR(StageReferencedFiles(externals, rehomed, *source, *out_folder, target, staging));
  }
  RETURN_IF_ERROR(StageModel(model, {}, target, max_model_bytes, staging));
  RETURN_IF_ERROR(before_commit());
  return staging.Commit();
}

}  // namespace internal
}  // namespace onnx_legalize
