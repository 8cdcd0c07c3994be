// What more than one adapter fix uses: the dims the skeleton declares, and how they read in a message (the
// legacy broadcast, PRelu and Scan refusals), and the axes of a Squeeze or Unsqueeze a fix adds (PRelu, Scan),
// written as each opset wants them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/op_names.h"
#include "upgrade/fixes/adapter_fix.h"

namespace onnx_legalize::opset_upgrade {

const std::vector<int64_t>* KnownDims(const KnownTypes& types, const std::string& name) {
  auto it = types.known_dims.find(name);
  return it == types.known_dims.end() ? nullptr : &it->second;
}

std::string DimsText(const std::vector<int64_t>* dims) {
  if (dims == nullptr) return "unknown";
  std::string text = "[";
  for (size_t k = 0; k < dims->size(); ++k) {
    absl::StrAppend(&text, k > 0 ? "," : "", (*dims)[k] >= 0 ? absl::StrCat((*dims)[k]) : std::string("?"));
  }
  return text + "]";
}

// Squeeze-13 and Unsqueeze-13 take their axes as an input instead of an attribute.
void AddAxes(const std::vector<int64_t>& axes, const std::string& constant_name, SpliceContext& ctx, NodeProto* node,
             std::vector<NodeProto>* before) {
  if (ctx.move.to < 13) {
    AttributeProto* a = node->add_attribute();
    a->set_name("axes");
    a->set_type(AttributeProto::INTS);
    for (int64_t axis : axes) a->add_ints(axis);
    return;
  }
  NodeProto constant;
  constant.set_op_type(kConstantOp);
  constant.add_output(ctx.fresh.Make(constant_name));
  AttributeProto* a = constant.add_attribute();
  a->set_name("value");
  a->set_type(AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TensorProto::INT64);
  a->mutable_t()->add_dims(static_cast<int64_t>(axes.size()));
  for (int64_t axis : axes) a->mutable_t()->add_int64_data(axis);
  node->add_input(constant.output(0));
  before->push_back(std::move(constant));
}

}  // namespace onnx_legalize::opset_upgrade
