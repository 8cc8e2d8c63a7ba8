// `callprof record`: parse the options into RecordArgs and run one recording session
// (src/record/session.h). The program's streams, exit status and death signal pass through.
#include "cli/record_command.h"

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/help_text.h"
#include "record/session.h"
#include "target/launcher.h"

namespace callprof::cli {
namespace {

// Notes and warnings go to stderr unless -q; errors always.
class CliReporter : public record::Reporter {
 public:
  explicit CliReporter(bool quiet) : quiet_(quiet) {}
  void note(const std::string& message) override {
    if (!quiet_) cli::note(message);
  }
  void warn(const std::string& message) override {
    if (!quiet_) cli::warn(message);
  }
  void error(const std::string& message) override { fail(message); }

 private:
  bool quiet_;
};

}  // namespace

int run_recording(RecordCli& cli, const CLI::App& app) {
  auto mode = record::parse_mode(cli.mode);
  if (!mode) return fail(mode.error().message);
  cli.args.mode = *mode;
  cli.args.given = given_options(app);
  CliReporter reporter(cli.quiet);
  auto session = record::RecordingSession::prepare(cli.args, reporter);
  if (!session) return fail(session.error().message);
  auto outcome = (*session)->run();
  session->reset();  // its files removed before exit_like, which runs no destructors
  if (!outcome) return fail(outcome.error().message);
  // The program's end passes through whatever happened to the profile (a failure to write
  // it was said in one line); attached, callprof's own status says whether it wrote.
  if (outcome->program) exit_like(*outcome->program);
  return outcome->written ? 0 : 2;
}

Run add_record(CLI::App& app) {
  auto cli = std::make_shared<RecordCli>();
  add_record_options(app, *cli);
  set_usage(app, "[OPTIONS] [--] PROG [ARGS...]");
  app.footer("Example: callprof record -o prog.callprof -- ./prog --input data.txt");
  return [cli, &app]() {
    if (cli->args.command.empty()) return fail("no program given: callprof record [OPTIONS] -- PROG [ARGS...]");
    return run_recording(*cli, app);
  };
}

}  // namespace callprof::cli
