// What a request to legalize may ask (Options) and its check, apart from the entry points (legalize.h): the
// stages that read a request include this alone.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_OPTIONS_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_OPTIONS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "onnx_legalize/external_data_reader.h"
#include "onnx_legalize/target_opsets.h"

namespace onnx_legalize {

struct Options {
  // Largest folded output, in bytes. A DynamicSlice whose constant result is bigger is rewritten instead,
  // so a hostile or huge model cannot make the folder allocate without bound. Checked before allocation.
  int64_t max_fold_bytes = int64_t{64} << 20;

  // Largest total of all folded outputs, in bytes. Each fold may pass max_fold_bytes on its own, yet many
  // folds of one constant would multiply the memory by the node count: past this total, the remaining
  // constant DynamicSlices and removed ops (all of them together) are rewritten instead. Checked before
  // allocation.
  int64_t max_total_fold_bytes = int64_t{2} << 30;

  // The default-domain opset to rewrite to. Unset: the lowest opset >= max(10, current) that expresses
  // every rewrite. Must be within [kMinTargetOpset, kMaxTargetOpset]. Below the model's own opset, the model moves
  // down to it (for a runtime that stops at an older opset), the move proved as any other; a node with no form
  // there is refused as ErrorKind::kNoFormAtOpset, naming it and the lowest opset it can go to.
  std::optional<int64_t> target_opset;

  // Keep the model's opset (below 10): nodes whose indices are constant become Slice-1 with attributes;
  // any DynamicSlice that cannot be expressed so is an error (FailedPrecondition).
  bool keep_opset = false;

  // Execute the original and the replacement form of every change and compare them bit for bit.
  bool verify = true;

  // Seeded trials per rewritten node; each draws fresh data and, for dynamic indices, fresh index values.
  int verify_trials = 8;

  // Seed of the verification's random inputs: the same seed gives the same trials, run after run.
  uint64_t verify_seed = 0x5eed;

  // The opset-move proof's budget, in element operations: the elements each node of the model reads and writes,
  // and the multiply-adds of its contractions (Conv, Gemm, MatMul, ...) and windows (pools), counted over every
  // node the proof runs (both forms, every input set). A count of work, not of time, so that whether a proof
  // fits is the same on every machine. Past it the proof stops and the report says "not executed" and why; a
  // budget that holds one input set but not three runs one. The default, 2^38 (~2.7e11), keeps every proof that
  // ran before there was a budget: the largest real models tested (fast-neural-style networks at 720x720, by
  // their architecture about 1.3e11 for the proof) fit with room to spare. The runner does about 1.4e9 a second
  // on one core of a 2-vCPU VM (bench/ scenario 6), so the default bounds a proof to a few minutes; lower it to
  // bound it to seconds. 0 executes nothing.
  int64_t proof_budget = int64_t{1} << 38;

  // Run the proofs beside the work they prove: Legalize may start up to four helper threads at once
  // (verification of the changes, onnx's checker on the input and on the result, the opset move's proof), each
  // joined before it returns. false: everything runs on the calling thread, for embedders that own their threads. The
  // result, report and errors are the same either way.
  bool use_threads = true;

  // Reads initializers (and Constant values) stored as external data, only where a fold or the opset move's
  // proof needs their values; not owned, and must outlive the Legalize call. With use_threads it may be called
  // from several threads at once. Null: the library reads no files, so such a tensor is not a constant (its
  // DynamicSlice is rewritten, and the report's detail says why); its type and dims are still known. LegalizeFile sets
  // it to the input's OpenExternalData.
  const ExternalDataReader* external_data = nullptr;
};

// InvalidArgument of kind kInvalidRequest, naming the field and its value, when `options` holds a value out of
// range (negative byte limits or proof budget, a target opset outside [kMinTargetOpset, kMaxTargetOpset],
// verify_trials < 1)
// or two that contradict each other (keep_opset with target_opset). Legalize and LegalizeFile check it first;
// callers that collect options from users (the CLI) call it to tell a bad request from a bad model.
absl::Status ValidateOptions(const Options& options);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_OPTIONS_H_
