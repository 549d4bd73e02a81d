// A property whose cases cost a solve per operation (the symbolic model's agreement with the
// reference, tests/smt/): run on a share of the properties' budget.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

namespace vlag::testing {

// The agreement's share of the properties' budget: a solve per operation makes its cases a
// hundred times dearer than the other properties', so it runs a fifth of their max_success
// (RC_PARAMS, RC_CASES in scripts/test), at least one; the seed, shrinking and reproduction are
// rapidcheck's as for RC_GTEST_PROP.
inline constexpr int kCaseShare = 5;

template <class Property>
void check_share(Property&& property, int share = kCaseShare) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(1, params.maxSuccess / share);
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(test->test_suite_name()) + "/" + test->name();
  metadata.description = test->name();
  const auto result = rc::detail::checkTestable(std::forward<Property>(property), metadata, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  if (result.template is<rc::detail::SuccessResult>())
    std::cout << message.str() << std::endl;
  else
    FAIL() << message.str();
}

}  // namespace vlag::testing
