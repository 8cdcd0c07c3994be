// What the fuzz targets share: failing on a broken promise (libFuzzer keeps the input that aborted, and
// fuzz/run.sh looks for "broken promise" in the log), and the deterministic bytes SaveModel writes.
#ifndef ONNX_LEGALIZE_FUZZ_FUZZ_SUPPORT_H_
#define ONNX_LEGALIZE_FUZZ_FUZZ_SUPPORT_H_

#include <errno.h>  // program_invocation_short_name

#include <cstdio>
#include <cstdlib>
#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize::fuzz {

// Aborts, naming the fuzzer and the promise, unless `condition` holds.
inline void Require(bool condition, const char* what, const std::string& detail = "") {
  if (condition) return;
  std::fprintf(stderr, "%s: broken promise: %s\n%s\n", program_invocation_short_name, what, detail.c_str());
  std::abort();
}

// What SaveModel writes: deterministic bytes.
inline std::string Serialize(const onnx::ModelProto& model) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    model.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace onnx_legalize::fuzz

#endif  // ONNX_LEGALIZE_FUZZ_FUZZ_SUPPORT_H_
