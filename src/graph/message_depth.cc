#include "graph/message_depth.h"

#include <algorithm>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace onnx_legalize {

int MessageDepth(const google::protobuf::Message& message) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // the fields that are set: a tensor's data is no message
  int below = 0;
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      const int size = reflection->FieldSize(message, field);
      for (int i = 0; i < size; ++i) {
        below = std::max(below, MessageDepth(reflection->GetRepeatedMessage(message, field, i)));
      }
    } else {
      below = std::max(below, MessageDepth(reflection->GetMessage(message, field)));
    }
  }
  return 1 + below;
}

}  // namespace onnx_legalize
