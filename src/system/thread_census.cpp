#include "system/thread_census.hpp"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

namespace aisp {
namespace {

// include/linux/sched.h: set at the start of do_exit(), before the thread's id is cleared for
// pthread_join.
constexpr unsigned long kPfExiting = 0x00000004;

std::string read_first_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// /proc/self/task/<tid>/stat: "tid (comm) state ppid pgrp session tty tpgid flags ...". The name
// may hold spaces and parentheses, so the fields are read after the last ')'.
bool is_exiting(const std::string& stat_line) {
  const auto close = stat_line.rfind(')');
  if (close == std::string::npos)
    return true;  // gone while we read it
  std::istringstream fields(stat_line.substr(close + 1));
  std::string state;
  long skipped = 0;
  unsigned long flags = 0;
  fields >> state;
  for (int i = 0; i < 5; ++i)
    fields >> skipped;  // ppid, pgrp, session, tty_nr, tpgid
  fields >> flags;
  if (!fields)
    return true;
  return state == "Z" || state == "X" || (flags & kPfExiting) != 0;
}

template <class Visit>
void for_each_task(Visit visit) {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr)
    return;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.')
      continue;
    visit(entry->d_name);
  }
  closedir(dir);
}

// `prefix` in lower case.
bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size())
    return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i])
      return false;
  return true;
}

}  // namespace

std::vector<HostThread> host_thread_census() {
  std::vector<HostThread> threads;
  for_each_task([&](const char* name) {
    HostThread thread;
    thread.tid = std::strtol(name, nullptr, 10);
    const std::string base = std::string("/proc/self/task/") + name;
    thread.name = read_first_line(base + "/comm");
    thread.exiting = is_exiting(read_first_line(base + "/stat"));
    threads.push_back(std::move(thread));
  });
  return threads;
}

long host_thread_count() {
  long count = 0;
  for_each_task([&](const char*) { ++count; });
  return count;
}

std::vector<HostThread> threads_started_since(const std::vector<HostThread>& before,
                                              const std::vector<HostThread>& now,
                                              bool exempt_cuda_threads) {
  std::vector<HostThread> started;
  for (const HostThread& thread : now) {
    if (thread.exiting)
      continue;
    const bool known = std::any_of(before.begin(), before.end(),
                                   [&](const HostThread& b) { return b.tid == thread.tid; });
    if (known)
      continue;
    if (exempt_cuda_threads && (starts_with_ignoring_case(thread.name, "cuda") ||
                                starts_with_ignoring_case(thread.name, "cupti") ||
                                starts_with_ignoring_case(thread.name, "nccl")))
      continue;
    started.push_back(thread);
  }
  return started;
}

std::string describe_threads(const std::vector<HostThread>& threads) {
  std::string text;
  for (const HostThread& thread : threads)
    text += fmt::format("{}tid {} '{}'", text.empty() ? "" : ", ", thread.tid, thread.name);
  return text;
}

}  // namespace aisp
