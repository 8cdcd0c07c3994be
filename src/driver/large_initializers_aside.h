// The large initializers of a model, set aside (moved, never copied) while a copy of the rest is transformed.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_LARGE_INITIALIZERS_ASIDE_H_
#define ONNX_LEGALIZE_SRC_DRIVER_LARGE_INITIALIZERS_ASIDE_H_

#include <memory>
#include <string>
#include <unordered_map>

#include "graph/model_skeleton.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// The large initializers of a model's main graph, set aside while the rest of it is transformed and
// checked: each one's data moves out (nothing is copied) and a stub with its name, type and dims stays,
// marked as external data so that the opset upgrade and BuildModelSkeleton treat it as the large initializer
// it stands for. Restore() moves the data back into whichever model holds the stubs then; the data of a
// stub the transformation removed (a constant nothing reads any more) stays here until this is destroyed.
// Moving is TensorProto::Swap between heap messages: the bytes stay where they are.
class LargeInitializersAside {
 public:
  explicit LargeInitializersAside(onnx::ModelProto& model) {
    if (!model.has_graph()) return;  // mutable_graph() would add one: a failed Legalize must change nothing
    for (onnx::TensorProto& initializer : *model.mutable_graph()->mutable_initializer()) {
      if (initializer.data_location() == onnx::TensorProto::EXTERNAL || !SkeletonLeavesOut(initializer)) continue;
      auto data = std::make_unique<onnx::TensorProto>();
      data->Swap(&initializer);
      initializer.set_name(data->name());
      initializer.set_data_type(data->data_type());
      *initializer.mutable_dims() = data->dims();
      initializer.set_data_location(onnx::TensorProto::EXTERNAL);
      aside_.emplace(data->name(), std::move(data));
    }
  }
  LargeInitializersAside(const LargeInitializersAside&) = delete;
  LargeInitializersAside& operator=(const LargeInitializersAside&) = delete;

  // The data of the initializer `name` set aside, or null: what the opset move's proof runs the model with. After
  // Restore(), the initializer of the model that took the data back, which must then outlive the proof and not
  // change while it runs (the proof may run while the model is written: TargetSession::CommitAndUse).
  const onnx::TensorProto* Find(const std::string& name) const {
    if (auto data = aside_.find(name); data != aside_.end()) return data->second.get();
    auto restored = restored_.find(name);
    return restored == restored_.end() ? nullptr : restored->second;
  }

  void Restore(onnx::ModelProto& model) {
    if (!model.has_graph()) return;
    for (onnx::TensorProto& initializer : *model.mutable_graph()->mutable_initializer()) {
      auto data = aside_.find(initializer.name());
      if (data == aside_.end() || initializer.data_location() != onnx::TensorProto::EXTERNAL ||
          initializer.external_data_size() > 0) {
        continue;
      }
      initializer.Swap(data->second.get());
      aside_.erase(data);
      restored_[initializer.name()] = &initializer;
    }
  }

 private:
  std::unordered_map<std::string, std::unique_ptr<onnx::TensorProto>> aside_;
  std::unordered_map<std::string, const onnx::TensorProto*> restored_;  // where Restore() moved each
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_LARGE_INITIALIZERS_ASIDE_H_
