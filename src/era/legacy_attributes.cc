// Legacy attributes as the Caffe2-era exporters (WinMLTools 0.1, onnx-caffe2, Custom Vision) wrote them, given
// the meaning those exporters and their runtimes gave them:
//  - BatchNormalization-1 (default opsets 1-5) requires consumed_inputs, an in-place hint for Caffe2 that
//    changes no value; Custom Vision's 2018 exports left it out. It is written as Caffe2's spatial batch norm
//    used it: in test mode (is_test=1, or Y the only output) nothing is consumed, [0, 0, 0, 0, 0]; in training
//    mode the running mean and variance are updated in place, [0, 0, 0, 1, 1]. onnx's 5 -> 6 adapter drops it.
//  - InstanceNormalization carries is_test and spatial in WinMLTools 0.1's exports (copied from
//    BatchNormalization's attributes). No InstanceNormalization schema has either: it normalizes each
//    instance and channel over its spatial dims, in training and in test alike. is_test is dropped whatever
//    its value, spatial when it is 1 (what the op always does); spatial 0 has no meaning to read, and is refused.
//  - MaxPool carries dilations [1, 1] in WinMLTools 0.1's exports at opsets where MaxPool has none (dilations
//    came with MaxPool-10). Dilations of 1 are what a pooling without them does: dropped. Others are left, and
//    the check refuses them at a target below 10.
//  - RNN, GRU and LSTM name their activations in lower case in PyTorch 0.4's exports (activations=["tanh"],
//    onnx 1.2's own test models); the era's runtimes matched the names regardless of case, and the specs spell
//    them "Tanh", "Relu", ...: ONNX Runtime refuses any other spelling. A name that is one of the spec's but for
//    its case is written as the spec spells it; any other is left for the check to refuse.
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "era/era_walk.h"
#include "era/legacy_repairs.h"
#include "graph/attributes.h"
#include "graph/op_names.h"
#include "graph/opsets.h"
#include "graph/untyped_era_ops.h"

namespace onnx_legalize {
namespace {

// First opset of BatchNormalization-6, which dropped consumed_inputs, and of MaxPool-10, which added dilations.
constexpr int64_t kBatchNormalizationWithoutConsumedInputs = 6;
constexpr int64_t kMaxPoolWithDilations = 10;

void WriteConsumedInputs(onnx::NodeProto& node, const std::string& path, LegacyRepairs& repairs) {
  const onnx::AttributeProto* is_test = FindAttribute(node, "is_test");
  const bool test_mode = (is_test != nullptr && is_test->i() != 0) || node.output_size() <= 1;
  std::vector<int64_t> consumed(5, 0);
  if (!test_mode) consumed[3] = consumed[4] = 1;
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name("consumed_inputs");
  attribute->set_type(onnx::AttributeProto::INTS);
  for (int64_t value : consumed) attribute->add_ints(value);
  repairs.Add(LegacyRepair{path, node.op_type(), node.name(),
                           absl::StrCat("consumed_inputs, which BatchNormalization-1 requires and its exporter left "
                                        "out, written as Caffe2 read it in ",
                                        test_mode ? "test mode: [0, 0, 0, 0, 0]" : "training mode: [0, 0, 0, 1, 1]")},
              [&node] { node.mutable_attribute()->RemoveLast(); });
}

// Removes attribute `index` of `node`, recording how to put it back where it was.
void DropAttribute(onnx::NodeProto& node, int index, const std::string& path, std::string what,
                   LegacyRepairs& repairs) {
  onnx::AttributeProto removed = node.attribute(index);
  node.mutable_attribute()->DeleteSubrange(index, 1);
  repairs.Add(LegacyRepair{path, node.op_type(), node.name(), std::move(what)},
              [&node, index, removed = std::move(removed)] {
                *node.add_attribute() = removed;
                for (int at = node.attribute_size() - 1; at > index; --at) {
                  node.mutable_attribute()->SwapElements(at, at - 1);
                }
              });
}

absl::Status RepairInstanceNormalization(onnx::NodeProto& node, const std::string& path, LegacyRepairs& repairs) {
  for (int index = node.attribute_size() - 1; index >= 0; --index) {
    const onnx::AttributeProto& attribute = node.attribute(index);
    if (attribute.name() == "is_test") {
      DropAttribute(node, index, path,
                    "is_test dropped: no InstanceNormalization has it, and it computes the same in test and training",
                    repairs);
    } else if (attribute.name() == "spatial") {
      if (attribute.i() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat(InGraph(NodeLabel(node), path), ": spatial=", attribute.i(),
                         ", which no InstanceNormalization has and which has no meaning onnx-legalize can read "
                         "(InstanceNormalization always normalizes over the spatial dims)"));
      }
      DropAttribute(node, index, path,
                    "spatial=1 dropped: no InstanceNormalization has it, and it always normalizes over the spatial "
                    "dims",
                    repairs);
    }
  }
  return absl::OkStatus();
}

void RepairMaxPoolDilations(onnx::NodeProto& node, const std::string& path, LegacyRepairs& repairs) {
  for (int index = node.attribute_size() - 1; index >= 0; --index) {
    const onnx::AttributeProto& attribute = node.attribute(index);
    if (attribute.name() != "dilations") continue;
    const bool all_ones =
        std::all_of(attribute.ints().begin(), attribute.ints().end(), [](int64_t value) { return value == 1; });
    if (!all_ones) continue;
    DropAttribute(node, index, path,
                  "dilations of 1 dropped: MaxPool has none before opset 10, and pools so without them", repairs);
  }
}

// The activation functions RNN, GRU and LSTM name, spelled as their specs spell them.
constexpr std::array<const char*, 11> kRecurrentActivations = {
    "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
    "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};

void RepairActivationSpelling(onnx::NodeProto& node, const std::string& path, LegacyRepairs& repairs) {
  for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
    if (attribute.name() != "activations") continue;
    const std::vector<std::string> before(attribute.strings().begin(), attribute.strings().end());
    std::vector<std::string> after = before;
    for (std::string& name : after) {
      for (const char* spelled : kRecurrentActivations) {
        if (absl::EqualsIgnoreCase(name, spelled)) name = spelled;
      }
    }
    if (after == before) continue;
    for (size_t k = 0; k < after.size(); ++k) *attribute.mutable_strings(static_cast<int>(k)) = after[k];
    repairs.Add(LegacyRepair{path, node.op_type(), node.name(),
                             absl::StrCat("activations [", absl::StrJoin(before, ", "),
                                          "] spelled as the spec spells "
                                          "them, [",
                                          absl::StrJoin(after, ", "),
                                          "]: the era's runtimes read them regardless of case, ONNX Runtime does not")},
                [&attribute, before] {
                  for (size_t k = 0; k < before.size(); ++k)
                    *attribute.mutable_strings(static_cast<int>(k)) = before[k];
                });
  }
}

}  // namespace

absl::Status RepairLegacyAttributes(onnx::ModelProto& model, LegacyRepairs& repairs) {
  ASSIGN_OR_RETURN(const OpsetImports opsets, ModelOpsetImports(model));
  auto default_opset = opsets.find(kDefaultDomain);
  if (default_opset == opsets.end()) return absl::OkStatus();
  const int64_t opset = default_opset->second;
  absl::Status repaired;
  ForEachGraphOf(model, [&](onnx::GraphProto& graph, const std::string& path) {
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      if (!repaired.ok() || !IsDefaultDomain(node.domain())) continue;
      if (node.op_type() == "BatchNormalization" && opset < kBatchNormalizationWithoutConsumedInputs &&
          FindAttribute(node, "consumed_inputs") == nullptr) {
        WriteConsumedInputs(node, path, repairs);
      } else if (node.op_type() == "MaxPool" && opset < kMaxPoolWithDilations) {
        RepairMaxPoolDilations(node, path, repairs);
      } else if (node.op_type() == "InstanceNormalization") {
        repaired = RepairInstanceNormalization(node, path, repairs);
      } else if (IsRecurrentOp(node.op_type())) {
        RepairActivationSpelling(node, path, repairs);
      }
    }
  });
  return repaired;
}

}  // namespace onnx_legalize
