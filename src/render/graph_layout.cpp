// libgvc in memory. Graphviz's plugins are handed to it as built-ins and never looked up
// through its plugin configuration (config6a, written by the `graphviz` package or libgvc6's
// trigger; without it, demand loading crashed libgvc 2.42 in its label code): the layout
// (dot) and SVG renderer (core) plugins, and the cairo plugin (pango) when it is there: it
// measures text with the machine's fonts, for SVG as for PNG (without it Graphviz estimates
// widths from Arial's metrics, and a browser that draws the text in DejaVu Sans spills it
// out of its box). PNG falls back to the gd plugin.
//
// Every plugin is opened by its path when a graph is drawn, not linked: linked, the
// executable needed an rpath to Graphviz's private directory, and every library of every
// command (a recording's too) was first looked for there, some 20 paths each (338 failed
// opens per start), and in the current directory (the empty entry CMake padded it with).
#include "render/graph_layout.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <array>
#include <cstdlib>
#include <memory>

namespace callprof {
namespace {

// Graphviz's plugin directory: $GVBINDIR as Graphviz itself honours it, else libgvc's.
std::string plugin_dir() {
  const char* env = std::getenv("GVBINDIR");
  return env && *env ? env : CALLPROF_GRAPHVIZ_PLUGIN_DIR;
}

// The plugin library `symbol` of the plugin file at `path` (dlopen of a loaded library is a
// reference count; it stays loaded), or null with dlerror()'s reason appended to `failures`.
void* open_plugin(const std::string& path, const char* symbol, std::string& failures) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* address = library ? dlsym(library, symbol) : nullptr;
  if (!address)
    if (const char* why = dlerror()) failures += fmt::format("{}{}", failures.empty() ? "" : "; ", why);
  return address;
}

// The layout and SVG plugins, from libgvc's own directory (they stand for built-ins, so
// $GVBINDIR does not move them), with the cairo plugin, or gd when `bitmap` and cairo is
// missing, from the directory of the moment. The list lives on because the context keeps a
// pointer to it, and renders never overlap (the message capture is process-wide too).
Result<const lt_symlist_t*> plugins_with(bool bitmap) {
  static std::array<lt_symlist_t, 4> plugins{};
  static constexpr std::pair<const char*, const char*> kBuiltIns[] = {
      {"libgvplugin_core.so.6", "gvplugin_core_LTX_library"},
      {"libgvplugin_dot_layout.so.6", "gvplugin_dot_layout_LTX_library"},
  };
  static constexpr std::pair<const char*, const char*> kRenderers[] = {
      {"libgvplugin_pango.so.6", "gvplugin_pango_LTX_library"},
      {"libgvplugin_gd.so.6", "gvplugin_gd_LTX_library"},
  };
  std::string failures;
  for (size_t i = 0; i < std::size(kBuiltIns); ++i) {
    const auto& [file, symbol] = kBuiltIns[i];
    void* address = open_plugin(std::string(CALLPROF_GRAPHVIZ_PLUGIN_DIR) + "/" + file, symbol, failures);
    if (!address)
      return make_error(fmt::format("the call graph needs Graphviz's {} plugin in {} (Debian: libgvc6) ({})",
                                    i == 0 ? "core" : "dot layout", CALLPROF_GRAPHVIZ_PLUGIN_DIR, failures));
    plugins[i] = lt_symlist_t{symbol, address};
  }
  plugins[2] = plugins[3] = lt_symlist_t{nullptr, nullptr};
  const std::string dir = plugin_dir();
  for (const auto& [file, symbol] : kRenderers) {
    if (void* address = open_plugin(dir + "/" + file, symbol, failures)) {
      plugins[2] = lt_symlist_t{symbol, address};
      return plugins.data();
    }
    if (!bitmap) return plugins.data();  // SVG without cairo: Graphviz's estimated text widths
  }
  return make_error(fmt::format(
      "PNG needs a Graphviz bitmap renderer, the cairo or gd plugin in {} (Debian: libgvc6); write .svg or .dot "
      "instead ({})",
      dir, failures));
}

// Graphviz reports through one process-wide callback; the render in progress collects here.
std::string* g_messages = nullptr;

int collect_message(char* text) {
  if (!g_messages || !text) return 0;
  std::string line(text);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  if (!line.empty()) *g_messages += (g_messages->empty() ? "" : "; ") + line;
  return 0;
}

// Errors go to `into` instead of stderr, warnings are dropped, for the guard's lifetime.
class MessageCapture {
 public:
  explicit MessageCapture(std::string& into) : previous_(agseterrf(collect_message)) {
    g_messages = &into;
    agseterr(AGERR);
  }
  ~MessageCapture() {
    agseterrf(previous_);
    g_messages = nullptr;
  }
  MessageCapture(const MessageCapture&) = delete;
  MessageCapture& operator=(const MessageCapture&) = delete;

 private:
  agusererrf previous_;
};

struct ContextDeleter {
  void operator()(GVC_t* c) const { gvFreeContext(c); }
};
struct GraphDeleter {
  void operator()(Agraph_t* g) const { agclose(g); }
};

// A laid-out graph; the layout is freed before the graph, the graph before the context.
class Layout {
 public:
  Layout(GVC_t* gvc, Agraph_t* g) : gvc_(gvc), g_(g), ok_(gvLayout(gvc, g, "dot") == 0) {}
  ~Layout() {
    if (ok_) gvFreeLayout(gvc_, g_);
  }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
  bool ok() const { return ok_; }

 private:
  GVC_t* gvc_;
  Agraph_t* g_;
  bool ok_;
};

Error graphviz_error(std::string_view what, const std::string& messages) {
  return make_error(messages.empty() ? std::string(what) : fmt::format("{} (Graphviz: {})", what, messages));
}

}  // namespace

Result<std::string> graphviz_render(const std::string& dot, GraphFormat format) {
  if (format == GraphFormat::Dot) return dot;
  std::string messages;
  MessageCapture capture(messages);
  const bool png = format == GraphFormat::Png;
  auto plugins = plugins_with(png);
  if (!plugins) return plugins.error();
  std::unique_ptr<GVC_t, ContextDeleter> gvc(gvContextPlugins(*plugins, 0));
  if (!gvc) return graphviz_error("Graphviz could not start", messages);
  std::unique_ptr<Agraph_t, GraphDeleter> graph(agmemread(dot.c_str()));
  if (!graph) return graphviz_error("Graphviz could not read the call graph", messages);
  Layout layout(gvc.get(), graph.get());
  if (!layout.ok()) return graphviz_error("Graphviz could not lay out the call graph", messages);
  char* data = nullptr;
  unsigned int length = 0;
  // Core's SVG (text and shapes), never cairo's (glyph outlines), whichever plugins are in.
  const int rc = gvRenderData(gvc.get(), graph.get(), png ? "png" : "svg:svg:core", &data, &length);
  std::string out = rc == 0 && data ? std::string(data, length) : std::string();
  if (data) gvFreeRenderData(data);
  if (rc != 0 || out.empty())
    return graphviz_error(fmt::format("Graphviz could not render the call graph as {}", png ? "PNG" : "SVG"), messages);
  return out;
}

}  // namespace callprof
