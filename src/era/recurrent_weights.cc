// RNN, GRU and LSTM weights of the rank their schemas give them. PyTorch 0.3 exported a recurrent layer's W and
// R as its own framework holds them, [gates * hidden_size, input_size] and [gates * hidden_size, hidden_size],
// where every version of the ops takes them with the num_directions axis first, [num_directions, ...]. Caffe2
// read them; ONNX Runtime refuses the node when it runs ("R is float[20,20]; it must be 3-D" in the model
// runner's words), and onnx's checker and inference do not look. PyTorch itself re-exported its test models
// with the axis added (onnx/onnx#926). A weight whose rank the model states (an initializer, or a declaration)
// and that is not 3 is refused here, naming the node: the legalized model would load and then fail on its first
// run. Weights computed at run time are left to the runtime.
#include <string>

#include "absl/strings/str_cat.h"
#include "era/era_walk.h"
#include "era/legacy_repairs.h"
#include "graph/labels.h"
#include "graph/op_names.h"
#include "graph/untyped_era_ops.h"

namespace onnx_legalize {
namespace {

// The rank `graph` states for `name`: an initializer's, or a declaration's with a shape; -1 when it states none.
int StatedRank(const onnx::GraphProto& graph, const std::string& name) {
  for (const onnx::TensorProto& initializer : graph.initializer()) {
    if (initializer.name() == name) return initializer.dims_size();
  }
  auto declared_rank = [&](const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& values) {
    for (const onnx::ValueInfoProto& value : values) {
      if (value.name() == name && value.type().has_tensor_type() && value.type().tensor_type().has_shape()) {
        return value.type().tensor_type().shape().dim_size();
      }
    }
    return -1;
  };
  const int input_rank = declared_rank(graph.input());
  return input_rank >= 0 ? input_rank : declared_rank(graph.value_info());
}

}  // namespace

absl::Status CheckRecurrentWeightRanks(onnx::ModelProto& model) {
  absl::Status refused;
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (int i = 0; i < graph.node_size() && refused.ok(); ++i) {
      const onnx::NodeProto& node = graph.node(i);
      if (!IsRecurrentOp(node.op_type()) || !IsDefaultDomain(node.domain())) continue;
      for (int input : {1, 2}) {  // W and R
        if (node.input_size() <= input || node.input(input).empty()) continue;
        const int rank = StatedRank(graph, node.input(input));
        if (rank < 0 || rank == 3) continue;
        refused = absl::InvalidArgumentError(absl::StrCat(
            InGraph(NodeLabelAt(node, i), path), ": ", input == 1 ? "W" : "R", " '", node.input(input), "' is of rank ",
            rank, ", and ", node.op_type(), " takes it of rank 3 in every version, [num_directions, ...] (PyTorch 0.3 ",
            "wrote its own 2-D weights, which only Caffe2 read; no runtime of today runs the node)"));
        break;
      }
    }
  });
  return refused;
}

}  // namespace onnx_legalize
