// Libraries the program closed with dlclose(): their address ranges are gone from the
// loader's list by the time the data is written, and without them their functions had no
// names. Each unloaded library is kept here (path, range, build id) and written with the
// live ones, unless a library loaded later took its addresses (then the live one names
// them: a node's function is an address, so two libraries at one address share nodes).
#pragma once

#include <link.h>
#include <stdint.h>

#include "wire/raw_dump.h"

namespace callprof::rt {

struct ClosedModule {
  wire::DumpModule module;  // path_bytes and build_id_bytes say how much of the arrays is used
  char path[512];
  unsigned char build_id[64];
};

// Libraries unloaded so far (entries below the count are complete and never change).
uint32_t closed_module_count();
const ClosedModule& closed_module(uint32_t i);

// The address range, bias and build id of a loaded object (dump_writer.cpp).
wire::DumpModule describe_module(const dl_phdr_info* info, const unsigned char** build_id);

}  // namespace callprof::rt
