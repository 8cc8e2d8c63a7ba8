// libdwfl (elfutils 0.188) loads libdebuginfod the first time a module's debug info is not
// found on this machine, whether or not DEBUGINFOD_URLS names a server to ask: and with it
// libcurl, GnuTLS, Kerberos, LDAP and the rest, 29 libraries (57 loaded objects instead of
// 28), 7.6-8.6 ms of CPU in every recording of a program or library built without -g
// (callheavy.c without -g: 18.0 ms recorded, 10.4 ms without them, as with -g). Without a
// server the client would ask nobody, so callprof's own process refuses that one load then
// (docs/symbols.md, "Where debug info is looked for"); every other dlopen goes to libc's.
// In the callprof executable only: its libraries resolve `dlopen` to this definition first.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace {

bool asks_a_server() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls != nullptr && urls[strspn(urls, " \t")] != '\0';
}

bool is_debuginfod_client(const char* file) {
  if (file == nullptr) return false;
  const char* slash = std::strrchr(file, '/');
  return std::strncmp(slash != nullptr ? slash + 1 : file, "libdebuginfod", 13) == 0;
}

}  // namespace

extern "C" void* dlopen(const char* file, int mode) {
  using Dlopen = void* (*)(const char*, int);
  static const Dlopen libc_dlopen = reinterpret_cast<Dlopen>(dlsym(RTLD_NEXT, "dlopen"));
  if (is_debuginfod_client(file) && !asks_a_server()) return nullptr;
  return libc_dlopen != nullptr ? libc_dlopen(file, mode) : nullptr;
}
