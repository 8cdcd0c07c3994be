// The benchmark's baseline: parses a model with protobuf and serializes it again, and nothing else. It
// reads and writes the way onnx-legalize does (a protobuf stream straight from and to the file descriptor,
// deterministic serialization, fsync before close), so the two differ only by what the tool adds.
//
//   protobuf-roundtrip IN OUT                      parse IN, serialize it to OUT
//   protobuf-roundtrip IN OUT --output-bytes=N     parse IN, serialize to OUT a model of about N bytes
//                                                  whose tensors are copied out of IN's (scenario 2: the
//                                                  legalized model is larger than the input)
//   protobuf-roundtrip --parse-only IN...          parse each IN and write nothing (scenario 4: what
//                                                  reading a repository's graphs costs)
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "onnx/onnx_pb.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "protobuf-roundtrip: %s\n", message.c_str());
  return 1;
}

// A model of about `bytes` bytes: the input's header and tensors of at most 16 MiB each, filled by copying
// the input's raw tensor bytes in turn.
onnx::ModelProto ModelOfSize(const onnx::ModelProto& input, int64_t bytes) {
  constexpr int64_t kChunk = int64_t{16} << 20;
  onnx::ModelProto output;
  output.set_ir_version(input.ir_version());
  *output.mutable_opset_import() = input.opset_import();
  output.mutable_graph()->set_name(input.graph().name());
  std::vector<const std::string*> sources;
  for (const auto& tensor : input.graph().initializer()) {
    if (!tensor.raw_data().empty()) sources.push_back(&tensor.raw_data());
  }
  size_t source = 0;
  int64_t offset = 0;
  for (int64_t left = bytes, index = 0; left > 0 && !sources.empty(); ++index) {
    const int64_t size = std::min(left, kChunk);
    onnx::TensorProto* tensor = output.mutable_graph()->add_initializer();
    tensor->set_name("chunk_" + std::to_string(index));
    tensor->set_data_type(onnx::TensorProto::UINT8);
    tensor->add_dims(size);
    std::string* data = tensor->mutable_raw_data();
    data->reserve(static_cast<size_t>(size));
    while (static_cast<int64_t>(data->size()) < size) {
      const std::string& from = *sources[source];
      const int64_t n =
          std::min<int64_t>(size - static_cast<int64_t>(data->size()), static_cast<int64_t>(from.size()) - offset);
      data->append(from, static_cast<size_t>(offset), static_cast<size_t>(n));
      offset += n;
      if (offset == static_cast<int64_t>(from.size())) {
        offset = 0;
        source = (source + 1) % sources.size();
      }
    }
    left -= size;
  }
  return output;
}

bool Parse(const char* path, onnx::ModelProto& model) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  google::protobuf::io::FileInputStream file(fd);
  google::protobuf::io::CodedInputStream coded(&file);
  coded.SetTotalBytesLimit(INT_MAX);
  const bool parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  ::close(fd);
  return parsed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--parse-only") == 0) {
    for (int i = 2; i < argc; ++i) {
      onnx::ModelProto model;
      if (!Parse(argv[i], model)) return Fail(std::string("cannot parse ") + argv[i]);
    }
    return 0;
  }
  if (argc < 3 || argc > 4) {
    return Fail("usage: protobuf-roundtrip IN OUT [--output-bytes=N]");
  }
  int64_t output_bytes = -1;
  if (argc == 4) {
    const std::string flag = argv[3];
    const std::string prefix = "--output-bytes=";
    if (flag.rfind(prefix, 0) != 0) return Fail("unknown flag " + flag);
    output_bytes = std::strtoll(flag.c_str() + prefix.size(), nullptr, 10);
  }

  onnx::ModelProto model;
  if (!Parse(argv[1], model)) return Fail(std::string("cannot open or parse ") + argv[1]);
  if (output_bytes >= 0) model = ModelOfSize(model, output_bytes);

  const int fd = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Fail(std::string("cannot create ") + argv[2]);
  bool ok = true;
  {
    model.ByteSizeLong();
    google::protobuf::io::FileOutputStream file(fd);
    {
      google::protobuf::io::CodedOutputStream coded(&file);
      coded.SetSerializationDeterministic(true);
      model.SerializeWithCachedSizes(&coded);
      ok = !coded.HadError();
    }
    ok = file.Flush() && ok;
  }
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok) return Fail(std::string("cannot write ") + argv[2]);
  return 0;
}
