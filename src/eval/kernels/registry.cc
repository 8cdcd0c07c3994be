#include "eval/kernels/registry.h"

#include "absl/strings/str_cat.h"
#include "graph/op_names.h"

namespace onnx_legalize {
namespace {

const KernelTable& Kernels() {
  static const auto* const table = [] {
    auto* kernels = new KernelTable();
    AddConstantKernels(*kernels);
    AddShapeKernels(*kernels);
    AddDataMovementKernels(*kernels);
    AddOneHotKernels(*kernels);
    AddSliceKernels(*kernels);
    AddCastKernels(*kernels);
    AddElementwiseKernels(*kernels);
    AddActivationKernels(*kernels);
    AddLogicalKernels(*kernels);
    AddSoftmaxKernels(*kernels);
    AddGemmKernels(*kernels);
    AddConvKernels(*kernels);
    AddPoolKernels(*kernels);
    AddNormalizationKernels(*kernels);
    AddReduceKernels(*kernels);
    AddPadKernels(*kernels);
    AddResizeKernels(*kernels);
    AddSequenceKernels(*kernels);
    AddTextKernels(*kernels);
    AddMlKernels(*kernels);
    AddQuantizeKernels(*kernels);
    AddRecurrentKernels(*kernels);
    AddTreeEnsembleKernels(*kernels);
    return kernels;
  }();
  return *table;
}

}  // namespace

const Kernel* FindKernel(const std::string& op_type) {
  auto kernel = Kernels().find(op_type);
  return kernel == Kernels().end() ? nullptr : &kernel->second;
}

const Kernel* FindKernel(const std::string& domain, const std::string& op_type) {
  return IsDefaultDomain(domain) ? FindKernel(op_type) : FindKernel(DomainKey(domain, op_type));
}

std::string DomainKey(const std::string& domain, const std::string& op_type) {
  return absl::StrCat(domain, ":", op_type);
}

}  // namespace onnx_legalize
