// A value's declared type as text, for reports and messages: "tensor(float)[1,3,?,?]", "seq(map(string,
// tensor(float)))", in onnx's own spelling of types (onnx's DataTypeUtils), with a tensor's shape after it when
// one is declared ("tensor(float)" alone: no shape; "tensor(float)[]": a scalar; "?" an unknown dim, a symbolic
// dim by its name).
#ifndef ONNX_LEGALIZE_SRC_GRAPH_TYPE_TEXT_H_
#define ONNX_LEGALIZE_SRC_GRAPH_TYPE_TEXT_H_

#include <string>

#include "onnx/onnx_pb.h"

namespace onnx_legalize {

std::string TypeText(const onnx::TypeProto& type);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_TYPE_TEXT_H_
