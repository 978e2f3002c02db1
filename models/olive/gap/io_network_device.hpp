#pragma once
// The gap-junction network on the execution space's memory: CSR (general) and the mesh shortcut.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "core/network/gap_network.hpp"
#include "core/network/generate_network.hpp"  // GeneratedNetwork::from_host
#include "models/olive/gap/io_gap_junctions.hpp"

namespace kbrain::olive {

template <class Real, class Mem>
struct DeviceGapNetwork {
  std::int64_t cells = 0;
  bool mesh = false;
  int lattice_side = 0;  // > 0: cells sit on a cube of this side (gaussian3d), so the brick-tiled kernel applies
  CsrGapJunctions<Real, Mem> csr;
  MeshGapJunctions<Real, Mem> grid;

  // use_mesh_kernel: for mesh2d networks compute neighbours from the index (no CSR upload).
  static DeviceGapNetwork upload(const GapNetwork& net, bool use_mesh_kernel) {
    if (net.cells > INT32_MAX) throw std::invalid_argument("network has more than 2^31-1 cells");
    DeviceGapNetwork d;
    d.cells = net.cells;
    d.mesh = use_mesh_kernel && net.is_mesh() && net.conductance.empty();
    if (d.mesh) {
      d.grid = MeshGapJunctions<Real, Mem>::make(static_cast<int>(net.mesh_rows), static_cast<int>(net.mesh_cols),
                                                 Real(net.constant_conductance));
      return d;
    }
    const auto csr = GeneratedNetwork<Real, Mem>::from_host(net);
    d.csr.offsets = csr.offsets;
    d.csr.sources = csr.sources;
    d.csr.g = csr.g;
    d.csr.g_const = Real(net.constant_conductance);
    return d;
  }

  // A CSR already in Mem (e.g. generated on the device): no copy. g of extent 0 => every junction has g_const.
  static DeviceGapNetwork from_views(std::int64_t cells, Kokkos::View<const std::int64_t*, Mem> offsets,
                                     Kokkos::View<const std::int32_t*, Mem> sources,
                                     Kokkos::View<const Real*, Mem> g, double g_const, int lattice_side = 0) {
    if (cells > INT32_MAX) throw std::invalid_argument("network has more than 2^31-1 cells");
    if (static_cast<std::int64_t>(offsets.extent(0)) != cells + 1)
      throw std::invalid_argument("CSR offsets must have cells + 1 entries");
    if (g.extent(0) != 0 && g.extent(0) != sources.extent(0))
      throw std::invalid_argument("CSR conductances must have one entry per junction (or none)");
    DeviceGapNetwork d;
    d.cells = cells;
    d.csr.offsets = offsets;
    d.csr.sources = sources;
    d.csr.g = g;
    d.csr.g_const = Real(g_const);
    d.lattice_side = lattice_side;
    return d;
  }

  std::int64_t device_bytes() const {
    if (mesh) return 0;
    return static_cast<std::int64_t>(csr.offsets.extent(0) * sizeof(std::int64_t) +
                                     csr.sources.extent(0) * sizeof(std::int32_t) + csr.g.extent(0) * sizeof(Real));
  }
};

}  // namespace kbrain::olive
