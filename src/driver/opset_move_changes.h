// What an opset move did to a model's nodes, for the report (Report::opset_move_changes): a print of every
// default-domain node taken before the move (its op, inputs and attributes, keyed by its graph and first output,
// which the move keeps), compared with the moved model.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_OPSET_MOVE_CHANGES_H_
#define ONNX_LEGALIZE_SRC_DRIVER_OPSET_MOVE_CHANGES_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx_legalize/report.h"

namespace onnx_legalize {

class NodesBeforeMove {
 public:
  // The default-domain nodes of `before` (every graph), a model at default opset `from`.
  NodesBeforeMove(const onnx::ModelProto& before, int64_t from);

  // What the move to `to` that made `after` changed, by op and way (OpsetMoveChange), in the order the first of each
  // is found in `after`, the removed nodes last.
  std::vector<OpsetMoveChange> Changes(const onnx::ModelProto& after, int64_t to) const;

 private:
  struct Print {
    std::string op_type;
    std::string label;  // NodeLabel, with its graph
    std::string body;   // inputs and (non-graph) attributes, as bytes to compare
  };

  int64_t from_;
  std::unordered_map<std::string, Print> prints_;  // by graph path and first output
  std::vector<std::string> order_;                 // the keys in the order found
};

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_OPSET_MOVE_CHANGES_H_
