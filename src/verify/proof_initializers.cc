#include "verify/proof_initializers.h"

#include <memory>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/external_tensor.h"
#include "core/status_macros.h"
#include "graph/subgraphs.h"

namespace onnx_legalize {
namespace {

std::string Describe(const onnx::TensorProto& initializer) {
  return absl::StrCat("initializer '", initializer.name(), "' (graph ", kMainGraphPath, ")");
}

}  // namespace

std::optional<std::string> ProofInitializers::WhyUnreadable(const onnx::TensorProto& initializer) const {
  if (!IsExternal(initializer)) return std::nullopt;
  if (set_aside_ && set_aside_(initializer.name()) != nullptr) return std::nullopt;
  if (initializer.external_data_size() > 0 && external_data_ != nullptr) return std::nullopt;
  return absl::StrCat("initializer '", initializer.name(),
                      "' is external data, and the proof is given no reader for it (Options::external_data)");
}

int64_t ProofInitializers::BytesHeld(const onnx::TensorProto& initializer) const {
  if (!IsExternal(initializer)) return static_cast<int64_t>(initializer.ByteSizeLong());
  const onnx::TensorProto* data = set_aside_ ? set_aside_(initializer.name()) : nullptr;
  return data == nullptr ? 0 : static_cast<int64_t>(data->ByteSizeLong());
}

InitializersElsewhere ProofInitializers::Values() const {
  return [this](const onnx::TensorProto& initializer) { return ValueOf(initializer); };
}

absl::StatusOr<std::optional<Tensor>> ProofInitializers::ValueOf(const onnx::TensorProto& initializer) const {
  if (const onnx::TensorProto* data = set_aside_ ? set_aside_(initializer.name()) : nullptr) {
    return TensorViewFromProto(*data, Describe(initializer));
  }
  if (initializer.external_data_size() == 0 || external_data_ == nullptr) return std::nullopt;
  ASSIGN_OR_RETURN(std::shared_ptr<const ExternalDataReader::Held> held, external_data_->Hold(initializer));
  ASSIGN_OR_RETURN(
      Tensor value,
      TensorViewOfExternalData(
          initializer, [&held]() -> absl::StatusOr<std::string_view> { return held->bytes(); }, Describe(initializer)));
  value.KeepAlive(std::move(held));
  return value;
}

}  // namespace onnx_legalize
