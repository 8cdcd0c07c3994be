// Helpers for tests that work on real files and run the onnx-legalize binary: a fresh folder per test,
// whole-file reads and writes, and a run of the binary with its exit code and output captured.
#ifndef ONNX_LEGALIZE_TESTS_TEST_FILES_H_
#define ONNX_LEGALIZE_TESTS_TEST_FILES_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace onnx_legalize::testing {

// A fresh, empty folder <temp>/<prefix>_<test name>_<pid> for the running test: named after the test and
// the process so that tests run in parallel never share one, and emptied first in case a crashed run left
// it behind. The test removes it when done (TearDown), so it can check what is in it first.
std::filesystem::path MakeTestDir(const std::string& prefix);

// The whole file; empty when it cannot be read, so a missing file fails the comparison that expected it.
std::string ReadBytes(const std::filesystem::path& path);

// Writes `bytes` to `path`, replacing what was there; fails the test if the write fails.
void WriteBytes(const std::filesystem::path& path, const std::string& bytes);

// The names of the entries of `dir`, in the order the folder lists them.
std::vector<std::string> FileNames(const std::filesystem::path& dir);

// Quotes `text` as one word for /bin/sh, whatever characters it holds.
std::string ShellQuote(const std::string& text);

// The id of a process that ran and is gone (reaped): no process of that id runs now, barring its reuse within the
// test, which the kernel's id allocation makes all but impossible.
int PidOfAGoneProcess();

// What a run of a binary did.
struct CliRun {
  int exit_code = -1;  // -1: it did not exit (killed by a signal, or could not be started)
  int signal = 0;      // the signal that killed it (sh reports one as exit code 128 + N), 0 if none
  std::string out;
  std::string err;
};

// Runs `binary` with `args` through /bin/sh as a user would, with stdout and stderr captured in files in
// `capture_dir` (a folder outside the one under test, so they never show in its listing).
// `data_limit_kib` caps the binary's heap (ulimit -d, RLIMIT_DATA) when given.
CliRun RunCli(const std::string& binary, const std::vector<std::string>& args, const std::filesystem::path& capture_dir,
              std::optional<int64_t> data_limit_kib = std::nullopt);

}  // namespace onnx_legalize::testing

#endif  // ONNX_LEGALIZE_TESTS_TEST_FILES_H_
