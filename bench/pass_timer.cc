// Times Legalize() itself, on a model already in memory (no file I/O), for scenario-1 models of several
// sizes, so that the pass's growth with the node count can be read off directly.
//
//   legalize-pass-timer [--repeat=R] [--weight-dim=D] N1 [N2 ...]
//
// N: DynamicSlice nodes (each followed by a Relu, as in scenario 1). D: the side of the eight unrelated
// weights (default 64; the weights' size is scenario 1's business, not the pass's node-count scaling).
// Prints, per N, the median and the minimum of R runs (default 3), and the ratio of each median to the
// first one's against the ratio of node counts. Verification is on, as in the CLI's default.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_models.h"
#include "onnx_legalize/legalize.h"

int main(int argc, char** argv) {
  int repeat = 3;
  int64_t weight_dim = 64;
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--repeat=", 0) == 0) {
      repeat = std::atoi(arg.c_str() + 9);
    } else if (arg.rfind("--weight-dim=", 0) == 0) {
      weight_dim = std::atoll(arg.c_str() + 13);
    } else {
      sizes.push_back(std::atoll(arg.c_str()));
    }
  }
  if (sizes.empty() || repeat < 1) {
    std::fprintf(stderr, "usage: legalize-pass-timer [--repeat=R] [--weight-dim=D] N1 [N2 ...]\n");
    return 2;
  }

  double first_median = 0;
  for (size_t s = 0; s < sizes.size(); ++s) {
    const int64_t n = sizes[s];
    const onnx::ModelProto model = onnx_legalize::bench::BuildDynamicChain(n, 8, weight_dim);
    std::vector<double> seconds;
    for (int r = 0; r < repeat; ++r) {
      onnx::ModelProto copy = model;
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<onnx_legalize::Report> report = onnx_legalize::Legalize(copy, onnx_legalize::Options{});
      const auto stop = std::chrono::steady_clock::now();
      if (!report.ok()) {
        std::fprintf(stderr, "Legalize failed on %lld slices: %s\n", static_cast<long long>(n),
                     std::string(report.status().message()).c_str());
        return 1;
      }
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    if (s == 0) first_median = median;
    std::printf("pass  %7lld DynamicSlice (%7d nodes)  median %8.3f s  min %8.3f s  %6.2f us/node", static_cast<long long>(n),
                model.graph().node_size(), median, seconds.front(), 1e6 * median / model.graph().node_size());
    if (s > 0) {
      std::printf("  time x%.2f for nodes x%.2f", median / first_median,
                  static_cast<double>(n) / static_cast<double>(sizes[0]));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
