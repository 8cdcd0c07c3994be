// Where the opset move's proof reads the initializers a model holds elsewhere (data_location EXTERNAL): the
// large initializers Legalize sets aside while it transforms a model (their TensorProtos, by name), and a model's
// external data, held through its ExternalDataReader (a memory map of the file for a model loaded from a path).
// Each is read where it lies, once for both forms of an input set: a weight of gigabytes is never copied, never
// read unless a node the proof runs reads it, and unmapped after its last reader, so that the pages read of a model
// of many weights are not all held at once.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_PROOF_INITIALIZERS_H_
#define ONNX_LEGALIZE_SRC_VERIFY_PROOF_INITIALIZERS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "eval/model_runner.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/external_data_reader.h"

namespace onnx_legalize {

// The data of a large initializer Legalize set aside while it transforms a model, by the initializer's name, or
// null: the model then holds a stub of it marked EXTERNAL without external_data entries.
using SetAsideInitializers = std::function<const onnx::TensorProto*(const std::string& name)>;

class ProofInitializers {
 public:
  // Either may be null. Both must outlive this object.
  ProofInitializers(SetAsideInitializers set_aside, const ExternalDataReader* external_data)
      : set_aside_(std::move(set_aside)), external_data_(external_data) {}
  ProofInitializers(const ProofInitializers&) = delete;
  ProofInitializers& operator=(const ProofInitializers&) = delete;

  // Why the proof cannot read `initializer`'s data, or nullopt (always for one the model holds itself).
  std::optional<std::string> WhyUnreadable(const onnx::TensorProto& initializer) const;
  // The bytes the proof holds in memory for `initializer`: its set-aside or own data; 0 for external data, which
  // is mapped and paged in as it is read.
  int64_t BytesHeld(const onnx::TensorProto& initializer) const;
  // What the model runner reads them through; valid while this object lives. A tensor of external data holds its
  // mapping, released with the last tensor viewing it.
  InitializersElsewhere Values() const;

 private:
  absl::StatusOr<std::optional<Tensor>> ValueOf(const onnx::TensorProto& initializer) const;

  SetAsideInitializers set_aside_;
  const ExternalDataReader* external_data_;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_PROOF_INITIALIZERS_H_
