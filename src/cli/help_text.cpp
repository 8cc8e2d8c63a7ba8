#include "cli/help_text.h"

#include <memory>

namespace callprof::cli {
namespace {

class UsageFormatter : public CLI::Formatter {
 public:
  explicit UsageFormatter(std::string operands) : operands_(std::move(operands)) {}
  std::string make_usage(const CLI::App*, std::string name) const override {
    return get_label("Usage") + ": " + name + " " + operands_ + "\n";
  }

 private:
  std::string operands_;
};

}  // namespace

void set_usage(CLI::App& app, std::string operands) {
  app.formatter(std::make_shared<UsageFormatter>(std::move(operands)));
}

std::string choice_lines(const std::vector<std::string>& choices, size_t width) {
  std::string text, line;
  for (const std::string& c : choices) {
    if (!line.empty() && line.size() + 3 + c.size() > width) {
      text += line + " |\n";
      line.clear();
    }
    line += (line.empty() ? "" : " | ") + c;
  }
  return text + line;
}

}  // namespace callprof::cli
