#include "test_files.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "gtest/gtest.h"

namespace onnx_legalize::testing {

namespace fs = std::filesystem;

fs::path MakeTestDir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::temp_directory_path() / (prefix + "_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  ASSERT_TRUE(out.good()) << path;
}

std::vector<std::string> FileNames(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  return names;
}

std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";  // close the quote, an escaped quote, reopen
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

int PidOfAGoneProcess() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<int>(child);
}

CliRun RunCli(const std::string& binary, const std::vector<std::string>& args, const fs::path& capture_dir,
              std::optional<int64_t> data_limit_kib) {
  std::string command;
  if (data_limit_kib.has_value()) command = "ulimit -d " + std::to_string(*data_limit_kib) + " && exec ";
  command += ShellQuote(binary);
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  const fs::path out = capture_dir / "stdout.txt";
  const fs::path err = capture_dir / "stderr.txt";
  command += " >" + ShellQuote(out.string()) + " 2>" + ShellQuote(err.string());
  const int status = std::system(command.c_str());
  CliRun run;
  if (status != -1 && WIFEXITED(status)) {
    run.exit_code = WEXITSTATUS(status);
    if (run.exit_code > 128) run.signal = run.exit_code - 128;
  } else if (status != -1 && WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
  }
  run.out = ReadBytes(out);
  run.err = ReadBytes(err);
  return run;
}

}  // namespace onnx_legalize::testing
