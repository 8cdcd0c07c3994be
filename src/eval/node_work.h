// How much work one node's execution in the model runner is, in element operations: the unit of the opset-move
// proof's budget (Options::proof_budget) and of the report's count. A count of work, not of time, so that
// whether a proof fits its budget is the same on every machine and in every run: the same model and inputs give
// the same count.
//
// Every node reads each element of its inputs and writes each of its outputs, so those counts are its floor.
// The ops whose cost grows past that add what they compute: the multiply-adds of the contractions (Conv,
// ConvTranspose, Gemm, MatMul, the recurrent ops RNN, GRU and LSTM), the window reads of the pools and LRN, and
// the interpolation reads of Resize and Upsample. The kernels of the contractions, pools and resizes check the
// same count before they start (KernelContext::work_allowed), so that one node cannot run far past a budget.
// These are the ops that dominate a real network's time in the runner; for the rest, reading and writing is
// the work within a small factor.
#ifndef ONNX_LEGALIZE_SRC_EVAL_NODE_WORK_H_
#define ONNX_LEGALIZE_SRC_EVAL_NODE_WORK_H_

#include <cstdint>
#include <vector>

#include "eval/kernels/kernel.h"
#include "eval/kernels/sequence.h"
#include "onnx/onnx_pb.h"

namespace onnx_legalize {

// a + b, held at INT64_MAX instead of overflowing: a count of work only needs to say "past any budget".
int64_t SaturatingAdd(int64_t a, int64_t b);

// The element operations of running `node` on `inputs` (null for an omitted one), giving `outputs`; an output
// that is one of the inputs (Identity) is neither read nor written.
int64_t NodeWork(const onnx::NodeProto& node, const std::vector<Value>& inputs, const Outputs& outputs);

// The same for a sequence op (kernels/sequence.h): the elements of its tensors and of its sequences' tensors.
int64_t SequenceNodeWork(const std::vector<SequenceOpValue>& inputs, const SequenceOpValue& output);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_EVAL_NODE_WORK_H_
