// What a run shows while a pair runs (run/progress_display.hpp), driven by a scripted clock: a
// live status line on a terminal that moves with the worker's phase and progress and with time,
// cut to the terminal's width; a plain line every 10 s in a pipe and none sooner; result lines
// that clear the status line first. Nothing here waits.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "run/progress_display.hpp"

namespace aisp {
namespace {

struct Screen {
  std::vector<std::string> writes;
  std::string all() const {
    std::string text;
    for (const std::string& write : writes)
      text += write;
    return text;
  }
};

struct Fixture {
  Screen screen;
  std::shared_ptr<double> now = std::make_shared<double>(100.0);
  ProgressDisplay display(bool terminal, int width = 200) {
    return ProgressDisplay(
        ProgressOutput{[this](std::string_view text) { screen.writes.emplace_back(text); },
                       terminal, width},
        3, [now = now] { return *now; });
  }
};

TEST(ProgressDisplay, PipedPrintsAPlainLineEveryTenSecondsOnly) {
  Fixture f;
  ProgressDisplay display = f.display(false);
  display.begin(1, "ch07:transpose");
  display.phase("timing");
  display.detail("baseline 57 samples, noise 0.84% (target 0.50%)");
  for (int second = 1; second < 10; ++second) {
    *f.now = 100.0 + second;
    display.tick();
  }
  EXPECT_TRUE(f.screen.writes.empty()) << f.screen.all();
  *f.now = 110.0;
  display.tick();
  *f.now = 115.0;
  display.tick();
  ASSERT_EQ(f.screen.writes.size(), 1u) << f.screen.all();
  EXPECT_EQ(f.screen.writes[0], "[2/3] ch07:transpose running for 10 s: timing: baseline 57 "
                                "samples, noise 0.84% (target 0.50%)\n");
  *f.now = 120.0;
  display.tick();
  ASSERT_EQ(f.screen.writes.size(), 2u);
  EXPECT_EQ(f.screen.writes[1].rfind("[2/3] ch07:transpose running for 20 s: timing", 0), 0u);
  display.line("[2/3] PASS ch07:transpose");
  EXPECT_EQ(f.screen.writes.back(), "[2/3] PASS ch07:transpose\n");
  EXPECT_EQ(f.screen.all().find('\r'), std::string::npos) << "no terminal controls in a pipe";
}

TEST(ProgressDisplay, APairShorterThanTheIntervalPrintsOnlyItsResult) {
  Fixture f;
  ProgressDisplay display = f.display(false);
  display.begin(0, "ch90:affine");
  display.phase("verify");
  *f.now += 9.9;
  display.tick();
  display.line("[1/3] PASS ch90:affine");
  EXPECT_EQ(f.screen.all(), "[1/3] PASS ch90:affine\n");
}

TEST(ProgressDisplay, TerminalRedrawsOnEveryReportAndAsTimePasses) {
  Fixture f;
  ProgressDisplay display = f.display(true);
  display.begin(0, "ch07:transpose");
  ASSERT_EQ(f.screen.writes.size(), 1u);
  EXPECT_EQ(f.screen.writes[0], "\r\033[K[1/3] ch07:transpose  start  0.0 s");
  display.phase("timing");
  display.detail("baseline 57 samples");
  ASSERT_EQ(f.screen.writes.size(), 3u);
  EXPECT_EQ(f.screen.writes[2], "\r\033[K[1/3] ch07:transpose  timing: baseline 57 samples  0.0 s");
  *f.now += 0.1;
  display.tick();  // sooner than the refresh: nothing new
  EXPECT_EQ(f.screen.writes.size(), 3u);
  *f.now += 0.2;
  display.tick();
  ASSERT_EQ(f.screen.writes.size(), 4u);
  EXPECT_EQ(f.screen.writes[3], "\r\033[K[1/3] ch07:transpose  timing: baseline 57 samples  0.3 s");
  display.line("[1/3] PASS ch07:transpose");
  ASSERT_EQ(f.screen.writes.size(), 6u);
  EXPECT_EQ(f.screen.writes[4], "\r\033[K");
  EXPECT_EQ(f.screen.writes[5], "[1/3] PASS ch07:transpose\n");
}

TEST(ProgressDisplay, TheStatusLineFitsTheTerminal) {
  Fixture f;
  ProgressDisplay display = f.display(true, 40);
  display.begin(0, "ch07:transpose");
  display.detail("baseline 57 samples, noise 0.84% (target 0.50%); optimized done: ...");
  const std::string last = f.screen.writes.back();
  ASSERT_EQ(last.rfind("\r\033[K", 0), 0u);
  const std::string shown = last.substr(4);
  EXPECT_EQ(shown, fit_to_columns(display.status(), 39));
  EXPECT_EQ(shown, "[1/3] ch07:transpose  start: baseline …");  // 38 + the ellipsis
}

// A run that ends by an exception (a full disk) leaves no half status line before its error.
TEST(ProgressDisplay, AStatusLineLeftShownIsClearedAtTheEnd) {
  Fixture f;
  {
    ProgressDisplay display = f.display(true);
    display.begin(0, "ch07:transpose");
  }
  EXPECT_EQ(f.screen.writes.back(), "\r\033[K");
  Fixture piped;
  { ProgressDisplay display = piped.display(false); }
  EXPECT_TRUE(piped.screen.writes.empty());
}

TEST(FitToColumns, CountsCharactersNotBytes) {
  EXPECT_EQ(fit_to_columns("412 µs → 98 µs", 14), "412 µs → 98 µs");
  EXPECT_EQ(fit_to_columns("412 µs → 98 µs", 7), "412 µs…");
  EXPECT_EQ(fit_to_columns("abc", 0), "");
  EXPECT_EQ(fit_to_columns("abc", 1), "…");
}

}  // namespace
}  // namespace aisp
