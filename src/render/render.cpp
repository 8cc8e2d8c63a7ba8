// Placeholder so the library exists before its first picture lands.
namespace callprof::render {}
