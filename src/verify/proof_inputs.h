// The inputs the opset move's proof (verify/opset_move_proof.h) feeds a model: drawn from a seed, of the
// declared types and dims, with values the model accepts. Floats are ordinary numbers, or ordinary numbers
// mixed with the special ones (DrawnValues); an integer input is drawn by what the model reads it as: an index
// (Gather's indices, a sequence position) within what it indexes, a size (Expand's shape, Tile's repeats,
// split lengths) as ones, which every such use accepts, axes (Slice's, DynamicSlice's) distinct within the
// data's rank; any other integer small, of either sign. Strings come from a small vocabulary of words.
#ifndef ONNX_LEGALIZE_SRC_VERIFY_PROOF_INPUTS_H_
#define ONNX_LEGALIZE_SRC_VERIFY_PROOF_INPUTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"
#include "rules/removed_op_rule.h"

namespace onnx_legalize {

// Elements one drawn input may hold: 2^22 holds an image batch of 1 at 720x720x3 (style-transfer networks)
// and one of 16 at 224x224x3.
inline constexpr int64_t kMaxDrawnInputElements = int64_t{1} << 22;
// Fed inputs holding more than this in all make a large-input model (an image network): see
// HasImageSizedInput and opset_move_proof.cc's trials.
inline constexpr int64_t kManyTrialsElements = int64_t{1} << 16;

// The graph inputs a caller feeds: those no initializer gives.
std::vector<const onnx::ValueInfoProto*> FedInputs(const onnx::GraphProto& graph);

// Why `input` cannot be drawn (not a tensor of a drawable type, no declared rank), or "".
std::string WhyNotDrawable(const onnx::ValueInfoProto& input);

// Whether a fed input's static dims alone hold more than kManyTrialsElements (an image): the model's open dims
// are then drawn as 1, as they are the batch (and one image is work enough).
bool HasImageSizedInput(const onnx::GraphProto& graph);

// The dims drawn for `input`: its static ones, and for the open ones 1 when `open_as_one`, else 3 for a
// named dim (all dims of one name alike) and 2 for an unnamed one.
std::vector<int64_t> DrawnDims(const onnx::ValueInfoProto& input, bool open_as_one);

// How the open dims of the fed inputs are drawn: as DrawnDims draws them for the model (1 for an image network's,
// else 3 or 2), or all as 1 (a model whose reshapes fix its batch at 1 runs on no other size).
enum class OpenDims { kForTheModel, kOnes };

// Whether a fed input of `graph` has a dim the model leaves open (drawn otherwise than as 1).
bool HasOpenDimsDrawnPastOne(const onnx::GraphProto& graph);

// What a drawn set holds: ordinary values only (floats by TrialRandom::OrdinaryFloats, small integers), or
// ordinary values mixed with special ones: floats by SpecialFloats (zeros, infinities, NaN, subnormals, huge
// values), and integers read as neither an index, a size nor axes with their type's extremes and the values past
// 2^24 and 2^53 that float and double do not hold (a form that computes integers in a floating type rounds them).
enum class DrawnValues { kOrdinary, kSpecial };

// One input set for `graph`'s fed inputs (see the header comment).
absl::StatusOr<std::map<std::string, Tensor>> DrawInputs(const onnx::GraphProto& graph, DrawnValues values,
                                                         TrialRandom& random,
                                                         OpenDims open_dims = OpenDims::kForTheModel);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_VERIFY_PROOF_INPUTS_H_
