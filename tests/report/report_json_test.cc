// ReportToJson: exact text, key order and string escaping.
#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onnx_legalize/legalize.h"

namespace onnx_legalize {
namespace {

using ::testing::HasSubstr;

// The JSON text of a report whose single node has `name` as its node_name, everything else empty.
std::string NodeNameAsJson(const std::string& name) {
  Report report;
  NodeReport node;
  node.node_name = name;
  report.nodes.push_back(node);
  const std::string json = ReportToJson(report);
  const std::string key = "\"node_name\": ";
  const size_t begin = json.find(key) + key.size();
  const size_t end = json.find(",\n", begin);
  return json.substr(begin, end - begin);
}

TEST(ReportToJsonTest, WritesAnUnchangedReport) {
  Report report;
  report.opset_before = 13;
  report.opset_after = 13;
  report.ir_version_before = 8;
  report.ir_version_after = 8;
  EXPECT_EQ(ReportToJson(report), R"json({
  "changed": false,
  "opset_before": 13,
  "opset_after": 13,
  "ir_version_before": 8,
  "ir_version_after": 8,
  "onnx_check": "",
  "opset_move": "",
  "opset_move_proof": {
    "executed": false,
    "input_sets": 0,
    "nodes_executed": 0,
    "nodes_shared": 0,
    "nodes_skipped": 0,
    "work": 0,
    "seconds": 0.000,
    "why_not": ""
  },
  "opset_move_changes": [],
  "legacy_repairs": [],
  "interface_changes": [],
  "targets_passed_over": [],
  "nodes": []
}
)json");
}

TEST(ReportToJsonTest, WritesNodesInOrderWithStableKeys) {
  Report report;
  report.changed = true;
  report.opset_before = 9;
  report.opset_after = 10;
  report.ir_version_before = 3;
  report.ir_version_after = 5;
  report.onnx_check = "accepted";
  report.opset_move = "executed: identical";
  report.opset_move_proof.executed = true;
  report.opset_move_proof.input_sets = 3;
  report.opset_move_proof.nodes_executed = 42;
  report.opset_move_proof.nodes_shared = 40;
  report.opset_move_proof.nodes_skipped = 7;
  report.opset_move_proof.work = 123456789012;
  report.opset_move_proof.seconds = 1.23456;
  report.opset_move_changes.push_back({"Relu", 6, 13, "Relu", "version", 2, "Relu 'r' (graph main)"});
  report.opset_move_changes.push_back({"CastLike", 15, 13, "Cast", "replaced by Cast", 1, "CastLike 'c' (graph main)"});
  report.targets_passed_over = {{10, "checker says \"no\""}, {11, "converter"}};
  report.interface_changes = {
      {"loss", "map(string,tensor(float))", "seq(map(string,tensor(float)))", "ZipMap makes a sequence"}};
  NodeReport folded;
  folded.graph_path = "main";
  folded.node_name = "crop";
  folded.output = "y";
  folded.action = Action::kFolded;
  folded.became = "initializer";
  folded.detail = "all inputs constant";
  folded.verification = "skipped (verification off)";
  NodeReport rewritten;
  rewritten.graph_path = "main/loop_body";
  rewritten.node_name = "";
  rewritten.output = "s";
  rewritten.action = Action::kRewritten;
  rewritten.slice_version = 10;
  rewritten.became = "Slice-10";
  rewritten.detail = "dynamic starts";
  rewritten.verification = "8 trials, identical";
  report.nodes = {folded, rewritten};
  EXPECT_EQ(ReportToJson(report), R"json({
  "changed": true,
  "opset_before": 9,
  "opset_after": 10,
  "ir_version_before": 3,
  "ir_version_after": 5,
  "onnx_check": "accepted",
  "opset_move": "executed: identical",
  "opset_move_proof": {
    "executed": true,
    "input_sets": 3,
    "nodes_executed": 42,
    "nodes_shared": 40,
    "nodes_skipped": 7,
    "work": 123456789012,
    "seconds": 1.235,
    "why_not": ""
  },
  "opset_move_changes": [
    {
      "op_type": "Relu",
      "version_before": 6,
      "op_type_after": "Relu",
      "version_after": 13,
      "how": "version",
      "nodes": 2,
      "first": "Relu 'r' (graph main)"
    },
    {
      "op_type": "CastLike",
      "version_before": 15,
      "op_type_after": "Cast",
      "version_after": 13,
      "how": "replaced by Cast",
      "nodes": 1,
      "first": "CastLike 'c' (graph main)"
    }
  ],
  "legacy_repairs": [],
  "interface_changes": [
    {
      "value": "loss",
      "before": "map(string,tensor(float))",
      "after": "seq(map(string,tensor(float)))",
      "why": "ZipMap makes a sequence"
    }
  ],
  "targets_passed_over": [
    {
      "opset": 10,
      "reason": "checker says \"no\""
    },
    {
      "opset": 11,
      "reason": "converter"
    }
  ],
  "nodes": [
    {
      "op_type": "DynamicSlice",
      "graph_path": "main",
      "node_name": "crop",
      "output": "y",
      "action": "folded",
      "slice_version": 0,
      "became": "initializer",
      "detail": "all inputs constant",
      "verification": "skipped (verification off)"
    },
    {
      "op_type": "DynamicSlice",
      "graph_path": "main/loop_body",
      "node_name": "",
      "output": "s",
      "action": "rewritten",
      "slice_version": 10,
      "became": "Slice-10",
      "detail": "dynamic starts",
      "verification": "8 trials, identical"
    }
  ]
}
)json");
}

// JSON has no NaN or infinity: a clock that gives nonsense reads as 0 seconds, and the document stays valid.
TEST(ReportToJsonTest, WritesSecondsThatAreNotAFiniteTimeAsZero) {
  for (const double seconds : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    Report report;
    report.opset_move_proof.seconds = seconds;
    EXPECT_THAT(ReportToJson(report), HasSubstr("\"seconds\": 0.000,")) << seconds;
  }
}

TEST(ReportToJsonTest, EscapesQuotesAndBackslashes) { EXPECT_EQ(NodeNameAsJson(R"(a"b\c/d)"), R"("a\"b\\c/d")"); }

TEST(ReportToJsonTest, EscapesControlCharacters) {
  EXPECT_EQ(NodeNameAsJson("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(NodeNameAsJson(std::string("\x00\x01\x1f\x7f", 4)), R"("\u0000\u0001\u001f\u007f")");
}

TEST(ReportToJsonTest, PassesUtf8Through) {
  EXPECT_EQ(NodeNameAsJson("caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x98\x80"),
            "\"caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x98\x80\"");
}

TEST(ReportToJsonTest, ReplacesIllFormedUtf8SoTheDocumentStaysValid) {
  EXPECT_EQ(NodeNameAsJson("a\xFF"
                           "b"),
            R"("a\ufffdb")");
  EXPECT_EQ(NodeNameAsJson("\xC3"), R"("\ufffd")");                                // truncated sequence
  EXPECT_EQ(NodeNameAsJson("\xC0\xAF"), R"("\ufffd\ufffd")");                      // overlong '/'
  EXPECT_EQ(NodeNameAsJson("\xED\xA0\x80"), R"("\ufffd\ufffd\ufffd")");            // a UTF-16 surrogate
  EXPECT_EQ(NodeNameAsJson("\xF4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")");  // beyond U+10FFFF
}

TEST(ReportToJsonTest, EscapesEveryStringField) {
  Report report;
  NodeReport node;
  node.graph_path = "g\"";
  node.output = "o\"";
  node.detail = "d\"";
  node.verification = "v\"";
  report.nodes.push_back(node);
  const std::string json = ReportToJson(report);
  for (const char* escaped : {R"("g\"")", R"("o\"")", R"("d\"")", R"("v\"")"}) {
    EXPECT_THAT(json, HasSubstr(escaped));
  }
}

}  // namespace
}  // namespace onnx_legalize
