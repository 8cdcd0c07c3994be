// See io/model_file_streams.h. Protobuf's wire format is a sequence of records (tag, then a value whose length
// the tag's wire type gives), and parsing a sequence of records is the same as merging each one, in order,
// into the message. So the reader walks ModelProto -> graph -> initializer -> raw_data record by record,
// hands every other record to protobuf in batches, and reads large payloads itself.
#include "io/model_file_streams.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format.h"

namespace onnx_legalize {
namespace {

// The write buffer's size, and the most one write system call moves (reads: FileParseSizes). Payloads
// still go straight from their string, a MiB a call: a single write of a whole 64 MiB payload sometimes
// stalled the process in the kernel's dirty-page throttling for a second (bench/, scenario 1).
constexpr size_t kWriteBufferBytes = size_t{1} << 20;

// Field numbers and wire types of onnx.proto that the reader walks through.
constexpr uint32_t kModelGraphField = 7;
constexpr uint32_t kGraphInitializerField = 5;
constexpr uint32_t kTensorRawDataField = 9;
enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// What protobuf's parser accepts, so that nothing it refuses is accepted here (a zero-padded, longer
// encoding of a valid tag or length included): varints of up to 10 bytes, tags and lengths of up to 5,
// lengths up to INT_MAX less the 16 bytes its parser reads ahead.
constexpr int kMaxVarintBytes = 10;
constexpr int kMaxTagOrLengthBytes = 5;
constexpr uint64_t kMaxLength = INT_MAX - 16;

// Sequential reads from a file through a buffer, with reads of long runs going straight to the caller.
class FileCursor {
 public:
  // The buffer is left uninitialized: zeroing 1 MiB (and faulting in every page of it) cost more than
  // parsing a model of a few hundred nodes, which --check over a repository does hundreds of times.
  FileCursor(int fd, int64_t file_size, size_t buffer_bytes)
      : fd_(fd),
        file_size_(file_size),
        buffer_size_(std::max<size_t>(buffer_bytes, 16)),
        buffer_(new char[buffer_size_]) {}

  int64_t Position() const { return file_offset_ - static_cast<int64_t>(end_ - next_); }
  int read_errno() const { return read_errno_; }

  // A varint of at most `max_bytes` bytes (protobuf reads values in up to 10, tags and lengths in up to 5,
  // whatever value a longer, zero-padded encoding would have).
  bool ReadVarint(uint64_t& value, int max_bytes = kMaxVarintBytes) {
    value = 0;
    for (int i = 0; i < max_bytes; ++i) {
      char byte;
      if (!Read(&byte, 1)) return false;
      value |= static_cast<uint64_t>(static_cast<unsigned char>(byte) & 0x7f) << (7 * i);
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }

  // Hands out the buffered bytes (refilled if none are left) as they are; false at the end of the file.
  bool NextChunk(const void** data, int* size) {
    if (next_ == end_ && !Refill()) return false;
    *data = buffer_.get() + next_;
    *size = static_cast<int>(end_ - next_);
    next_ = end_;
    return true;
  }
  // Gives back the last `count` bytes NextChunk handed out.
  void Unread(int count) { next_ -= static_cast<size_t>(count); }

  // Reads exactly `size` bytes into `out`; false at the end of the file or on a read error.
  bool Read(char* out, size_t size) {
    const size_t buffered = std::min(size, end_ - next_);
    std::memcpy(out, buffer_.get() + next_, buffered);
    next_ += buffered;
    out += buffered;
    size -= buffered;
    if (size == 0) return true;
    if (size >= buffer_size_) return ReadDirect(out, size);
    if (!Refill()) return false;
    if (size > end_ - next_) return false;
    std::memcpy(out, buffer_.get() + next_, size);
    next_ += size;
    return true;
  }

 private:
  bool ReadDirect(char* out, size_t size) {
    while (size > 0) {
      const ssize_t got = ::read(fd_, out, std::min(size, buffer_size_));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return Failed(got);
      out += got;
      size -= static_cast<size_t>(got);
      file_offset_ += got;
    }
    return true;
  }

  bool Refill() {
    next_ = end_ = 0;
    const size_t want = static_cast<size_t>(std::min<int64_t>(buffer_size_, file_size_ - file_offset_));
    while (end_ < want) {
      const ssize_t got = ::read(fd_, buffer_.get() + end_, want - end_);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return Failed(got);
      end_ += static_cast<size_t>(got);
      file_offset_ += got;
    }
    return end_ > 0;
  }

  bool Failed(ssize_t got) {
    if (got < 0) read_errno_ = errno;
    return false;
  }

  int fd_;
  int64_t file_size_;
  int64_t file_offset_ = 0;  // of the byte after the buffered ones
  size_t buffer_size_;
  std::unique_ptr<char[]> buffer_;
  size_t next_ = 0;
  size_t end_ = 0;
  int read_errno_ = 0;
};

// A FileCursor as protobuf's ZeroCopyInputStream.
class FileCursorStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  explicit FileCursorStream(FileCursor& cursor) : cursor_(cursor) {}

  bool Next(const void** data, int* size) override {
    if (!cursor_.NextChunk(data, size)) return false;
    byte_count_ += *size;
    return true;
  }
  void BackUp(int count) override {
    cursor_.Unread(count);
    byte_count_ -= count;
  }
  bool Skip(int count) override {
    while (count > 0) {
      const void* data;
      int size;
      if (!Next(&data, &size)) return false;
      if (size > count) BackUp(size - count);
      count -= std::min(size, count);
    }
    return true;
  }
  int64_t ByteCount() const override { return byte_count_; }

 private:
  FileCursor& cursor_;
  int64_t byte_count_ = 0;
};

void AppendVarint(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Reads one message's records from `in` up to the file offset `end`. Records the caller does not claim
// collect in a batch that protobuf merges into the message; a claimed record's value the caller reads
// itself, after the batch before it is merged (so the fields keep their order).
class RecordWalker {
 public:
  RecordWalker(FileCursor& in, int64_t end, google::protobuf::MessageLite& message, int recursion_limit,
               size_t batch_bytes)
      : in_(in), end_(end), message_(message), recursion_limit_(recursion_limit), batch_bytes_(batch_bytes) {}

  // For each length-delimited record, `claims(field, length)` says whether the caller reads its value;
  // if so, `read(field, length)` does, returning false on failure.
  template <typename Claims, typename Read>
  bool Walk(Claims claims, Read read) {
    while (in_.Position() < end_) {
      uint64_t tag;
      if (!in_.ReadVarint(tag, kMaxTagOrLengthBytes) || tag > UINT32_MAX || (tag >> 3) == 0) return false;
      const uint32_t field = static_cast<uint32_t>(tag >> 3);
      const uint32_t wire_type = static_cast<uint32_t>(tag & 7);
      if (wire_type == kLengthDelimited) {
        uint64_t length;
        if (!in_.ReadVarint(length, kMaxTagOrLengthBytes) || length > kMaxLength ||
            static_cast<int64_t>(length) > end_ - in_.Position()) {
          return false;
        }
        if (claims(field, static_cast<int64_t>(length))) {
          if (!Flush() || !read(field, static_cast<int64_t>(length))) return false;
          continue;
        }
        if (length >= batch_bytes_) {
          if (!Flush() || !MergeFromFile(tag, length)) return false;
          continue;
        }
        AppendVarint(tag, batch_);
        AppendVarint(length, batch_);
        if (!AppendBytes(length)) return false;
      } else {
        AppendVarint(tag, batch_);
        if (wire_type == kVarint) {
          uint64_t value;
          if (!in_.ReadVarint(value)) return false;
          AppendVarint(value, batch_);
        } else if (wire_type == kFixed64 || wire_type == kFixed32) {
          if (!AppendBytes(wire_type == kFixed64 ? 8 : 4)) return false;
        } else {
          return false;  // groups: onnx.proto has none; protobuf's own parse decides
        }
      }
      if (batch_.size() >= batch_bytes_ && !Flush()) return false;
    }
    return in_.Position() == end_ && Flush();
  }

 private:
  bool AppendBytes(uint64_t count) {
    const size_t old_size = batch_.size();
    batch_.resize(old_size + count);
    return in_.Read(&batch_[old_size], count);
  }

  // A record too large for the batch (a big tensor in a Constant node, say): protobuf parses it from the
  // file itself, as it would the whole model, rather than from a copy of it in memory.
  bool MergeFromFile(uint64_t tag, uint64_t length) {
    const int64_t end = in_.Position() + static_cast<int64_t>(length);
    std::string head_bytes;
    AppendVarint(tag, head_bytes);
    AppendVarint(length, head_bytes);
    bool merged;
    {
      google::protobuf::io::ArrayInputStream head(head_bytes.data(), static_cast<int>(head_bytes.size()));
      FileCursorStream file(in_);
      // Gives back, when it goes, whatever the parse read past the record.
      google::protobuf::io::LimitingInputStream body(&file, static_cast<int64_t>(length));
      google::protobuf::io::ZeroCopyInputStream* parts[] = {&head, &body};
      google::protobuf::io::ConcatenatingInputStream record(parts, 2);
      google::protobuf::io::CodedInputStream coded(&record);
      coded.SetTotalBytesLimit(INT_MAX);
      coded.SetRecursionLimit(recursion_limit_);
      merged = message_.MergeFromCodedStream(&coded) && coded.ConsumedEntireMessage();
    }  // The streams hand back what they read ahead, in reverse order.
    return merged && in_.Position() == end;
  }

  bool Flush() {
    if (batch_.empty()) return true;
    google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(batch_.data()),
                                                 static_cast<int>(batch_.size()));
    coded.SetRecursionLimit(recursion_limit_);
    const bool merged = message_.MergeFromCodedStream(&coded) && coded.ConsumedEntireMessage();
    batch_.clear();
    return merged;
  }

  FileCursor& in_;
  int64_t end_;
  google::protobuf::MessageLite& message_;
  int recursion_limit_;
  size_t batch_bytes_;
  std::string batch_;
};

bool ParseLargeInitializer(FileCursor& in, int64_t end, onnx::TensorProto& tensor, int recursion_limit,
                           const FileParseSizes& sizes) {
  RecordWalker walker(in, end, tensor, recursion_limit, sizes.batch_bytes);
  return walker.Walk([](uint32_t field, int64_t) { return field == kTensorRawDataField; },
                     [&](uint32_t, int64_t length) {
                       // A field given twice keeps its last value, as in protobuf's parse.
                       std::string& raw_data = *tensor.mutable_raw_data();
                       raw_data.resize(static_cast<size_t>(length));
                       return in.Read(raw_data.data(), raw_data.size());
                     });
}

bool ParseGraph(FileCursor& in, int64_t end, onnx::GraphProto& graph, int recursion_limit,
                const FileParseSizes& sizes) {
  RecordWalker walker(in, end, graph, recursion_limit, sizes.batch_bytes);
  return walker.Walk(
      [&](uint32_t field, int64_t length) {
        return field == kGraphInitializerField && static_cast<uint64_t>(length) >= sizes.direct_initializer_bytes;
      },
      [&](uint32_t, int64_t length) {
        return ParseLargeInitializer(in, in.Position() + length, *graph.add_initializer(), recursion_limit - 1, sizes);
      });
}

// A ZeroCopyOutputStream over a file descriptor that writes aliased strings (large bytes fields, with
// aliasing enabled) with their own write calls instead of copying them through its buffer.
class FdOutputStream : public google::protobuf::io::ZeroCopyOutputStream {
 public:
  explicit FdOutputStream(int fd) : fd_(fd), buffer_(kWriteBufferBytes) {}

  bool Next(void** data, int* size) override {
    if (used_ == buffer_.size() && !Flush()) return false;
    *data = buffer_.data() + used_;
    *size = static_cast<int>(buffer_.size() - used_);
    used_ = buffer_.size();
    return true;
  }
  void BackUp(int count) override { used_ -= static_cast<size_t>(count); }
  int64_t ByteCount() const override { return flushed_ + static_cast<int64_t>(used_); }
  bool AllowsAliasing() const override { return true; }
  bool WriteAliasedRaw(const void* data, int size) override {
    return Flush() && WriteAll(static_cast<const char*>(data), static_cast<size_t>(size));
  }

  // Writes what is buffered.
  bool Flush() {
    const bool written = WriteAll(buffer_.data(), used_);
    used_ = 0;
    return written;
  }
  int write_errno() const { return write_errno_; }

 private:
  bool WriteAll(const char* data, size_t size) {
    while (size > 0) {
      const ssize_t written = ::write(fd_, data, std::min(size, kWriteBufferBytes));
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        write_errno_ = written < 0 ? errno : EIO;
        return false;
      }
      data += written;
      size -= static_cast<size_t>(written);
      flushed_ += written;
    }
    return true;
  }

  int fd_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  int64_t flushed_ = 0;
  int write_errno_ = 0;
};

// The main graph's initializers that stand for deferred values, filled in: what the filled model would
// serialize each to, and the sizes of the graph and the model that hold them. Needs the model's cached sizes
// (ByteSizeLong, called by the constructor).
class FilledStubs {
 public:
  FilledStubs(const onnx::ModelProto& model, const DeferredTensors& deferred) : model_(model) {
    model_size_ = static_cast<int64_t>(model.ByteSizeLong());  // caches every nested size, which the writer reads
    if (!model.has_graph()) return;
    const onnx::GraphProto& graph = model.graph();
    // Sizes as size_t, not the cached ints: a model past 2 GiB must be measured right to be sent elsewhere.
    const auto stubbed_graph_size = static_cast<int64_t>(graph.ByteSizeLong());
    int64_t graph_size = stubbed_graph_size;
    for (int i = 0; i < graph.initializer_size(); ++i) {
      const onnx::TensorProto& stub = graph.initializer(i);
      auto value = deferred.find(stub.name());
      if (value == deferred.end() || !IsDeferredStub(stub)) continue;
      Filled filled;
      filled.head = stub;
      filled.head.clear_data_location();
      filled.value = value->second.get();
      filled.value_bytes = filled.value->ByteSize();
      const int64_t head_size = static_cast<int64_t>(filled.head.ByteSizeLong());
      filled.size = head_size + RecordSize(filled.value_bytes);
      graph_size += RecordSize(filled.size) - RecordSize(stub.GetCachedSize());
      filled_.emplace(i, std::move(filled));
    }
    graph_size_ = graph_size;
    model_size_ += RecordSize(graph_size_) - RecordSize(stubbed_graph_size);
  }

  int64_t model_size() const { return model_size_; }

  // Writes the model, its graph's fields in field order with the filled stubs in place.
  bool Write(google::protobuf::io::CodedOutputStream& coded, absl::Status& value_failure) const {
    ForEachField(model_, [&](const google::protobuf::FieldDescriptor* field) {
      if (field->number() != static_cast<int>(kModelGraphField)) {
        google::protobuf::internal::WireFormat::SerializeFieldWithCachedSizes(field, model_, &coded);
        return true;
      }
      WriteTag(coded, kModelGraphField);
      coded.WriteVarint64(static_cast<uint64_t>(graph_size_));
      return WriteGraph(coded, value_failure);
    });
    return value_failure.ok() && !coded.HadError();
  }

 private:
  struct Filled {
    onnx::TensorProto head;  // the stub without its data_location
    const DeferredTensor* value = nullptr;
    int64_t value_bytes = 0;
    int64_t size = 0;  // the filled tensor's serialized size
  };

  // A length-delimited record's bytes for `length` bytes of content (tags of fields below 16: one byte).
  static int64_t RecordSize(int64_t length) {
    return 1 +
           static_cast<int64_t>(google::protobuf::io::CodedOutputStream::VarintSize64(static_cast<uint64_t>(length))) +
           length;
  }
  static void WriteTag(google::protobuf::io::CodedOutputStream& coded, uint32_t field) {
    coded.WriteTag(field << 3 | kLengthDelimited);
  }

  // Calls `write(field)` for each field set in `message`, in field order (the order serialization writes
  // them in), until `write` returns false. The message's unknown fields are the caller's to write.
  template <typename Write>
  static void ForEachField(const google::protobuf::Message& message, const Write& write) {
    const google::protobuf::Reflection* reflection = message.GetReflection();
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    reflection->ListFields(message, &fields);
    for (const google::protobuf::FieldDescriptor* field : fields) {
      if (!write(field)) return;
    }
  }

  bool WriteGraph(google::protobuf::io::CodedOutputStream& coded, absl::Status& value_failure) const {
    const onnx::GraphProto& graph = model_.graph();
    bool written = true;
    ForEachField(graph, [&](const google::protobuf::FieldDescriptor* field) {
      if (field->number() != static_cast<int>(kGraphInitializerField)) {
        google::protobuf::internal::WireFormat::SerializeFieldWithCachedSizes(field, graph, &coded);
        return true;
      }
      for (int i = 0; i < graph.initializer_size() && written; ++i) {
        written = WriteInitializer(coded, i, value_failure);
      }
      return written;
    });
    google::protobuf::internal::WireFormat::SerializeUnknownFields(graph.GetReflection()->GetUnknownFields(graph),
                                                                   &coded);
    return written;
  }

  bool WriteInitializer(google::protobuf::io::CodedOutputStream& coded, int i, absl::Status& value_failure) const {
    WriteTag(coded, kGraphInitializerField);
    auto filled = filled_.find(i);
    if (filled == filled_.end()) {
      const onnx::TensorProto& tensor = model_.graph().initializer(i);
      coded.WriteVarint32(static_cast<uint32_t>(tensor.GetCachedSize()));
      tensor.SerializeWithCachedSizes(&coded);
      return !coded.HadError();
    }
    const Filled& f = filled->second;
    coded.WriteVarint64(static_cast<uint64_t>(f.size));
    // A stub holds fields 1-8 only (dims, data_type, name; IsDeferredStub excludes external_data), so raw_data,
    // field 9, comes right after them, where the filled tensor would have it.
    f.head.SerializeWithCachedSizes(&coded);
    WriteTag(coded, kTensorRawDataField);
    coded.WriteVarint64(static_cast<uint64_t>(f.value_bytes));
    int64_t handed = 0;
    value_failure = f.value->WriteTo([&](absl::string_view part) {
      handed += static_cast<int64_t>(part.size());
      if (handed > f.value_bytes) return absl::InternalError("a deferred value gave more bytes than it has");
      coded.WriteRawMaybeAliased(part.data(), static_cast<int>(part.size()));
      return coded.HadError() ? absl::DataLossError("write failed") : absl::OkStatus();
    });
    if (coded.HadError()) return false;  // the write's errno is the failure, not the value
    if (value_failure.ok() && handed != f.value_bytes) {
      value_failure = absl::InternalError(absl::StrCat("the deferred value of initializer '", f.head.name(), "' gave ",
                                                       handed, " bytes of ", f.value_bytes));
    }
    return value_failure.ok();
  }

  const onnx::ModelProto& model_;
  std::map<int, Filled> filled_;  // by initializer index
  int64_t graph_size_ = 0;
  int64_t model_size_ = 0;
};
}  // namespace

bool ParseModelFromFile(int fd, int64_t file_size, int recursion_limit, onnx::ModelProto& model, int* read_errno,
                        const FileParseSizes& sizes) {
  FileCursor in(fd, file_size, sizes.buffer_bytes);
  RecordWalker walker(in, file_size, model, recursion_limit, sizes.batch_bytes);
  const bool parsed =
      walker.Walk([](uint32_t field, int64_t) { return field == kModelGraphField; },
                  [&](uint32_t, int64_t length) {
                    return ParseGraph(in, in.Position() + length, *model.mutable_graph(), recursion_limit - 1, sizes);
                  });
  *read_errno = in.read_errno();
  return parsed;
}

int SerializeModelToFile(const onnx::ModelProto& model, int fd) {
  FdOutputStream file(fd);
  {
    google::protobuf::io::CodedOutputStream coded(&file);
    // Deterministic: map fields (none in onnx.proto today) and unknown fields come out in a fixed order,
    // so the same model gives byte-identical files run after run.
    coded.SetSerializationDeterministic(true);
    coded.EnableAliasing(true);
    model.SerializeWithCachedSizes(&coded);
    if (coded.HadError()) return file.write_errno() != 0 ? file.write_errno() : EIO;
  }  // The coded stream hands its unused buffer back here.
  if (!file.Flush()) return file.write_errno();
  return 0;
}

int SerializeModelWithDeferredToFile(const onnx::ModelProto& model, const DeferredTensors& deferred, int fd,
                                     absl::Status& value_failure) {
  const FilledStubs filled(model, deferred);
  FdOutputStream file(fd);
  {
    google::protobuf::io::CodedOutputStream coded(&file);
    coded.SetSerializationDeterministic(true);
    coded.EnableAliasing(true);
    if (!filled.Write(coded, value_failure)) {
      if (!value_failure.ok()) return -1;
      return file.write_errno() != 0 ? file.write_errno() : EIO;
    }
    google::protobuf::internal::WireFormat::SerializeUnknownFields(model.GetReflection()->GetUnknownFields(model),
                                                                   &coded);
    if (coded.HadError()) return file.write_errno() != 0 ? file.write_errno() : EIO;
  }
  if (!file.Flush()) return file.write_errno();
  return 0;
}

int64_t SerializedSizeWithDeferred(const onnx::ModelProto& model, const DeferredTensors& deferred) {
  return FilledStubs(model, deferred).model_size();
}

}  // namespace onnx_legalize
