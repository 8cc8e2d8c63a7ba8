// Header lines, '#'-prefixed like perf's so tools can skip them.
#include "report/header.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "graph/folded.h"
#include "model/transform/compensate.h"
#include "model/transform/sampled_time.h"
#include "query/hook_cost.h"
#include "query/sample_agreement.h"
#include "report/text.h"
#include "util/escape.h"

namespace callprof {
namespace {

// "12.5 ns/call", or "10.0-14.5 ns/call" when processes measured different costs; "" when
// no process measured any.
std::string hook_cost(const Profile& p) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const Process& proc : p.processes) {
    if (!has_hook_costs(proc)) continue;
    const double c = proc.hook_inner_ns + proc.hook_outer_ns;
    lo = any ? std::min(lo, c) : c;
    hi = any ? std::max(hi, c) : c;
    any = true;
  }
  if (!any) return "";
  return lo == hi ? fmt::format("{:.1f} ns/call", lo) : fmt::format("{:.1f}-{:.1f} ns/call", lo, hi);
}

// Names for one header line of `width` columns after `prefix_width`, as many as fit, then
// "… and N more: --verbose"; all of them with --verbose, or the first 8 without a width.
std::string name_list(const ReportContext& ctx, const std::vector<std::string>& names, size_t prefix_width) {
  const size_t width = ctx.options().verbose ? 0 : ctx.options().width;
  const size_t fixed = ctx.options().verbose || width ? names.size() : std::min<size_t>(names.size(), 8);
  std::string out;
  size_t shown = 0;
  for (; shown < fixed; ++shown) {
    std::string next = out + (shown ? ", " : "") + names[shown];
    const size_t rest = names.size() - shown - 1;
    const size_t tail = rest ? display_width(fmt::format(", \u2026 and {} more: --verbose", rest)) : 0;
    if (width && shown > 0 && prefix_width + display_width(next) + tail > width) break;
    out = std::move(next);
  }
  if (shown < names.size()) out += fmt::format(", \u2026 and {} more: --verbose", names.size() - shown);
  return out;
}

// The command whose options change what was recorded: an attached window's, or record's.
const char* recording_command(const ReportContext& ctx) {
  const auto& exact = ctx.profile().meta.exact;
  return exact && exact->attached ? "attach" : "record";
}

// One folded function: its name, its share of the calls counted, and, when its hook calls
// were rewritten away, from when its calls were counted per function only, or not at all
// (time since the recording began).
std::string folded_entry(const ReportContext& ctx, const FoldedFunction& f, int64_t start_ns) {
  // Of every thread's calls, as the folded functions are counted: not the tree shown, which
  // --focus, --hide or a thread selection may have cut (a share of 2454 % once).
  uint64_t all = 0;
  for (const ThreadTotals& t : ctx.analysis().thread_totals()) all += t.calls;
  const double share = all ? 100.0 * double(f.calls) / double(all) : 0.0;
  std::string entry = escape_text(ctx.name(f.function)) +
                      (share >= 0.1 || f.calls == 0 ? fmt::format(" ({:.1f}% of calls", share) : " (<0.1% of calls");
  if (f.hooks_removed_at_ns)
    entry += (!f.counted_after_removal     ? ", none counted after "
              : f.inlined_copies_uncounted ? ", real calls only, per function, after "
                                           : ", per function only after ") +
             format_ns(uint64_t(std::max<int64_t>(*f.hooks_removed_at_ns - start_ns, 0)));
  return entry + ")";
}

// Auto-fold (docs/modes.md): which functions the runtime stopped hooking, and what that means.
void write_folded_line(std::ostream& out, const ReportContext& ctx) {
  const std::vector<FoldedFunction>& folded = ctx.analysis().folded();
  if (folded.empty()) return;
  double threshold = 0;
  int64_t start_ns = INT64_MAX;
  for (const Process& p : ctx.profile().processes) {
    threshold = std::max(threshold, p.auto_fold_ns);
    start_ns = std::min(start_ns, p.start_ns);
  }
  uint64_t calls = 0;
  std::vector<std::string> entries;
  for (const FoldedFunction& f : folded) {
    calls += f.folded_calls;
    entries.push_back(folded_entry(ctx, f, start_ns));
  }
  const auto& exact = ctx.profile().meta.exact;
  const std::string scope = exact ? exact->auto_fold : "";
  const bool any = scope == "all" || scope == "wrappers";
  out << fmt::format(
      "# folded:   {} {}function{} with calls consistently under {:.0f} ns{} ran unhooked after a first "
      "check ({} calls counted folded): their time in their callers' self{} ({} --no-auto-fold keeps them "
      "hooked)\n",
      folded.size(), any ? "" : "inlined ", folded.size() == 1 ? "" : "s", threshold,
      scope == "wrappers" ? " of their own" : "", calls,
      scope == "wrappers" ? ", the calls they made under their callers" : "", recording_command(ctx));
  out << "#           " << name_list(ctx, entries, 12) << '\n';
}

// What became of the rewritten sites' calls: the folded functions' are counted per function
// where the runtime counted them (counting stubs, or the hook where an entry's call stays).
std::string rewritten_calls(bool counting, bool inlined_uncounted, uint64_t uncounted, bool filtered) {
  if (!counting) return "their calls since are not counted";
  std::string text = inlined_uncounted ? "the folded functions' real calls since are counted per function, under "
                                         "[unhooked calls], their inlined copies' runs not"
                                       : "the folded functions' calls since are counted per function, under "
                                         "[unhooked calls]";
  if (uncounted > 0)
    text += fmt::format(" (but for {} call site{} made nops, no counting stub within reach)", uncounted,
                        uncounted == 1 ? "" : "s");
  return text + (filtered ? "; the filtered-out ones' are not counted" : "");
}

// What the hooks cost the recording (docs/modes.md, "What the hooks cost"), and, when they
// took much of it and small leaf functions made many of the calls, what folding those would
// have saved. A share under 10 % says nothing worth a line.
void write_exact_cost_line(std::ostream& out, const ReportContext& ctx) {
  if (ctx.analysis().options().sampled_time) return;  // the times are the samples': no hooks in them
  const HookCostEstimate e = estimate_hook_cost(ctx.analysis());
  if (e.hook_ns <= 0 || e.recorded_ns <= 0) return;
  const double share = e.hook_ns / e.recorded_ns;
  if (share < 0.1) return;
  out << fmt::format(
      "# cost:     the hooks took about {} of the threads' {} ({:.0f} %: {} calls through them at {:.1f} ns)",
      format_ns(uint64_t(e.hook_ns)), format_ns(uint64_t(e.recorded_ns)), 100 * share, e.hooked_calls,
      e.hook_ns / double(e.hooked_calls));
  const double leaves = e.hooked_calls ? double(e.small_leaf_calls) / double(e.hooked_calls) : 0;
  const double wrappers = e.hooked_calls ? double(e.thin_wrapper_calls) / double(e.hooked_calls) : 0;
  const bool says_all = share >= 0.2 && leaves >= 0.1;
  if (says_all)
    out << fmt::format(
        "; record --auto-fold all would unhook about {:.0f} % of them ({} small leaf function{} under {:.0f} ns a "
        "call: their time then in their callers', their calls still counted)",
        100 * leaves, e.small_leaves, e.small_leaves == 1 ? "" : "s", e.threshold_ns);
  // Thin wrappers fold only with `wrappers`, which also changes the tree: worth a mention
  // where they are many of the calls. After the `all` clause it goes on from it; alone, it
  // names the option and what it is a share of.
  if (share >= 0.2 && wrappers >= 0.1) {
    const std::string thin = fmt::format(
        "{} thin wrapper{} of other calls, under {:.0f} ns a call of their own: that time in their callers', the "
        "calls they make under their callers",
        e.thin_wrappers, e.thin_wrappers == 1 ? "" : "s", e.threshold_ns);
    out << (says_all ? fmt::format("; --auto-fold wrappers about {:.0f} % (also {})", 100 * (leaves + wrappers), thin)
                     : fmt::format("; record --auto-fold wrappers would unhook about {:.0f} % of them ({})",
                                   100 * (leaves + wrappers), thin));
  }
  // Where the hooks took most of the time, what compensation leaves is least sure: beside a
  // caller's own work they cost less than calibrated (docs/modes.md). Samples are not biased so.
  if (share >= 0.5 && !ctx.profile().meta.sampling)
    out << "; self times are least sure where the hooks took most of the time: record -F 999 adds samples of where "
           "the CPU went, which report --time sampled shows as times";
  out << '\n';
}

// Hook removal (docs/modes.md, "Removing hooks"): how many hook calls were rewritten, or
// why none were.
void write_hooks_line(std::ostream& out, const ReportContext& ctx) {
  uint64_t sites = 0, functions = 0, uncounted = 0;
  bool counting = false, inlined_uncounted = false;
  int refused = 0;
  for (const Process& p : ctx.profile().processes) {
    sites += p.rewritten_sites;
    functions += p.removed_hooks.size();
    counting = counting || p.counts_unhooked_calls;
    for (const Process::RemovedHooks& r : p.removed_hooks)
      inlined_uncounted = inlined_uncounted || r.inlined_copies_uncounted;
    uncounted += p.uncounted_sites;
    if (p.rewrite_refused_errno != 0) refused = p.rewrite_refused_errno;
  }
  if (refused != 0)
    out << fmt::format(
        "# hooks:    the system refused writable code (mprotect: {}): folded and filtered-out functions kept "
        "their hook calls\n",
        std::strerror(refused));
  else if (sites > 0) {
    const auto& x = ctx.profile().meta.exact;
    const bool filtered =
        x && (!x->include.empty() || !x->exclude.empty() || !x->include_module.empty() || !x->exclude_module.empty());
    out << fmt::format(
        "# hooks:    {} hook call site{} rewritten ({} folded function{} removed{}): {} ({} --keep-hooks keeps "
        "every call on its path)\n",
        sites, sites == 1 ? "" : "s", functions, functions == 1 ? "" : "s",
        filtered ? ", and the filtered-out ones" : "",
        rewritten_calls(counting, inlined_uncounted, uncounted, filtered), recording_command(ctx));
  }
}

// attach --mode exact (docs/attach.md, "Frames open at attach").
void write_attach_line(std::ostream& out, const ReportContext& ctx) {
  const auto& x = ctx.profile().meta.exact;
  if (!x || !x->attached) return;
  const std::string without_hooks =
      x->threads_without_hooks == 0
          ? ""
          : fmt::format(
                " ({} of them called no hooked function in it: open all the window, off-CPU time by the "
                "kernel's count)",
                x->threads_without_hooks);
  out << fmt::format(
      "# attached: {} frame{} open when the window began, in {} thread{}{}: their time counts from then, their calls "
      "are not counted\n",
      x->frames_open_at_attach, x->frames_open_at_attach == 1 ? " was" : "s were", x->threads_open_at_attach,
      x->threads_open_at_attach == 1 ? "" : "s", without_hooks);
}

double sample_period_or_zero(const Profile& p) {
  auto period = sample_period_ns(p);
  return period ? *period : 0;
}

}  // namespace

std::vector<SampleDisagreement> exact_sample_disagreements(const ReportContext& ctx) {
  const Profile& p = ctx.profile();
  if (!p.meta.sampling || p.meta.sampling->unwind != Unwinding::ShadowStack || ctx.analysis().options().sampled_time)
    return {};
  const double period = sample_period_or_zero(p);
  return period > 0 ? sample_disagreements(ctx.tree(), period, ctx.cpu_measured()) : std::vector<SampleDisagreement>{};
}

namespace {

// Samples inside exact mode: the functions whose measured self CPU time the samples
// contradict (query/sample_agreement.h), the five furthest apart, and why that happens.
void write_agreement_lines(std::ostream& out, const ReportContext& ctx) {
  const std::vector<SampleDisagreement> d = exact_sample_disagreements(ctx);
  if (d.empty()) return;
  std::string list;
  for (size_t i = 0; i < d.size() && i < 5; ++i)
    list += fmt::format("{}{} (exact {}, samples {} ± {})", i ? ", " : "", escape_text(ctx.name(d[i].function)),
                        format_ns(d[i].exact_ns), format_ns(d[i].sampled_ns), format_ns(d[i].error_ns));
  out << fmt::format("# disagree: {} function{} whose exact self CPU time the samples contradict: {}{}\n", d.size(),
                     d.size() == 1 ? "" : "s", list, d.size() > 5 ? ", ..." : "");
  out << "#           why: folded calls (their time is the caller's), the hooks' cost beyond compensation, the clock "
         "read out of order around short calls; --time sampled takes the samples' (docs/modes.md)\n";
}

// How far the hooks' cost moved during the run, by a check again at a process's exit
// (docs/design.md, "Compensation"). Beyond the runtime's check tolerance (a tenth) it says
// what that means for the times.
std::string change_at_exit(const std::optional<ExactFacts>& exact) {
  if (!exact || !exact->calibration_change_at_exit) return "";
  const double change = *exact->calibration_change_at_exit;
  return fmt::format("; checked again at the exit: {:+d} %{}", std::lround(100 * change),
                     std::abs(change) > 0.10 ? ", the machine's speed moved during the run: self times are least sure "
                                               "where the hooks took much of them"
                                             : "");
}

void write_times_line(std::ostream& out, const ReportContext& ctx) {
  if (ctx.analysis().options().sampled_time) {
    const SamplingFacts& s = *ctx.profile().meta.sampling;
    out << fmt::format(
        "# times:    sampled (--time sampled): each node's self time is its samples' CPU time, {} per sample "
        "({} Hz); calls are exact mode's\n",
        format_ns(uint64_t(1e9 / double(s.frequency_hz))), s.frequency_hz);
    return;
  }
  const std::string cost = hook_cost(ctx.profile());
  const auto& exact = ctx.profile().meta.exact;
  if (exact && exact->ordered_clock)
    out << "# clock:    returns timed once the function's work completed (record --ordered-clock)\n";
  if (ctx.compensated()) {
    const std::string calibration = exact ? exact->calibration : "";
    const char* source = calibration == "cached"      ? ", measured by earlier recordings here"
                         : calibration == "unchecked" ? ", measured by earlier recordings here, not checked: "
                                                        "the hooks cost under 1% of the CPU time"
                                                      : "";
    out << "# times:    compensated for measured hook overhead"
        << (cost.empty() ? "" : " (" + cost + source + change_at_exit(exact) + ")") << "; --raw for raw numbers\n";
    // Never clamped silently: where the estimate exceeded a node's on-CPU time, say so.
    if (const CompensationStats& c = ctx.compensation(); c.limited > 0)
      out << fmt::format(
          "#           {} of {} nodes ran on the CPU for less than the hooks' estimated cost "
          "({} not removed): their self time is their blocked time alone (none left on or waiting for a CPU)\n",
          c.limited, c.nodes, format_ns(uint64_t(c.unremoved_ns)));
  } else if (!cost.empty())
    out << "# times:    raw, not compensated for the measured hook overhead (" << cost << ")\n";
}

std::string thread_merge(const QueryOptions& o) {
  switch (o.merge) {
    case ThreadMerge::Graft:
      return ", grafted under their creators' call paths";
    case ThreadMerge::StartRoutine:
      return ", merged by start routine";
    case ThreadMerge::Paths:
      break;
  }
  return "";
}

std::string selected_threads(const ReportContext& ctx) {
  const Profile& p = ctx.profile();
  const QueryOptions& q = ctx.options().query;
  std::string out = fmt::format("{}", p.threads.size());
  if (q.tid) {
    std::string name;
    for (const Thread& t : p.threads)
      if (t.tid == *q.tid) name = t.name;
    out = fmt::format("tid {} {} (of {})", *q.tid, escape_text(name), p.threads.size());
  } else if (q.pid) {
    out = fmt::format("{} of {} (pid {})", ctx.analysis().threads().size(), p.threads.size(), *q.pid);
  }
  return out;
}

// Honest stacks (SPEC §1.2): how many stacks the tree shows under [truncated].
void write_truncated_line(std::ostream& out, const SamplingFacts& s) {
  if (s.truncated_stacks == 0) return;
  const uint64_t all = std::max<uint64_t>(s.samples + s.off_cpu_samples, s.truncated_stacks);
  out << fmt::format(
      "# stacks:   {} of {} ({:.1f} %) truncated: not unwound to the program's or thread's start; "
      "shown under [truncated]{}\n",
      s.truncated_stacks, all, 100.0 * double(s.truncated_stacks) / double(all),
      s.unwind == Unwinding::FramePointers ? " (--call-graph dwarf reaches further without frame pointers)" : "");
}

// What probe mode could not measure: functions whose probes the budget removed, calls
// shorter than their probes' cost, entry stacks that reached no root.
void write_probe_limits(std::ostream& out, const ProbeFacts& s) {
  if (!s.stopped.empty()) {
    std::string stops;
    for (const StoppedProbe& x : s.stopped)
      stops += fmt::format("{}{} at {} ({} calls counted, its hits added ~{:.0f} %)", stops.empty() ? "" : ", ",
                           escape_text(x.function), format_ns(x.at_ns), x.calls, x.added_percent);
    out << fmt::format("# budget:   probes removed past --probe-budget {:g} %: {}; their counts and times end there\n",
                       s.budget_percent, stops);
  }
  if (s.unmeasurable_calls) {
    std::string names;
    for (const std::string& f : s.unmeasurable) names += (names.empty() ? "" : ", ") + escape_text(f);
    out << fmt::format(
        "# limits:   {} calls were shorter than their probes' own cost lets measure: self time "
        "given as 0, counts exact ({})\n",
        s.unmeasurable_calls, names);
  }
  if (s.truncated_calls)
    out << fmt::format(
        "# stacks:   {} calls with an entry stack not unwound to the program's or thread's start; "
        "shown under [truncated]\n",
        s.truncated_calls);
}

}  // namespace

void write_hidden_footer(std::ostream& out, size_t hidden, std::string_view what, double percent_limit) {
  if (hidden == 0) return;
  out << fmt::format("# {} {}{} below {:g} % hidden (--percent-limit 0 shows them)\n", hidden, what,
                     hidden == 1 ? "" : "s", percent_limit);
}

namespace {

// Under the values of "# label:   ".
constexpr std::string_view kContinuation = "#           ";

void write_wrapped(std::string& out, std::string_view line, size_t width) {
  std::string_view prefix;
  // Too narrow to wrap usefully: lines as they are (a table row cannot be that narrow either).
  while (width > kContinuation.size() + 8 && prefix.size() + display_width(line) > width) {
    const size_t cut = display_prefix(line, width - prefix.size());
    const size_t space = line.rfind(' ', cut);
    // At a space after the label, or hard at the width (a path with none).
    const bool at_space = space != std::string_view::npos && space > (prefix.empty() ? kContinuation.size() : 0);
    out.append(prefix).append(line.substr(0, at_space ? space : cut)) += '\n';
    line.remove_prefix(at_space ? space + 1 : cut);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    prefix = kContinuation;
  }
  out.append(prefix).append(line) += '\n';
}

void write_header_lines(std::ostream& out, const ReportContext& ctx, std::string_view title) {
  const Profile& p = ctx.profile();
  const Metadata& m = p.meta;
  out << "# callprof " << title << '\n';
  out << "# command:  " << escape_text(m.command.empty() ? "?" : m.command) << '\n';
  out << fmt::format("# mode:     {}, duration {}\n", escape_text(m.mode.empty() ? "?" : m.mode.text()),
                     format_ns(uint64_t(std::max<int64_t>(m.duration_ns, 0))));
  out << fmt::format("# threads:  {}, processes: {}{}\n", selected_threads(ctx), p.processes.size(),
                     thread_merge(ctx.options().query));
  // Exact mode with samples has both: the calls it counted, the samples taken inside it.
  if (!ctx.sampled())
    out << fmt::format("# calls:    {}, total time {}\n", ctx.stats().calls, format_ns(ctx.grand_total_ns()));
  if (ctx.has_samples())
    out << fmt::format("# samples:  {}, estimated total time {}\n", ctx.analysis().total(Metric::Samples),
                       format_ns(ctx.sampled() ? ctx.grand_total_ns()
                                               : uint64_t(ctx.analysis().total(Metric::Samples) *
                                                          sample_period_or_zero(ctx.profile()))));
  write_times_line(out, ctx);
  write_folded_line(out, ctx);
  write_hooks_line(out, ctx);
  write_exact_cost_line(out, ctx);
  write_attach_line(out, ctx);
  if (const SamplingFacts* s = m.sampling ? &*m.sampling : nullptr) {
    out << fmt::format("# sampling: {} at {} Hz, {} samples, {} unwinding{}{}; lost {} records, {} samples; {}\n",
                       escape_text(s->event), s->frequency_hz, s->samples, unwinding_name(s->unwind),
                       s->unwind_reason.empty() ? "" : " (" + escape_text(s->unwind_reason) + ")",
                       s->inlined_frames ? "" : ", no inlined frames (--no-inline)", s->lost_records, s->lost_samples,
                       ctx.sampled() ? "times are estimates (samples x period)"
                                     : fmt::format("{} in callprof's runtime, not the program's", s->runtime_samples));
    write_truncated_line(out, *s);
    write_agreement_lines(out, ctx);
  }
  if (const SyscallFacts* s = m.syscalls ? &*m.syscalls : nullptr) {
    out << fmt::format("# syscalls: {} ({} stacks), {} calls traced, {} lost", escape_text(s->selection),
                       escape_text(s->stacks), s->events, s->lost_events);
    if (s->exact_callers > 0)
      out << fmt::format(
          "; {} placed by the shadow stack{}", s->exact_callers,
          s->exact_callers_unplaced
              ? fmt::format(
                    " ({} whose node was pruned or whose process wrote no profile data are not at their caller)",
                    s->exact_callers_unplaced)
              : std::string());
    out << '\n';
  }
  if (const ProbeFacts* s = m.probes ? &*m.probes : nullptr) {
    out << fmt::format("# probes:   {} function{} ({} sites{}), {} entries, {} exits", s->probed,
                       s->probed == 1 ? "" : "s", s->sites,
                       s->refused_sites ? fmt::format(", {} refused by the kernel", s->refused_sites) : std::string(),
                       s->entries, s->exits);
    if (s->lost) out << fmt::format("; {} records LOST (counts are lower bounds)", s->lost);
    if (s->unwound + s->unfinished + s->unmatched_exits)
      out << fmt::format("; {} left without a probed exit, {} unfinished, {} unmatched exits", s->unwound,
                         s->unfinished, s->unmatched_exits);
    if (s->cut) out << fmt::format("; {} cut when their probes were removed", s->cut);
    out << '\n';
    const uint64_t hits = s->entries + s->exits, distortion = hits * s->cost_per_hit_ns;
    if (s->cost_per_hit_ns)
      out << fmt::format("# cost:     {} per probe hit (measured at start), about {} added to the run ({:.1f} %)\n",
                         format_ns(s->cost_per_hit_ns), format_ns(distortion),
                         m.duration_ns > 0 ? 100.0 * double(distortion) / double(m.duration_ns) : 0.0);
    else
      out << "# cost:     per probe hit not measured\n";
    write_probe_limits(out, *s);
  }
  if (const TimelineFacts* t = m.timeline ? &*m.timeline : nullptr) {
    uint64_t kept = 0, dropped = 0;
    for (const Thread& th : p.threads) kept += th.timeline.events.size(), dropped += th.timeline.dropped;
    out << fmt::format("# timeline: {} events kept, {} dropped (ring of {} per thread{}; export -f chrome)\n", kept,
                       dropped, t->capacity,
                       t->min_duration_ns ? ", calls from " + format_ns(t->min_duration_ns) : std::string());
  }
  for (const std::string& w : m.warnings) out << "# warning:  " << escape_text(w) << '\n';
  const QueryOptions& q = ctx.options().query;
  if (!q.focus.empty())
    out << fmt::format("# focus:    {} (percentages of its total, {})\n", escape_text(q.focus),
                       format_ns(ctx.grand_total_ns()));
  if (!q.hide.empty()) out << "# hidden:   " << escape_text(q.hide) << " (folded into their callers)\n";
  if (ctx.filtered()) out << "# filter:   " << escape_text(ctx.options().filter) << '\n';
}

}  // namespace

std::string wrap_header_lines(std::string_view text, size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  while (!text.empty()) {
    const size_t eol = std::min(text.find('\n'), text.size());
    write_wrapped(out, text.substr(0, eol), width);
    text.remove_prefix(std::min(eol + 1, text.size()));
  }
  return out;
}

void write_header(std::ostream& out, const ReportContext& ctx, std::string_view title) {
  std::ostringstream lines;
  write_header_lines(lines, ctx, title);
  out << wrap_header_lines(lines.str(), ctx.options().width) << '\n';
}

}  // namespace callprof
