// Every shipped preset's derived parameter count against its published figure (docs/model-spec.md,
// "presets"): within 0.5 %, or equal to the published figure at the precision it was published with
// (a vendor's "3.3B" is any count from 3.25B to 3.35B).
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "io/spec/spec_io.hpp"
#include "rightsize/model.hpp"

using namespace rightsize;

namespace {

// Significant digits a published figure was given with (3,300,000,000 -> 2).
int significant_digits(std::int64_t value) {
  std::string digits = std::to_string(value);
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  return static_cast<int>(digits.size());
}

// Within 0.5 %, or equal to the published figure once rounded or truncated to the digits it was
// published with (Qwen prints 3,353 M as "3.3B", Microsoft 3,821 M as "3.8B").
bool matches_published(std::int64_t derived, std::int64_t published) {
  const double d = static_cast<double>(derived);
  const double p = static_cast<double>(published);
  if (std::fabs(d - p) <= 0.005 * p) return true;
  const double unit = std::pow(10.0, std::floor(std::log10(p)) - significant_digits(published) + 1);
  return std::round(d / unit) * unit == p || std::floor(d / unit) * unit == p;
}

} // namespace

TEST_CASE("every preset's parameter count matches its published figure", "[io]") {
  const auto presets = io::load_presets(std::string(RIGHTSIZE_DATA_DIR) + "/models");
  REQUIRE(presets.size() >= 25);
  for (const auto& p : presets) {
    INFO(p.id);
    const ParamCounts c = count_params(p.model);
    CHECK(matches_published(c.total, p.published_params));
    // gpt-oss and DeepSeek count active parameters without the input embedding (a gather).
    const std::int64_t active = c.active - (p.published_active_excludes_embedding ? c.embedding : 0);
    CHECK(matches_published(active, p.published_active_params));
    CHECK_FALSE(p.source.empty());
  }
}

TEST_CASE("presets reproduce the exact published counts of the reference models", "[io]") {
  const auto presets = io::load_presets(std::string(RIGHTSIZE_DATA_DIR) + "/models");
  const auto find = [&](const std::string& id) {
    for (const auto& p : presets) {
      if (p.id == id) return count_params(p.model);
    }
    FAIL("no preset " << id);
    return ParamCounts{};
  };
  CHECK(find("llama-3.1-8b").total == 8'030'261'248);
  CHECK(find("llama-3.1-70b").total == 70'553'706'496);
  CHECK(find("llama-2-7b").total == 6'738'415'616);
  CHECK(find("mixtral-8x7b").total == 46'702'792'704);
  CHECK(find("mixtral-8x7b").active ==
        12'879'925'248); // 32·(41,943,040 + 2·176,160,768 + 32,768 + 8,192) + 2·V·h + h
  CHECK(find("mistral-7b").total == 7'241'732'096);
  CHECK(find("llama-3.2-1b").total == 1'235'814'400);
  CHECK(find("llama-3.2-3b").total == 3'212'749'824);
}
