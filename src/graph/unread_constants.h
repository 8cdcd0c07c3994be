// Constants a change stopped reading, removed once nothing reads them: what folds leave behind (the weight a
// DynamicSlice or a Crop cropped, the indices of a rewrite to Slice-1), in the graph that read them or an
// enclosing one.
#ifndef ONNX_LEGALIZE_SRC_GRAPH_UNREAD_CONSTANTS_H_
#define ONNX_LEGALIZE_SRC_GRAPH_UNREAD_CONSTANTS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph_locator.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// Constants that a change stops reading, with the graph it was read from (looked up outward).
using MaybeUnused = std::vector<std::pair<GraphLocator, std::string>>;

// Removes the constants of `maybe_unused` that nothing in `model` reads any more: an initializer (with its IR 3
// graph input) or a Constant node, in the reading graph or an enclosing one (looked up outward), after an opset
// move that renamed `renamed`. Internal when a locator names no graph of the model.
absl::Status RemoveUnreadConstants(const MaybeUnused& maybe_unused, onnx::ModelProto& model,
                                   const RenamedOutputs& renamed);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_GRAPH_UNREAD_CONSTANTS_H_
