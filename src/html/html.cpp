// Placeholder so the library exists before the page lands.
namespace callprof::html {}
