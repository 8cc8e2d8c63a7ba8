// Per-line and per-instruction costs of a function, over the selected threads: the samples
// whose instruction was in its code, and the calls it made, by the line (and instruction) they
// were made from. Shared by annotate, the web report's Source panel and the exports' lines.
//
// A function's lines sum over every calling context, as perf annotate and pprof -list do, of
// the trees as the analysis shows them: under --focus only the contexts inside the focus; under
// --hide a hidden function's samples, and the calls made from its code, on the line its caller
// called it from (pprof's -focus and -hide with -list).
// Calls from a line are its callees' nodes whose call site is in the function; a recursive
// callee counts only where it is not already on the path (as per-caller views count).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/profile.h"
#include "query/query.h"

namespace callprof {

// The calls a function made to one callee from one place.
struct CallsFrom {
  FunctionId callee = kNoFunction;
  uint64_t calls = 0;    // exact calls (0 in sampled profiles)
  uint64_t wall_ns = 0;  // the callee's total time from there
  uint64_t cpu_ns = 0;
  uint64_t samples = 0;  // the callee's total samples from there
};

// One place in a function: a source line, or an instruction.
struct CodeCost {
  uint32_t file = 0;     // index into Profile::source_files
  uint32_t line = 0;     // 0: unknown
  uint64_t address = 0;  // instructions only (module-relative)
  uint64_t samples = 0;  // self: on-CPU samples at this place
  uint64_t cpu_ns = 0;   // their CPU time
  std::vector<CallsFrom> calls;
};

struct FunctionCode {
  FunctionId function = kNoFunction;
  std::vector<CodeCost> lines;            // by (file, line)
  std::vector<CodeCost> instructions;     // by address
  std::vector<CallsFrom> unplaced_calls;  // calls made from no known place (a patched entry's tail calls)
  uint64_t samples = 0;                   // self samples located in its code (sum over lines)
  uint64_t cpu_ns = 0;
  // Its nodes' own totals, whatever was located: exact self time and calls, self samples.
  uint64_t calls = 0;
  uint64_t self_wall_ns = 0;
  uint64_t self_cpu_ns = 0;
  uint64_t self_samples = 0;
};

// Every located cost of the threads, indexed by function (built once, asked per function).
class CodeIndex {
 public:
  // `threads`: indices into profile.threads; their trees as the views see them (compensated).
  CodeIndex(const Profile& profile, std::span<const size_t> threads);
  // The analysis' selected threads, their trees with --hide and --focus applied (the threads'
  // own trees must have been kept).
  explicit CodeIndex(const Analysis& analysis);
  FunctionCode of(FunctionId f) const;
  // Functions with located samples or calls made from a known place, most samples first.
  std::vector<FunctionId> functions() const;

 private:
  // One thread: its own tree and code; with `view` (the tree as shown) and `image`, the code is
  // relocated() and the own metrics are the view's.
  void add_thread(const CallTree& tree, const CodeCosts& code, const CallTree* view, const NodeImage* image);

  struct Entry {  // one location's costs in one function
    LocationId location = kNoLocation;
    uint64_t samples = 0, cpu_ns = 0;
    CallsFrom calls;  // callee == kNoFunction: no call
  };
  const Profile& profile_;
  std::vector<std::vector<Entry>> by_function_;
  struct Own {
    uint64_t calls = 0, wall_ns = 0, cpu_ns = 0, samples = 0;
  };
  std::vector<Own> own_;
};

// What a profile's lines can show: samples where it has them, calls where it counted them.
struct LineColumns {
  bool samples = false;
  bool calls = false;
};
LineColumns line_columns(const Analysis& analysis);

// The files of a function's lines: its own first, then the others (code inlined from
// headers, macros).
std::vector<uint32_t> files_of(const Profile& p, const FunctionCode& code);

// The lines of one file to list: each annotated line with `context` lines around it inside
// the file (`file_lines` long), and the function's first line (0: not in this file). An
// annotated line past the end stays: the file changed since the build.
std::vector<uint32_t> lines_to_show(std::span<const uint32_t> annotated, uint32_t first_line, size_t context,
                                    size_t file_lines);

}  // namespace callprof
