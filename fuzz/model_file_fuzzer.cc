// libFuzzer target: bytes -> a file -> ParseModelFromFile, against protobuf's own parse of the same bytes.
// Built and run by fuzz/run.sh.
//
// model_file_streams walks a model's records itself and reads large payloads on its own, for speed; its
// promise is that it either declines or gives exactly the message protobuf gives. The first byte picks
// tiny sizes (buffer, direct-read and batch thresholds of a few bytes), so that inputs of a few hundred
// bytes take every path that real models take with MiB-sized payloads:
//  - parsed by us => parsed by protobuf, and the deterministic serializations of the two are equal;
//  - never a read error on a well-formed file (the file is a memfd holding the bytes).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "google/protobuf/io/coded_stream.h"
#include "io/model_file_streams.h"
#include "onnx/onnx_pb.h"

namespace {

constexpr int kRecursionLimit = 100;

using onnx_legalize::fuzz::Require;
using onnx_legalize::fuzz::Serialize;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  onnx_legalize::FileParseSizes sizes;
  const uint8_t knobs = data[0];
  sizes.buffer_bytes = size_t{16} << (knobs & 3);                      // 16 .. 128
  sizes.direct_initializer_bytes = uint64_t{1} << ((knobs >> 2) & 7);  // 1 .. 128
  sizes.batch_bytes = size_t{1} << (2 + ((knobs >> 5) & 7));           // 4 .. 512
  ++data;
  --size;

  const int fd = ::memfd_create("model_file_fuzzer", MFD_CLOEXEC);
  Require(fd >= 0, "memfd_create failed");
  Require(::write(fd, data, size) == static_cast<ssize_t>(size) && ::lseek(fd, 0, SEEK_SET) == 0,
          "cannot write the memfd");
  onnx::ModelProto ours;
  int read_errno = -1;
  const bool parsed =
      onnx_legalize::ParseModelFromFile(fd, static_cast<int64_t>(size), kRecursionLimit, ours, &read_errno, sizes);
  ::close(fd);
  Require(read_errno == 0, "a read error on a memfd");
  if (!parsed) return 0;

  google::protobuf::io::CodedInputStream coded(data, static_cast<int>(size));
  coded.SetRecursionLimit(kRecursionLimit);
  onnx::ModelProto theirs;
  Require(theirs.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage(),
          "ParseModelFromFile accepted bytes protobuf rejects");
  Require(Serialize(ours) == Serialize(theirs), "ParseModelFromFile parsed another message than protobuf");
  return 0;
}
