// libgvc in memory. Graphviz's plugins are handed to it as built-ins and never looked up
// through its plugin configuration (config6a, written by the `graphviz` package or libgvc6's
// trigger; without it, demand loading crashed libgvc 2.42 in its label code): the layout
// (dot) and SVG renderer (core) plugins, and the cairo plugin (pango) when it is there: it
// measures text with the machine's fonts, for SVG as for PNG (without it Graphviz estimates
// widths from Arial's metrics, and a browser that draws the text in DejaVu Sans spills it
// out of its box). PNG falls back to the gd plugin.
//
// libgvc and libcgraph are opened when the first graph is drawn, and every plugin by its
// path, none linked: the other commands (a recording's start-up is part of its cost) load
// none of Graphviz's eight libraries (0.5 ms), and callprof needed an rpath to Graphviz's
// private directory, where every library of every command was first looked for, some 20
// paths each (338 failed opens per start), and in the current directory (the empty entry
// CMake padded the rpath with).
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

// The functions of libgvc and libcgraph used here, looked up once (the headers give their
// types; nothing links them).
struct GraphvizApi {
  decltype(&::gvContextPlugins) context_plugins;
  decltype(&::gvFreeContext) free_context;
  decltype(&::gvLayout) layout;
  decltype(&::gvFreeLayout) free_layout;
  decltype(&::gvRenderData) render_data;
  decltype(&::gvFreeRenderData) free_render_data;
  decltype(&::agmemread) memread;
  decltype(&::agclose) close;
  decltype(&::agseterrf) seterrf;
  decltype(&::agseterr) seterr;
};

template <typename F>
bool look_up(void* library, const char* name, F& out) {
  out = library ? reinterpret_cast<F>(dlsym(library, name)) : nullptr;
  return out != nullptr;
}

Result<const GraphvizApi*> graphviz() {
  static const Result<GraphvizApi> api = []() -> Result<GraphvizApi> {
    void* gvc = dlopen("libgvc.so.6", RTLD_NOW | RTLD_LOCAL);
    void* cgraph = dlopen("libcgraph.so.6", RTLD_NOW | RTLD_LOCAL);
    GraphvizApi a{};
    if (look_up(gvc, "gvContextPlugins", a.context_plugins) && look_up(gvc, "gvFreeContext", a.free_context) &&
        look_up(gvc, "gvLayout", a.layout) && look_up(gvc, "gvFreeLayout", a.free_layout) &&
        look_up(gvc, "gvRenderData", a.render_data) && look_up(gvc, "gvFreeRenderData", a.free_render_data) &&
        look_up(cgraph, "agmemread", a.memread) && look_up(cgraph, "agclose", a.close) &&
        look_up(cgraph, "agseterrf", a.seterrf) && look_up(cgraph, "agseterr", a.seterr))
      return a;
    const char* why = dlerror();
    return make_error(fmt::format("the call graph needs Graphviz's libgvc.so.6 and libcgraph.so.6 (Debian: libgvc6){}",
                                  why ? fmt::format(" ({})", why) : std::string()));
  }();
  if (!api) return api.error();
  return &api.value();
}

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
  MessageCapture(const GraphvizApi& gv, std::string& into) : gv_(gv), previous_(gv.seterrf(collect_message)) {
    g_messages = &into;
    gv_.seterr(AGERR);
  }
  ~MessageCapture() {
    gv_.seterrf(previous_);
    g_messages = nullptr;
  }
  MessageCapture(const MessageCapture&) = delete;
  MessageCapture& operator=(const MessageCapture&) = delete;

 private:
  const GraphvizApi& gv_;
  agusererrf previous_;
};

// A laid-out graph; the layout is freed before the graph, the graph before the context.
class Layout {
 public:
  Layout(const GraphvizApi& gv, GVC_t* gvc, Agraph_t* g)
      : gv_(gv), gvc_(gvc), g_(g), ok_(gv.layout(gvc, g, "dot") == 0) {}
  ~Layout() {
    if (ok_) gv_.free_layout(gvc_, g_);
  }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
  bool ok() const { return ok_; }

 private:
  const GraphvizApi& gv_;
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
  auto api = graphviz();
  if (!api) return api.error();
  const GraphvizApi& gv = **api;
  std::string messages;
  MessageCapture capture(gv, messages);
  const bool png = format == GraphFormat::Png;
  auto plugins = plugins_with(png);
  if (!plugins) return plugins.error();
  auto free_context = [&gv](GVC_t* c) { gv.free_context(c); };
  std::unique_ptr<GVC_t, decltype(free_context)> gvc(gv.context_plugins(*plugins, 0), free_context);
  if (!gvc) return graphviz_error("Graphviz could not start", messages);
  auto close = [&gv](Agraph_t* g) { gv.close(g); };
  std::unique_ptr<Agraph_t, decltype(close)> graph(gv.memread(dot.c_str()), close);
  if (!graph) return graphviz_error("Graphviz could not read the call graph", messages);
  Layout layout(gv, gvc.get(), graph.get());
  if (!layout.ok()) return graphviz_error("Graphviz could not lay out the call graph", messages);
  char* data = nullptr;
  unsigned int length = 0;
  // Core's SVG (text and shapes), never cairo's (glyph outlines), whichever plugins are in.
  const int rc = gv.render_data(gvc.get(), graph.get(), png ? "png" : "svg:svg:core", &data, &length);
  std::string out = rc == 0 && data ? std::string(data, length) : std::string();
  if (data) gv.free_render_data(data);
  if (rc != 0 || out.empty())
    return graphviz_error(fmt::format("Graphviz could not render the call graph as {}", png ? "PNG" : "SVG"), messages);
  return out;
}

}  // namespace callprof
