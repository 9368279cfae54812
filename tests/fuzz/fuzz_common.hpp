#pragma once
// Shared by the libFuzzer targets: rightsize::Error / ErrorList are the expected way for bad input
// to end; anything else (another exception type, a crash, UB, a hang) is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "rightsize/error.hpp"

namespace rightsize::fuzz {

/// Runs `body`; returns normally for rightsize errors, aborts (a libFuzzer crash) on any other
/// exception after printing it.
template <typename Body> void expect_only_rightsize_errors(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    if (e.message().empty()) {
      std::fprintf(stderr, "rightsize::Error with an empty message\n");
      std::abort();
    }
  } catch (const ErrorList& list) {
    if (list.errors().empty()) {
      std::fprintf(stderr, "rightsize::ErrorList with no errors\n");
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "unexpected non-standard exception\n");
    std::abort();
  }
}

/// Aborts with `what` when `ok` is false (an invariant broke).
inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

} // namespace rightsize::fuzz
