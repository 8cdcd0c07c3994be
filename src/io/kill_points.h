// Fault injection for the kill test (tests/tools/kill_test.cc): the points of a save at which a SIGKILL leaves the
// most to clean up, where the process can be made to kill itself, deterministically, to check that every file is
// then the original, the complete output or absent, and that a rerun leaves no temporary behind.
//
// ONNX_LEGALIZE_KILL_AT=POINT:N makes the process send itself SIGKILL the Nth time (from 1) it reaches POINT:
//   created   a temporary was made beside its destination, still empty;
//   written   every temporary of one save is complete and flushed, none renamed yet;
//   renamed   a save of several files (a model and its data) has renamed some over their destinations, not all
//             (reached before each rename but the first; the model is renamed last).
// Unset (always, but in that test), reaching a point costs a comparison: the variable is read once.
#ifndef ONNX_LEGALIZE_SRC_IO_KILL_POINTS_H_
#define ONNX_LEGALIZE_SRC_IO_KILL_POINTS_H_

namespace onnx_legalize {

inline constexpr char kKillPointCreated[] = "created";
inline constexpr char kKillPointWritten[] = "written";
inline constexpr char kKillPointRenamed[] = "renamed";

// Kills the process here when ONNX_LEGALIZE_KILL_AT names this point and this is its Nth time.
void KillPoint(const char* point);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_KILL_POINTS_H_
