#include "io/mapped_file_range.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "io/posix_file.h"

namespace onnx_legalize {

absl::StatusOr<MappedFileRange> MappedFileRange::Map(int fd, int64_t offset, int64_t length, const std::string& path) {
  if (offset < 0 || length < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot map ", length, " bytes at offset ", offset, " of '", path, "'"));
  }
  // mmap of nothing fails (EINVAL); an empty tensor needs no page.
  if (length == 0) return MappedFileRange(nullptr, 0, "", 0);
  // mmap wants an offset on a page boundary: the range starts that far into the mapping.
  const int64_t page = ::sysconf(_SC_PAGESIZE);
  const int64_t start = offset - offset % page;
  const auto mapped_length = static_cast<size_t>(offset - start + length);
  void* base = ::mmap(nullptr, mapped_length, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (base == MAP_FAILED) {
    return ErrnoStatus(errno, absl::StrCat("cannot map ", length, " bytes at offset ", offset, " of '", path, "'"));
  }
  return MappedFileRange(base, mapped_length, static_cast<const char*>(base) + (offset - start), length);
}

MappedFileRange::MappedFileRange(MappedFileRange&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      mapped_length_(std::exchange(other.mapped_length_, 0)),
      data_(std::exchange(other.data_, nullptr)),
      length_(std::exchange(other.length_, 0)) {}

MappedFileRange& MappedFileRange::operator=(MappedFileRange&& other) noexcept {
  if (this != &other) {
    Unmap();
    base_ = std::exchange(other.base_, nullptr);
    mapped_length_ = std::exchange(other.mapped_length_, 0);
    data_ = std::exchange(other.data_, nullptr);
    length_ = std::exchange(other.length_, 0);
  }
  return *this;
}

MappedFileRange::~MappedFileRange() { Unmap(); }

void MappedFileRange::Unmap() {
  if (base_ != nullptr) ::munmap(base_, mapped_length_);
  base_ = nullptr;
}

}  // namespace onnx_legalize
