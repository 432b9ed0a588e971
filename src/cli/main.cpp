// The entry point of every suite binary (aisp, aisp_test_suite, an external project's suite).
#include "cli.hpp"  // beside this file: aisp_main does not see src/ as an include path

int main(int argc, char** argv) { return aisp::run_cli(argc, argv); }
