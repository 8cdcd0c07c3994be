// Main-graph outputs declared without a shape. onnx's checker requires a shape (which may hold unknown dims) on
// every tensor output of the main graph ("Field 'shape' of 'type' is required but missing"); exporters of every
// era left it out where they did not know the dims, and ONNX Runtime runs such models. Legalizing writes the
// shape onnx's inference finds for the output, its unknown dims left unknown, and reports the change
// (Report::interface_changes). An output whose rank inference does not find keeps its declaration, and the
// check refuses the model naming it.
#ifndef ONNX_LEGALIZE_SRC_DRIVER_DECLARED_OUTPUT_SHAPES_H_
#define ONNX_LEGALIZE_SRC_DRIVER_DECLARED_OUTPUT_SHAPES_H_

#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx_legalize/report.h"

namespace onnx_legalize {

// Writes the inferred shape into each main-graph tensor output of `model` declared without one; what it wrote,
// one entry per output.
std::vector<InterfaceChange> DeclareInferredOutputShapes(onnx::ModelProto& model);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_DRIVER_DECLARED_OUTPUT_SHAPES_H_
