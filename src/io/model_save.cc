// SaveModel: a model written atomically, its weights where SaveOptions says (inline, or in a data file
// beside it), the external data it refers to carried along.
//
// Every file goes through a Staging (io/staging.h): a temporary beside the destination, fsync'ed, and all
// renamed into place only once every one is complete, the model last; a failure at any step leaves existing
// destinations untouched. The model the caller passes is changed while it is written (its raw data moved to
// a data file, references pointed at it) and put back as it was before SaveModel returns. What SaveOptions
// asks for (a data file, its threshold, the folder the model's external data is read from): legalize.h.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
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
#include "core/error_kind.h"
#include "core/status_macros.h"
#include "eval/deferred_tensor.h"
#include "io/external_data.h"
#include "io/external_folder.h"
#include "io/model_file_streams.h"
#include "io/model_io_internal.h"
#include "io/posix_file.h"
#include "io/staging.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {
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
    if (ec || (parent != out_folder.path() && !out_folder.Holds(parent))) {
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

}  // namespace

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
  // Packing a data file moves raw bytes between the model's strings, which the proofs may still be reading (the
  // opset move's proof reads the weights where they lie): they end first. And deferred values have no bytes to
  // move until they are computed.
  RETURN_IF_ERROR(before_commit());
  RETURN_IF_ERROR(MaterializeDeferred(deferred, model));
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  absl::StatusOr<ExternalFolder> out_folder = ExternalFolder::At(parent);
  if (!out_folder.ok()) {
    return WithMessage(out_folder.status(), absl::StrCat("cannot write '", path, "': ", out_folder.status().message()));
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
