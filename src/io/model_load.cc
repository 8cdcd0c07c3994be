// LoadModel and OpenExternalData: a model file parsed, and its external data checked and read.
//
// Loading parses straight from the file descriptor (no whole-file string copy), reading large weights
// directly into place (io/model_file_streams.h), with protobuf's limits raised to the format's own ceiling.
//
// External data (TensorProto.data_location EXTERNAL), resolved as io/external_folder.h says:
//  - Load: every reference is checked with stat only: its location must resolve inside the model's folder to
//    a regular file, and offset and length must lie within it. Nothing is read.
//  - Read (OpenExternalData): the same checks on every read, then the file is opened as the very file that
//    was checked, so a file swapped in between cannot redirect the read outside the folder. Only the tensor's
//    range is read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "graph/graph_validation.h"
#include "io/external_data.h"
#include "io/external_folder.h"
#include "io/mapped_file_range.h"
#include "io/model_file_streams.h"
#include "io/model_io_internal.h"
#include "io/posix_file.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {

// Deep enough for a model nested kMaxSubgraphDepth levels (three messages a level, and a few more for the
// tensors and types inside the deepest graph), shallow enough that parsing cannot exhaust the stack.
constexpr int kParseRecursionLimit = 3 * kMaxSubgraphDepth + 32;
namespace {

namespace fs = std::filesystem;

using internal::kMaxProtoBytes;

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
    ASSIGN_OR_RETURN(const CheckedRange range, Check(tensor, what));
    ASSIGN_OR_RETURN(const int fd, ExternalFolder::Open(range.file, what));
    FdCloser closer(fd);
    return ReadRange(fd, range.offset, range.length, range.file.path.string());
  }

  // The same checks as Read, then the range mapped instead of read.
  absl::StatusOr<std::unique_ptr<const Held>> Hold(const onnx::TensorProto& tensor) const override {
    const std::string what = DescribeTensor(tensor);
    ASSIGN_OR_RETURN(const CheckedRange range, Check(tensor, what));
    ASSIGN_OR_RETURN(const int fd, ExternalFolder::Open(range.file, what));
    FdCloser closer(fd);
    ASSIGN_OR_RETURN(MappedFileRange mapped,
                     MappedFileRange::Map(fd, range.offset, range.length, range.file.path.string()));
    return std::make_unique<const Mapped>(std::move(mapped));
  }

 private:
  // Where a tensor's external bytes are, checked: the file resolved inside the model's folder, the range within it.
  struct CheckedRange {
    ExternalFile file;
    int64_t offset = 0;
    int64_t length = 0;
  };

  absl::StatusOr<CheckedRange> Check(const onnx::TensorProto& tensor, const std::string& what) const {
    if (!IsExternal(tensor)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": data_location is not EXTERNAL"));
    }
    ASSIGN_OR_RETURN(const ExternalDataRef ref, ParseExternalDataRef(tensor, what));
    ASSIGN_OR_RETURN(ExternalFile file, folder_.Resolve(ref.location, what));
    ASSIGN_OR_RETURN(const int64_t length, ExternalFolder::RangeLength(ref, file, what));
    // Refuse before allocating when the range cannot be the tensor (a length-less reference to a big
    // shared file, say): the decoder would refuse it after reading it all.
    const std::optional<int64_t> expected = ExpectedByteSize(tensor);
    if (expected.has_value() && *expected != length) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": its external data in '", file.path.string(), "' has ",
                                                     length, " bytes, but its type and dims need ", *expected));
    }
    return CheckedRange{std::move(file), ref.offset, length};
  }

  class Mapped final : public Held {
   public:
    explicit Mapped(MappedFileRange range) : range_(std::move(range)) {}
    std::string_view bytes() const override { return range_.bytes(); }

   private:
    MappedFileRange range_;
  };

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

// What a parsed model must have beyond protobuf's well-formedness.
absl::Status CheckParsedModel(const onnx::ModelProto& model, const std::string& path) {
  // Protobuf accepts many byte strings as a message made only of unknown fields; a real model has at
  // least a graph, and an IR version. The early runtimes' own test models (2018) left the IR version out: a
  // model without one that has a graph with a node and an output is let in, and its era read from its
  // imports (era/ir_version.cc).
  const bool has_graph_with_work =
      model.has_graph() && model.graph().node_size() > 0 && model.graph().output_size() > 0;
  if (model.ir_version() < 0 || !model.has_graph() || (model.ir_version() == 0 && !has_graph_with_work)) {
    return absl::InvalidArgumentError(absl::StrCat("model file '", path, "' is not a valid ONNX model (",
                                                   !model.has_graph()       ? "no graph"
                                                   : model.ir_version() < 0 ? "a negative ir_version"
                                                                            : "no ir_version",
                                                   ")"));
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

}  // namespace onnx_legalize
