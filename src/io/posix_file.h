// What the code that loads and saves models shares of POSIX: errno as an absl::Status, and a descriptor
// closed on scope exit.
#ifndef ONNX_LEGALIZE_SRC_IO_POSIX_FILE_H_
#define ONNX_LEGALIZE_SRC_IO_POSIX_FILE_H_

#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace onnx_legalize {

// `message`, then errno's text, with the code errno maps to. strerror() is not thread-safe;
// std::generic_category() gives the same text safely.
inline absl::Status ErrnoStatus(int error_number, const std::string& message) {
  return absl::Status(absl::ErrnoToStatusCode(error_number),
                      absl::StrCat(message, ": ", std::error_code(error_number, std::generic_category()).message()));
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

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_POSIX_FILE_H_
