// HostInputs, what a float64 reference reads: typed views check the dtype, unknown names say
// which inputs exist, element() decodes any dtype.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "aisp/host_inputs.hpp"

namespace aisp {
namespace {

template <class T>
std::unique_ptr<unsigned char[]> bytes_of(std::initializer_list<T> values) {
  auto bytes = std::make_unique<unsigned char[]>(values.size() * sizeof(T));
  std::memcpy(bytes.get(), values.begin(), values.size() * sizeof(T));
  return bytes;
}

HostInputs two_inputs() {
  HostInputs inputs;
  inputs.add("x", DType::f32, 3, bytes_of<float>({1.5f, -2.0f, 4.0f}));
  inputs.add("idx", DType::i32, 2, bytes_of<std::int32_t>({7, -3}));
  return inputs;
}

TEST(HostInputs, TypedViewReadsTheValues) {
  const HostInputs inputs = two_inputs();
  const auto x = inputs.f32("x");
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x[1], -2.0f);
  EXPECT_EQ(inputs.count("idx"), 2u);
}

TEST(HostInputs, ElementDecodesAnyDtype) {
  const HostInputs inputs = two_inputs();
  EXPECT_EQ(inputs.element("idx", 1), -3.0);
  EXPECT_EQ(inputs.element("x", 2), 4.0);
  EXPECT_THROW(inputs.element("x", 3), std::out_of_range);
}

TEST(HostInputs, WrongDtypeSaysWhichItHolds) {
  const HostInputs inputs = two_inputs();
  try {
    inputs.f64("x");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("holds f32"), std::string::npos) << error.what();
  }
}

TEST(HostInputs, UnknownNameListsTheInputs) {
  const HostInputs inputs = two_inputs();
  try {
    inputs.f32("y");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("x, idx"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace aisp
