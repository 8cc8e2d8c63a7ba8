// profile_synth: writes a synthetic callprof profile with a chosen number of calling-context
// tree nodes, for the analysis benchmark (bench/analysis/run.sh, bench/README.md).
//
//   profile_synth [--nodes N] [--threads T] [--functions F] [--mode exact|sample] [--seed S] [--variant V]
//                 [--timeline] [-o PATH]
//
// The shape imitates a real C++ program: a static call graph over F functions with
// demangled names of realistic length (namespaces, classes, overloads, std:: template
// instantiations, lambdas), laid out in layers (callers before callees) with a pool of
// popular utility functions, some direct and some mutual recursion. Each thread's tree is
// grown depth first from `main` (or the workers' start routine) with a node budget that is
// split very unevenly between the children: a few hot paths, a long tail, depth up to 40.
// Calls multiply along a path (loops) or thin out (conditional calls); self time is calls x
// the function's cost per call; CPU + off-CPU = wall, min <= average <= max. `--mode sample`
// writes the same shape as a sampled profile (samples, CPU time = samples x period, every
// leaf sampled at least once, no calls). Everything derives from the seed: the same options
// give the same file; `--variant` grows other trees over the same program (another run of
// it, for merge). `--timeline` (exact mode) adds a timeline with one call per node:
// each node's calls laid out as one span of its total time, children one after the other
// inside their parent (what `record --timeline --timeline-min-duration 0` would keep).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "model/profile.h"
#include "trace/profile_file.h"

namespace {

using namespace callprof;

// splitmix64 seeding, xoshiro256** generation, own distributions: the same numbers on
// every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& v : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      v = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3], s_[2] ^= t, s_[3] = rotl(s_[3], 45);
    return r;
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  bool chance(double p) { return uniform() < p; }
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double lognormal(double mu, double sigma) { return std::exp(mu + sigma * normal()); }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

struct Options {
  uint64_t nodes = 1'000'000;
  uint32_t threads = 4;
  uint32_t functions = 5000;
  bool sample = false;
  bool timeline = false;
  uint64_t seed = 1;
  uint64_t variant = 0;  // changes the trees, not the program: profiles of several runs
  std::string output = "synthetic.data";
};

[[noreturn]] void usage(const char* why) {
  if (why) std::fprintf(stderr, "profile_synth: %s\n", why);
  std::fprintf(stderr,
               "usage: profile_synth [--nodes N] [--threads T] [--functions F] [--mode exact|sample] [--seed S] "
               "[--variant V] [--timeline] [-o PATH]\n");
  std::exit(2);
}

uint64_t number(const char* s, const char* what) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (!*s || *end) usage((std::string("not a number for ") + what + ": " + s).c_str());
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help") usage(nullptr);
    if (a == "--timeline") {
      o.timeline = true;
      continue;
    }
    if (i + 1 >= argc) usage(("missing value for " + std::string(a)).c_str());
    const char* v = argv[++i];
    if (a == "--nodes")
      o.nodes = number(v, "--nodes");
    else if (a == "--threads")
      o.threads = uint32_t(number(v, "--threads"));
    else if (a == "--functions")
      o.functions = uint32_t(number(v, "--functions"));
    else if (a == "--seed")
      o.seed = number(v, "--seed");
    else if (a == "--variant")
      o.variant = number(v, "--variant");
    else if (a == "-o" || a == "--output")
      o.output = v;
    else if (a == "--mode") {
      if (std::string_view(v) != "exact" && std::string_view(v) != "sample") usage("--mode is exact or sample");
      o.sample = std::string_view(v) == "sample";
    } else
      usage(("unknown option " + std::string(a)).c_str());
  }
  if (o.threads < 1 || o.threads > 1024) usage("--threads is 1..1024");
  if (o.functions < 100) usage("--functions is at least 100");
  if (o.timeline && o.sample) usage("--timeline is for --mode exact");
  if (o.nodes < 10ULL * o.threads || o.nodes > 2'000'000'000ULL) usage("--nodes is 10 x threads .. 2e9");
  return o;
}

// ---------------------------------------------------------------------------------------
// Function names

const std::vector<std::string> kNamespaces = {"app",
                                              "app::core",
                                              "app::net",
                                              "app::net::http",
                                              "app::db",
                                              "app::db::sql",
                                              "app::render",
                                              "app::util",
                                              "app::io",
                                              "engine",
                                              "engine::physics",
                                              "engine::scene",
                                              "app::(anonymous namespace)",
                                              "app::detail"};
const std::vector<std::string> kAdjectives = {"",       "",       "",      "Http",       "Tcp",  "Json",   "Xml",
                                              "Async",  "Shared", "Local", "Concurrent", "Lru",  "Sparse", "Dense",
                                              "Binary", "Text",   "Basic", "Ordered",    "Flat", "Ring"};
const std::vector<std::string> kNouns = {
    "Request",   "Response",    "Connection", "Session", "Parser",   "Lexer",     "Buffer",     "Cache",
    "Index",     "Scheduler",   "Worker",     "Task",    "Queue",    "Allocator", "Arena",      "Node",
    "Graph",     "Matrix",      "Mesh",       "Texture", "Shader",   "Query",     "Table",      "Row",
    "Column",    "Transaction", "Logger",     "Config",  "Registry", "Handler",   "Dispatcher", "Encoder",
    "Decoder",   "Stream",      "Socket",     "Timer",   "Event",    "Channel",   "Executor",   "Planner",
    "Optimizer", "Tokenizer",   "Serializer", "Visitor", "Builder",  "Resolver",  "Router",     "Compressor",
    "Checksum",  "Journal"};
const std::vector<std::string> kVerbs = {
    "process",   "handle",      "parse",     "encode", "decode",   "lookup",  "insert", "erase",   "find",
    "resize",    "reserve",     "flush",     "write",  "read",     "update",  "render", "compute", "apply",
    "visit",     "dispatch",    "schedule",  "run",    "step",     "merge",   "split",  "compare", "hash",
    "serialize", "deserialize", "validate",  "commit", "rollback", "prepare", "finish", "poll",    "accept",
    "send",      "receive",     "rebalance", "evict",  "load",     "store",   "emit",   "collect", "reset",
    "init",      "next",        "advance",   "expand", "normalize"};
const std::vector<std::string> kParams = {
    "int",
    "unsigned long",
    "char const*",
    "double",
    "void*",
    "unsigned int",
    "bool",
    "long",
    "float const*",
    "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&",
    "std::vector<int, std::allocator<int> > const&",
    "std::basic_string_view<char, std::char_traits<char> >",
    "std::shared_ptr<app::net::Connection>",
    "app::core::Context&",
    "app::db::Row const&",
    "std::chrono::duration<long, std::ratio<1l, 1000000000l> >",
    "std::span<unsigned char const, 18446744073709551615ul>",
    "std::unique_ptr<app::core::Task, std::default_delete<app::core::Task> >",
    "std::function<void (app::net::Response&)>",
    "app::render::Matrix<float, 4ul, 4ul> const&"};
const std::vector<std::string> kTypes = {
    "int",
    "unsigned long",
    "double",
    "char",
    "app::db::Row",
    "app::net::Request",
    "app::core::Task*",
    "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
    "app::render::Vertex",
    "std::pair<unsigned long, app::db::Row>",
    "engine::physics::Body",
    "unsigned char"};
const std::vector<std::string> kCNames = {"crc32_update", "parse_header",  "lz4_compress_block", "utf8_decode",
                                          "hash_bytes",   "tokenize_line", "read_frame",         "write_frame",
                                          "json_escape",  "base64_encode", "sha256_block",       "varint_decode",
                                          "ring_push",    "ring_pop",      "log_format",         "checksum_adler32"};

std::string params(Rng& r) {
  const uint64_t n = r.below(4);
  std::string s = "(";
  for (uint64_t i = 0; i < n; ++i) s += (i ? ", " : "") + r.pick(kParams);
  return s + ")";
}

std::string klass(Rng& r) { return r.pick(kNamespaces) + "::" + r.pick(kAdjectives) + r.pick(kNouns); }

std::string vector_of(const std::string& t) { return "std::vector<" + t + ", std::allocator<" + t + "> >"; }

// One demangled name in the style g++ produces; `kind` picks the family.
std::string make_name(Rng& r, bool utility) {
  const std::string t = r.pick(kTypes), u = r.pick(kTypes);
  const std::string it = "__gnu_cxx::__normal_iterator<" + t + "*, " + vector_of(t) + " >";
  const double k = r.uniform();
  if (utility) {  // the std:: and helper instantiations every C++ program spends time in
    switch (r.below(12)) {
      case 0:
        return vector_of(t) + "::push_back(" + t + " const&)";
      case 1:
        return vector_of(t) + "::operator[](unsigned long)";
      case 2:
        return "void " + vector_of(t) + "::_M_realloc_insert<" + t + " const&>(" + it + ", " + t + " const&)";
      case 3:
        return "std::_Hashtable<" + t + ", std::pair<" + t + " const, " + u + ">, std::allocator<std::pair<" + t +
               " const, " + u + "> >, std::__detail::_Select1st, std::equal_to<" + t + ">, std::hash<" + t +
               ">, std::__detail::_Mod_range_hashing, std::__detail::_Default_ranged_hash, "
               "std::__detail::_Prime_rehash_policy, std::__detail::_Hashtable_traits<true, false, true> >::find(" +
               t + " const&)";
      case 4:
        return "void std::__introsort_loop<" + it + ", long, __gnu_cxx::__ops::_Iter_less_iter>(" + it + ", " + it +
               ", long, __gnu_cxx::__ops::_Iter_less_iter)";
      case 5:
        return "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_append(char "
               "const*, unsigned long)";
      case 6:
        return "std::unique_ptr<" + t + ", std::default_delete<" + t + "> >::~unique_ptr()";
      case 7:
        return "std::_Rb_tree_increment(std::_Rb_tree_node_base*)";
      case 8:
        return "app::util::hash_combine<" + t + ">(unsigned long&, " + t + " const&)";
      case 9:
        return "std::shared_ptr<" + t + ">::operator=(std::shared_ptr<" + t + "> const&)";
      case 10:
        return r.pick(kCNames);
      default:
        return "app::util::" + r.pick(kVerbs) + "_" + r.pick(kVerbs) + params(r);
    }
  }
  if (k < 0.08) return r.pick(kCNames) + "_" + r.pick(kVerbs);  // C functions
  const std::string c = klass(r), v = r.pick(kVerbs);
  if (k < 0.55) return c + "::" + v + params(r) + (r.chance(0.3) ? " const" : "");
  if (k < 0.65)
    return c + "::" + v + params(r) + "::{lambda(" + r.pick(kParams) + ")#" + std::to_string(1 + r.below(3)) +
           "}::operator()(" + r.pick(kParams) + ") const";
  if (k < 0.80)  // a class template's member
    return c + "<" + t + ", " + u + ">::" + v + params(r);
  if (k < 0.90)  // a function template: g++ prints the return type
    return r.pick(kTypes) + " " + c + "::" + v + "<" + t + ">(" + vector_of(t) + " const&, " + r.pick(kParams) + ")";
  if (k < 0.95) return c + "::~" + c.substr(c.rfind(':') + 1) + "()";
  return c + "::" + c.substr(c.rfind(':') + 1) + params(r);  // constructor
}

// A plausible (not exact) Itanium mangling, so the linkage names have realistic length.
std::string mangle(const std::string& name) {
  if (name.find("::") == std::string::npos && name.find('(') == std::string::npos) return name;
  std::string out = "_ZN";
  std::string word;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      word += ch;
    } else if (!word.empty()) {
      out += std::to_string(word.size()) + word;
      word.clear();
    }
  }
  if (!word.empty()) out += std::to_string(word.size()) + word;
  return out + "Ev";
}

// ---------------------------------------------------------------------------------------
// The static call graph

struct FunctionPlan {
  std::vector<FunctionId> callees;
  double cost_ns = 100;  // self time per call
  double offcpu = 0;     // share of self time blocked
  bool blocking = false;
  bool indirect = false;  // called through a pointer (virtual, std::function)
};

struct Program {
  std::vector<Function> functions;
  std::vector<FunctionPlan> plan;
  FunctionId main_fn = 0, pool_ctor = 0, thread_ctor = 0, worker_loop = 0;
};

Program make_program(const Options& o, Rng& r) {
  Program p;
  const uint32_t F = o.functions;
  const uint32_t util_start = F - F * 15 / 100;  // the last 15 %: popular utilities (std:: etc.)
  std::unordered_set<std::string> seen;
  p.functions.resize(F);
  p.plan.resize(F);
  auto set = [&](FunctionId id, std::string name) {
    seen.insert(name);
    p.functions[id].name = std::move(name);
  };
  p.main_fn = 0, p.pool_ctor = 1, p.thread_ctor = 2, p.worker_loop = 3;
  set(0, "main");
  set(1, "app::ThreadPool::ThreadPool(unsigned long)");
  set(2,
      "std::thread::thread<app::ThreadPool::ThreadPool(unsigned long)::{lambda()#1}, , void>(app::ThreadPool::"
      "ThreadPool(unsigned long)::{lambda()#1}&&)");
  set(3, "app::ThreadPool::worker_loop(unsigned int)");
  for (FunctionId id = 4; id < F; ++id) {
    std::string name = make_name(r, id >= util_start);
    const std::string first = name;
    for (int tries = 0; seen.count(name); ++tries)  // a new name, else a clone g++ made
      name =
          tries < 3 ? make_name(r, id >= util_start) : first + " [clone .constprop." + std::to_string(tries - 3) + "]";
    set(id, std::move(name));
  }
  // Modules: the executable, two instrumented libraries of the program, libstdc++/libc for
  // the functions that look like theirs.
  for (FunctionId id = 0; id < F; ++id) {
    Function& f = p.functions[id];
    const std::string& n = f.name;
    f.linkage_name = mangle(n);
    f.module = n.rfind("app::net", 0) == 0 ? 1 : (n.rfind("app::db", 0) == 0 || n.rfind("app::core", 0) == 0) ? 2 : 0;
    if (n == "std::_Rb_tree_increment(std::_Rb_tree_node_base*)") f.module = 3;
    f.address = 0x4000 + uint64_t(id) * 0x60 + r.below(0x20);
    static const char* dirs[] = {"src/core/", "src/net/", "src/db/", "src/render/", "src/util/", "include/app/"};
    f.file = std::string(dirs[r.below(6)]) + "file" + std::to_string(id % 397) + (r.chance(0.2) ? ".h" : ".cpp");
    f.line = uint32_t(10 + r.below(3000));
  }
  for (FunctionId id = 0; id < F; ++id) {
    FunctionPlan& fp = p.plan[id];
    // Cost per call: mostly tens to hundreds of ns, a few expensive functions.
    fp.cost_ns = r.chance(0.03) ? r.lognormal(std::log(20000.0), 1.0) : r.lognormal(std::log(90.0), 1.0);
    fp.blocking = r.chance(0.04);
    fp.offcpu = fp.blocking ? 0.3 + 0.69 * r.uniform() : (r.chance(0.3) ? 0.02 * r.uniform() : 0.0);
    fp.indirect = r.chance(0.15);
    const bool utility = id >= util_start;
    if (id > 3 && (utility ? r.chance(0.75) : r.chance(0.30))) continue;  // a leaf function
    uint32_t degree = utility ? 1 + uint32_t(r.below(3)) : 2 + uint32_t(std::min(80.0, r.lognormal(1.6, 0.8)));
    if (id == p.main_fn || id == p.worker_loop) degree = 60;
    std::unordered_set<FunctionId> chosen;
    for (uint32_t k = 0; k < degree * 3 && chosen.size() < degree; ++k) {
      FunctionId c;
      if (utility) {
        if (id + 1 >= F) break;
        c = id + 1 + FunctionId(r.below(std::min<uint32_t>(F - id - 1, 40)));
      } else if (r.chance(0.3)) {  // a popular utility: Zipf-like over the pool
        c = util_start +
            FunctionId(std::min<double>(F - util_start - 1, std::pow(r.uniform(), 3.0) * (F - util_start)));
      } else {  // a function of a deeper layer: log-uniform distance
        const double span = std::log(double(util_start) / 4);
        c = id + 1 + FunctionId(std::exp(r.uniform() * span));
        if (c >= util_start) c = util_start + FunctionId(r.below(F - util_start));
      }
      if (c < 4 || c == id) continue;
      chosen.insert(c);
    }
    if (!utility && id > 3) {
      if (r.chance(0.05)) chosen.insert(id);  // direct recursion (visit, parse_expr, tree walks)
      if (r.chance(0.02) && id > 10) chosen.insert(4 + FunctionId(r.below(id - 4)));  // mutual recursion
    }
    fp.callees.assign(chosen.begin(), chosen.end());
    std::sort(fp.callees.begin(), fp.callees.end());
  }
  // The path that creates the workers, and the workers' start routine.
  p.plan[p.pool_ctor].callees = {p.thread_ctor};
  p.plan[p.thread_ctor].callees.clear();
  if (std::find(p.plan[p.main_fn].callees.begin(), p.plan[p.main_fn].callees.end(), p.pool_ctor) ==
      p.plan[p.main_fn].callees.end())
    p.plan[p.main_fn].callees.push_back(p.pool_ctor);
  p.plan[p.worker_loop].blocking = true;  // waits for work
  p.plan[p.worker_loop].offcpu = 0.9;
  return p;
}

// ---------------------------------------------------------------------------------------
// Growing one thread's tree

constexpr uint32_t kMaxDepth = 40;
constexpr uint64_t kMaxCalls = 10'000'000;

class Grower {
 public:
  Grower(const Program& p, CallTree& tree, Rng& r) : p_(p), tree_(tree), r_(r) {}

  // Creates up to `budget` descendants of `node` (whose function is `f`, at `depth`, with
  // `calls` calls); returns how many it created. Children's budgets are uneven shares of
  // the rest; what one subtree cannot use goes to its later siblings, then back up.
  uint64_t grow(NodeId node, FunctionId f, uint32_t depth, uint64_t budget) {
    const std::vector<FunctionId>& callees = p_.plan[f].callees;
    if (budget == 0 || callees.empty() || depth >= kMaxDepth) return 0;
    // Which callees this path calls: a random subset, larger when the budget is large.
    std::vector<FunctionId> order;
    for (FunctionId c : callees)
      if (tree_.find_child(node, c) == kNoNode) order.push_back(c);  // main's pool constructor exists
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[r_.below(i)]);
    const double want = std::max(1.0, double(order.size()) * std::pow(r_.uniform(), budget > 1000 ? 0.3 : 1.5));
    size_t k = std::min<uint64_t>({uint64_t(want), order.size(), budget});
    uint64_t used = 0, carry = budget;
    size_t next = 0;
    while (carry > 0 && next < order.size()) {
      const size_t batch_end = std::min(order.size(), next + std::max<size_t>(k, 1));
      const size_t first = next;
      std::vector<NodeId> ids;
      for (; next < batch_end && carry > 0; ++next) {
        ids.push_back(add_child(node, order[next]));
        --carry, ++used;
      }
      // Uneven weights (lognormal, sigma 2): one child usually takes most of the rest.
      std::vector<double> w(ids.size());
      double total = 0;
      for (size_t i = 0; i < ids.size(); ++i) {
        const bool can_grow = !p_.plan[order[first + i]].callees.empty();
        w[i] = can_grow ? r_.lognormal(0, 2.0) : 0;
        total += w[i];
      }
      if (total == 0) continue;  // only leaf functions: try more callees
      // Each child's share of what is left; what a subtree cannot use stays in the pool for
      // its later siblings (the last one with a weight gets the rounding rest).
      const uint64_t rest = carry;
      size_t last = 0;
      for (size_t i = 0; i < ids.size(); ++i)
        if (w[i] > 0) last = i;
      uint64_t pool = 0, handed = 0;
      for (size_t i = 0; i < ids.size() && carry > 0; ++i) {
        if (w[i] == 0) continue;
        const uint64_t share =
            i == last ? rest - handed : std::min(rest - handed, uint64_t(double(rest) * w[i] / total));
        handed += share;
        pool = std::min(pool + share, carry);
        if (pool == 0) continue;
        const uint64_t got = grow(ids[i], order[first + i], depth + 1, pool);
        pool -= got, carry -= got, used += got;
      }
      k = std::max<size_t>(1, k / 2);  // left over: a few more callees take it
    }
    return used;
  }

  NodeId add_child(NodeId parent, FunctionId f) {
    const NodeId id = tree_.child(parent, f);
    if (calls_.size() <= id) calls_.resize(id + 1, 0);
    const uint64_t pc = std::max<uint64_t>(1, calls_[parent]);
    double m;
    if (tree_.node(parent).function == f)
      m = 1;  // recursion: one call per level
    else if (r_.chance(0.2))
      m = 1 + r_.lognormal(0.7, 1.0);  // called in a loop
    else if (r_.chance(0.5))
      m = 1;
    else
      m = 0.02 + 0.98 * r_.uniform();  // called on some calls only
    calls_[id] = std::clamp<uint64_t>(uint64_t(std::llround(double(pc) * m)), 1, kMaxCalls);
    return id;
  }

  std::vector<uint64_t>& calls() { return calls_; }

 private:
  const Program& p_;
  CallTree& tree_;
  Rng& r_;
  std::vector<uint64_t> calls_{0};
};

// Fills every node's metrics from its calls; returns the thread's total wall time.
uint64_t fill_metrics(const Options& o, const Program& p, CallTree& tree, const std::vector<uint64_t>& calls,
                      const Process& proc, double target_ns, Rng& r) {
  const size_t n = tree.size();
  std::vector<double> wall(n, 0);
  double total = 0;
  for (NodeId i = 1; i < n; ++i) {
    const FunctionPlan& fp = p.plan[tree.node(i).function];
    wall[i] = double(calls[i]) * fp.cost_ns * r.lognormal(0, 0.4);
    total += wall[i];
  }
  const double scale = total > 0 ? target_ns / total : 1;
  std::vector<uint64_t> child_calls(n, 0), children(n, 0);
  for (NodeId i = 1; i < n; ++i) child_calls[tree.node(i).parent] += calls[i], ++children[tree.node(i).parent];
  const double period = 1e9 / 999;
  uint64_t sum = 0;
  for (NodeId i = 1; i < n; ++i) {
    MetricRowRef m = tree.base(i);
    const FunctionPlan& fp = p.plan[tree.node(i).function];
    double w = wall[i] * scale;
    if (o.sample) {
      uint64_t s = uint64_t(std::llround(w / period));
      if (s == 0 && children[i] == 0) s = 1;  // every path was seen by at least one sample
      m[Metric::Samples] = s;
      m[Metric::WallNs] = m[Metric::CpuNs] = uint64_t(double(s) * period);
      sum += m[Metric::WallNs];
      continue;
    }
    // At least what the hooks cost, plus a little: compensation leaves something.
    const double floor = double(calls[i]) * (proc.hook_inner_ns + 2) + double(child_calls[i]) * proc.hook_outer_ns;
    w = std::max(w, floor);
    const uint64_t c = calls[i];
    m[Metric::Calls] = c;
    m[Metric::WallNs] = uint64_t(w);
    m[Metric::OffCpuNs] = uint64_t(w * fp.offcpu);
    m[Metric::CpuNs] = m[Metric::WallNs] - m[Metric::OffCpuNs];
    m[Metric::PreemptedNs] = fp.blocking ? m[Metric::OffCpuNs] / 20 : m[Metric::OffCpuNs];
    m[Metric::Switches] = m[Metric::OffCpuNs] ? 1 + m[Metric::OffCpuNs] / (fp.blocking ? 200'000 : 2'000'000) : 0;
    if (fp.indirect) m[Metric::IndirectCalls] = c;
    const double avg = w / double(c);
    if (c == 1) {
      m[Metric::MinWallNs] = m[Metric::MaxWallNs] = m[Metric::WallNs];
    } else {
      m[Metric::MinWallNs] = uint64_t(avg * (0.2 + 0.7 * r.uniform()));
      m[Metric::MaxWallNs] = std::min<uint64_t>(m[Metric::WallNs], uint64_t(avg * (1.5 + r.lognormal(1, 1))));
    }
    sum += m[Metric::WallNs];
  }
  return sum;
}

}  // namespace

// One span per node: its total wall time, starting where its parent's earlier children
// ended (after half the parent's self time), so the spans nest as calls do.
Timeline synthetic_timeline(const CallTree& tree, int64_t start) {
  const MetricTable cum = cumulative(tree);
  std::vector<int64_t> cursor(tree.size());
  cursor[kRootNode] = start;
  Timeline t;
  t.events.reserve(tree.size() - 1);
  for (NodeId i = 1; i < tree.size(); ++i) {
    const NodeId parent = tree.node(i).parent;
    const int64_t at = cursor[parent];
    const uint64_t total = cum[i][Metric::WallNs];
    cursor[parent] += int64_t(total);
    cursor[i] = at + int64_t(tree.base(i)[Metric::WallNs] / 2);
    t.events.push_back({i, at, total});
  }
  return t;
}

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Rng r(o.seed);
  const Program prog = make_program(o, r);

  Profile profile;
  profile.functions = prog.functions;
  profile.modules = {{"/opt/synthapp/bin/synthapp", "5f1d7c0e2b9a4c3d8e6f7a1b2c3d4e5f60718293"},
                     {"/opt/synthapp/lib/libsynthnet.so", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"},
                     {"/opt/synthapp/lib/libsynthcore.so", "0badc0de0badc0de0badc0de0badc0de0badc0de"},
                     {"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", ""}};

  const int64_t start = 1'000'000'000'000;  // CLOCK_MONOTONIC of the synthetic run
  Process proc;
  proc.pid = 1;
  proc.command = "synthapp --config /etc/synthapp.conf --workers " + std::to_string(o.threads - 1);
  proc.start_ns = start;
  if (!o.sample) proc.hook_inner_ns = 9.5, proc.hook_outer_ns = 3.2, proc.excluded_hook_ns = 4.0;

  // Node budgets: the main thread 40 % when there are workers, the workers share the rest.
  std::vector<uint64_t> budget(o.threads);
  budget[0] = o.threads == 1 ? o.nodes : o.nodes * 4 / 10;
  for (uint32_t t = 1; t < o.threads; ++t) budget[t] = (o.nodes - budget[0]) / (o.threads - 1);
  budget[0] += o.nodes - [&] {
    uint64_t s = 0;
    for (auto b : budget) s += b;
    return s;
  }();

  std::vector<FunctionId> creator_path;
  uint64_t longest = 0, made = 0;
  for (uint32_t t = 0; t < o.threads; ++t) {
    Thread th;
    th.tid = t + 1;
    th.pid = 1;
    th.name = t == 0 ? "synthapp" : "worker-" + std::to_string(t);
    th.offcpu = o.sample ? Thread::OffCpu::Off : Thread::OffCpu::Measured;
    th.finished = true;
    Rng tr(o.seed * 1000003 + t + o.variant * 0x9E3779B97F4A7C15ULL);
    Grower g(prog, th.tree, tr);
    const FunctionId top = t == 0 ? prog.main_fn : prog.worker_loop;
    const NodeId root_child = g.add_child(kRootNode, top);
    g.calls()[root_child] = 1;
    uint64_t used = 1;
    if (t == 0 && o.threads > 1) {  // main -> ThreadPool::ThreadPool -> std::thread::thread
      const NodeId ctor = g.add_child(root_child, prog.pool_ctor);
      const NodeId spawn = g.add_child(ctor, prog.thread_ctor);
      g.calls()[ctor] = 1, g.calls()[spawn] = o.threads - 1;
      creator_path = th.tree.path_to(spawn);
      used += 2;
    }
    used += g.grow(root_child, top, 1, budget[t] - used);
    // Whatever the tree could not take: more top-level calls (static initializers,
    // callbacks run from the start routine's caller).
    for (FunctionId f = 4; used < budget[t] && f < prog.functions.size(); ++f) {
      if (th.tree.find_child(kRootNode, f) != kNoNode || prog.plan[f].callees.empty()) continue;
      const NodeId n = g.add_child(kRootNode, f);
      ++used;
      used += g.grow(n, f, 1, budget[t] - used);
    }
    if (used != budget[t] || th.tree.size() - 1 != budget[t]) {
      std::fprintf(stderr, "profile_synth: thread %u has %zu nodes, wanted %llu\n", th.tid, th.tree.size() - 1,
                   (unsigned long long)budget[t]);
      return 1;
    }
    const double target = o.sample ? 2.0 * double(budget[t]) * (1e9 / 999)  // ~2 samples per node
                                   : (t == 0 ? 90e9 : 60e9 + 10e9 * tr.uniform());
    const uint64_t wall = fill_metrics(o, prog, th.tree, g.calls(), proc, target, tr);
    th.start_ns = start + (t == 0 ? 0 : 2'000'000 + 150'000 * t);
    th.end_ns = th.start_ns + int64_t(wall) + 1'000'000;
    if (t > 0) {
      th.creator_tid = 1;
      th.creator_path = creator_path;
      th.start_routine = prog.worker_loop;
    }
    if (o.timeline) th.timeline = synthetic_timeline(th.tree, th.start_ns);
    longest = std::max<uint64_t>(longest, uint64_t(th.end_ns - start));
    made += th.tree.size() - 1;
    profile.threads.push_back(std::move(th));
  }
  proc.end_ns = start + int64_t(longest) + 500'000;
  profile.processes.push_back(proc);

  Metadata& meta = profile.meta;
  meta.command = proc.command;
  meta.mode = o.sample ? RecordingMode::Sample : RecordingMode::Exact;
  meta.hostname = "synthetic";
  meta.start_realtime_ns = 1'790'000'000'000'000'000;
  meta.duration_ns = proc.end_ns - start;
  meta.callprof_version = "0.1.0";
  if (o.sample) {
    SamplingFacts& s = meta.sampling.emplace();
    s.event = "cpu-clock";
    s.frequency_hz = 999;
    s.unwind = Unwinding::Dwarf;
    for (const Thread& th : profile.threads) s.samples += th.tree.base_table().sum(Metric::Samples);
  } else {
    meta.exact.emplace();
  }
  if (o.timeline) meta.timeline = TimelineFacts{.min_duration_ns = 0, .capacity = uint64_t(1) << 24};
  meta.extra["synthetic"] =
      "profile_synth --nodes " + std::to_string(o.nodes) + " --threads " + std::to_string(o.threads) + " --functions " +
      std::to_string(o.functions) + " --mode " + meta.mode.text() + " --seed " + std::to_string(o.seed) +
      (o.variant ? " --variant " + std::to_string(o.variant) : std::string()) + (o.timeline ? " --timeline" : "");

  if (auto s = write_profile(profile, o.output); !s) {
    std::fprintf(stderr, "profile_synth: %s\n", s.error().message.c_str());
    return 1;
  }
  // Functions for callers-of/callees-of, by how many paths they are on: the median of the
  // functions used (mid) and the most frequent (hot); printed as RE2 patterns for run.sh.
  std::vector<uint64_t> paths(profile.functions.size(), 0);
  for (const Thread& th : profile.threads)
    for (NodeId i = 1; i < th.tree.size(); ++i) ++paths[th.tree.node(i).function];
  std::vector<FunctionId> by_paths;
  for (FunctionId f = 0; f < paths.size(); ++f)
    if (paths[f] > 0) by_paths.push_back(f);
  std::stable_sort(by_paths.begin(), by_paths.end(), [&](FunctionId a, FunctionId b) { return paths[a] > paths[b]; });
  const size_t used_functions = by_paths.size();
  const FunctionId mid = by_paths[by_paths.size() / 2], hot = by_paths[0];
  std::printf("mid_function=^\\Q%s\\E$\nmid_paths=%llu\nhot_function=^\\Q%s\\E$\nhot_paths=%llu\n",
              profile.functions[mid].name.c_str(), (unsigned long long)paths[mid], profile.functions[hot].name.c_str(),
              (unsigned long long)paths[hot]);
  size_t depth = 0;
  for (const Thread& th : profile.threads) {
    std::vector<uint32_t> d(th.tree.size(), 0);
    for (NodeId i = 1; i < th.tree.size(); ++i) depth = std::max<size_t>(depth, d[i] = d[th.tree.node(i).parent] + 1);
  }
  std::fprintf(stderr,
               "profile_synth: wrote %s: %s mode, %llu nodes, %u threads, %zu of %zu functions used, depth %zu\n",
               o.output.c_str(), meta.mode.text().c_str(), (unsigned long long)made, o.threads, used_functions,
               profile.functions.size(), depth);
  return 0;
}
