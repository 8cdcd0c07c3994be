// A range of a file mapped read-only into memory: how the opset move's proof reads a model's external data.
// A weight of gigabytes is then paged in only where a kernel touches it, and a weight the move left as it was
// (read by an Identity, say, computed once for both forms) is never read at all, where reading it whole would
// cost its size in memory and its read time on every legalization.
//
// Like every reader of a memory map (ONNX Runtime maps external data the same way), the process must not see
// the file shrink under the mapping: a page past the new end reads as SIGBUS. The model's own folder is the
// user's, and the tool never writes the files it reads.
#ifndef ONNX_LEGALIZE_SRC_IO_MAPPED_FILE_RANGE_H_
#define ONNX_LEGALIZE_SRC_IO_MAPPED_FILE_RANGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace onnx_legalize {

class MappedFileRange {
 public:
  // Maps `length` bytes at `offset` of the open file `fd` (named `path` in errors). The descriptor may be closed
  // once this returns: the mapping keeps the file.
  static absl::StatusOr<MappedFileRange> Map(int fd, int64_t offset, int64_t length, const std::string& path);

  MappedFileRange(MappedFileRange&& other) noexcept;
  MappedFileRange& operator=(MappedFileRange&& other) noexcept;
  MappedFileRange(const MappedFileRange&) = delete;
  MappedFileRange& operator=(const MappedFileRange&) = delete;
  ~MappedFileRange();

  std::string_view bytes() const { return {data_, static_cast<size_t>(length_)}; }

 private:
  MappedFileRange(void* base, size_t mapped_length, const char* data, int64_t length)
      : base_(base), mapped_length_(mapped_length), data_(data), length_(length) {}
  void Unmap();

  void* base_ = nullptr;        // what mmap returned: the page the range starts in
  size_t mapped_length_ = 0;    // from base_ to the range's end
  const char* data_ = nullptr;  // the range's first byte
  int64_t length_ = 0;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_MAPPED_FILE_RANGE_H_
