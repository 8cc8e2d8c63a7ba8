// Starting the program: its environment is ours with the recording's variables set, exec
// failures come back as errors, and a program that ends by a signal is reported so. Both
// ways of starting it are covered: posix_spawn, and fork/exec with a step between them.
#include "target/launcher.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "scoped_env.h"
#include "scratch_dir.h"

namespace callprof {
namespace {

using test_support::ScopedEnv;

ExitStatus run(LaunchSpec spec) {
  auto pid = launch(spec);
  EXPECT_TRUE(pid) << pid.error().message;
  if (!pid) return ExitStatus{false, -1, 0};
  auto status = wait_for_exit(*pid);
  EXPECT_TRUE(status) << status.error().message;
  return status ? *status : ExitStatus{false, -1, 0};
}

LaunchSpec environment_check(bool with_step) {
  LaunchSpec spec;
  // Exits 0 only if the child's environment is ours with A replaced (twice: the last holds).
  spec.argv = {"sh", "-c", R"(test "$A" = 3 && test "$KEEP" = yes && test "$NEW" = "x=y" && test -z "$GONE")"};
  spec.env = {{"A", "2"}, {"NEW", "x=y"}, {"A", "3"}};
  if (with_step) spec.in_child = [] { return true; };
  return spec;
}

TEST(Launch, TheChildHasOurEnvironmentWithTheRecordingsVariables) {
  const ScopedEnv a("A", "1"), keep("KEEP", "yes"), gone("GONE", std::nullopt);
  EXPECT_EQ(run(environment_check(false)).code, 0);
  EXPECT_EQ(run(environment_check(true)).code, 0);
}

TEST(Launch, AMissingProgramIsAnError) {
  for (bool with_step : {false, true}) {
    LaunchSpec spec;
    spec.argv = {"/nonexistent/callprof-test-program"};
    if (with_step) spec.in_child = [] { return true; };
    auto pid = launch(spec);
    ASSERT_FALSE(pid);
    EXPECT_NE(pid.error().message.find("cannot run /nonexistent/callprof-test-program"), std::string::npos)
        << pid.error().message;
  }
}

TEST(Launch, AScriptWithoutAnInterpreterLineRunsInTheShellAsWithExecvp) {
  const test_support::ScratchDir dir;
  const std::string script = (dir.path() / "no-shebang").string();
  std::ofstream(script) << "exit 7\n";
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  LaunchSpec spec;
  spec.argv = {script};
  EXPECT_EQ(run(spec).code, 7);
}

TEST(Launch, ExitCodesAndDeathSignalsAreTheProgramsOwn) {
  LaunchSpec exits;
  exits.argv = {"sh", "-c", "exit 42"};
  const ExitStatus code = run(exits);
  EXPECT_FALSE(code.signaled);
  EXPECT_EQ(code.code, 42);
  LaunchSpec killed;
  killed.argv = {"sh", "-c", "kill -TERM $$"};
  const ExitStatus signal = run(killed);
  EXPECT_TRUE(signal.signaled);
  EXPECT_EQ(signal.signal, SIGTERM);
}

}  // namespace
}  // namespace callprof
