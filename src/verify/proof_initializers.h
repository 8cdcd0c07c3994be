// Where the opset move's proof reads the initializers a model holds elsewhere (data_location EXTERNAL): the
// large initializers Legalize sets aside while it transforms a model (their TensorProtos, by name), and a model's
// external data, held through its ExternalDataReader (a memory map of the file for a model loaded from a path).
// Each is read where it lies, once for every input set and both forms: a weight of gigabytes the move left as it
// was is never copied, and never read unless a node the proof runs reads it.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_PROOF_INITIALIZERS_H_
#define ONNX_LEGALIZE_SRC_VERIFY_PROOF_INITIALIZERS_H_

#include <functional>
#include <map>
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
  // What the model runner reads them through; valid while this object lives. External data is held on first use
  // and kept, so that every input set and both forms read the same bytes.
  InitializersElsewhere Values();

 private:
  absl::StatusOr<std::optional<Tensor>> ValueOf(const onnx::TensorProto& initializer);

  SetAsideInitializers set_aside_;
  const ExternalDataReader* external_data_;
  // By the external reference (the stub's bytes: where and how much), so that equal references share one hold.
  std::map<std::string, std::unique_ptr<const ExternalDataReader::Held>> held_;
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_PROOF_INITIALIZERS_H_
