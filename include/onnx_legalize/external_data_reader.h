// The interface the library reads tensors stored as external data through, in a header of its own: the
// stages that only hold a reader (graph/'s scopes decode constants through one) need no file and no entry
// point. io/ implements it for a model file (OpenExternalData, legalize.h).
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_EXTERNAL_DATA_READER_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_EXTERNAL_DATA_READER_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Reads the bytes of tensors stored as external data (data_location EXTERNAL; the external_data keys
// location, offset and length say where). OpenExternalData gives one for a model file; tests and callers
// with their own storage implement it.
class ExternalDataReader {
 public:
  // A tensor's external bytes, held in memory for as long as the object lives.
  class Held {
   public:
    virtual ~Held() = default;
    virtual std::string_view bytes() const = 0;
  };

  virtual ~ExternalDataReader() = default;
  // `tensor`'s external bytes: exactly what its raw_data would hold. Errors name the tensor and the file.
  virtual absl::StatusOr<std::string> Read(const onnx::TensorProto& tensor) const = 0;
  // `tensor`'s external bytes for a reader that reads them where they lie, perhaps many times and perhaps only
  // in part (the opset move's proof). OpenExternalData's reader maps the file, so that only the pages read are
  // read and no copy is made; this default holds what Read gives.
  virtual absl::StatusOr<std::unique_ptr<const Held>> Hold(const onnx::TensorProto& tensor) const {
    class ReadBytes final : public Held {
     public:
      explicit ReadBytes(std::string bytes) : bytes_(std::move(bytes)) {}
      std::string_view bytes() const override { return bytes_; }

     private:
      std::string bytes_;
    };
    absl::StatusOr<std::string> bytes = Read(tensor);
    if (!bytes.ok()) return bytes.status();
    return std::make_unique<const ReadBytes>(*std::move(bytes));
  }
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_EXTERNAL_DATA_READER_H_
