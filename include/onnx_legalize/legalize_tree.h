// Legalizing a tree of models: many files and folders, mirrored into a destination folder or written in
// place, one file at a time through LegalizeFile, so that each output is byte for byte what a single-file
// run writes. Reruns resume: an output already written from the same input bytes with the same options is
// skipped. The CLI (`onnx-legalize SRC... -o DEST`, `--in-place PATH...`) and the Python module's
// legalize_tree run the same three calls: FindModelFiles/PlanTree once, LegalizeTreeFile per file (on any
// thread, or in any process that sees the same files), TreeFileResultToJson per result.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_TREE_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_TREE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "onnx_legalize/options.h"
#include "onnx_legalize/save_options.h"

namespace onnx_legalize {

// A model file found below a path given.
struct FoundModel {
  std::string path;      // the file, spelled from the path given ("models/a/b.onnx")
  std::string relative;  // below the folder given ("a/b.onnx"); the file's name for a file given
  absl::Status status;   // not OK: a folder that could not be listed (path is the folder; the message says why)
};

// Each path in order: a folder (named directly or through a symbolic link) becomes every regular file named
// *.onnx below it, recursively, sorted by path (byte order), so the list does not depend on the order the
// filesystem lists them in. Below a named folder, symbolic links are not followed out of the tree: a link to a
// folder is never descended into (which also keeps cycles out), and a link to a file is kept only when its
// target lies inside the named folder. Anything else (a file, a path that does not exist) is kept as given.
std::vector<FoundModel> FindModelFiles(const std::vector<std::string>& paths);

// One file of a tree: where it is read and where its result goes (the same path: in place).
struct TreeFile {
  std::string input;
  std::string output;
  std::string relative;  // the output's path below the destination folder ("" in place)
  absl::Status status;   // not OK: a folder that could not be listed; LegalizeTreeFile reports it as it is
};

// The files of `sources` (FindModelFiles), each with its output: below `dest_dir` at its relative path, or
// over itself when `dest_dir` is "" (in place). kInvalidRequest (InvalidRequestField "sources" or "dest_dir")
// naming the path, before any file is read: a source that does not exist, a destination that is an existing
// file, inside a source folder or one of the inputs, two inputs that would go to one output. A folder with no
// model in it adds nothing.
absl::StatusOr<std::vector<TreeFile>> PlanTree(const std::vector<std::string>& sources, const std::string& dest_dir);

enum class TreeOutcome {
  kLegalized,     // written by LegalizeFile (the report says what changed)
  kAlreadyLegal,  // nothing to legalize: copied byte for byte (in place: left untouched)
  kUpToDate,      // the output was written by an earlier run from the same input bytes with the same options
  kFailed,        // nothing written; status says why (ErrorKindOf: refused, or verification failed)
};
const char* TreeOutcomeName(TreeOutcome outcome);  // "legalized", "already_legal", "up_to_date", "failed"

struct TreeFileResult {
  std::string input;
  std::string output;
  TreeOutcome outcome = TreeOutcome::kFailed;
  absl::Status status;       // kFailed: the error, its message naming the file
  std::string report_json;   // ReportToJson on one line ("" for kFailed); the earlier run's for kUpToDate
  int64_t folded = 0;        // nodes folded into initializers
  int64_t rewritten = 0;     // nodes rewritten into standard ops
  bool opset_moved = false;  // the default opset changed
  int64_t input_bytes = 0;   // the model file's size (without external data)
};

// Legalizes one file of a plan. Outside in-place mode, `dest_dir` holds a manifest (.onnx-legalize/, one
// small file per output) of what each output was written from: a hash of the input's bytes and every option
// that changes the output (and this library's version); when it matches and the output is still the file it
// wrote, nothing is done (kUpToDate). Otherwise LegalizeFile writes the output (folders created as needed),
// so it is byte for byte what a single-file run writes; a model with nothing to legalize is then replaced by
// a byte copy of the input (in place, a model with nothing to legalize is never written). Nothing is written
// on failure. Thread-safe; processes sharing the files may legalize different files of one plan at once.
TreeFileResult LegalizeTreeFile(const TreeFile& file, const std::string& dest_dir, const Options& options,
                                const SaveOptions& save_options = {});

// The result as one line of JSON (no newline): {"path", "output", "result" ("legalized", "already_legal",
// "up_to_date", "refused", "verification_failed"), then the report's members (ReportToJson's), or for a
// failure "error_kind" (ErrorKindName) and "error" (the message)}.
std::string TreeFileResultToJson(const TreeFileResult& result);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_LEGALIZE_TREE_H_
