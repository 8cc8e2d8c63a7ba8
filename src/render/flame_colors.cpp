// Frame colours: hashes to palettes, kinds to fixed families, changes to a red-blue scale.
#include "render/flame_colors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace callprof {
namespace {

std::string hex(double r, double g, double b) {
  const auto c = [](double v) { return int(std::lround(std::clamp(v, 0.0, 255.0))); };
  return fmt::format("#{:02x}{:02x}{:02x}", c(r), c(g), c(b));
}

// Three fractions in [0, 1] from different bits of the name's hash.
struct Variation {
  double a, b, c;
};
Variation variation(std::string_view name) {
  const uint32_t h = stable_hash(name);
  return {double(h & 0x3ff) / 1023.0, double((h >> 10) & 0x3ff) / 1023.0, double((h >> 20) & 0x3ff) / 1023.0};
}

// HSL (h in degrees, s and l in [0, 1]) to "#rrggbb".
std::string hsl(double h, double s, double l) {
  const double c = (1 - std::fabs(2 * l - 1)) * s;
  const double hp = std::fmod(h, 360.0) / 60.0;
  const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  if (hp < 1)
    r = c, g = x;
  else if (hp < 2)
    r = x, g = c;
  else if (hp < 3)
    g = c, b = x;
  else if (hp < 4)
    g = x, b = c;
  else if (hp < 5)
    r = x, b = c;
  else
    r = c, b = x;
  const double m = l - c / 2;
  return hex((r + m) * 255, (g + m) * 255, (b + m) * 255);
}

}  // namespace

uint32_t stable_hash(std::string_view text) {
  uint32_t h = 2166136261u;
  for (char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 16777619u;
  return h;
}

FrameFill name_fill(std::string_view name) {
  const Variation v = variation(name);
  return hex(205 + 50 * v.c, 230 * v.a, 55 * v.b);
}

FrameFill module_fill(std::string_view module, std::string_view name) {
  // Hues from red through yellow and green to cyan: blue is for system calls and magenta
  // for search matches. The function's own hash varies the lightness within the family.
  const double hue = double(stable_hash(module) % 1000) / 1000.0 * 180.0;
  return hsl(hue, 0.7, 0.55 + 0.2 * variation(name).a);
}

FrameFill kind_fill(FunctionKind kind, std::string_view name) {
  const Variation v = variation(name);
  switch (kind) {
    case FunctionKind::Normal:
      return "";
    case FunctionKind::Syscall:
      return hex(80 + 40 * v.a, 140 + 40 * v.a, 225 + 30 * v.b);
    case FunctionKind::Kernel:
      return hex(240, 145 + 30 * v.a, 40 + 20 * v.b);
    case FunctionKind::ThreadGroup:
      return hex(110 + 30 * v.a, 190 + 20 * v.a, 120);
    case FunctionKind::Pruned:
    case FunctionKind::Truncated:
    case FunctionKind::Unhooked:
      return std::string(kHatchFill);
  }
  return "";
}

FrameFill diff_fill(double base, double next) {
  const double larger = std::max(base, next);
  const double change = larger > 0 ? std::min(1.0, std::fabs(next - base) / larger) : 0;
  const double fade = 235 - 195 * change;
  if (next > base) return hex(245 + 10 * change, fade, fade);
  if (next < base) return hex(fade, fade, 245 + 10 * change);
  return hex(235, 235, 235);
}

}  // namespace callprof
