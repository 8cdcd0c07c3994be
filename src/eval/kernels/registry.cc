#include "eval/kernels/registry.h"

namespace onnx_legalize {
namespace {

const KernelTable& Kernels() {
  static const auto* const table = [] {
    auto* kernels = new KernelTable();
    AddConstantKernels(*kernels);
    AddShapeKernels(*kernels);
    AddDataMovementKernels(*kernels);
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
    return kernels;
  }();
  return *table;
}

}  // namespace

const Kernel* FindKernel(const std::string& op_type) {
  auto kernel = Kernels().find(op_type);
  return kernel == Kernels().end() ? nullptr : &kernel->second;
}

}  // namespace onnx_legalize
