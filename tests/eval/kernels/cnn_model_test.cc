// The runner on a network of real size: an image classifier at 224x224 (Conv, BatchNormalization, Relu,
// MaxPool, GlobalAveragePool, Flatten, Gemm, Softmax, about 0.1 GFLOP), as the opset move's proof runs it. No
// assertion on time (CI is noisy); the run must finish, give a distribution, the same bits twice, and the
// legalizer's proof of a move from opset 7 to 13 and 17 must execute and agree.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "eval/kernels/kernel_test_support.h"
#include "eval/model_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"
#include "test_models.h"

namespace onnx_legalize::testing {
namespace {

using ::testing::StartsWith;

// Weights from a fixed linear congruential sequence, scaled around 0 by `scale`.
std::vector<float> Weights(size_t count, uint32_t seed, float scale) {
  std::vector<float> values(count);
  uint32_t state = seed;
  for (float& value : values) {
    state = state * 1664525u + 1013904223u;
    value = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * scale;
  }
  return values;
}

void AddInitializer(onnx::GraphProto& graph, const std::string& name, const std::vector<int64_t>& dims,
                    const std::vector<float>& values) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (const int64_t dim : dims) tensor->add_dims(dim);
  tensor->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

onnx::NodeProto* AddNode(onnx::GraphProto& graph, const std::string& op, const std::vector<std::string>& inputs,
                         const std::string& output) {
  onnx::NodeProto* node = graph.add_node();
  node->set_op_type(op);
  node->set_name(output);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return node;
}

void SetInts(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INTS);
  for (const int64_t value : values) attribute->add_ints(value);
}

// conv(k, stride, pad) + BatchNormalization + Relu, from `input` with `in` channels to `out` channels.
std::string ConvBlock(onnx::GraphProto& graph, const std::string& input, int64_t in, int64_t out, int64_t k,
                      int64_t stride, int64_t pad, uint32_t seed) {
  const std::string p = absl::StrCat("c", seed);
  AddInitializer(graph, p + "_w", {out, in, k, k},
                 Weights(static_cast<size_t>(out * in * k * k), seed, 2.0f / static_cast<float>(in * k)));
  AddInitializer(graph, p + "_b", {out}, Weights(static_cast<size_t>(out), seed + 1, 0.1f));
  onnx::NodeProto* conv = AddNode(graph, "Conv", {input, p + "_w", p + "_b"}, p + "_conv");
  SetInts(conv, "kernel_shape", {k, k});
  SetInts(conv, "strides", {stride, stride});
  SetInts(conv, "pads", {pad, pad, pad, pad});
  std::vector<float> var = Weights(static_cast<size_t>(out), seed + 4, 0.5f);
  for (float& v : var) v += 1.0f;
  AddInitializer(graph, p + "_scale", {out}, Weights(static_cast<size_t>(out), seed + 2, 0.5f));
  AddInitializer(graph, p + "_shift", {out}, Weights(static_cast<size_t>(out), seed + 3, 0.5f));
  AddInitializer(graph, p + "_mean", {out}, Weights(static_cast<size_t>(out), seed + 5, 0.5f));
  AddInitializer(graph, p + "_var", {out}, var);
  AddNode(graph, "BatchNormalization", {p + "_conv", p + "_scale", p + "_shift", p + "_mean", p + "_var"}, p + "_bn");
  AddNode(graph, "Relu", {p + "_bn"}, p + "_relu");
  return p + "_relu";
}

// [1,3,224,224] -> conv7/2 (32) -> maxpool3/2 -> conv3 (64) -> conv3/2 (64) -> global average -> gemm (10)
// -> softmax, at opset 7.
onnx::ModelProto ImageClassifier() {
  onnx::ModelProto model;
  model.set_ir_version(3);
  model.add_opset_import()->set_version(7);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("classifier");
  onnx::ValueInfoProto* input = graph.add_input();
  input->set_name("image");
  auto* type = input->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (const int64_t dim : {1, 3, 224, 224}) type->mutable_shape()->add_dim()->set_dim_value(dim);
  std::string x = ConvBlock(graph, "image", 3, 32, 7, 2, 3, 10);
  onnx::NodeProto* pool = AddNode(graph, "MaxPool", {x}, "pool");
  SetInts(pool, "kernel_shape", {3, 3});
  SetInts(pool, "strides", {2, 2});
  SetInts(pool, "pads", {1, 1, 1, 1});
  x = ConvBlock(graph, "pool", 32, 64, 3, 1, 1, 20);
  x = ConvBlock(graph, x, 64, 64, 3, 2, 1, 30);
  AddNode(graph, "GlobalAveragePool", {x}, "gap");
  AddNode(graph, "Flatten", {"gap"}, "flat");
  AddInitializer(graph, "fc_w", {64, 10}, Weights(640, 40, 0.5f));
  AddInitializer(graph, "fc_b", {10}, Weights(10, 41, 0.1f));
  AddNode(graph, "Gemm", {"flat", "fc_w", "fc_b"}, "logits");
  AddNode(graph, "Softmax", {"logits"}, "probabilities");
  onnx::ValueInfoProto* output = graph.add_output();
  output->set_name("probabilities");
  auto* output_type = output->mutable_type()->mutable_tensor_type();
  output_type->set_elem_type(onnx::TensorProto::FLOAT);
  for (const int64_t dim : {1, 10}) output_type->mutable_shape()->add_dim()->set_dim_value(dim);
  // IR 3 lists every initializer as a graph input.
  for (const onnx::TensorProto& initializer : graph.initializer()) {
    onnx::ValueInfoProto* listed = graph.add_input();
    listed->set_name(initializer.name());
    auto* listed_type = listed->mutable_type()->mutable_tensor_type();
    listed_type->set_elem_type(onnx::TensorProto::FLOAT);
    for (const int64_t dim : initializer.dims()) listed_type->mutable_shape()->add_dim()->set_dim_value(dim);
  }
  return model;
}

TEST(CnnModelTest, RunsAnImageClassifierAt224AndGivesTheSameBitsTwice) {
  const onnx::ModelProto model = ImageClassifier();
  const Feeds image = Feed("image", Floats({1, 3, 224, 224}, Weights(3 * 224 * 224, 7, 4.0f)));
  const Results first = RunModel(model, image);
  ASSERT_TRUE(first.ok()) << first.status();
  const Tensor& probabilities = first->at("probabilities");
  ASSERT_EQ(probabilities.dims(), (std::vector<int64_t>{1, 10}));
  std::vector<float> values(10);
  std::memcpy(values.data(), probabilities.bytes().data(), 40);
  float sum = 0;
  for (const float value : values) {
    EXPECT_GT(value, 0.0f);
    sum += value;
  }
  EXPECT_NEAR(sum, 1.0f, 1e-5f);
  EXPECT_TRUE(OutputIs(RunModel(model, image), "probabilities", probabilities));
}

// The move from opset 7 is proved by running the network before and after it, its weights (over 64 KiB,
// set aside while legalizing) included.
TEST(CnnModelTest, TheOpsetMoveOfAnImageClassifierIsExecutedAndIdentical) {
  for (const int64_t target : {13, 17}) {
    Options options;
    options.target_opset = target;
    Report report;
    LegalizedCopy(ImageClassifier(), options, &report);
    EXPECT_THAT(report.opset_move, StartsWith(absl::StrCat("executed in the model runner at opset 7 and ", target)))
        << report.opset_move;
    // Within the default budget, on the one input set an image network gets.
    EXPECT_TRUE(report.opset_move_proof.executed);
    EXPECT_EQ(report.opset_move_proof.input_sets, 1);
    // Each of the 14 nodes ran in both forms, or once for both where the move left it as it was.
    EXPECT_GE(report.opset_move_proof.nodes_executed + report.opset_move_proof.nodes_shared, 2 * 14);
    // Conv-1 and Conv-11 are computed once for both forms (the runner's Conv asks nothing of the opset), so the
    // network's 0.1 G multiply-adds are done about once, not twice.
    EXPECT_GT(report.opset_move_proof.work, int64_t{100'000'000}) << "about 0.1 G multiply-adds per run";
    EXPECT_GT(report.opset_move_proof.nodes_shared, 0);
    EXPECT_LT(report.opset_move_proof.work, Options{}.proof_budget);
  }
}

}  // namespace
}  // namespace onnx_legalize::testing
