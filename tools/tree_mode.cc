#include "tree_mode.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "onnx_legalize/check_report.h"
#include "onnx_legalize/legalize.h"
#include "onnx_legalize/legalize_tree.h"

namespace onnx_legalize::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Model files from this size on are legalized with the library's helper threads when -j is 1 (bench/,
// scenario 5: on small models they cost a fifth of the time).
constexpr int64_t kHelperThreadsFrom = int64_t{16} << 20;

// Everything here prints through C's stdio, not std::cout and std::cerr: while any legalization runs, the
// library silences those two process-wide (onnx's checker writes to them).
void Print(std::FILE* stream, absl::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
}

// ---------------------------------------------------------------------------------------------------
// Ctrl-C: the first stops taking new files and lets the ones in hand finish (each is written atomically, so
// none is left partial); the second, with the default action restored, stops at once.

// Lock-free, so the handler may set it and every -j thread read it.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void OnInterrupt(int /*signal*/) {
  g_interrupted = true;
  constexpr char kMessage[] =
      "\nonnx-legalize: interrupted; finishing the files in hand (Ctrl-C again to stop at once)\n";
  const ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  (void)ignored;
}

class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = false;
    struct sigaction action = {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;  // a second Ctrl-C kills as usual
    sigaction(SIGINT, &action, &previous_);
  }
  ~InterruptGuard() { sigaction(SIGINT, &previous_, nullptr); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction previous_ = {};
};

// ---------------------------------------------------------------------------------------------------
// The progress line: on a terminal only, rewritten in place on stderr.

std::string Megabytes(int64_t bytes) { return absl::StrFormat("%.1f MB", static_cast<double>(bytes) / 1e6); }

std::string Duration(double seconds) {
  const int64_t whole = std::llround(seconds);
  if (whole < 60) return absl::StrCat(whole, " s");
  return absl::StrFormat("%d:%02d min", whole / 60, whole % 60);
}

class Progress {
 public:
  Progress(int64_t files, int64_t bytes, bool shown) : files_(files), bytes_(bytes), shown_(shown) {}

  void Started(const std::string& path) {
    if (!shown_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    in_hand_ = path;
    Draw();
  }

  void Finished(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_files_;
    done_bytes_ += bytes;
    if (shown_) Draw();
  }

  void Clear() {
    if (shown_) Print(stderr, "\r\x1b[K");
  }

 private:
  // With mutex_ held. At most ten times a second, and never wider than the terminal (a line that wraps could
  // not be rewritten in place).
  void Draw() {
    const Clock::time_point now = Clock::now();
    if (done_files_ < files_ && now - drawn_ < std::chrono::milliseconds(100)) return;
    drawn_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::string left;
    // Time left from the bytes done so far (files differ in size far more than in count).
    if (done_bytes_ > 0 && done_bytes_ < bytes_) {
      left = absl::StrCat(
          ", ", Duration(elapsed * static_cast<double>(bytes_ - done_bytes_) / static_cast<double>(done_bytes_)),
          " left");
    }
    const std::string counts = absl::StrCat(done_files_, "/", files_, " files, ", Megabytes(done_bytes_), " of ",
                                            Megabytes(bytes_), left, "  ");
    std::string path = EscapeForTerminal(in_hand_);
    const size_t width = TerminalWidth() - 1;
    const size_t room = width > counts.size() + 8 ? width - counts.size() : 8;
    if (path.size() > room) path = absl::StrCat("...", path.substr(path.size() - (room - 3)));
    Print(stderr, absl::StrCat("\r\x1b[K", counts, path));
  }

  // Control characters and bytes that are not UTF-8 as \xNN; of a long path, the tail is shown (bytes counted
  // as columns: paths are mostly ASCII).
  static std::string EscapeForTerminal(const std::string& path) {
    std::string out;
    for (const char c : EscapeInvalidUtf8(path)) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        out += absl::StrFormat("\\x%02X", static_cast<unsigned char>(c));
      } else {
        out.push_back(c);
      }
    }
    return out;
  }

  static size_t TerminalWidth() {
    struct winsize size = {};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
    return 80;
  }

  const int64_t files_;
  const int64_t bytes_;
  const bool shown_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point drawn_;
  std::mutex mutex_;
  int64_t done_files_ = 0;
  int64_t done_bytes_ = 0;
  std::string in_hand_;
};

bool ProgressShown() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) != 0 && (term == nullptr || absl::string_view(term) != "dumb");
}

// ---------------------------------------------------------------------------------------------------
// The report: one JSON line per file, in the plan's order whatever the order files finish in.

class ReportLines {
 public:
  ReportLines(std::FILE* stream, size_t files) : stream_(stream), lines_(files) {}

  void Add(size_t index, std::string line) {
    if (stream_ == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex_);
    lines_[index] = std::move(line);
    lines_[index].push_back('\n');
    while (next_ < lines_.size() && !lines_[next_].empty()) {
      std::fwrite(lines_[next_].data(), 1, lines_[next_].size(), stream_);
      lines_[next_].clear();
      lines_[next_].shrink_to_fit();
      ++next_;
    }
    std::fflush(stream_);
  }

 private:
  std::FILE* stream_;
  std::mutex mutex_;
  std::vector<std::string> lines_;
  size_t next_ = 0;
};

// ---------------------------------------------------------------------------------------------------
// The summary

struct Tally {
  int64_t legalized = 0, already_legal = 0, up_to_date = 0, folded = 0, rewritten = 0, moved = 0;
  std::map<std::string, int64_t> refused_by_kind;
  std::vector<const TreeFileResult*> refused, verification_failed;
};

Tally Count(const std::vector<TreeFileResult>& results, const std::vector<bool>& done) {
  Tally tally;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!done[i]) continue;
    const TreeFileResult& result = results[i];
    switch (result.outcome) {
      case TreeOutcome::kLegalized:
        ++tally.legalized;
        tally.folded += result.folded;
        tally.rewritten += result.rewritten;
        tally.moved += result.opset_moved ? 1 : 0;
        break;
      case TreeOutcome::kUpToDate: ++tally.up_to_date; break;
      case TreeOutcome::kAlreadyLegal: ++tally.already_legal; break;
      case TreeOutcome::kFailed:
        if (IsVerificationFailure(result.status)) {
          tally.verification_failed.push_back(&result);
        } else {
          tally.refused.push_back(&result);
          ++tally.refused_by_kind[ErrorKindName(ErrorKindOf(result.status))];
        }
        break;
    }
  }
  return tally;
}

std::string Summary(const Tally& tally, int64_t done, int64_t total, double seconds, bool in_place) {
  auto row = [](absl::string_view name, int64_t count, absl::string_view note) {
    return absl::StrFormat("  %-22s %6d%s\n", name, count, note.empty() ? "" : absl::StrCat("  ", note));
  };
  std::string out = absl::StrCat("onnx-legalize: ", done, " of ", total, " files in ", Duration(seconds), "\n");
  out += row("legalized", tally.legalized,
             absl::StrCat("(", tally.folded, " nodes folded, ", tally.rewritten, " rewritten, opset moved in ",
                          tally.moved, tally.moved == 1 ? " file)" : " files)"));
  out += row("already legal", tally.already_legal, in_place ? "(left untouched)" : "(copied unchanged)");
  if (!in_place) out += row("up to date", tally.up_to_date, "(written by an earlier run, skipped)");
  out += row("refused", static_cast<int64_t>(tally.refused.size()), "(not written)");
  for (const auto& [kind, count] : tally.refused_by_kind) out += row(absl::StrCat("  ", kind), count, "");
  out += row("verification failed", static_cast<int64_t>(tally.verification_failed.size()), "(not written)");
  for (const auto& [title, list] :
       {std::pair{"refused", &tally.refused}, {"verification failed", &tally.verification_failed}}) {
    if (list->empty()) continue;
    out += absl::StrCat(title, ":\n");
    for (const TreeFileResult* result : *list) {
      out +=
          absl::StrCat("  ", EscapeInvalidUtf8(result->input), ": ", EscapeInvalidUtf8(result->status.message()), "\n");
    }
  }
  return out;
}

int ExitCode(const Tally& tally) {
  if (!tally.verification_failed.empty()) return 4;
  return tally.refused.empty() ? 0 : 3;
}

}  // namespace

int RunTree(const TreeRequest& request) {
  const size_t total = request.plan.size();
  std::FILE* report = nullptr;
  if (request.report_path == "-") {
    report = stdout;
  } else if (!request.report_path.empty()) {
    report = std::fopen(request.report_path.c_str(), "wb");
    if (report == nullptr) {
      Print(stderr, absl::StrCat("onnx-legalize: cannot write report '", request.report_path, "'\n"));
      return 3;
    }
  }
  int64_t total_bytes = 0;
  std::vector<int64_t> sizes(total, 0);
  for (size_t i = 0; i < total; ++i) {
    std::error_code error;
    const uintmax_t size = request.plan[i].status.ok() ? std::filesystem::file_size(request.plan[i].input, error) : 0;
    sizes[i] = error ? 0 : static_cast<int64_t>(size);
    total_bytes += sizes[i];
  }
  // The library's helper threads (proofs beside the work they prove) pay off on large models only, and only
  // when the -j threads leave cores idle; on a small model starting them costs more than they save.
  Options with_helpers = request.options;
  with_helpers.use_threads = true;
  Options without_helpers = request.options;
  without_helpers.use_threads = false;
  Progress progress(static_cast<int64_t>(total), total_bytes, ProgressShown());
  ReportLines lines(report, total);
  std::vector<TreeFileResult> results(total);
  std::vector<bool> done(total, false);
  std::mutex done_mutex;
  std::atomic<size_t> next{0};
  const Clock::time_point start = Clock::now();
  {
    InterruptGuard guard;
    auto work = [&] {
      for (size_t i = next++; i < total && !g_interrupted; i = next++) {
        progress.Started(request.plan[i].input);
        const bool helpers = request.jobs == 1 && sizes[i] >= kHelperThreadsFrom;
        TreeFileResult result = LegalizeTreeFile(request.plan[i], request.dest_dir,
                                                 helpers ? with_helpers : without_helpers, request.save_options);
        lines.Add(i, TreeFileResultToJson(result));
        progress.Finished(result.input_bytes);
        std::lock_guard<std::mutex> lock(done_mutex);
        results[i] = std::move(result);
        done[i] = true;
      }
    };
    std::vector<std::thread> threads;
    const int64_t workers = std::min<int64_t>(request.jobs, static_cast<int64_t>(total));
    for (int64_t t = 1; t < workers; ++t) threads.emplace_back(work);
    work();
    for (std::thread& thread : threads) thread.join();
    progress.Clear();
  }
  if (report != nullptr && report != stdout && std::fclose(report) != 0) {
    Print(stderr, absl::StrCat("onnx-legalize: cannot write report '", request.report_path, "'\n"));
  }
  const Tally tally = Count(results, done);
  const auto finished = static_cast<int64_t>(std::count(done.begin(), done.end(), true));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // With the report on stdout, stdout holds the report alone.
  std::FILE* summary_stream = request.report_path == "-" ? stderr : stdout;
  Print(summary_stream, Summary(tally, finished, static_cast<int64_t>(total), seconds, request.dest_dir.empty()));
  if (g_interrupted) {
    Print(stderr, absl::StrCat("onnx-legalize: interrupted after ", finished, " of ", total,
                               " files; every file written is complete",
                               request.dest_dir.empty() ? "" : "; run the same command again to go on", "\n"));
    return kExitInterrupted;
  }
  return ExitCode(tally);
}

}  // namespace onnx_legalize::cli
