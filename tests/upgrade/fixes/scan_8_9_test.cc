// Scan 8->9 (src/upgrade/fixes/scan_8_9.cc): the repaired adapter, through MoveDefaultOpset.
#include "upgrade/opset_upgrade.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph_locator.h"
#include "gtest/gtest.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "test_models.h"
#include "upgrade/upgrade_test_support.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// A Scan-8 accumulating rows of x; `batch` is the first dim of x and init ("N" for a symbolic one), and
// Scan-8's first input is the optional sequence_lens (`sequence_lens`, or "" for none).
ModelProto Scan8Model(const std::string& batch, const std::string& sequence_lens = "") {
  const std::string text =
      absl::StrCat(R"ONNX(
<ir_version: 3, opset_import: ["" : 8]>
g (float[)ONNX",
                   batch, R"ONNX(,5,3] x, float[)ONNX", batch, R"ONNX(,3] init, int32[1] lens) => (float[)ONNX", batch,
                   R"ONNX(,3] final, float[)ONNX", batch, R"ONNX(,5,3] ys) {
  final, ys = Scan<num_scan_inputs=1, directions=[1], body = body (float[3] acc, float[3] xi) => (float[3] acc_out, float[3] y) {
    acc_out = Add(acc, xi)
    y = Identity(acc_out)
  }>(init, x)
}
)ONNX");
  ModelProto model = ParseModelNamingNodes(text.c_str());
  auto* scan_inputs = model.mutable_graph()->mutable_node(0)->mutable_input();
  *scan_inputs->Add() = sequence_lens;
  for (int k = scan_inputs->size() - 1; k > 0; --k) scan_inputs->SwapElements(k, k - 1);
  return model;
}

// Scan-8 scans batched tensors and Scan-9 has no batch axis; onnx 1.12's 8->9 adapter leaves the inputs
// batched. With a batch of one, the batch axis is squeezed away before the Scan and put back after it.
TEST(OpsetUpgradeTest, MovesAScan8WithABatchOfOneBySqueezingTheBatchAway) {
  for (int64_t target : {9, 13}) {
    SCOPED_TRACE(target);
    ModelProto model = Scan8Model("1");
    const GraphLocator body = GraphLocator().Into(model.graph().node(0), "body", 0);
    RenamedOutputs renamed;
    ASSERT_TRUE(MoveDefaultOpset(model, target, {}, &renamed).ok());
    // The Scan's outputs are renamed, and the move says so: a locator made before the move still finds the body.
    EXPECT_THAT(renamed, ::testing::UnorderedElementsAre(Pair("final", "final_unbatched"), Pair("ys", "ys_unbatched")));
    absl::StatusOr<GraphProto*> found = ResolveGraph(model, body, renamed);
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_EQ((*found)->name(), "body");
    EXPECT_EQ(ResolveGraph(model, body).status().code(), absl::StatusCode::kInternal);
    const GraphProto& g = model.graph();
    if (target < 13) {
      EXPECT_THAT(OpTypes(g), ElementsAre("Squeeze", "Squeeze", "Scan", "Unsqueeze", "Unsqueeze"));
    } else {  // the axes are a Constant input from opset 13
      EXPECT_THAT(OpTypes(g), ElementsAre("Constant", "Squeeze", "Constant", "Squeeze", "Scan", "Constant", "Unsqueeze",
                                          "Constant", "Unsqueeze"));
    }
    const NodeProto* scan = nullptr;
    for (const auto& node : g.node()) {
      if (node.op_type() == "Scan") scan = &node;
    }
    ASSERT_NE(scan, nullptr);
    EXPECT_THAT(scan->input(), ElementsAre("init_unbatched", "x_unbatched"));
    EXPECT_THAT(scan->output(), ElementsAre("final_unbatched", "ys_unbatched"));
    std::vector<std::string> attributes;
    for (const auto& a : scan->attribute()) attributes.push_back(a.name());
    EXPECT_THAT(attributes, ::testing::UnorderedElementsAre("body", "num_scan_inputs", "scan_input_directions"));
    EXPECT_EQ(g.node(g.node_size() - 1).output(0), "ys");
    ExpectWellFormed(model);
    EXPECT_NO_THROW(onnx::checker::check_model(model));
    ExpectStrictShapeInferenceAccepts(model);
  }
}

TEST(OpsetUpgradeTest, RefusesAScan8WhoseBatchIsNotOneOrUnknownOrThatTakesSequenceLens) {
  const char* kPrefix = "Scan 'node_final' (graph main): Scan-8 scans batched tensors and Scan-9 has no batch axis";
  for (int64_t target : {9, 10, 13}) {
    ExpectRejectedUnchanged(Scan8Model("2"), target, absl::StatusCode::kFailedPrecondition,
                            absl::StrCat(kPrefix,
                                         "; a batch of one is moved by squeezing it away, but the batch of "
                                         "input 'init' (dims [2,3]) is not 1, so it cannot be moved to opset 9 "
                                         "or later"));
    ExpectRejectedUnchanged(Scan8Model("N"), target, absl::StatusCode::kFailedPrecondition,
                            "the batch of input 'init' (dims [?,3]) is unknown");
    ExpectRejectedUnchanged(Scan8Model("1", "lens"), target, absl::StatusCode::kFailedPrecondition,
                            "Unsupported conversion to opset 9");  // onnx's own refusal
  }
}

}  // namespace
}  // namespace onnx_legalize::testing
