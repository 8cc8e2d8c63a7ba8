// fmt's compiled part (its non-template functions and the instantiations callprof uses), built
// into callprof with CALLPROF_STATIC_DEPS: Debian ships fmt as a shared library only, and
// every shared library is work for the loader at each start of callprof (libfmt.so brought
// libstdc++.so with it). The definitions are fmt's own, from its format-inl.h; the
// explicit instantiations below are the ones callprof's code links against.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
template void buffer<char>::append(const char*, const char*);
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
}  // namespace detail
FMT_END_NAMESPACE
