// LogLimit: a rate limit for one repeated log line, so that no client can fill the disk
// with logs by repeating whatever makes the broker warn (bad frames, unknown APIs, accept
// failures under fd exhaustion).
//
//     static LogLimit limit("closing: request size");   // one per call site
//     limit.warn("closing {}: request size {}", peer, size);
//
// At most `lines_max` lines per `interval` are written for one LogLimit; the rest are
// counted, and the first line written after them is preceded by a summary
// "suppressed K similar lines (KEY)". Thread-safe: one call site is reached from every
// shard. The summary comes with the next admitted line, so a flood that stops leaves its
// count unreported until the line recurs (a timer would need an executor; this needs none).
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

namespace strata {

class LogLimit {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr uint32_t kLinesMaxDefault = 10;
  static constexpr std::chrono::milliseconds kIntervalDefault{10000};

  explicit LogLimit(std::string key, uint32_t lines_max = kLinesMaxDefault,
                    std::chrono::milliseconds interval = kIntervalDefault)
      : key_(std::move(key)), lines_max_(lines_max), interval_(interval) {}
  LogLimit(const LogLimit&) = delete;
  LogLimit& operator=(const LogLimit&) = delete;

  // True when a line may be written at `now`; `suppressed` is then how many lines were
  // dropped since the last one written (to be reported first). False: dropped, counted.
  bool admit(Clock::time_point now, uint64_t& suppressed) {
    std::lock_guard lock(mutex_);
    if (now - window_start_ >= interval_) {
      window_start_ = now;
      lines_in_window_ = 0;
    }
    if (lines_in_window_ >= lines_max_) {
      ++suppressed_;
      return false;
    }
    ++lines_in_window_;
    suppressed = suppressed_;
    suppressed_ = 0;
    return true;
  }

  template <class... Args>
  void log(spdlog::level::level_enum level, spdlog::format_string_t<Args...> fmt,
           Args&&... args) {
    if (!spdlog::should_log(level)) return;
    uint64_t suppressed = 0;
    if (!admit(Clock::now(), suppressed)) return;
    if (suppressed > 0) spdlog::log(level, "suppressed {} similar lines ({})", suppressed, key_);
    spdlog::log(level, fmt, std::forward<Args>(args)...);
  }
  template <class... Args>
  void warn(spdlog::format_string_t<Args...> fmt, Args&&... args) {
    log(spdlog::level::warn, fmt, std::forward<Args>(args)...);
  }
  template <class... Args>
  void error(spdlog::format_string_t<Args...> fmt, Args&&... args) {
    log(spdlog::level::err, fmt, std::forward<Args>(args)...);
  }

  const std::string& key() const { return key_; }

 private:
  const std::string key_;
  const uint32_t lines_max_;
  const std::chrono::milliseconds interval_;
  std::mutex mutex_;
  Clock::time_point window_start_{};
  uint32_t lines_in_window_ = 0;
  uint64_t suppressed_ = 0;
};

}  // namespace strata
