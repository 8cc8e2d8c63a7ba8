// `callprof attach PID`: sample (or trace the system calls of, or, built with hooks or
// patchable entries, record exactly) a running process until it exits, the duration ends or Ctrl-C; one recording
// session does the work.
#include <climits>

#include "cli/commands.h"
#include "cli/help_text.h"
#include "cli/number_options.h"
#include "cli/record_command.h"
#include "cli/symbol_options.h"

namespace callprof::cli {

Run add_attach(CLI::App& app) {
  auto cli = std::make_shared<RecordCli>();
  cli->mode = "auto";
  record::RecordArgs& a = cli->args;
  add_count_option(app, "pid", a.pid, "The process to sample", 1, INT32_MAX)
      ->type_name("PID")
      ->default_str("")
      ->required();
  add_seconds_option(app, "-d,--duration", a.duration_ns,
                     "Seconds to sample (default: until Ctrl-C or the process exits)", false);
  app.add_option("-o,--output", a.output, "Profile file to write")->type_name("FILE")->capture_default_str();
  app.add_flag("-q,--quiet", cli->quiet, "Print nothing of our own (errors excepted)");
  add_symbol_options(app);
  app.add_option("--mode", cli->mode,
                 "auto (exact when the program has hooks or patchable entries and no sampling option is given, "
                 "else sample) | "
                 "sample | exact (the runtime is loaded into the program, docs/attach.md) | "
                 "syscall (system calls only; --syscalls defaults to all) | probe (uprobes on --probe)")
      ->type_name("MODE")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "sample", "exact", "syscall", "probe"}));
  add_exact_options(app, a, true);
  add_sampling_options(app, a.sampling);
  add_syscall_options(app, a.syscalls);
  add_probe_options(app, a.probes);
  add_timeline_options(app, a);
  set_usage(app, "[OPTIONS] PID");
  app.footer("Example: callprof attach 1234 --duration 10 --call-graph dwarf --syscalls write,read");
  return [cli, &app]() { return run_recording(*cli, app); };
}

}  // namespace callprof::cli
