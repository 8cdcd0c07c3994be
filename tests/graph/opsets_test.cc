// graph/opsets.h: how every part of the library reads the opsets a model imports.
#include "graph/opsets.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace onnx_legalize {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

onnx::ModelProto ModelImporting(std::initializer_list<std::pair<std::string, int64_t>> imports, int64_t ir = 7) {
  onnx::ModelProto model;
  model.set_ir_version(ir);
  for (const auto& [domain, version] : imports) {
    onnx::OperatorSetIdProto* import = model.add_opset_import();
    import->set_domain(domain);
    import->set_version(version);
  }
  return model;
}

void ExpectInvalid(const absl::Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
}

TEST(OpsetsTest, FoldsBothSpellingsOfTheDefaultDomainIntoOneKey) {
  const auto imports = ModelOpsetImports(ModelImporting({{"ai.onnx", 9}, {"com.microsoft", 1}, {"", 9}}));
  ASSERT_TRUE(imports.ok()) << imports.status();
  EXPECT_THAT(*imports, ElementsAre(Pair("", 9), Pair("com.microsoft", 1)));
}

TEST(OpsetsTest, RefusesADomainImportedTwiceAtDifferentVersions) {
  ExpectInvalid(ModelOpsetImports(ModelImporting({{"", 9}, {"ai.onnx", 11}})).status(),
                "the model imports domain 'ai.onnx' twice, at opsets 9 and 11");
  ExpectInvalid(DefaultOpset(ModelImporting({{"com.x", 1}, {"com.x", 2}})).status(),
                "the model imports domain 'com.x' twice, at opsets 1 and 2");
}

TEST(OpsetsTest, RefusesAVersionBelowOne) {
  ExpectInvalid(DefaultOpset(ModelImporting({{"", 0}})).status(),
                "the model imports domain 'ai.onnx' at opset 0; opset versions start at 1");
  onnx::FunctionProto function;
  function.add_opset_import()->set_version(-3);
  ExpectInvalid(ReadOpsetImports(function.opset_import(), "function 'f'").status(),
                "function 'f' imports domain 'ai.onnx' at opset -3");
}

TEST(OpsetsTest, DefaultOpsetIsTheDefaultDomainsVersion) {
  const auto opset = DefaultOpset(ModelImporting({{"com.microsoft", 1}, {"ai.onnx", 7}}));
  ASSERT_TRUE(opset.ok()) << opset.status();
  EXPECT_EQ(*opset, 7);
}

TEST(OpsetsTest, DefaultOpsetRefusesAModelThatImportsNone) {
  ExpectInvalid(DefaultOpset(ModelImporting({{"com.microsoft", 1}})).status(),
                "the model imports no default-domain opset");
}

TEST(OpsetsTest, IrVersionsOneAndTwoImplyTheDefaultDomainAtOpsetOne) {
  const auto implied = ModelOpsetImports(ModelImporting({}, /*ir=*/2));
  ASSERT_TRUE(implied.ok()) << implied.status();
  EXPECT_THAT(*implied, ElementsAre(Pair("", 1)));
  // Only the check reads that implication: Legalize rewrites the import, so it must be written.
  EXPECT_FALSE(DefaultOpset(ModelImporting({}, /*ir=*/2)).ok());
  const auto ir3 = ModelOpsetImports(ModelImporting({}, /*ir=*/3));
  ASSERT_TRUE(ir3.ok()) << ir3.status();
  EXPECT_TRUE(ir3->empty());
}

TEST(OpsetsTest, DomainsAreShownWithTheDefaultDomainNamed) {
  EXPECT_EQ(DomainForDisplay(""), "ai.onnx");
  EXPECT_EQ(DomainForDisplay("ai.onnx"), "ai.onnx");
  EXPECT_EQ(DomainForDisplay("com.microsoft"), "com.microsoft");
  EXPECT_EQ(NormalizedDomain("ai.onnx"), "");
}

}  // namespace
}  // namespace onnx_legalize
