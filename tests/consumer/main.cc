// A consumer of the installed onnx-legalize package: legalizes IN into OUT through the public API and
// prints the report. Exit 0 only when the model changed and OUT holds no DynamicSlice any more.
#include <iostream>

#include "absl/status/statusor.h"
#include "onnx_legalize/legalize.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: consumer IN.onnx OUT.onnx\n";
    return 2;
  }
  absl::StatusOr<onnx_legalize::Report> report = onnx_legalize::LegalizeFile(argv[1], argv[2], {});
  if (!report.ok()) {
    std::cerr << "consumer: " << report.status() << "\n";
    return 1;
  }
  std::cout << onnx_legalize::ReportToJson(*report);
  absl::StatusOr<onnx::ModelProto> legal = onnx_legalize::LoadModel(argv[2]);
  if (!legal.ok()) {
    std::cerr << "consumer: " << legal.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<onnx_legalize::CheckFinding>> findings = onnx_legalize::CheckModel(*legal);
  if (!findings.ok() || !findings->empty() || !report->changed) {
    std::cerr << "consumer: the legalized model still has findings, or nothing changed\n";
    return 1;
  }
  return 0;
}
