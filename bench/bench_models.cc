#include "bench_models.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"

namespace onnx_legalize::bench {
namespace {

// Initializers at most this large stay in the model file in scenario 3 (indices, axes).
constexpr int64_t kExternalThreshold = 4096;
constexpr int64_t kExternalAlignment = 4096;

// Deterministic, cheap filler for weights: the benchmark measures bytes moved, not their values. Finite
// floats only, so that nothing downstream (verification compares bits anyway) sees NaNs by accident.
void FillWeights(std::string& bytes, uint64_t seed) {
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  const size_t words = bytes.size() / sizeof(uint32_t);
  char* out = bytes.data();
  for (size_t i = 0; i < words; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    // Sign and mantissa random, exponent in [2^-8, 2^7): a finite normal float.
    const uint32_t bits = (static_cast<uint32_t>(state) & 0x807FFFFFu) | ((119u + (state >> 60)) << 23);
    std::memcpy(out + i * sizeof(uint32_t), &bits, sizeof(uint32_t));
  }
}

// A float tensor of `dims` holding `offset` + uniform values in [-scale, scale) from a fixed sequence: weights of
// a network that computes (finite activations of ordinary size), unlike FillWeights's bytes.
void AddScaledTensor(onnx::GraphProto& graph, const std::string& name, std::initializer_list<int64_t> dims, float scale,
                     float offset, uint64_t seed) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  int64_t count = 1;
  for (const int64_t dim : dims) {
    tensor->add_dims(dim);
    count *= dim;
  }
  std::string* bytes = tensor->mutable_raw_data();
  bytes->resize(static_cast<size_t>(count) * sizeof(float));
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < count; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const float unit = static_cast<float>(state >> 40) / static_cast<float>(1ull << 24);  // [0, 1)
    const float value = offset + (2.0f * unit - 1.0f) * scale;
    std::memcpy(bytes->data() + i * static_cast<int64_t>(sizeof(float)), &value, sizeof(float));
  }
}

void AddIntsAttribute(onnx::NodeProto* node, const std::string& name, std::initializer_list<int64_t> values) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INTS);
  for (const int64_t value : values) attribute->add_ints(value);
}

onnx::TensorProto* AddWeight(onnx::GraphProto& graph, const std::string& name, int64_t rows, int64_t cols,
                             uint64_t seed) {
  onnx::TensorProto* weight = graph.add_initializer();
  weight->set_name(name);
  weight->set_data_type(onnx::TensorProto::FLOAT);
  weight->add_dims(rows);
  weight->add_dims(cols);
  std::string* bytes = weight->mutable_raw_data();
  bytes->resize(static_cast<size_t>(rows * cols * 4));
  FillWeights(*bytes, seed);
  return weight;
}

void AddInt64s(onnx::GraphProto& graph, const std::string& name, std::initializer_list<int64_t> values) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::INT64);
  tensor->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) tensor->add_int64_data(v);
}

// A tensor value_info: element type and dims (a dim < 0 becomes a symbolic one named `symbol`<i>).
void AddTensorValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* values, const std::string& name,
                    int32_t elem_type, std::initializer_list<int64_t> dims) {
  onnx::ValueInfoProto* value = values->Add();
  value->set_name(name);
  auto* tensor_type = value->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  auto* shape = tensor_type->mutable_shape();
  int symbols = 0;
  for (int64_t dim : dims) {
    if (dim >= 0) {
      shape->add_dim()->set_dim_value(dim);
    } else {
      shape->add_dim()->set_dim_param(name + "_d" + std::to_string(symbols++));
    }
  }
}

onnx::NodeProto* AddNode(onnx::GraphProto& graph, const std::string& op_type, const std::string& name,
                         std::initializer_list<std::string> inputs, const std::string& output) {
  onnx::NodeProto* node = graph.add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return node;
}

onnx::ModelProto NewOpset9Model(const std::string& graph_name) {
  onnx::ModelProto model;
  model.set_ir_version(4);
  model.set_producer_name("onnx-legalize-bench");
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(9);
  model.mutable_graph()->set_name(graph_name);
  return model;
}

}  // namespace

onnx::ModelProto BuildDynamicChain(int64_t dynamic_slices, int64_t weights, int64_t weight_dim) {
  onnx::ModelProto model = NewOpset9Model("dynamic_chain");
  onnx::GraphProto& graph = *model.mutable_graph();
  AddTensorValue(graph.mutable_input(), "x", onnx::TensorProto::FLOAT, {16, 256});
  AddTensorValue(graph.mutable_input(), "starts", onnx::TensorProto::INT64, {1});
  AddTensorValue(graph.mutable_input(), "ends", onnx::TensorProto::INT64, {1});
  AddTensorValue(graph.mutable_input(), "features", onnx::TensorProto::FLOAT, {1, weight_dim});
  AddInt64s(graph, "axes1", {1});  // not a graph input: a constant in IR 4

  // x -> DynamicSlice -> Relu -> DynamicSlice -> Relu ...: every slice reads the previous one's result
  // and the run-time starts and ends; every other one slices axis 1 explicitly.
  std::string previous = "x";
  for (int64_t i = 0; i < dynamic_slices; ++i) {
    const std::string index = std::to_string(i);
    onnx::NodeProto* slice =
        AddNode(graph, "DynamicSlice", "slice_" + index, {previous, "starts", "ends"}, "sliced_" + index);
    if (i % 2 == 1) slice->add_input("axes1");
    AddNode(graph, "Relu", "relu_" + index, {"sliced_" + index}, "relu_" + index);
    previous = "relu_" + index;
  }
  AddTensorValue(graph.mutable_output(), previous, onnx::TensorProto::FLOAT, {-1, -1});

  for (int64_t k = 0; k < weights; ++k) {
    const std::string index = std::to_string(k);
    AddWeight(graph, "weight_" + index, weight_dim, weight_dim, static_cast<uint64_t>(k));
    AddNode(graph, "MatMul", "matmul_" + index, {"features", "weight_" + index}, "projected_" + index);
    AddTensorValue(graph.mutable_output(), "projected_" + index, onnx::TensorProto::FLOAT, {1, weight_dim});
  }
  return model;
}

onnx::ModelProto BuildConstantFolds(int64_t weights, int64_t slices_per_weight) {
  onnx::ModelProto model = NewOpset9Model("constant_folds");
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInt64s(graph, "rows", {0});
  constexpr int64_t kRows = 1024;  // 1024 x 4096 floats: 16 MiB per fold
  const int64_t stride = slices_per_weight > 1 ? (kWeightDim - kRows) / (slices_per_weight - 1) : 0;
  for (int64_t k = 0; k < weights; ++k) {
    const std::string weight = "weight_" + std::to_string(k);
    AddWeight(graph, weight, kWeightDim, kWeightDim, static_cast<uint64_t>(k));
    for (int64_t j = 0; j < slices_per_weight; ++j) {
      const std::string index = std::to_string(k) + "_" + std::to_string(j);
      AddInt64s(graph, "start_" + index, {j * stride});
      AddInt64s(graph, "end_" + index, {j * stride + kRows});
      AddNode(graph, "DynamicSlice", "fold_" + index, {weight, "start_" + index, "end_" + index, "rows"},
              "part_" + index);
      AddTensorValue(graph.mutable_output(), "part_" + index, onnx::TensorProto::FLOAT, {kRows, kWeightDim});
    }
  }
  return model;
}

onnx::ModelProto BuildImageCnn() {
  onnx::ModelProto model = NewOpset9Model("image_cnn");
  onnx::GraphProto& graph = *model.mutable_graph();
  constexpr int64_t kImage = 224;
  constexpr int64_t kClasses = 10;
  AddTensorValue(graph.mutable_input(), "image", onnx::TensorProto::FLOAT, {1, 3, kImage, kImage});
  std::string x = "image";
  int64_t channels = 3;
  int64_t size = kImage;
  uint64_t seed = 600;
  for (const int64_t out : {32, 64, 128, 256}) {
    const std::string p = "block" + std::to_string(out);
    // He-style scale: a 3x3 conv over `channels` inputs keeps the activations' magnitude.
    const float scale = std::sqrt(6.0f / static_cast<float>(channels * 9));
    AddScaledTensor(graph, p + "_w", {out, channels, 3, 3}, scale, 0.0f, seed++);
    AddScaledTensor(graph, p + "_b", {out}, 0.05f, 0.0f, seed++);
    onnx::NodeProto* conv = AddNode(graph, "Conv", p + "_conv", {x, p + "_w", p + "_b"}, p + "_conv");
    AddIntsAttribute(conv, "kernel_shape", {3, 3});
    AddIntsAttribute(conv, "pads", {1, 1, 1, 1});
    AddScaledTensor(graph, p + "_scale", {out}, 0.2f, 1.0f, seed++);
    AddScaledTensor(graph, p + "_shift", {out}, 0.1f, 0.0f, seed++);
    AddScaledTensor(graph, p + "_mean", {out}, 0.1f, 0.0f, seed++);
    AddScaledTensor(graph, p + "_var", {out}, 0.2f, 1.0f, seed++);
    AddNode(graph, "BatchNormalization", p + "_bn", {p + "_conv", p + "_scale", p + "_shift", p + "_mean", p + "_var"},
            p + "_bn");
    AddNode(graph, "Relu", p + "_relu", {p + "_bn"}, p + "_relu");
    onnx::NodeProto* pool = AddNode(graph, "MaxPool", p + "_pool", {p + "_relu"}, p + "_pool");
    AddIntsAttribute(pool, "kernel_shape", {2, 2});
    AddIntsAttribute(pool, "strides", {2, 2});
    x = p + "_pool";
    channels = out;
    size /= 2;
  }
  AddNode(graph, "Flatten", "flatten", {x}, "features");
  const int64_t features = channels * size * size;
  AddScaledTensor(graph, "fc_w", {kClasses, features}, std::sqrt(6.0f / static_cast<float>(features)), 0.0f, seed++);
  AddScaledTensor(graph, "fc_b", {kClasses}, 0.05f, 0.0f, seed++);
  onnx::NodeProto* gemm = AddNode(graph, "Gemm", "classifier", {"features", "fc_w", "fc_b"}, "logits");
  onnx::AttributeProto* trans_b = gemm->add_attribute();
  trans_b->set_name("transB");
  trans_b->set_type(onnx::AttributeProto::INT);
  trans_b->set_i(1);
  AddTensorValue(graph.mutable_output(), "logits", onnx::TensorProto::FLOAT, {1, kClasses});
  return model;
}

bool MoveWeightsToExternalFile(onnx::ModelProto& model, const std::string& folder, const std::string& data_file_name,
                               std::string* error) {
  const std::string path = folder + "/" + data_file_name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  int64_t offset = 0;
  for (onnx::TensorProto& tensor : *model.mutable_graph()->mutable_initializer()) {
    const int64_t length = static_cast<int64_t>(tensor.raw_data().size());
    if (length <= kExternalThreshold) continue;
    offset = (offset + kExternalAlignment - 1) / kExternalAlignment * kExternalAlignment;
    const char* data = tensor.raw_data().data();
    for (int64_t written = 0; written < length;) {
      const ssize_t n = ::pwrite(fd, data + written, static_cast<size_t>(length - written), offset + written);
      if (n <= 0) {
        *error = "cannot write " + path + ": " + std::strerror(errno);
        ::close(fd);
        return false;
      }
      written += n;
    }
    tensor.clear_raw_data();
    tensor.set_data_location(onnx::TensorProto::EXTERNAL);
    auto add_entry = [&](const std::string& key, const std::string& value) {
      onnx::StringStringEntryProto* entry = tensor.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add_entry("location", data_file_name);
    add_entry("offset", std::to_string(offset));
    add_entry("length", std::to_string(length));
    offset += length;
  }
  if (::close(fd) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool WriteModel(const onnx::ModelProto& model, const std::string& path, std::string* error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = true;
  {
    google::protobuf::io::FileOutputStream file(fd);
    {
      google::protobuf::io::CodedOutputStream coded(&file);
      coded.SetSerializationDeterministic(true);
      ok = model.SerializeToCodedStream(&coded) && !coded.HadError();
    }
    ok = file.Flush() && ok;
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok) *error = "cannot write " + path;
  return ok;
}

}  // namespace onnx_legalize::bench
