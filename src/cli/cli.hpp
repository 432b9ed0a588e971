// The command line: `aisp bench list-targets|run|verify`, `aisp system info`, and the hidden
// `aisp __worker` the orchestrator starts for each pair. docs/cli.md describes every command.
#pragma once

namespace aisp {

// Exit codes of every aisp command.
enum ExitCode : int {
  kExitOk = 0,          // everything asked for passed (or was skipped with a reason)
  kExitPairFailed = 1,  // some pair failed verification, crashed, hung or was quarantined
  kExitUsage = 2,       // a bad flag or value, an unknown target or command
  kExitInternal = 3,    // an unexpected error inside aisp: the message says where
};

// Parses argv, runs the command, returns the process exit code. Never throws.
int run_cli(int argc, char** argv);

}  // namespace aisp
