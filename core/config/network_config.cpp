// [network] of an experiment file -> NetworkConfig. Schema: docs/experiment-schema.md; generator keys:
// docs/network-generators.md.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/config/config_readers.hpp"

namespace kbrain::config_detail {

namespace {

const std::vector<std::string> kNetworkTypes = {"mesh2d", "all_to_all", "matrix_file", "edge_list", "uniform",
                                                "gaussian3d"};
const std::vector<std::string> kUniformModes = {"bernoulli", "exact"};

void read_generator(TableReader& net, NetworkConfig& n) {
  n.cells = read_integer(net, "cells", std::nullopt, 2, kMaxCells);
  n.density = read_number(net, "density", std::nullopt, Bound::Positive);
  if (n.type == "uniform") {
    n.mode = net.get_choice("mode", kUniformModes, std::string("bernoulli"));
    if (n.density > double(n.cells - 1))
      net.fail("density", fmt::format("= {} exceeds the {} other cells of network.cells = {}", n.density,
                                      n.cells - 1, n.cells));
    if (n.mode == "exact" && n.density != std::floor(n.density))
      net.fail("density", fmt::format("must be an integer with network.mode = \"exact\" (got {})", n.density));
  } else {
    n.sigma = read_number(net, "sigma", 1.0, Bound::Positive);
    n.scale = read_number(net, "scale", 5.0, Bound::Positive);
  }
  n.symmetric = read_bool(net, "symmetric", false);
  if (n.symmetric && n.mode == "exact")
    net.fail("symmetric", "= true cannot be combined with network.mode = \"exact\" (an exact-degree symmetric graph "
                          "is a random regular graph, which cannot be drawn cell by cell); use mode = \"bernoulli\"");
  n.seed = static_cast<std::uint64_t>(read_integer(net, "seed", std::int64_t{1}, 0));
  const bool has_low = net.has("conductance_low"), has_high = net.has("conductance_high");
  if (has_low || has_high) {
    if (net.has("conductance"))
      net.fail("conductance", "cannot be combined with network.conductance_low/conductance_high: give either one "
                              "constant conductance or a range [conductance_low, conductance_high)");
    if (!has_high) net.fail_missing("conductance_high", "a number > network.conductance_low, with conductance_low");
    if (!has_low) net.fail_missing("conductance_low", "a number >= 0, with conductance_high");
    n.conductance_range = true;
    n.conductance_low = read_number(net, "conductance_low", std::nullopt, Bound::NonNegative);
    n.conductance_high = read_number(net, "conductance_high", std::nullopt, Bound::NonNegative);
    if (!(n.conductance_low < n.conductance_high))
      net.fail("conductance_high", fmt::format("must be greater than network.conductance_low (got low = {}, high = {})",
                                               n.conductance_low, n.conductance_high));
  } else {
    n.conductance = read_number(net, "conductance", 0.04, Bound::NonNegative);
  }
}

}  // namespace

void read_network(TableReader& root, ExperimentConfig& cfg, const fs::path& base_dir) {
  std::optional<TableReader> net = root.get_table("network");
  if (!net) root.fail_missing("network", "a table [network] with a type");
  NetworkConfig& n = cfg.network;
  n.type = net->get_choice("type", kNetworkTypes, std::nullopt);
  if (n.type == "mesh2d") {
    n.rows = read_integer(*net, "rows", std::nullopt, 1, kMaxCells);
    n.cols = read_integer(*net, "cols", std::nullopt, 1, kMaxCells);
    if (n.rows > kMaxCells / n.cols)
      net->fail("cols", fmt::format("gives network.rows * network.cols = {} * {} cells, more than the {} supported",
                                    n.rows, n.cols, kMaxCells));
    n.cells = n.rows * n.cols;
  } else if (n.type == "all_to_all") {
    n.cells = read_integer(*net, "cells", std::nullopt, 1, kMaxCells);
  } else if (n.generated()) {
    read_generator(*net, n);
  } else {
    n.file = read_existing_file(*net, "file", base_dir);
    n.cells = read_integer(*net, "cells", std::int64_t{0}, 1, kMaxCells);
  }
  if (n.type == "mesh2d" || n.type == "all_to_all")
    n.conductance = read_number(*net, "conductance", 0.04, Bound::NonNegative);
  net->reject_unknown_keys(fmt::format("with network.type = \"{}\"", n.type));
}

}  // namespace kbrain::config_detail
