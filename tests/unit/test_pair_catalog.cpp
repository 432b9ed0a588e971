// Variant paths, pairing, and target selection: the rules that turn files into targets.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/pair_catalog.hpp"
#include "core/variant_registry.hpp"

namespace aisp {
namespace {

// Variants as if registered from these paths.
std::vector<VariantInfo> variants_from(const std::vector<std::string>& paths) {
  std::vector<VariantInfo> variants;
  for (const std::string& path : paths) {
    variants.push_back(parse_variant_path(path));
  }
  return variants;
}

std::vector<std::string> targets_of(const std::vector<PairInfo>& pairs) {
  std::vector<std::string> targets;
  for (const PairInfo& pair : pairs) {
    targets.push_back(pair.target);
  }
  return targets;
}

// The message of the TargetError select_pairs throws, or "" when it throws none.
std::string target_error(const std::vector<PairInfo>& catalog, const std::string& target) {
  try {
    select_pairs(catalog, {target});
  } catch (const TargetError& error) {
    return error.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& text) { return contains(text, part); });
}

TEST(ParseVariantPath, ChapterFolderGivesChapterRoleAndName) {
  const VariantInfo info =
      parse_variant_path("/src/aisp/chapters/ch07_memory_access/optimized_transpose_padded.cu");
  EXPECT_EQ(info.chapter, "ch07");
  EXPECT_EQ(info.folder, "ch07_memory_access");
  EXPECT_EQ(info.stem, "optimized_transpose_padded");
  EXPECT_EQ(info.role, VariantRole::optimized);
  EXPECT_EQ(info.name, "transpose_padded");
  EXPECT_EQ(info.source_path,
            "/src/aisp/chapters/ch07_memory_access/optimized_transpose_padded.cu");
}

TEST(ParseVariantPath, BaselineInCppFile) {
  const VariantInfo info = parse_variant_path("chapters/ch03_numa/baseline_pageable_copy.cpp");
  EXPECT_EQ(info.chapter, "ch03");
  EXPECT_EQ(info.role, VariantRole::baseline);
  EXPECT_EQ(info.name, "pageable_copy");
}

TEST(ParseVariantPath, ChapterNumberIsTwoDigits) {
  EXPECT_EQ(parse_variant_path("/x/ch7_streams/baseline_a.cu").chapter, "ch07");
  EXPECT_EQ(parse_variant_path("/x/ch007/baseline_a.cu").chapter, "ch07");
  EXPECT_EQ(parse_variant_path("/x/ch12/baseline_a.cu").chapter, "ch12");
  EXPECT_EQ(parse_variant_path("/x/ch123_big/baseline_a.cu").chapter, "ch123");
}

TEST(ParseVariantPath, AnyChapterFolderWorksAsInTheTestSuite) {
  const VariantInfo info = parse_variant_path("/repo/tests/pairs/ch90_faults/baseline_crash.cu");
  EXPECT_EQ(info.chapter, "ch90");
  EXPECT_EQ(info.folder, "ch90_faults");
}

TEST(ParseVariantPath, NearestChapterFolderWinsAndSubfoldersAreAllowed) {
  EXPECT_EQ(parse_variant_path("/home/ch3/proj/ch05_x/kernels/baseline_a.cu").chapter, "ch05");
}

TEST(ParseVariantPath, LabsFolder) {
  const VariantInfo info = parse_variant_path("/repo/labs/moe_decode/optimized_fused_topk.cu");
  EXPECT_EQ(info.chapter, "labs/moe_decode");
  EXPECT_EQ(info.folder, "moe_decode");
  EXPECT_EQ(info.name, "fused_topk");
  EXPECT_EQ(parse_variant_path("/repo/labs/moe_decode/detail/baseline_x.cu").chapter,
            "labs/moe_decode");
}

TEST(ParseVariantPath, RejectsFileNotNamedForARole) {
  try {
    parse_variant_path("/repo/chapters/ch07_memory_access/transpose_common.cu");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_TRUE(contains(error.what(), "transpose_common.cu")) << error.what();
    EXPECT_TRUE(contains(error.what(), "baseline_<name>")) << error.what();
  }
}

TEST(ParseVariantPath, RejectsBadNames) {
  EXPECT_THROW(parse_variant_path("/r/ch01_x/baseline_.cu"), std::invalid_argument);
  EXPECT_THROW(parse_variant_path("/r/ch01_x/optimized__a.cu"), std::invalid_argument);
  EXPECT_THROW(parse_variant_path("/r/ch01_x/baseline_a-b.cu"), std::invalid_argument);
  EXPECT_THROW(parse_variant_path(""), std::invalid_argument);
}

TEST(ParseVariantPath, RejectsFileOutsideChapterOrLab) {
  try {
    parse_variant_path("/repo/src/kernels/baseline_a.cu");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_TRUE(contains(error.what(), "chNN_<topic>")) << error.what();
    EXPECT_TRUE(contains(error.what(), "labs/<lab>")) << error.what();
  }
  EXPECT_THROW(parse_variant_path("/repo/chapter7/baseline_a.cu"), std::invalid_argument);
  EXPECT_THROW(parse_variant_path("/repo/chx_a/baseline_a.cu"), std::invalid_argument);
  EXPECT_THROW(parse_variant_path("/repo/ch07x/baseline_a.cu"), std::invalid_argument);
  EXPECT_THROW(parse_variant_path("baseline_a.cu"), std::invalid_argument);
  EXPECT_THROW(parse_variant_path("/labs/baseline_a.cu"), std::invalid_argument);
}

TEST(ChapterOfFolder, MatchesOnlyChapterFolders) {
  EXPECT_EQ(chapter_of_folder("ch07"), "ch07");
  EXPECT_EQ(chapter_of_folder("ch7"), "ch07");
  EXPECT_EQ(chapter_of_folder("ch0"), "ch00");
  EXPECT_EQ(chapter_of_folder("ch10_"), "ch10");
  EXPECT_EQ(chapter_of_folder("ch"), std::nullopt);
  EXPECT_EQ(chapter_of_folder("chapters"), std::nullopt);
  EXPECT_EQ(chapter_of_folder("CH07"), std::nullopt);
  EXPECT_EQ(chapter_of_folder("ch07-x"), std::nullopt);
}

TEST(RegisterVariant, BadPathBecomesARegistrationProblem) {
  const std::size_t variants_before = registered_variants().size();
  const bool registered = register_variant("/repo/src/helpers/not_a_variant.cu",
                                           [] { return std::unique_ptr<Benchmark>(); });
  EXPECT_FALSE(registered);
  EXPECT_EQ(registered_variants().size(), variants_before);
  EXPECT_TRUE(any_contains(registration_problems(), "not_a_variant.cu"));
}

TEST(RegisterVariant, EmptyFactoryBecomesARegistrationProblem) {
  EXPECT_FALSE(register_variant("/repo/ch01_x/baseline_empty_factory.cu", nullptr));
  EXPECT_TRUE(any_contains(registration_problems(), "baseline_empty_factory.cu"));
}

class PairCatalogTest : public ::testing::Test {
 protected:
  // ch07: transpose with two optimized variants, transpose_padded as its own baseline too
  // (longest prefix wins), copy. ch10: gemm. labs/moe: topk.
  std::vector<VariantInfo> variants = variants_from({
      "/r/chapters/ch10_tensor_cores/baseline_gemm.cu",
      "/r/chapters/ch10_tensor_cores/optimized_gemm_wgmma.cu",
      "/r/chapters/ch07_memory_access/baseline_transpose.cu",
      "/r/chapters/ch07_memory_access/optimized_transpose.cu",
      "/r/chapters/ch07_memory_access/optimized_transpose_tiled.cu",
      "/r/chapters/ch07_memory_access/baseline_transpose_padded.cu",
      "/r/chapters/ch07_memory_access/optimized_transpose_padded_float4.cu",
      "/r/chapters/ch07_memory_access/baseline_copy.cu",
      "/r/chapters/ch07_memory_access/optimized_copy_vectorized.cu",
      "/r/labs/moe/baseline_topk.cu",
      "/r/labs/moe/optimized_topk_fused.cu",
      "/r/chapters/ch02_host/baseline_x.cpp",
      "/r/chapters/ch02_host/optimized_x.cpp",
  });
  std::vector<std::string> problems;
  std::vector<PairInfo> catalog = build_pair_catalog(variants, &problems);
};

TEST_F(PairCatalogTest, SortedByChapterNumberThenPairThenTarget) {
  EXPECT_EQ(targets_of(catalog), (std::vector<std::string>{
                                     "ch02:x",
                                     "ch07:copy_vectorized",
                                     "ch07:transpose",
                                     "ch07:transpose_tiled",
                                     "ch07:transpose_padded_float4",
                                     "ch10:gemm_wgmma",
                                     "labs/moe:topk_fused",
                                 }));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST_F(PairCatalogTest, LongestBaselinePrefixAtUnderscoreWins) {
  const auto found = std::find_if(catalog.begin(), catalog.end(), [](const PairInfo& pair) {
    return pair.target == "ch07:transpose_padded_float4";
  });
  ASSERT_NE(found, catalog.end());
  EXPECT_EQ(found->pair, "transpose_padded");
  EXPECT_EQ(found->baseline->stem, "baseline_transpose_padded");
  EXPECT_EQ(found->optimized->stem, "optimized_transpose_padded_float4");
  EXPECT_EQ(found->chapter, "ch07");
}

TEST(PairCatalog, PrefixMustEndAtUnderscore) {
  const std::vector<VariantInfo> variants = variants_from({
      "/r/ch01_x/baseline_add.cu",
      "/r/ch01_x/optimized_adder.cu",
  });
  std::vector<std::string> problems;
  EXPECT_TRUE(build_pair_catalog(variants, &problems).empty());
  EXPECT_TRUE(any_contains(problems, "optimized_adder")) << ::testing::PrintToString(problems);
  EXPECT_TRUE(any_contains(problems, "baseline_add")) << ::testing::PrintToString(problems);
}

TEST(PairCatalog, OptimizedWithoutBaselineIsReported) {
  const std::vector<VariantInfo> variants = variants_from({
      "/r/ch01_x/baseline_a.cu", "/r/ch01_x/optimized_a.cu", "/r/ch01_x/optimized_orphan_fast.cu",
      "/r/ch02_y/optimized_a.cu",  // a baseline of another chapter does not count
  });
  std::vector<std::string> problems;
  const std::vector<PairInfo> catalog = build_pair_catalog(variants, &problems);
  EXPECT_EQ(targets_of(catalog), (std::vector<std::string>{"ch01:a"}));
  ASSERT_EQ(problems.size(), 2U) << ::testing::PrintToString(problems);
  EXPECT_TRUE(any_contains(problems, "optimized_orphan_fast"));
  EXPECT_TRUE(any_contains(problems, "ch02: optimized_a"));
  EXPECT_TRUE(any_contains(problems, "has no baseline"));
}

TEST(PairCatalog, BaselineWithoutOptimizedIsReported) {
  const std::vector<VariantInfo> variants = variants_from({
      "/r/ch01_x/baseline_lonely.cu",
  });
  std::vector<std::string> problems;
  EXPECT_TRUE(build_pair_catalog(variants, &problems).empty());
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_TRUE(contains(problems[0], "baseline_lonely")) << problems[0];
  EXPECT_TRUE(contains(problems[0], "no optimized variant")) << problems[0];
}

TEST(PairCatalog, DuplicateNameInAChapterIsReportedAndTheFirstKept) {
  const std::vector<VariantInfo> variants = variants_from({
      "/r/ch01_a/baseline_x.cu",
      "/r/ch01_b/baseline_x.cu",
      "/r/ch01_a/optimized_x.cu",
  });
  std::vector<std::string> problems;
  const std::vector<PairInfo> catalog = build_pair_catalog(variants, &problems);
  ASSERT_EQ(catalog.size(), 1U);
  EXPECT_EQ(catalog[0].baseline->source_path, "/r/ch01_a/baseline_x.cu");
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_TRUE(contains(problems[0], "registered twice")) << problems[0];
}

TEST(PairCatalog, ProblemsMayBeIgnored) {
  const std::vector<VariantInfo> variants = variants_from({"/r/ch01_x/baseline_a.cu"});
  EXPECT_TRUE(build_pair_catalog(variants, nullptr).empty());
}

TEST_F(PairCatalogTest, NoTargetsSelectsEverything) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {})), targets_of(catalog));
}

TEST_F(PairCatalogTest, ChapterSelectsItsPairs) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch10"})),
            (std::vector<std::string>{"ch10:gemm_wgmma"}));
  EXPECT_EQ(select_pairs(catalog, {"ch07"}).size(), 4U);
}

TEST_F(PairCatalogTest, ChapterNumberIsNormalized) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch7"})),
            targets_of(select_pairs(catalog, {"ch07"})));
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch2:x"})), (std::vector<std::string>{"ch02:x"}));
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch007:copy"})),
            (std::vector<std::string>{"ch07:copy_vectorized"}));
}

TEST_F(PairCatalogTest, PairNameSelectsEveryOptimizedVariantOfItsBaseline) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch07:transpose"})),
            (std::vector<std::string>{"ch07:transpose", "ch07:transpose_tiled"}));
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch07:transpose_padded"})),
            (std::vector<std::string>{"ch07:transpose_padded_float4"}));
}

TEST_F(PairCatalogTest, ExactTargetSelectsOne) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch07:transpose_tiled"})),
            (std::vector<std::string>{"ch07:transpose_tiled"}));
  EXPECT_EQ(targets_of(select_pairs(catalog, {"labs/moe:topk_fused"})),
            (std::vector<std::string>{"labs/moe:topk_fused"}));
}

// ch07:transpose names both the pair (baseline_transpose) and one of its targets
// (optimized_transpose): plain, it selects the pair; with '=' exactly the target, as it does for
// every target the catalog holds.
TEST_F(PairCatalogTest, EqualsSelectsExactlyOneTarget) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {"=ch07:transpose"})),
            (std::vector<std::string>{"ch07:transpose"}));
  EXPECT_EQ(targets_of(select_pairs(catalog, {"=ch7:transpose_tiled"})),
            (std::vector<std::string>{"ch07:transpose_tiled"}));
  EXPECT_EQ(targets_of(select_pairs(catalog, {"=labs/moe:topk_fused"})),
            (std::vector<std::string>{"labs/moe:topk_fused"}));
  for (const PairInfo& pair : catalog) {
    EXPECT_EQ(targets_of(select_pairs(catalog, {"=" + pair.target})),
              (std::vector<std::string>{pair.target}));
  }
  // A pair's name that is no target's is unknown in the exact form.
  EXPECT_TRUE(contains(target_error(catalog, "=labs/moe:topk"), "unknown target '=labs/moe:topk'"));
  EXPECT_TRUE(contains(target_error(catalog, "=ch07"), "'=' selects exactly one target"));
  EXPECT_TRUE(contains(target_error(catalog, "="), "malformed target '='"));
}

TEST_F(PairCatalogTest, APairNameThatIsAlsoATargetGetsANote) {
  std::vector<std::string> notes;
  select_pairs(catalog, {"ch07:transpose"}, &notes);
  ASSERT_EQ(notes.size(), 1U);
  EXPECT_TRUE(contains(notes[0], "ch07:transpose names a pair: it selects 2 targets")) << notes[0];
  EXPECT_TRUE(contains(notes[0], "-t =ch07:transpose selects that one target alone")) << notes[0];
  notes.clear();
  select_pairs(catalog, {"=ch07:transpose", "ch07:transpose_tiled", "ch07"}, &notes);
  EXPECT_TRUE(notes.empty()) << notes.front();
}

TEST_F(PairCatalogTest, CommasSeparateTargetsAndAnEmptyItemIsRefused) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {"ch10,=ch07:transpose"})),
            (std::vector<std::string>{"ch07:transpose", "ch10:gemm_wgmma"}));
  for (const std::string list : {",", "ch07,,ch10", "ch07,", ",ch07"}) {
    const std::string message = target_error(catalog, list);
    EXPECT_TRUE(contains(message, "malformed target list '" + list + "'")) << message;
    EXPECT_TRUE(contains(message, "empty target")) << message;
  }
  EXPECT_TRUE(contains(target_error(catalog, ""), "malformed target ''"));
}

TEST_F(PairCatalogTest, EveryWrongTargetIsNamedTheFirstTenInFull) {
  std::vector<std::string> many;
  for (int i = 0; i < 5000; ++i)
    many.push_back("ch07:nothing_" + std::to_string(i));
  many.push_back("ch07");
  std::string message;
  try {
    select_pairs(catalog, many);
  } catch (const TargetError& error) {
    message = error.what();
  }
  EXPECT_TRUE(contains(message, "unknown target 'ch07:nothing_0'")) << message;
  EXPECT_TRUE(contains(message, "\nerror: unknown target 'ch07:nothing_9'")) << message;
  EXPECT_FALSE(contains(message, "'ch07:nothing_10'")) << message;
  EXPECT_TRUE(contains(message, "... and 4990 more wrong targets (5000 in all)")) << message;
  const std::string two = target_error(catalog, "ch07:nope,ch10:nah");
  EXPECT_TRUE(contains(two, "unknown target 'ch07:nope'")) << two;
  EXPECT_TRUE(contains(two, "\nerror: unknown target 'ch10:nah'")) << two;
}

TEST_F(PairCatalogTest, LabSelectsItsPairs) {
  EXPECT_EQ(targets_of(select_pairs(catalog, {"labs/moe"})),
            (std::vector<std::string>{"labs/moe:topk_fused"}));
  EXPECT_EQ(targets_of(select_pairs(catalog, {"labs/moe:topk"})),
            (std::vector<std::string>{"labs/moe:topk_fused"}));
}

TEST_F(PairCatalogTest, DuplicatesRemovedAndCatalogOrderKept) {
  EXPECT_EQ(
      targets_of(select_pairs(
          catalog, {"ch10", "ch07:transpose_tiled", "ch07:transpose", "ch7", "ch10:gemm"})),
      (std::vector<std::string>{"ch07:copy_vectorized", "ch07:transpose", "ch07:transpose_tiled",
                                "ch07:transpose_padded_float4", "ch10:gemm_wgmma"}));
}

TEST_F(PairCatalogTest, UnknownTargetSuggestsTheClosest) {
  const std::string message = target_error(catalog, "ch07:transpos");
  EXPECT_TRUE(contains(message, "unknown target 'ch07:transpos'")) << message;
  EXPECT_TRUE(contains(message, "did you mean: ch07:transpose")) << message;
  EXPECT_TRUE(contains(message, "ch07:transpose_tiled")) << message;  // a prefix match
  EXPECT_TRUE(contains(message, "aisp bench list-targets")) << message;
}

TEST_F(PairCatalogTest, UnknownTargetSuggestionsIgnoreCase) {
  EXPECT_TRUE(contains(target_error(catalog, "ch10:GEMM_WGMMA"), "did you mean: ch10:gemm_wgmma"));
}

TEST_F(PairCatalogTest, UnknownChapterSuggestsChapters) {
  const std::string message = target_error(catalog, "ch08");
  EXPECT_TRUE(contains(message, "unknown target 'ch08'")) << message;
  EXPECT_TRUE(contains(message, "did you mean:")) << message;
  EXPECT_TRUE(contains(message, "ch07")) << message;
}

TEST_F(PairCatalogTest, UnknownTargetFarFromEverythingHasNoSuggestion) {
  const std::string message = target_error(catalog, "ch07:completely_different_thing");
  EXPECT_TRUE(contains(message, "unknown target")) << message;
  EXPECT_FALSE(contains(message, "did you mean")) << message;
}

TEST_F(PairCatalogTest, TargetInTheWrongChapterIsUnknown) {
  EXPECT_TRUE(contains(target_error(catalog, "ch10:transpose"), "unknown target"));
  EXPECT_TRUE(contains(target_error(catalog, "labs/dense"), "unknown target"));
}

TEST_F(PairCatalogTest, BareNameSuggestsQualifiedTargets) {
  const std::string message = target_error(catalog, "gemm_wgmma");
  EXPECT_TRUE(contains(message, "names no chapter")) << message;
  EXPECT_TRUE(contains(message, "did you mean: ch10:gemm_wgmma")) << message;
}

TEST_F(PairCatalogTest, MalformedTargetsExplainTheGrammar) {
  for (const std::string target :
       {"", "ch07:", ":x", "ch07:a:b", "labs", "labs/", "labs/a/b", "labs/:x", "foo:bar", "chx",
        "ch07_memory_access", "ch07_memory_access:transpose"}) {
    const std::string message = target_error(catalog, target);
    EXPECT_TRUE(contains(message, "malformed target '" + target + "'")) << message;
    EXPECT_TRUE(contains(message, "a target is chNN")) << message;
  }
  EXPECT_TRUE(contains(target_error(catalog, "ch07_memory_access"), "write the chapter as ch07"));
}

TEST(SelectPairs, UnknownTargetInAnEmptyCatalogSaysNoPairsAreRegistered) {
  const std::string message = target_error({}, "ch07");
  EXPECT_TRUE(contains(message, "no pairs registered")) << message;
}

TEST(ClosestNames, EditDistanceWithinBudgetNearestFirst) {
  const std::vector<std::string> known = {"ch07:transpose_padded", "ch07:transpose", "ch07:copy",
                                          "ch10:gemm"};
  EXPECT_EQ(closest_names("ch07:transpsoe", known, 3),
            (std::vector<std::string>{"ch07:transpose"}));
  EXPECT_EQ(closest_names("ch07:transpose_padde", known, 3),
            (std::vector<std::string>{"ch07:transpose_padded", "ch07:transpose"}));
  EXPECT_EQ(closest_names("CH07:COPY", known, 3), (std::vector<std::string>{"ch07:copy"}));
  EXPECT_TRUE(closest_names("zzz", known, 3).empty());
}

TEST(ClosestNames, ShortNamesStillGetDistanceTwo) {
  const std::vector<std::string> known = {"ch07", "ch10", "labs/x"};
  EXPECT_EQ(closest_names("ch7", known, 3), (std::vector<std::string>{"ch07", "ch10"}));
}

TEST(ClosestNames, PrefixMatchesAndLimit) {
  const std::vector<std::string> known = {"ch07:a_1", "ch07:a_2", "ch07:a_3", "ch07:a_4"};
  const std::vector<std::string> names = closest_names("ch07:a", known, 3);
  EXPECT_EQ(names.size(), 3U);
  EXPECT_TRUE(closest_names("ch07:a", known, 0).empty());
}

}  // namespace
}  // namespace aisp
