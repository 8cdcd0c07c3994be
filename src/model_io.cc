// LoadModel / SaveModel: the only library code that touches files.
//
// Loading parses straight from the file descriptor through a protobuf stream (no whole-file string copy)
// with the total-bytes limit raised to the format's own ceiling. Saving is atomic: the bytes go to a
// temporary file beside the destination, are fsync'ed, and the temporary is renamed over the destination;
// a failure at any step removes the temporary and leaves an existing destination untouched.
//
// External data: a model whose initializers say data_location EXTERNAL is loaded as-is: the
// external_data entries are kept verbatim and nothing is read from the referenced files, and SaveModel
// writes those entries back unchanged. Resolving them (reading, and writing beside the output) is a later
// issue; until then a tensor stored externally is not a constant the library can read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {
namespace {

namespace fs = std::filesystem;

// protobuf addresses a message with int offsets, so one serialized message cannot exceed INT_MAX bytes
// (2 GiB - 1). Bigger models must keep their weights as external data.
constexpr int64_t kMaxProtoBytes = INT_MAX;

// strerror() is not thread-safe; std::generic_category() gives the same text safely.
std::string ErrnoText(int error_number) {
  return std::error_code(error_number, std::generic_category()).message();
}

absl::Status ErrnoStatus(int error_number, const std::string& message) {
  return absl::Status(absl::ErrnoToStatusCode(error_number),
                      absl::StrCat(message, ": ", ErrnoText(error_number)));
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

// Writes `model` deterministically to the open descriptor `fd`, then fsyncs it.
absl::Status WriteAndSync(const onnx::ModelProto& model, int fd, const std::string& path) {
  {
    google::protobuf::io::FileOutputStream file_stream(fd);
    {
      google::protobuf::io::CodedOutputStream coded(&file_stream);
      // Deterministic: map fields (none in onnx.proto today) and unknown fields come out in a fixed order,
      // so the same model gives byte-identical files run after run.
      coded.SetSerializationDeterministic(true);
      model.SerializeWithCachedSizes(&coded);
      if (coded.HadError()) {
        return ErrnoStatus(file_stream.GetErrno() != 0 ? file_stream.GetErrno() : EIO,
                           absl::StrCat("cannot write '", path, "'"));
      }
    }  // The coded stream hands its unused buffer back to file_stream here.
    if (!file_stream.Flush()) {
      return ErrnoStatus(file_stream.GetErrno() != 0 ? file_stream.GetErrno() : EIO,
                         absl::StrCat("cannot write '", path, "'"));
    }
  }
  if (::fsync(fd) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot flush '", path, "' to disk"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<onnx::ModelProto> LoadModel(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    return absl::NotFoundError(absl::StrCat("model file '", path, "' does not exist"));
  }
  if (ec) return ErrnoStatus(ec.value(), absl::StrCat("cannot read model file '", path, "'"));
  if (status.type() == fs::file_type::directory) {
    return absl::InvalidArgumentError(
        absl::StrCat("model file '", path, "' is a directory, not an ONNX model"));
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

  onnx::ModelProto model;
  google::protobuf::io::FileInputStream file_stream(fd);
  bool parsed = false;
  {
    google::protobuf::io::CodedInputStream coded(&file_stream);
    // protobuf's own ceiling: a single message cannot be larger than INT_MAX bytes.
    coded.SetTotalBytesLimit(static_cast<int>(kMaxProtoBytes));
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  if (file_stream.GetErrno() != 0) {
    return ErrnoStatus(file_stream.GetErrno(), absl::StrCat("cannot read model file '", path, "'"));
  }
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("model file '", path,
                     "' is not a valid ONNX model (protobuf parse failed: truncated or not a ModelProto)"));
  }
  // Protobuf accepts many byte strings as a message made only of unknown fields; a real model has at
  // least an IR version and a graph.
  if (model.ir_version() <= 0 || !model.has_graph()) {
    return absl::InvalidArgumentError(absl::StrCat("model file '", path, "' is not a valid ONNX model (",
                                                   model.ir_version() <= 0 ? "no ir_version" : "no graph",
                                                   ")"));
  }
  return model;
}

absl::Status SaveModel(const onnx::ModelProto& model, const std::string& path) {
  const size_t byte_size = model.ByteSizeLong();  // Also caches sizes for SerializeWithCachedSizes.
  if (byte_size > static_cast<size_t>(kMaxProtoBytes)) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot write '%s': the model serializes to %d bytes, beyond protobuf's 2 GiB limit",
                        path, static_cast<uint64_t>(byte_size)));
  }
  const fs::path target(path);
  if (target.filename().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': not a file name"));
  }
  std::error_code ec;
  const fs::file_status target_status = fs::status(target, ec);
  if (target_status.type() == fs::file_type::directory) {
    return absl::FailedPreconditionError(absl::StrCat("cannot write '", path, "': it is a directory"));
  }

  // Unique name, O_EXCL: never reuses or clobbers another file. Mode 0666 lets the umask decide, as for
  // any newly created file (mkstemp would force 0600).
  std::string temp_path;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temp_path = TemporaryNameBeside(target);
    fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    return ErrnoStatus(errno,
                       absl::StrCat("cannot write '", path, "' (creating a temporary file beside it)"));
  }
  // From here on every failure removes the temporary.
  auto fail = [&temp_path](absl::Status status) {
    ::unlink(temp_path.c_str());
    return status;
  };
  FdCloser closer(fd);

  // Replacing a file keeps its permission bits, as editors do.
  if (fs::is_regular_file(target_status)) {
    const auto perms = static_cast<mode_t>(target_status.permissions() & fs::perms::mask);
    if (::fchmod(fd, perms) != 0) {
      return fail(ErrnoStatus(errno, absl::StrCat("cannot write '", path, "' (copying its permissions)")));
    }
  }
  absl::Status written = WriteAndSync(model, fd, path);
  if (!written.ok()) return fail(written);
  if (int close_errno = closer.Close(); close_errno != 0) {
    return fail(ErrnoStatus(close_errno, absl::StrCat("cannot write '", path, "'")));
  }
  if (::rename(temp_path.c_str(), path.c_str()) != 0) {
    return fail(
        ErrnoStatus(errno, absl::StrCat("cannot write '", path, "' (renaming the temporary over it)")));
  }

  // Make the rename itself durable. Best effort where the folder cannot be opened for reading or some
  // filesystems cannot fsync a directory (EINVAL): the file is then as durable as that system allows. A
  // real I/O error is reported, though the new file is already in place by then.
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const int dir_fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    FdCloser dir_closer(dir_fd);
    if (::fsync(dir_fd) != 0 && errno != EINVAL && errno != EROFS) {
      return ErrnoStatus(errno, absl::StrCat("wrote '", path, "' but could not flush its folder to disk"));
    }
  }
  return absl::OkStatus();
}

}  // namespace onnx_legalize
