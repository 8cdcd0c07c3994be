// Temporaries a run that was killed left beside its destinations (io/staging.h names them
// ".<name>.tmp-<pid>-<counter>-<random>"; a SIGKILL gives no chance to remove them). A later run removes, in each
// folder it writes to or would write to, the temporaries of that form whose process is no longer running: its own
// kind of leftovers, and nothing else.
#ifndef ONNX_LEGALIZE_SRC_IO_LEFTOVER_TEMPORARIES_H_
#define ONNX_LEGALIZE_SRC_IO_LEFTOVER_TEMPORARIES_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace onnx_legalize {

// The name of the temporary beside `target` that process `pid` makes as its `counter`th, with `random` bits.
// The target's name is cut to 160 bytes, so that the whole stays within NAME_MAX (255).
std::string TemporaryName(const std::filesystem::path& target, int pid, uint64_t counter, uint64_t random);

// The process that made a file named `file_name` as a temporary (TemporaryName), or nullopt when the name is not
// of that form.
std::optional<int> TemporaryMaker(const std::string& file_name);

// Removes the temporaries in the folder of `destination` whose process is no longer running (kill(pid, 0) says
// there is no such process: a running process of that id, this one included, keeps its own). Each folder is
// looked at once per process: a tree of many models in one folder is not listed once per model.
void RemoveLeftoverTemporaries(const std::filesystem::path& destination);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_SRC_IO_LEFTOVER_TEMPORARIES_H_
