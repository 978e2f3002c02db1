#pragma once
// A gap-junction network on the host: CSR of each cell's INCOMING junctions, sources ascending within a cell.
// Built by the generators in core/network/*.cpp, uploaded by the models.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace kbrain {

struct GapNetwork {
  std::int64_t cells = 0;
  std::vector<std::int64_t> offsets;  // cells + 1
  std::vector<std::int32_t> sources;  // offsets.back() entries
  std::vector<double> conductance;    // empty => every junction has `constant_conductance`
  double constant_conductance = 0.0;
  // mesh2d only: lets kernels compute neighbours from the index instead of reading the CSR
  std::int64_t mesh_rows = 0, mesh_cols = 0;

  std::int64_t junctions() const { return offsets.empty() ? 0 : offsets.back(); }
  bool is_mesh() const { return mesh_rows > 0; }
  double g(std::int64_t k) const { return conductance.empty() ? constant_conductance : conductance[k]; }
};

// Generators and readers. All throw std::invalid_argument / std::runtime_error with a message that names the file
// and line for file input. The CSR they return is validated (no self junctions, sources in range, ascending).
GapNetwork make_mesh2d(std::int64_t rows, std::int64_t cols, double conductance);
GapNetwork make_all_to_all(std::int64_t cells, double conductance);
// InfOli dense matrix: N lines of N numbers; row i col j = conductance through which cell j receives from cell i.
// `check_size`, when given, is called with (cells, junctions) before the reader holds that many: once the first row
// gives N (junctions 0), then each time the junctions read so far outgrow what it holds (junctions: the new room,
// which the CSR is later built from). The text states no junction count up front, so a caller refuses the size that
// would not fit its memory as it grows, before it is allocated.
GapNetwork read_conductance_matrix(const std::filesystem::path& file, std::int64_t expected_cells /*0 = any*/,
                                   const std::function<void(std::int64_t cells, std::int64_t junctions)>&
                                       check_size = {});
// Sparse edge list, format in docs/network-formats.md.
// `check_cells`, when given, is called with the header's cell count before anything of that size is allocated (the
// header alone sizes the CSR offsets: a caller refuses a count that would not fit its memory).
GapNetwork read_edge_list(const std::filesystem::path& file, std::int64_t expected_cells /*0 = from file*/,
                          const std::function<void(std::int64_t cells)>& check_cells = {});

}  // namespace kbrain
