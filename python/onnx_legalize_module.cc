// onnx_legalize._onnx_legalize: the C++ half of the Python module, a thin binding of the public API.
//
// Models cross the boundary as serialized bytes, never as Python protobuf objects: the module links onnx's
// C++ library (the same shared libonnx that python3-onnx's own extension links) and nothing of onnx's
// Python protobuf classes, so importing onnx before or after it cannot register onnx.proto twice.
//
// The pure-Python wrapper (onnx_legalize/_api.py) checks argument types and ranges, converts ModelProtos
// to bytes and back, and turns StatusError into LegalizeError / VerificationError. Everything here runs
// with the GIL released except what touches Python objects, so threads legalize in parallel.
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "onnx/onnx_pb.h"
#include "onnx_legalize/check_report.h"
#include "onnx_legalize/legalize.h"
#include "onnx_legalize/legalize_tree.h"

namespace py = pybind11;

namespace onnx_legalize {
namespace {

// The exception every error status becomes, with args (code name, message, ErrorKindName of its kind).
// The wrapper re-raises it as its public exception types.
PyObject* g_status_error = nullptr;

[[noreturn]] void RaiseStatus(const absl::Status& status) {
  py::tuple args =
      py::make_tuple(absl::StatusCodeToString(status.code()),
                     // Messages quote names from the model, which need not be UTF-8.
                     py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
                         status.message().data(), static_cast<Py_ssize_t>(status.message().size()), "replace")),
                     ErrorKindName(ErrorKindOf(status)));
  PyErr_SetObject(g_status_error, args.ptr());
  throw py::error_already_set();
}

Options MakeOptions(std::optional<int64_t> target_opset, bool keep_opset, bool verify, int64_t max_fold_bytes,
                    int64_t max_total_fold_bytes, int64_t proof_budget, int verify_trials, uint64_t verify_seed,
                    bool use_threads) {
  Options options;
  options.target_opset = target_opset;
  options.keep_opset = keep_opset;
  options.verify = verify;
  options.max_fold_bytes = max_fold_bytes;
  options.max_total_fold_bytes = max_total_fold_bytes;
  options.proof_budget = proof_budget;
  options.verify_trials = verify_trials;
  options.verify_seed = verify_seed;
  options.use_threads = use_threads;
  return options;
}

// Parses a serialized ModelProto; protobuf's own parser, with its 2 GiB limit raised to what an int holds.
absl::StatusOr<std::unique_ptr<onnx::ModelProto>> ParseModel(const char* data, Py_ssize_t size) {
  if (size > INT_MAX) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the model is ", size,
                     " bytes, past protobuf's 2 GiB limit for one message; use legalize_file, which keeps "
                     "weights in external data files"));
  }
  auto model = std::make_unique<onnx::ModelProto>();
  google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(data), static_cast<int>(size));
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(absl::StrCat("the ", size, " bytes given are not a valid ModelProto"));
  }
  return model;
}

// Serializes `model` into the `size` bytes at `out`, deterministically (map order fixed), as SaveModel
// writes files. `size` is model.ByteSizeLong(), computed just before (it caches the sizes used here).
void SerializeModel(const onnx::ModelProto& model, char* out, size_t size) {
  google::protobuf::io::ArrayOutputStream array(out, static_cast<int>(size));
  google::protobuf::io::CodedOutputStream coded(&array);
  coded.SetSerializationDeterministic(true);
  model.SerializeWithCachedSizes(&coded);
}

// legalize(model bytes, options...) -> (legalized model bytes, report JSON)
py::tuple LegalizeBytes(const py::bytes& model_bytes, std::optional<int64_t> target_opset, bool keep_opset, bool verify,
                        int64_t max_fold_bytes, int64_t max_total_fold_bytes, int64_t proof_budget, int verify_trials,
                        uint64_t verify_seed, bool use_threads) {
  const Options options = MakeOptions(target_opset, keep_opset, verify, max_fold_bytes, max_total_fold_bytes,
                                      proof_budget, verify_trials, verify_seed, use_threads);
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(model_bytes.ptr(), &data, &size) != 0) throw py::error_already_set();

  // `model_bytes` is immutable and referenced by the caller, so it can be read without the GIL.
  std::unique_ptr<onnx::ModelProto> model;
  absl::StatusOr<Report> report;
  size_t out_size = 0;
  {
    py::gil_scoped_release release;
    absl::StatusOr<std::unique_ptr<onnx::ModelProto>> parsed = ParseModel(data, size);
    if (!parsed.ok()) {
      report = parsed.status();
    } else {
      model = *std::move(parsed);
      report = Legalize(*model, options);
    }
    if (report.ok()) {
      out_size = model->ByteSizeLong();
      if (out_size > INT_MAX) {
        report = absl::ResourceExhaustedError(
            absl::StrCat("the legalized model would be ", out_size,
                         " bytes, past protobuf's 2 GiB limit for one message (folded values count); use "
                         "legalize_file, which moves weights to an external data file"));
      }
    }
  }
  if (!report.ok()) {
    {
      py::gil_scoped_release release;
      model.reset();  // a large model takes a while to free
    }
    RaiseStatus(report.status());
  }
  // Serialized straight into the bytes object Python receives: one copy of a large model, not two.
  PyObject* out = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(out_size));
  if (out == nullptr) throw py::error_already_set();
  py::bytes result = py::reinterpret_steal<py::bytes>(out);
  char* out_data = PyBytes_AS_STRING(out);  // only this function holds `out` until it returns
  std::string report_json;
  {
    py::gil_scoped_release release;
    SerializeModel(*model, out_data, out_size);
    model.reset();
    report_json = ReportToJson(*report);
  }
  return py::make_tuple(std::move(result), py::str(report_json));
}

// legalize_file(src, dst, options..., external data name, threshold, in place) -> report JSON. Paths come
// as bytes (os.fsencode), so that any name the filesystem holds can be given.
py::str LegalizeFileBytes(const std::string& input_path, const std::string& output_path,
                          std::optional<int64_t> target_opset, bool keep_opset, bool verify, int64_t max_fold_bytes,
                          int64_t max_total_fold_bytes, int64_t proof_budget, int verify_trials, uint64_t verify_seed,
                          bool use_threads, const std::string& external_data, int64_t external_data_threshold,
                          bool in_place) {
  const Options options = MakeOptions(target_opset, keep_opset, verify, max_fold_bytes, max_total_fold_bytes,
                                      proof_budget, verify_trials, verify_seed, use_threads);
  SaveOptions save_options;
  save_options.external_data_name = external_data;
  save_options.external_data_threshold = external_data_threshold;
  save_options.in_place = in_place;
  absl::StatusOr<Report> report;
  std::string report_json;
  {
    py::gil_scoped_release release;
    report = LegalizeFile(input_path, output_path, options, save_options);
    if (report.ok()) report_json = ReportToJson(*report);
  }
  if (!report.ok()) RaiseStatus(report.status());
  return py::str(report_json);
}

// The findings as the JSON document of --check --format=json (one file), so that a Python finding has
// exactly the fields, rule ids and escaping of the CLI's.
std::string FindingsAsJson(const std::string& path, std::vector<CheckFinding> findings) {
  CheckedFile file;
  file.path = path;
  file.findings = std::move(findings);
  return FormatCheckResults({file}, CheckFormat::kJson);
}

// check_model(model bytes) -> the JSON document of its findings (file "").
py::str CheckBytes(const py::bytes& model_bytes) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(model_bytes.ptr(), &data, &size) != 0) throw py::error_already_set();
  absl::StatusOr<std::string> json;
  {
    py::gil_scoped_release release;
    absl::StatusOr<std::unique_ptr<onnx::ModelProto>> model = ParseModel(data, size);
    absl::StatusOr<std::vector<CheckFinding>> findings = model.ok() ? CheckModel(**model) : model.status();
    if (findings.ok()) {
      json = FindingsAsJson("", *std::move(findings));
    } else {
      json = findings.status();
    }
  }
  if (!json.ok()) RaiseStatus(json.status());
  return py::str(*json);
}

// check_file(path bytes) -> the JSON document of its findings.
py::str CheckFile(const std::string& path) {
  absl::StatusOr<std::string> json;
  {
    py::gil_scoped_release release;
    absl::StatusOr<onnx::ModelProto> model = LoadModel(path);
    absl::StatusOr<std::vector<CheckFinding>> findings = model.ok() ? CheckModel(*model) : model.status();
    if (findings.ok()) {
      json = FindingsAsJson(path, *std::move(findings));
    } else {
      json = findings.status();
    }
  }
  if (!json.ok()) RaiseStatus(json.status());
  return py::str(*json);
}

// plan_tree(sources, dest) -> [(input, output, relative, failure JSON line or None)]: PlanTree, each file as
// bytes (any name the filesystem holds). A folder that could not be listed comes with its result already made.
py::list PlanTreeBytes(const std::vector<std::string>& sources, const std::string& dest_dir) {
  absl::StatusOr<std::vector<TreeFile>> plan;
  {
    py::gil_scoped_release release;
    plan = PlanTree(sources, dest_dir);
  }
  if (!plan.ok()) RaiseStatus(plan.status());
  py::list files;
  for (const TreeFile& file : *plan) {
    py::object failure = py::none();
    if (!file.status.ok()) failure = py::str(TreeFileResultToJson(LegalizeTreeFile(file, dest_dir, Options{})));
    files.append(py::make_tuple(py::bytes(file.input), py::bytes(file.output), py::bytes(file.relative), failure));
  }
  return files;
}

// legalize_tree_file(input, output, relative, dest, options..., threshold) -> the result as a JSON line.
py::str LegalizeTreeFileBytes(const std::string& input, const std::string& output, const std::string& relative,
                              const std::string& dest_dir, std::optional<int64_t> target_opset, bool keep_opset,
                              bool verify, int64_t max_fold_bytes, int64_t max_total_fold_bytes, int64_t proof_budget,
                              int verify_trials, uint64_t verify_seed, bool use_threads,
                              int64_t external_data_threshold) {
  const Options options = MakeOptions(target_opset, keep_opset, verify, max_fold_bytes, max_total_fold_bytes,
                                      proof_budget, verify_trials, verify_seed, use_threads);
  SaveOptions save_options;
  save_options.external_data_threshold = external_data_threshold;
  std::string json;
  {
    py::gil_scoped_release release;
    TreeFile file;
    file.input = input;
    file.output = output;
    file.relative = relative;
    json = TreeFileResultToJson(LegalizeTreeFile(file, dest_dir, options, save_options));
  }
  // Paths and messages are escaped to valid UTF-8 by TreeFileResultToJson.
  return py::str(json);
}

}  // namespace
}  // namespace onnx_legalize

PYBIND11_MODULE(_onnx_legalize, m) {
  namespace ol = onnx_legalize;
  m.doc() = "The C++ half of onnx_legalize; use the onnx_legalize package, not this module.";

  ol::g_status_error = PyErr_NewException("onnx_legalize._onnx_legalize.StatusError", PyExc_ValueError, nullptr);
  if (ol::g_status_error == nullptr) throw py::error_already_set();
  m.add_object("StatusError", py::handle(ol::g_status_error));  // the module keeps a reference

  m.attr("__version__") = ONNX_LEGALIZE_VERSION;
  m.attr("MIN_TARGET_OPSET") = ol::kMinTargetOpset;
  m.attr("MAX_TARGET_OPSET") = ol::kMaxTargetOpset;
  const ol::Options defaults;
  m.attr("DEFAULT_MAX_FOLD_BYTES") = defaults.max_fold_bytes;
  m.attr("DEFAULT_MAX_TOTAL_FOLD_BYTES") = defaults.max_total_fold_bytes;
  m.attr("DEFAULT_PROOF_BUDGET") = defaults.proof_budget;
  m.attr("DEFAULT_VERIFY_TRIALS") = defaults.verify_trials;
  m.attr("DEFAULT_VERIFY_SEED") = defaults.verify_seed;
  m.attr("DEFAULT_EXTERNAL_DATA_THRESHOLD") = ol::kDefaultExternalDataThreshold;

  m.def("legalize", &ol::LegalizeBytes, py::arg("model"), py::arg("target_opset"), py::arg("keep_opset"),
        py::arg("verify"), py::arg("max_fold_bytes"), py::arg("max_total_fold_bytes"), py::arg("proof_budget"),
        py::arg("verify_trials"), py::arg("verify_seed"), py::arg("use_threads"),
        "Legalizes a serialized model: (model bytes, report JSON).");
  m.def("legalize_file", &ol::LegalizeFileBytes, py::arg("src"), py::arg("dst"), py::arg("target_opset"),
        py::arg("keep_opset"), py::arg("verify"), py::arg("max_fold_bytes"), py::arg("max_total_fold_bytes"),
        py::arg("proof_budget"), py::arg("verify_trials"), py::arg("verify_seed"), py::arg("use_threads"),
        py::arg("external_data"), py::arg("external_data_threshold"), py::arg("in_place"),
        "Legalizes the model file src into dst: the report JSON.");
  m.def("plan_tree", &ol::PlanTreeBytes, py::arg("sources"), py::arg("dest"),
        "PlanTree: the model files below the sources and their outputs.");
  m.def("legalize_tree_file", &ol::LegalizeTreeFileBytes, py::arg("src"), py::arg("dst"), py::arg("relative"),
        py::arg("dest"), py::arg("target_opset"), py::arg("keep_opset"), py::arg("verify"), py::arg("max_fold_bytes"),
        py::arg("max_total_fold_bytes"), py::arg("proof_budget"), py::arg("verify_trials"), py::arg("verify_seed"),
        py::arg("use_threads"), py::arg("external_data_threshold"),
        "LegalizeTreeFile: one file of a plan, its result as a JSON line.");
  m.def("check_model", &ol::CheckBytes, py::arg("model"), "CheckModel's findings for a serialized model, as JSON.");
  m.def("check_file", &ol::CheckFile, py::arg("path"), "CheckModel's findings for a model file, as JSON.");
}
