// demangle(): C++ symbol names for humans, via the C++ runtime's demangler.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "symbols/symbolizer.h"

namespace callprof {

std::string demangle(std::string_view linkage_name) {
  // Only Itanium-mangled names: __cxa_demangle also accepts bare type encodings,
  // so a C function called "f" would otherwise come back as "float".
  if (linkage_name.size() < 3 || linkage_name.substr(0, 2) != "_Z") {
    return std::string(linkage_name);
  }
  // A PLT stub's name (plt_entries.h): the symbol's, demangled, and the suffix.
  constexpr std::string_view kPlt = "@plt";
  if (linkage_name.size() > kPlt.size() && linkage_name.substr(linkage_name.size() - kPlt.size()) == kPlt)
    return demangle(linkage_name.substr(0, linkage_name.size() - kPlt.size())) + std::string(kPlt);
  std::string input(linkage_name);  // needs a terminated string
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  if (status != 0 || !out) return input;
  return std::string(out.get());
}

}  // namespace callprof
