#include "report/progress.h"

#include <atomic>
#include <chrono>
#include <cstdio>

#include "report/terminal_width.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

std::atomic<bool> g_quiet{false};

constexpr auto kFirstDraw = std::chrono::milliseconds(500);
constexpr auto kRedraw = std::chrono::milliseconds(250);

// "\r" and erase to the end of the line (ECMA-48 EL).
constexpr char kEraseLine[] = "\r\033[K";

void WriteAll(int fd, const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    ssize_t n = write(fd, text.data() + at, text.size() - at);
    if (n <= 0) return;  // progress is never worth an error
    at += static_cast<size_t>(n);
  }
}

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, s < 10 ? "%.1f s" : "%.0f s", s);
  return text;
}

}  // namespace

void QuietProgress() { g_quiet = true; }

ProgressLine::ProgressLine(int fd) : fd_(fd), on_terminal_(isatty(fd) == 1 && !g_quiet) {}

ProgressLine::~ProgressLine() { Clear(); }

void ProgressLine::Show(const std::string& text) {
  if (!on_terminal_ || g_quiet) return;
  size_t width = TerminalWidth(fd_);
  std::string shown = text;
  // One column short of the width: a line that fills it leaves some terminals on the next.
  if (width > 1 && DisplayWidth(shown) >= width) shown = WrapText(shown, width - 1).front();
  WriteAll(fd_, kEraseLine + shown);
  drawn_ = true;
}

void ProgressLine::Clear() {
  if (!drawn_) return;
  WriteAll(fd_, kEraseLine);
  drawn_ = false;
}

ElapsedProgress::ElapsedProgress(std::string what, double expected_s, int fd)
    : what_(std::move(what)), expected_s_(expected_s), line_(fd) {
  if (isatty(fd) == 1 && !g_quiet) thread_ = std::thread([this] { Draw(); });
}

ElapsedProgress::~ElapsedProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  done_.notify_one();
  if (thread_.joinable()) thread_.join();
  line_.Clear();
}

void ElapsedProgress::Draw() {
  auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  if (done_.wait_for(lock, kFirstDraw, [this] { return finished_; })) return;
  do {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string text = what_ + ", " + Seconds(elapsed);
    if (expected_s_ > 0) text += " of about " + Seconds(expected_s_);
    line_.Show(text);
  } while (!done_.wait_for(lock, kRedraw, [this] { return finished_; }));
}

std::shared_ptr<void> StartElapsedProgress(const std::string& what, double expected_s) {
  return std::make_shared<ElapsedProgress>(what, expected_s);
}

}  // namespace rprof
