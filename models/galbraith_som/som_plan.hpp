#pragma once
// The plan of a galbraith_som run: the grid, the learning rule, the neighbourhood and the training image (read or
// generated once on the host, in BMP file order, and shared by every backend and precision that runs the plan).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/image/image_file.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain::galbraith {

enum class Neighbourhood { Window, Disc };
const char* to_string(Neighbourhood n);

// The window: |u|, |v| <= kSomWindowHalf (width 5, the experiment text). The disc: r^2 = kSomDiscStartR2 at the
// start (the appendix code).
inline constexpr int kSomWindowHalf = 2;
inline constexpr double kSomDiscStartR2 = 256;

// r^2 of the disc for the inputs of pass `pass` (0-based): 256, then r^2 <- (sqrt(r^2) - 1)^2 after every full
// pass, at least 1 (256, 225, 196, ..., 4, 1, 1, ...).
double som_disc_r2(std::int64_t pass);

// The generated training picture (the thesis' photograph may not be redistributed): a smooth colour field, two
// octaves of value noise. Lattice colours come from the counter RNG keyed (seed, lattice point, channel); the coarse
// octave has 8 cells across the longer side, the fine one 32 cells (so any size looks alike); between lattice
// points colours are blended with a smoothstep weight; value = 0.75 coarse + 0.25 fine, byte = floor(255 value +
// 0.5). Rows in BMP file order (row 0 at the bottom).
image::Rgb8Image generated_som_image(std::int64_t width, std::int64_t height, std::uint64_t seed);

struct SomPlan : RunPlan {
  std::int64_t width = 512, height = 512;  // the grid: neuron n at (n mod W, n / W)
  std::uint64_t seed = 1;                  // weight initialisation
  double alpha = 0.05;
  Neighbourhood neighbourhood = Neighbourhood::Window;
  std::shared_ptr<const image::Rgb8Image> input;  // the training pixels, BMP file order
  std::string input_label;                        // the file, or "generated W x H, seed s"
  std::vector<std::int64_t> checkpoints;          // ascending, distinct, within [1, steps]

  std::int64_t neurons() const { return width * height; }
  std::int64_t pixels() const { return input->pixels(); }
};

// Largest grid or picture: indices are 32-bit on the device.
inline constexpr std::int64_t kSomMaxElements = 2147483647;

// How a run trains (som_kernels.hpp, som_simulation.hpp): chunks of up to kSomChunkInputs consecutive inputs, each
// a pass for the inputs' minima per square tile of neurons and one team (at most kSomResolveTeamMax threads) that
// takes the inputs in order. Longer chunks spread the two launches over more inputs, but every update makes more
// tiles stale for the chunk's later inputs; a larger team scans more candidates at once, but each of its
// reductions and barriers takes longer (docs/models/galbraith-som.md).
inline constexpr int kSomChunkInputs = 40;
inline constexpr int kSomResolveTeamMax = 1024;
// Floating-point operations per neuron and input for its distance (3 scalings of the pixel, 3 differences, 3 squares,
// 2 sums; som_distance and SomPixel); recomputed tiles and the neighbourhood's updates left out.
inline constexpr int kSomFlopsPerNeuron = 11;
// Side of the tiles: 8, doubled while the grid would have more than 2^16 tiles (the resolving team keeps a bit per
// tile in its scratch memory, beside a candidate per thread and the list of updated tiles: 48 KiB in all on GPUs).
int som_tile_side(std::int64_t width, std::int64_t height);
// Tiles of side `side` that a square of half-width `reach` (the update's bounding box) can overlap.
std::int64_t som_tiles_reached(int side, int reach);
// The half-width of the square that holds the disc u^2 + v^2 < r2: the least b with b^2 >= r2.
int som_disc_reach(double r2);

// Device bytes of a run in `real_bytes` precision: three weight channels, the picture (3 bytes a pixel), a chunk's
// tile minima, the last BMU and the digest.
std::int64_t som_device_bytes(std::int64_t width, std::int64_t height, std::int64_t pixels, std::int64_t real_bytes);

SomPlan make_som_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
SomPlan make_som_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

}  // namespace kbrain::galbraith
