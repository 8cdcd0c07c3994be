// How a model is written with its external data (SaveOptions) and their check.
#ifndef ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_SAVE_OPTIONS_H_
#define ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_SAVE_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace onnx_legalize {

// Initializers of at least this many bytes go to the data file when one is written (onnx's own default).
inline constexpr int64_t kDefaultExternalDataThreshold = 1024;

struct SaveOptions {
  // The folder the model's external data locations are relative to (the folder of the file it was
  // loaded from). When it is not the output's folder, every file still referenced is made available in
  // the output's folder under the same location: cloned (reflink) where the filesystem can, else
  // hard-linked (the same file under a second name) where both are on one filesystem, else copied
  // (streamed, never whole in memory); a file of that name there is replaced. In the output's own folder
  // the files are left as they are. "": references are written as they are.
  std::string external_data_folder;

  // The data file, a file name in the output's folder. "" : written only when the model would otherwise
  // pass protobuf's 2 GiB limit, as "<output file name>.data"; then it receives the inline initializers
  // of at least `external_data_threshold` bytes and any tensor whose location already is that name.
  // Set: always used, and it receives every tensor stored externally (existing references are repacked
  // into it) besides those initializers. Offsets are aligned (64 KiB for tensors of 1 MiB or more, else
  // 64 bytes). Written only when some tensor goes to it.
  std::string external_data_name;

  // Smallest initializer (raw bytes) that goes to the data file. Folded initializers count like any other;
  // tensors stored in typed fields (float_data, ...) and strings stay inline.
  int64_t external_data_threshold = kDefaultExternalDataThreshold;

  // LegalizeFile only: permits `output_path` to be the input file itself. Without it that is refused, so a
  // mistyped OUT cannot replace the original. A model that legalizing leaves unchanged (report.changed false)
  // is then not written at all: the file stays byte for byte as it was.
  bool in_place = false;
};

// The same for SaveOptions and the path they will write: a negative threshold, a data file name that is not
// a plain file name or is the output's own file name. Reads no file (LegalizeFile refuses an output that is
// the input file, also as kInvalidRequest, once it has looked).
absl::Status ValidateSaveOptions(const SaveOptions& options, const std::string& output_path);

}  // namespace onnx_legalize

#endif  // ONNX_LEGALIZE_INCLUDE_ONNX_LEGALIZE_SAVE_OPTIONS_H_
