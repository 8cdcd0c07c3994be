// How deeply a model's protobuf messages nest, and how deep the parsers users load models with go: onnx's
// (Python's onnx.load, on upb) and ONNX Runtime's refuse a model nested past protobuf's default recursion limit
// of 100. Each If/Loop/Scan body costs three levels (node, attribute, graph), so a model of about 31 nested
// bodies is the deepest they read. This library parses deeper (io/model_load.cc) so that it can say why a model
// is refused; what it accepts as a result must load where it is used.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_MESSAGE_DEPTH_H_
#define ONNX_LEGALIZE_SRC_GRAPH_MESSAGE_DEPTH_H_

#include "google/protobuf/message.h"

namespace onnx_legalize {

// The deepest message nesting onnx's and ONNX Runtime's parsers read, counted as MessageDepth counts: the
// model's own message is 1, protobuf's recursion limit of 100 counts the messages below it.
inline constexpr int kMaxParsedMessageDepth = 101;

// The levels of `message` and the messages it holds, itself counted as 1 (a message of scalars alone is 1).
int MessageDepth(const google::protobuf::Message& message);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_MESSAGE_DEPTH_H_
