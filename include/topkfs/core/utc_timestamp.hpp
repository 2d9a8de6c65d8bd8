#pragma once
// A moment of the wall clock as reports write it: UTC, ISO 8601, to the
// second ("2026-12-07T10:52:03Z").
#include <time.h>

#include <chrono>
#include <string>

namespace topkfs {

inline std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return std::string(text, length);
}

}  // namespace topkfs
