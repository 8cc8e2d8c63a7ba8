// `callprof merge`: profiles of several runs or hosts into one.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/help_text.h"
#include "model/transform/merge_profiles.h"
#include "trace/profile_file.h"

namespace callprof::cli {

Run add_merge(CLI::App& app) {
  struct Args {
    std::vector<std::string> inputs;
    std::string output;
    MergeOptions options;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  app.add_option("inputs", a->inputs, "Profiles to merge (two or more)")
      ->type_name("FILE")
      ->required()
      ->expected(2, -1);
  app.add_option("-o,--output", a->output, "The merged profile")->type_name("FILE")->required();
  app.add_flag("--force", a->options.force, "Merge profiles of different programs or modes, functions by name");
  app.add_flag("-q,--quiet", a->quiet, "No summary line");
  set_usage(app, "[OPTIONS] -o FILE PROFILE PROFILE...");
  app.footer("Example: callprof merge -o fleet.callprof host1.callprof host2.callprof host3.callprof");
  return [a]() {
    // One input at a time: each is read, added and dropped before the next is read.
    ProfileMerger merger(a->options);
    for (const std::string& path : a->inputs) {
      auto p = read_profile(path);
      if (!p) return fail(p.error().message);
      if (Status s = merger.add(std::move(p).value()); !s) return fail(s.error().message);
    }
    auto merged = merger.finish();
    if (!merged) return fail(merged.error().message);
    // write_profile writes beside the output and renames: a reader sees the old file or the new one.
    if (Status s = write_profile(*merged, a->output); !s) return fail(s.error().message);
    if (!a->quiet)
      note(fmt::format("wrote {}: {} profiles, {} processes, {} threads, {} functions", a->output, a->inputs.size(),
                       merged->processes.size(), merged->threads.size(), merged->functions.size()));
    return 0;
  };
}

}  // namespace callprof::cli
