// Tolerance comparison, poison detection and element decoding: the checks every pair passes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/context_state.hpp"
#include "core/element_decoding.hpp"
#include "verify/output_comparison.hpp"

namespace aisp {
namespace {

template <class T> std::vector<unsigned char> bytes_of(const std::vector<T>& values) {
  std::vector<unsigned char> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(ToleranceComparison, EqualArraysPass) {
  const auto a = bytes_of<float>({1.0f, -2.5f, 0.0f, 3e-8f});
  const ToleranceReport r = compare_within_tolerance(DType::f32, a, a, Tolerance::for_dtype(DType::f32));
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.max_abs_error, 0.0);
}

TEST(ToleranceComparison, WithinRelativeToleranceOfLargeValuesPasses) {
  const auto expected = bytes_of<float>({1000.0f, -1000.0f});
  const auto actual = bytes_of<float>({1000.005f, -1000.005f});  // 5e-6 relative
  EXPECT_TRUE(compare_within_tolerance(DType::f32, expected, actual, {1e-5, 0, ""}).passed);
  EXPECT_FALSE(compare_within_tolerance(DType::f32, expected, actual, {1e-6, 0, ""}).passed);
}

TEST(ToleranceComparison, AbsoluteFloorCoversValuesNearZero) {
  const auto expected = bytes_of<float>({0.0f, 1e-7f});
  const auto actual = bytes_of<float>({5e-7f, -3e-7f});
  EXPECT_TRUE(compare_within_tolerance(DType::f32, expected, actual, {0, 1e-6, ""}).passed);
  EXPECT_FALSE(compare_within_tolerance(DType::f32, expected, actual, {1e-5, 1e-8, ""}).passed);
}

TEST(ToleranceComparison, ReportsCountAndFirstMismatch) {
  const auto expected = bytes_of<float>({1, 2, 3, 4, 5});
  const auto actual = bytes_of<float>({1, 2, 3.5f, 4, 6});
  const ToleranceReport r =
      compare_within_tolerance(DType::f32, expected, actual, Tolerance::for_dtype(DType::f32));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.first_mismatch, 2u);
  EXPECT_DOUBLE_EQ(r.first_expected, 3.0);
  EXPECT_DOUBLE_EQ(r.first_actual, 3.5);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 1.0);
  const std::string text = describe(r, Tolerance::for_dtype(DType::f32), "out", 5);
  EXPECT_NE(text.find("2 of 5"), std::string::npos) << text;
  EXPECT_NE(text.find("first at index 2"), std::string::npos) << text;
}

TEST(ToleranceComparison, NanNeverPasses) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto expected = bytes_of<float>({1, nan});
  const auto actual = bytes_of<float>({1, nan});
  EXPECT_FALSE(compare_within_tolerance(DType::f32, expected, actual, {1, 1, "loose"}).passed);
  EXPECT_EQ(count_non_finite(DType::f32, actual), 1u);
}

TEST(ToleranceComparison, LargeArraysUseEveryChunkAndKeepTheFirstMismatch) {
  std::vector<float> expected(5'000'000, 1.0f), actual(5'000'000, 1.0f);
  actual[4'999'999] = 2.0f;
  actual[3'000'001] = 2.0f;
  const ToleranceReport r = compare_within_tolerance(DType::f32, bytes_of(expected), bytes_of(actual),
                                                     Tolerance::for_dtype(DType::f32));
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.first_mismatch, 3'000'001u);
}

TEST(ToleranceComparison, IntegersCompareExactlyByDefault) {
  const auto expected = bytes_of<std::int32_t>({1, 2, 3});
  const auto actual = bytes_of<std::int32_t>({1, 2, 4});
  EXPECT_FALSE(compare_within_tolerance(DType::i32, expected, actual, Tolerance::for_dtype(DType::i32)).passed);
  EXPECT_TRUE(compare_within_tolerance(DType::i32, expected, expected, Tolerance::for_dtype(DType::i32)).passed);
}

TEST(PoisonDetection, CountsElementsStillHoldingThePoison) {
  std::vector<unsigned char> bytes(4 * sizeof(float), kFloatPoisonByte);
  const float written = 0.5f;
  std::memcpy(bytes.data(), &written, sizeof(float));
  EXPECT_EQ(count_unwritten(DType::f32, bytes), 3u);
  EXPECT_EQ(count_non_finite(DType::f32, bytes), 3u);  // the float poison is a NaN
  std::vector<unsigned char> ints(3 * sizeof(std::int32_t), kIntegerPoisonByte);
  EXPECT_EQ(count_unwritten(DType::i32, ints), 3u);
}

// A u8 output of random bytes holds 0xA5 legitimately in 1 of 256 elements; only an element
// that holds each run's poison is unwritten.
TEST(PoisonDetection, IntegerElementsEqualToThePoisonAreNotUnwritten) {
  // Element 0: written, legitimately 0xA5 in both runs. Element 1: written. Element 2: unwritten.
  const std::vector<unsigned char> first{kIntegerPoisonByte, 7, kIntegerPoisonByte};
  const std::vector<unsigned char> second{kIntegerPoisonByte, 7, kIntegerPoisonAlternateByte};
  EXPECT_EQ(count_unwritten(DType::u8, first), 2u);  // the single-pattern count is fooled
  EXPECT_EQ(count_unwritten_integers(DType::u8, first, second), 1u);
  std::vector<unsigned char> a(2 * sizeof(std::int32_t), kIntegerPoisonByte);
  std::vector<unsigned char> b(2 * sizeof(std::int32_t), kIntegerPoisonAlternateByte);
  b[0] = kIntegerPoisonByte;  // element 0 differs in one byte only: written
  EXPECT_EQ(count_unwritten_integers(DType::i32, a, b), 1u);
}

TEST(ElementDecoding, HalfBfloatAndFp8KnownValues) {
  const std::uint16_t half_one = 0x3C00, half_minus_two = 0xC000, half_subnormal = 0x0001;
  EXPECT_DOUBLE_EQ(decode_element(DType::f16, reinterpret_cast<const unsigned char*>(&half_one), 0), 1.0);
  EXPECT_DOUBLE_EQ(decode_element(DType::f16, reinterpret_cast<const unsigned char*>(&half_minus_two), 0), -2.0);
  EXPECT_DOUBLE_EQ(decode_element(DType::f16, reinterpret_cast<const unsigned char*>(&half_subnormal), 0),
                   std::ldexp(1.0, -24));
  const std::uint16_t bf16_one_and_half = 0x3FC0;
  EXPECT_DOUBLE_EQ(decode_element(DType::bf16, reinterpret_cast<const unsigned char*>(&bf16_one_and_half), 0), 1.5);
  const unsigned char e4m3_one = 0x38, e4m3_max = 0x7E, e4m3_nan = 0x7F;
  EXPECT_DOUBLE_EQ(decode_element(DType::fp8_e4m3, &e4m3_one, 0), 1.0);
  EXPECT_DOUBLE_EQ(decode_element(DType::fp8_e4m3, &e4m3_max, 0), 448.0);
  EXPECT_TRUE(std::isnan(decode_element(DType::fp8_e4m3, &e4m3_nan, 0)));
  const unsigned char e5m2_one = 0x3C, e5m2_inf = 0x7C;
  EXPECT_DOUBLE_EQ(decode_element(DType::fp8_e5m2, &e5m2_one, 0), 1.0);
  EXPECT_TRUE(std::isinf(decode_element(DType::fp8_e5m2, &e5m2_inf, 0)));
}

TEST(DefaultTolerance, TightensWithPrecisionAndIsExactForIntegers) {
  EXPECT_LT(Tolerance::for_dtype(DType::f64).rtol, Tolerance::for_dtype(DType::f32).rtol);
  EXPECT_LT(Tolerance::for_dtype(DType::f32).rtol, Tolerance::for_dtype(DType::f16).rtol);
  EXPECT_LT(Tolerance::for_dtype(DType::f16).rtol, Tolerance::for_dtype(DType::bf16).rtol);
  EXPECT_EQ(Tolerance::for_dtype(DType::u8).rtol, 0.0);
  EXPECT_EQ(Tolerance::for_dtype(DType::u8).atol, 0.0);
}

}  // namespace
}  // namespace aisp
