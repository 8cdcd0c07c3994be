#include "io/kill_points.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"

namespace onnx_legalize {
namespace {

// The point and count ONNX_LEGALIZE_KILL_AT asks for; an empty point when it is unset or malformed.
struct KillRequest {
  std::string point;
  int64_t at = 0;
};

KillRequest ReadRequest() {
  KillRequest request;
  const char* value = std::getenv("ONNX_LEGALIZE_KILL_AT");
  if (value == nullptr) return request;
  const std::string text(value);
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(text.substr(colon + 1), &request.at) || request.at < 1) {
    return request;
  }
  request.point = text.substr(0, colon);
  return request;
}

}  // namespace

void KillPoint(const char* point) {
  static const KillRequest* const request = new KillRequest(ReadRequest());
  if (request->point.empty() || request->point != point) return;
  static std::atomic<int64_t> reached{0};
  if (reached.fetch_add(1) + 1 == request->at) ::kill(::getpid(), SIGKILL);
}

}  // namespace onnx_legalize
