#include "models/galbraith_som/som_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/config/model_settings.hpp"
#include "core/rng/counter_rng.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/runtime/memory_statement.hpp"

namespace kbrain::galbraith {

const char* to_string(Neighbourhood n) { return n == Neighbourhood::Window ? "window" : "disc"; }

double som_disc_r2(std::int64_t pass) {
  double r2 = kSomDiscStartR2;
  // The floor is reached after sqrt(256) = 16 passes; later passes change nothing.
  for (std::int64_t k = 0; k < std::min<std::int64_t>(pass, 64); ++k) {
    const double r = std::sqrt(r2) - 1;
    r2 = std::max(1.0, r * r);
  }
  return r2;
}

namespace {
std::int64_t tile_count(std::int64_t width, std::int64_t height, int side) {
  return ((width + side - 1) / side) * ((height + side - 1) / side);
}
}  // namespace

int som_tile_side(std::int64_t width, std::int64_t height) {
  int side = 8;
  while (tile_count(width, height, side) > (std::int64_t(1) << 16)) side *= 2;
  return side;
}

std::int64_t som_tiles_reached(int side, int reach) {
  const std::int64_t across = (2 * std::int64_t(reach) + side - 1) / side + 1;  // the box's 2 reach + 1 cells
  return across * across;
}

int som_disc_reach(double r2) {
  int b = static_cast<int>(std::ceil(std::sqrt(r2)));
  while (double(b) * double(b) < r2) ++b;
  while (b > 0 && double(b - 1) * double(b - 1) >= r2) --b;
  return b;
}

std::int64_t som_device_bytes(std::int64_t width, std::int64_t height, std::int64_t pixels, std::int64_t real_bytes) {
  const std::int64_t tiles = tile_count(width, height, som_tile_side(width, height));
  const std::int64_t best_bytes = real_bytes == 4 ? 8 : 16;  // SomBest<Real>: the distance and a 32-bit index
  return 3 * width * height * real_bytes + 3 * pixels + kSomChunkInputs * tiles * best_bytes + 4 + 8;
}

namespace {

// One octave of value noise: a lattice of (cells_x + 1) x (cells_y + 1) random colours.
struct Octave {
  std::int64_t cells_x, cells_y;
  double cell;  // pixels per cell
  std::vector<double> colour;  // 3 per lattice point, x fastest

  Octave(std::int64_t width, std::int64_t height, std::int64_t across, std::uint64_t seed, std::uint64_t octave) {
    cell = double(std::max(width, height)) / double(across);
    cells_x = static_cast<std::int64_t>(std::ceil(double(width) / cell));
    cells_y = static_cast<std::int64_t>(std::ceil(double(height) / cell));
    const std::int64_t points = (cells_x + 1) * (cells_y + 1);
    colour.resize(static_cast<std::size_t>(points) * 3);
    for (std::int64_t p = 0; p < points; ++p)
      for (int c = 0; c < 3; ++c)
        colour[static_cast<std::size_t>(p * 3 + c)] = counter_uniform(seed, (octave << 40) | std::uint64_t(p), std::uint64_t(c));
  }
  double at(double x, double y, int c) const {
    const double fx = x / cell, fy = y / cell;
    const auto ix = std::min<std::int64_t>(static_cast<std::int64_t>(fx), cells_x - 1);
    const auto iy = std::min<std::int64_t>(static_cast<std::int64_t>(fy), cells_y - 1);
    auto smooth = [](double t) { return t * t * (3 - 2 * t); };
    const double tx = smooth(fx - double(ix)), ty = smooth(fy - double(iy));
    auto lattice = [&](std::int64_t i, std::int64_t j) {
      return colour[static_cast<std::size_t>((j * (cells_x + 1) + i) * 3 + c)];
    };
    const double bottom = lattice(ix, iy) + tx * (lattice(ix + 1, iy) - lattice(ix, iy));
    const double top = lattice(ix, iy + 1) + tx * (lattice(ix + 1, iy + 1) - lattice(ix, iy + 1));
    return bottom + ty * (top - bottom);
  }
};

}  // namespace

image::Rgb8Image generated_som_image(std::int64_t width, std::int64_t height, std::uint64_t seed) {
  image::Rgb8Image img;
  img.width = width;
  img.height = height;
  img.rgb.resize(static_cast<std::size_t>(width * height) * 3);
  const Octave coarse(width, height, 8, seed, 0), fine(width, height, 32, seed, 1);
  for (std::int64_t y = 0; y < height; ++y)
    for (std::int64_t x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        const double px = double(x) + 0.5, py = double(y) + 0.5;  // pixel centres; y = 0 is the bottom row
        const double v = 0.75 * coarse.at(px, py, c) + 0.25 * fine.at(px, py, c);
        img.rgb[static_cast<std::size_t>((y * width + x) * 3 + c)] =
            static_cast<std::uint8_t>(std::clamp(std::floor(255 * v + 0.5), 0.0, 255.0));
      }
  return img;
}

namespace {

// The host bytes of a `pixels`-pixel picture read or drawn for the plan (`picture_bytes` while it is made), with, where
// the run's arrays are host memory too (a CPU backend, state_on_host), the SOM's arrays beside it in float, the least
// a run takes: the backend's weights, picture and reductions (som_device_bytes) and the weights' copy for the
// checkpoint pictures (SomSimulation::memory). Refused before the picture exists, naming the largest square-bounded
// grid that fits beside it.
void require_picture_fits(const ExperimentConfig& cfg, const SomPlan& plan, double picture_bytes, std::int64_t pixels,
                          bool state_on_host, const std::string& what) {
  const auto state = [&](std::int64_t w, std::int64_t h) {
    return state_on_host ? double(som_device_bytes(w, h, pixels, 4)) + 3.0 * double(w * h) * 5.0 : 0.0;
  };
  const double available = double(host_available_memory_bytes());
  const double need = picture_bytes + state(plan.width, plan.height);
  if (available <= 0 || need <= available) return;
  std::string fits;
  if (state_on_host && picture_bytes < available) {
    const std::int64_t side = largest_fitting(std::max(plan.width, plan.height), available, [&](std::int64_t k) {
      return picture_bytes + state(std::min(plan.width, k), std::min(plan.height, k));
    });
    fits = fmt::format("a grid of {} x {} neurons fits beside this picture", std::min(plan.width, side),
                       std::min(plan.height, side));
  }
  require_host_bytes(need, available, cfg.source.string(),
                     what + (state_on_host ? fmt::format(" and, on this CPU backend, the {} x {} SOM (float, at least)",
                                                         plan.width, plan.height)
                                           : std::string()),
                     fits);
}

}  // namespace

SomPlan make_som_plan(const ExperimentConfig& cfg, const PlanRequest& request) {
  SomPlan plan;
  plan.config = &cfg;
  const ModelSettings& s = cfg.settings;
  plan.dt_ms = cfg.dt;
  plan.width = request.size > 0 ? request.size : s.integer("som.width");
  plan.height = request.size > 0 ? request.size : s.integer("som.height");
  if (request.density > 0)
    throw ConfigError(fmt::format("{}: galbraith_som has no densities to sweep (compare.sizes sets som.width = "
                                  "som.height)", cfg.source.string()));
  if (double(plan.width) * double(plan.height) > double(kSomMaxElements))
    s.fail(request.size > 0 ? "som.width" : (s.given("som.height") ? "som.height" : "som.width"),
           fmt::format("a {} x {} grid has {:.0f} neurons; at most 2^31 - 1 (32-bit neuron indices on the device)",
                       plan.width, plan.height, double(plan.width) * double(plan.height)));
  plan.seed = static_cast<std::uint64_t>(s.integer("som.seed"));
  plan.alpha = s.number("simulation.alpha");
  const std::string neighbourhood = request.variant.empty() ? s.text("simulation.neighbourhood") : request.variant;
  plan.neighbourhood = neighbourhood == "disc" ? Neighbourhood::Disc : Neighbourhood::Window;

  Stopwatch build;
  if (s.given("input.image")) {
    for (const char* key : {"input.width", "input.height", "input.seed"})
      if (s.given(key)) s.fail(key, "applies only to the generated image (without input.image)");
    const auto& file = s.file("input.image");
    try {
      // its size from the header: a picture whose decoding would not fit is refused before it is decoded
      plan.input = std::make_shared<const image::Rgb8Image>(
          image::read_rgb8(file, kSomMaxElements, [&](std::int64_t w, std::int64_t h, int channels) {
            require_picture_fits(cfg, plan, double(image::decoded_image_bytes(w, h, channels)), w * h,
                                 request.state_on_host,
                                 fmt::format("input.image: {}: the {} x {} picture, decoded ({} channels a pixel)",
                                             file.string(), w, h, channels));
          }));
    } catch (const image::ImageError& e) {
      s.fail("input.image", e.what());
    }
    plan.input_label = file.string();
    plan.host_bytes = 3.0 * double(plan.input->pixels());
  } else {
    const std::int64_t w = s.integer("input.width"), h = s.integer("input.height");
    if (double(w) * double(h) > double(kSomMaxElements))
      s.fail("input.width", fmt::format("a {} x {} image has {:.0f} pixels; at most 2^31 - 1", w, h, double(w) * double(h)));
    const auto seed = static_cast<std::uint64_t>(s.integer("input.seed"));
    plan.host_bytes = 3.0 * double(w) * double(h);
    require_picture_fits(cfg, plan, plan.host_bytes, w * h, request.state_on_host,
                         fmt::format("input: the generated {} x {} picture", w, h));
    plan.input = std::make_shared<const image::Rgb8Image>(generated_som_image(w, h, seed));
    plan.input_label = fmt::format("generated {} x {}, seed {}", w, h, seed);
  }
  plan.network_build_s = build.seconds();

  const std::int64_t passes = s.integer("input.passes");
  plan.steps = request.steps > 0 ? request.steps : passes > 0 ? passes * plan.pixels() : cfg.steps;
  for (const auto c : s.integers("simulation.checkpoints"))
    if (c <= plan.steps) plan.checkpoints.push_back(c);  // later ones: a shorter run (compare's budget) omits them
  std::sort(plan.checkpoints.begin(), plan.checkpoints.end());
  plan.checkpoints.erase(std::unique(plan.checkpoints.begin(), plan.checkpoints.end()), plan.checkpoints.end());

  plan.cells = plan.neurons();
  plan.connections = 3.0 * double(plan.neurons());  // weights
  plan.size_label = fmt::format("{}x{} {}", plan.width, plan.height, to_string(plan.neighbourhood));
  // Compare's serial budget counts mesh-equivalent cell-steps; a neuron's step here (distance, compare, maybe an
  // update) is a few flops, far below a mesh cell's step.
  plan.work_per_step = double(plan.neurons()) / 16.0;
  plan.probe_var = 0;
  plan.record_spikes = false;
  return plan;
}

}  // namespace kbrain::galbraith
