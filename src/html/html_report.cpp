// Assembling the page: the skeleton from assets/page.html with the style sheet, the script
// and three data blocks (the JSON document, the call graph, the Source panel's lines) put in place of its placeholders.
#include "html/html_report.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <span>
#include <sstream>
#include <string_view>

#include "html/assets.h"
#include "html/script_json.h"
#include "html/source_data.h"
#include "render/call_graph.h"
#include "report/json_stream.h"
#include "report/report.h"
#include "util/escape.h"

namespace callprof::html {
namespace {

// The JSON document the page reads: every section, the tree as columns (no name per node).
Result<std::string> report_document(const Analysis& analysis) {
  ReportOptions o;
  o.query = analysis.options();
  o.json = true;
  o.json_layout = JsonLayout::Columns;
  std::ostringstream out;
  if (Status s = render_report(analysis, o, out); !s) return s.error();
  return std::move(out).str();
}

// {"svg": "<svg ...>"} or {"error": "why not"}: the call graph tab's content. Graphviz's SVG
// is UTF-8 XML whose names are already inert (render/graph_text.h); the page parses it as XML.
std::string error_document(std::string_view message) { return "{\"error\": " + json_string(message) + "}"; }

std::string graph_document(const Analysis& analysis, const HtmlOptions& options) {
  auto svg = render_call_graph(analysis, options.graph, GraphFormat::Svg);
  if (!svg) return error_document(svg.error().message);
  return "{\"svg\": " + json_string(svg_element(*svg)) + "}";
}

// The call graph is drawn in a child process while the parent writes the JSON document:
// the two run side by side, and Graphviz's layout, which can take many seconds on the dense
// graph of a many-path profile, is given up at a deadline (the tab then says so).
class GraphJob {
 public:
  GraphJob(const Analysis& analysis, const HtmlOptions& options)
      : started_(std::chrono::steady_clock::now()), timeout_(options.graph_timeout_s) {
    int fds[2];
    if (pipe(fds) != 0) {
      result_ = graph_document(analysis, options);
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {  // the child: draw, send, leave without running any destructor
      close(fds[0]);
      const std::string doc = graph_document(analysis, options);
      for (size_t at = 0; at < doc.size();) {
        const ssize_t n = write(fds[1], doc.data() + at, doc.size() - at);
        if (n <= 0 && errno != EINTR) _exit(1);
        if (n > 0) at += size_t(n);
      }
      _exit(0);
    }
    close(fds[1]);
    if (pid_ < 0) {
      close(fds[0]);
      result_ = graph_document(analysis, options);
      return;
    }
    fd_ = fds[0];
  }
  GraphJob(const GraphJob&) = delete;
  GraphJob& operator=(const GraphJob&) = delete;
  ~GraphJob() { stop(); }

  // The graph document, or an error document when the child failed or ran out of time.
  std::string finish() {
    if (fd_ < 0) return std::move(result_);
    std::string doc;
    char buf[65536];
    while (true) {
      int wait_ms = -1;
      if (timeout_ > 0) {
        const auto left = started_ + std::chrono::duration<double>(timeout_) - std::chrono::steady_clock::now();
        wait_ms = int(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(left).count()));
      }
      pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
      const int ready = poll(&p, 1, wait_ms);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) {
        stop();
        return error_document(
            fmt::format("laying out the call graph took longer than {:g} s; draw it with "
                        "`callprof graph` (or give callprof html a longer --graph-timeout)",
                        timeout_));
      }
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      doc.append(buf, size_t(n));
    }
    close(fd_);
    fd_ = -1;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || doc.empty())
      return error_document("the call graph could not be drawn");
    return doc;
  }

 private:
  void stop() {
    if (fd_ >= 0) close(fd_), fd_ = -1;
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
    }
  }

  std::chrono::steady_clock::time_point started_;
  double timeout_;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string result_;
};

// The page with each placeholder replaced, in one pass (inserted text is never searched).
std::string fill(std::string_view page, std::span<const std::pair<std::string_view, std::string_view>> parts) {
  size_t size = page.size();
  for (const auto& [key, value] : parts) size += value.size();
  std::string out;
  out.reserve(size);
  size_t at = 0;
  while (true) {
    size_t next = std::string_view::npos;
    const std::pair<std::string_view, std::string_view>* which = nullptr;
    for (const auto& part : parts)
      if (const size_t i = page.find(part.first, at); i < next) next = i, which = &part;
    if (!which) break;
    out.append(page.substr(at, next - at)).append(which->second);
    at = next + which->first.size();
  }
  out.append(page.substr(at));
  return out;
}

}  // namespace

Result<std::string> render_html(const Analysis& analysis, const HtmlOptions& options) {
  GraphJob graph_job(analysis, options);
  auto document = report_document(analysis);
  if (!document) return document.error();
  const std::string data = json_for_script(*document);
  document->clear();
  const std::string source = json_for_script(source_document(analysis, options.source_path));
  const std::string graph = json_for_script(graph_job.finish());
  const std::array<std::pair<std::string_view, std::string_view>, 5> parts = {{
      {"@CALLPROF_STYLE@", style_sheet()},
      {"@CALLPROF_SCRIPT@", script()},
      {"@CALLPROF_DATA@", data},
      {"@CALLPROF_GRAPH@", graph},
      {"@CALLPROF_SOURCE@", source},
  }};
  return fill(page_template(), parts);
}

}  // namespace callprof::html
