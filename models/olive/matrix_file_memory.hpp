#pragma once
// The host memory a conductance-matrix file (network.type = "matrix_file") takes while it is read and turned into the
// CSR. The dense text states its side (the first row) but no junction count, so the reader asks before it holds each
// larger size (core/network/gap_network.hpp) and the plan refuses, naming the file and the bytes, the size that would
// not fit, before that memory is allocated.
#include <cstdint>
#include <string>

namespace kbrain::olive {

// Host bytes of a `cells`-cell matrix read into room for `junctions` entries and its CSR built from them: per
// junction a 16-byte read entry, the CSR's 4-byte source and 8-byte conductance; per cell the CSR offsets, the
// build's cursor, g_CaL, a row's text and tokens (at least 2 and 16 bytes a column) and `state_bytes`.
double matrix_read_host_bytes(std::int64_t cells, std::int64_t junctions, double state_bytes);

// Refuses (ConfigError "<where>: [network]: network.file: <file>: the N x N conductance matrix ... needs X of host
// memory but Y are available; at most ... fit") a read of that size beyond `available` bytes (0: unknown, not
// checked). `state_bytes` > 0: the cells' state is host memory too (a CPU backend).
void require_matrix_fits(const std::string& where, const std::string& file, std::int64_t cells,
                         std::int64_t junctions, double state_bytes, double available);

}  // namespace kbrain::olive
