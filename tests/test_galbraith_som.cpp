// The Galbraith 2010 self-organising map (models/galbraith_som/): every backend against a plain host reference
// (loops, the same arithmetic), Serial == OpenMP bit for bit in both precisions and neighbourhoods, the tie rule of
// the BMU search, the disc's shrink schedule, BMP file order for every image format, pictures from the runner, and
// the refusals of bad images and grids.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/serial/serial_backend.hpp"
#include "core/image/image_file.hpp"
#include "core/rng/counter_rng.hpp"
#include "models/galbraith_som/som_model.hpp"
#include "models/registry.hpp"
#include "models/runtime/model_runner.hpp"
#include "tests/backend_types.hpp"
#include "tests/test_helpers.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;

std::string som_toml(std::int64_t width, std::int64_t height, const std::string& neighbourhood, std::int64_t steps,
                     const std::string& input = "width = 6\nheight = 5\nseed = 9\n", const std::string& extra = "") {
  return "name = \"t\"\n[model]\nkind = \"galbraith_som\"\n[simulation]\nsteps = " + std::to_string(steps) +
         "\nneighbourhood = \"" + neighbourhood + "\"\n" + extra + "[som]\nwidth = " + std::to_string(width) +
         "\nheight = " + std::to_string(height) + "\nseed = 3\n[input]\n" + input;
}

template <class Backend, class Real>
struct Trained {
  std::array<std::vector<Real>, 3> w;
  double digest = 0;
};

template <class Backend, class Real>
Trained<Backend, Real> train(const SomPlan& plan,
                             std::optional<SomStrategy> strategy = std::nullopt,
                             ResidentLeague league = resident_league<Backend>()) {
  RunRequest request;
  RunResult res;
  SomSimulation<Backend, Real> sim(plan, request, res, strategy, league);
  for (std::int64_t n = 0; n < plan.steps; ++n) sim.step();
  Trained<Backend, Real> t;
  t.w = sim.weights();
  t.digest = sim.bmu_digest();
  return t;
}

// The study's algorithm in plain loops, in precision T, with the model's arithmetic (the same expressions in the
// same order, so host backends agree to the bit): initial weights, BMU = first strict minimum, window or disc with
// its own shrink loop.
template <class T>
struct Reference {
  std::array<std::vector<T>, 3> w;
  std::vector<std::int32_t> bmus;
  double digest() const {
    std::uint64_t h = kSomDigestStart;
    for (auto b : bmus) h = som_digest_fold(h, b);
    return double(h >> 11);
  }
};

template <class T>
Reference<T> reference(const SomPlan& plan) {
  const std::int64_t W = plan.width, H = plan.height, N = W * H, P = plan.pixels();
  Reference<T> ref;
  for (int c = 0; c < 3; ++c) {
    ref.w[c].resize(N);
    for (std::int64_t n = 0; n < N; ++n) {
      const int k = static_cast<int>(counter_uniform(plan.seed, std::uint64_t(n), std::uint64_t(c)) * 256.0);
      ref.w[c][n] = T(k) / T(255);
    }
  }
  double r2 = 256;
  const T alpha = T(plan.alpha);
  for (std::int64_t step = 0; step < plan.steps; ++step) {
    if (step > 0 && step % P == 0) {
      const double r = std::sqrt(r2) - 1;
      r2 = std::max(1.0, r * r);
    }
    const std::uint8_t* px = plan.input->rgb.data() + 3 * (step % P);
    const T p[3] = {T(px[0]) / T(255), T(px[1]) / T(255), T(px[2]) / T(255)};
    std::int64_t best = 0;
    T best_d = std::numeric_limits<T>::infinity();
    for (std::int64_t n = 0; n < N; ++n) {
      const T dr = ref.w[0][n] - p[0], dg = ref.w[1][n] - p[1], db = ref.w[2][n] - p[2];
      const T d = dr * dr + dg * dg + db * db;
      if (d < best_d) {
        best_d = d;
        best = n;
      }
    }
    ref.bmus.push_back(static_cast<std::int32_t>(best));
    const std::int64_t bx = best % W, by = best / W;
    for (std::int64_t y = 0; y < H; ++y)
      for (std::int64_t x = 0; x < W; ++x) {
        const std::int64_t u = x - bx, v = y - by;
        const bool inside = plan.neighbourhood == Neighbourhood::Disc ? double(u * u + v * v) < r2
                                                                      : std::abs(u) <= 2 && std::abs(v) <= 2;
        if (!inside) continue;
        for (int c = 0; c < 3; ++c) ref.w[c][y * W + x] += alpha * (p[c] - ref.w[c][y * W + x]);
      }
  }
  return ref;
}

template <class A, class B>
double max_diff(const std::array<std::vector<A>, 3>& a, const std::array<std::vector<B>, 3>& b) {
  double m = 0;
  for (int c = 0; c < 3; ++c) {
    REQUIRE(a[c].size() == b[c].size());
    for (std::size_t i = 0; i < a[c].size(); ++i) m = std::max(m, std::fabs(double(a[c][i]) - double(b[c][i])));
  }
  return m;
}

// Neurons of a W x H grid with u^2 + v^2 < r2 around bmu (no wrap-around).
std::int64_t disc_count(std::int64_t W, std::int64_t H, std::int64_t bmu, double r2) {
  std::int64_t count = 0;
  for (std::int64_t y = 0; y < H; ++y)
    for (std::int64_t x = 0; x < W; ++x) {
      const std::int64_t u = x - bmu % W, v = y - bmu / W;
      count += double(u * u + v * v) < r2;
    }
  return count;
}

std::int64_t changed(const std::array<std::vector<double>, 3>& a, const std::array<std::vector<double>, 3>& b) {
  std::int64_t count = 0;
  for (std::size_t i = 0; i < a[0].size(); ++i) count += a[0][i] != b[0][i] || a[1][i] != b[1][i] || a[2][i] != b[2][i];
  return count;
}

// A 24-bit BMP, bottom-up: rows of `width` BGR pixels padded to 4 bytes, stored bottom row first. `rgb` is in BMP
// file order already (bottom row first).
std::string bmp_file(int width, int height, const std::vector<std::uint8_t>& rgb) {
  const int row = (width * 3 + 3) / 4 * 4, data = row * height;
  std::string f(54 + data, '\0');
  auto put32 = [&](int at, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) f[at + k] = char((v >> (8 * k)) & 0xff);
  };
  f[0] = 'B';
  f[1] = 'M';
  put32(2, 54 + data);
  put32(10, 54);
  put32(14, 40);
  put32(18, width);
  put32(22, height);
  f[26] = 1;
  f[28] = 24;
  put32(34, data);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) f[54 + y * row + x * 3 + c] = char(rgb[(y * width + x) * 3 + (2 - c)]);
  return f;
}

std::string config_error(const std::string& toml, const std::filesystem::path& source) {
  try {
    const ExperimentConfig cfg = parse_model_experiment(toml, source);
    make_som_plan(cfg, {});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("galbraith_som") {
  TEST_CASE_TEMPLATE_DEFINE("training equals the host reference; host backends bit-identical to Serial", Backend,
                            som_reference) {
    // 40 x 36 grid, 6 x 5 generated picture, 18 passes and a bit: the disc shrinks to its floor of 1. Both
    // strategies (a reduce per input; chunks) on every backend.
    for (const auto strategy : {SomStrategy::PerInput, SomStrategy::Chunks, SomStrategy::Resident})
    for (const std::string nb : {"window", "disc"}) {
      CAPTURE(nb);
      CAPTURE(int(strategy));
      const ExperimentConfig cfg = parse_model_experiment(som_toml(40, 36, nb, 30 * 18 + 7), "som.toml");
      const SomPlan plan = make_som_plan(cfg, {});
      REQUIRE(plan.pixels() == 30);
      const Reference<double> ref_d = reference<double>(plan);
      const Reference<float> ref_f = reference<float>(plan);
      const auto dev_d = train<Backend, double>(plan, strategy);
      const auto dev_f = train<Backend, float>(plan, strategy);
      const auto ser_d = train<SerialBackend, double>(plan);
      const auto ser_f = train<SerialBackend, float>(plan);
      CHECK(dev_d.digest == ref_d.digest());
      CHECK(ser_d.digest == ref_d.digest());
      CHECK(ser_f.digest == ref_f.digest());
      if (!Backend::is_gpu) {
        // The update is per neuron and the argmin deterministic: Serial and OpenMP agree to the bit.
        CHECK(dev_d.w == ser_d.w);
        CHECK(dev_f.w == ser_f.w);
        CHECK(dev_f.digest == ser_f.digest);
        CHECK(max_diff(dev_d.w, ref_d.w) == 0);
        CHECK(max_diff(dev_f.w, ref_f.w) == 0);
      } else {
        // GPUs may contract a * b + c into one rounding: within float rounding of the reference.
        CHECK(max_diff(dev_d.w, ref_d.w) < 1e-12);
        CHECK(max_diff(dev_f.w, ref_f.w) < 1e-5);
      }
      // The two neighbourhoods train differently, and float stays within float rounding of double.
      CHECK(max_diff(ref_f.w, ref_d.w) < 1e-5);
    }
    const ExperimentConfig a = parse_model_experiment(som_toml(40, 36, "window", 200), "som.toml");
    const ExperimentConfig b = parse_model_experiment(som_toml(40, 36, "disc", 200), "som.toml");
    CHECK(max_diff(reference<double>(make_som_plan(a, {})).w, reference<double>(make_som_plan(b, {})).w) > 0.01);
  }
  TEST_CASE_TEMPLATE_APPLY(som_reference, KBRAIN_TEST_BACKENDS);

  TEST_CASE("resident teams: every team owns neurons; a minimum survives its stamped words") {
    // A team without neurons would publish no candidate; 1440 neurons on 132 teams of 11 left the last one empty.
    for (std::int64_t n = 1; n <= 400; ++n)
      for (int teams = 1; teams <= 140; ++teams) {
        const SomResidentSplit s = som_resident_split(n, teams);
        CAPTURE(n);
        CAPTURE(teams);
        REQUIRE(s.teams >= 1);
        REQUIRE(s.teams <= teams);
        REQUIRE(std::int64_t(s.teams) * s.per_team >= n);         // every neuron has a team
        REQUIRE(std::int64_t(s.teams - 1) * s.per_team < n);      // and the last team has one
      }
    // Words carry the input's stamp whatever the candidate, none() included, and give back what was published.
    std::uint64_t slot[2] = {0, 0};
    for (const std::int64_t k : {std::int64_t(0), std::int64_t(254), std::int64_t(255), std::int64_t(1) << 40}) {
      for (const SomBest<float> b : {SomBest<float>::none(), SomBest<float>{0.25f, 16777215}, SomBest<float>{0.f, 0}}) {
        SomStampedBest<float>::publish(slot, b, k);
        REQUIRE((slot[0] >> 56) == std::uint64_t(k % 255 + 1));  // else await would wait for ever
        const SomBest<float> got = SomStampedBest<float>::await(slot, k);
        CHECK(got.value == b.value);
        if (b.index < SomStampedBest<float>::kMaxNeurons) CHECK(got.index == b.index);
      }
      for (const SomBest<double> b : {SomBest<double>::none(), SomBest<double>{1.0 / 3.0, 12345}}) {
        SomStampedBest<double>::publish(slot, b, k);
        REQUIRE((slot[0] >> 56) == std::uint64_t(k % 255 + 1));  // else await would wait for ever
        const SomBest<double> got = SomStampedBest<double>::await(slot, k);
        CHECK(got.value == b.value);
        if (b.index < SomStampedBest<double>::kMaxNeurons) CHECK(got.index == b.index);
      }
    }
  }

  TEST_CASE_TEMPLATE_DEFINE("resident kernel shapes: weights in registers (1 to 16 a thread) or read per input",
                            Backend, som_resident_shapes) {
    // Leagues the backend can hold resident at once (a Serial league is one team), and grids that give each a
    // thread 1 to 16 neurons (weights in registers) or more (weights read per input). Float holds up to 16,
    // double up to 8.
    std::vector<ResidentLeague> leagues = {{1, 1}};
    if (Backend::is_gpu) leagues = {{2, 32}, {4, 32}, {4, 64}, resident_league<Backend>()};
    else if (resident_league<Backend>().teams > 1) leagues.push_back({2, 1});
    std::set<int> shapes_float, shapes_double;
    for (const auto& league : leagues)
      for (const auto& grid : std::vector<std::pair<int, int>>{{1, 1}, {5, 3}, {4, 2}, {2, 1}, {8, 8}, {40, 36}})
        for (const std::string nb : {"window", "disc"}) {
          const int w = grid.first, h = grid.second;
          CAPTURE(league.teams);
          CAPTURE(league.team_size);
          CAPTURE(w);
          CAPTURE(h);
          CAPTURE(nb);
          const ExperimentConfig cfg = parse_model_experiment(som_toml(w, h, nb, 30 * 3 + 7), "som.toml");
          const SomPlan plan = make_som_plan(cfg, {});
          const SomResidentSplit split = som_resident_split(plan.neurons(), league.teams);
          const std::int64_t per_thread = (split.per_team + league.team_size - 1) / league.team_size;
          shapes_float.insert(som_resident_held<float>(per_thread));
          shapes_double.insert(som_resident_held<double>(per_thread));
          const Reference<double> ref_d = reference<double>(plan);
          const Reference<float> ref_f = reference<float>(plan);
          const auto dev_d = train<Backend, double>(plan, SomStrategy::Resident, league);
          const auto dev_f = train<Backend, float>(plan, SomStrategy::Resident, league);
          CHECK(dev_d.digest == ref_d.digest());
          if (!Backend::is_gpu) {
            CHECK(dev_f.digest == ref_f.digest());
            CHECK(max_diff(dev_d.w, ref_d.w) == 0);
            CHECK(max_diff(dev_f.w, ref_f.w) == 0);
          } else {
            CHECK(max_diff(dev_d.w, ref_d.w) < 1e-12);
            CHECK(max_diff(dev_f.w, ref_f.w) < 1e-5);
          }
        }
    // every shape was reached: the register shapes and the per-input reads
    CHECK(shapes_float.count(0) == 1);
    CHECK(shapes_float.count(1) == 1);
    CHECK(shapes_float.count(16) == 1);
    CHECK(shapes_double.count(0) == 1);
    CHECK(shapes_double.count(8) == 1);
  }
  TEST_CASE_TEMPLATE_APPLY(som_resident_shapes, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("chunks train as one input at a time: full chunks, stale tiles, edge tiles, any cut",
                            Backend, som_chunks) {
    // A 70 x 45 grid (9 x 6 tiles of 8, the last column and row clipped) and a 25 x 12 picture: chunks reach their
    // full length, and each input's update makes tiles stale for the chunk's later inputs.
    REQUIRE(som_tile_side(70, 45) == 8);
    for (const auto strategy : {SomStrategy::PerInput, SomStrategy::Chunks, SomStrategy::Resident})
    for (const std::string nb : {"window", "disc"}) {
      CAPTURE(nb);
      CAPTURE(int(strategy));
      const ExperimentConfig cfg =
          parse_model_experiment(som_toml(70, 45, nb, 2 * 300 + 61, "width = 25\nheight = 12\nseed = 4\n"), "som.toml");
      const SomPlan plan = make_som_plan(cfg, {});
      REQUIRE(plan.pixels() == 300);
      REQUIRE(plan.pixels() > kSomChunkInputs);
      const Reference<double> ref = reference<double>(plan);
      const auto whole = train<Backend, double>(plan, strategy);
      CHECK(whole.digest == ref.digest());
      // Reading the weights and the last BMU (which cuts chunks) wherever it happens: the same training.
      RunRequest request;
      RunResult res;
      SomSimulation<Backend, double> sim(plan, request, res, strategy);
      CHECK(sim.strategy() == strategy);
      std::int64_t next_read = 1;
      for (std::int64_t n = 0; n < plan.steps; ++n) {
        sim.step();
        if (n + 1 == next_read) {
          CHECK(sim.last_bmu() == ref.bmus[static_cast<std::size_t>(n)]);
          next_read += 1 + (next_read * 7) % 53;  // gaps of 1 to 53 inputs
        }
      }
      CHECK(sim.bmu_digest() == ref.digest());
      if (!Backend::is_gpu) {
        CHECK(max_diff(whole.w, ref.w) == 0);
        CHECK(max_diff(sim.weights(), ref.w) == 0);
      } else {
        CHECK(max_diff(whole.w, ref.w) < 1e-12);
        CHECK(max_diff(sim.weights(), ref.w) < 1e-12);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(som_chunks, KBRAIN_TEST_BACKENDS);

  TEST_CASE("tiles and reaches: the side doubles past 2^16 tiles; a box of half-width r spans its tiles") {
    CHECK(som_tile_side(512, 512) == 8);
    CHECK(som_tile_side(2048, 2048) == 8);    // 256 x 256 tiles = 2^16
    CHECK(som_tile_side(2056, 2048) == 16);   // one more column of tiles of 8
    CHECK(som_tile_side(4096, 4096) == 16);
    CHECK(som_tile_side(1, 2147483647) == 32768);  // one column: 2^16 tiles of 32768
    CHECK(som_disc_reach(256) == 16);
    CHECK(som_disc_reach(225) == 15);
    CHECK(som_disc_reach(1) == 1);
    CHECK(som_disc_reach(2) == 2);
    CHECK(som_tiles_reached(8, 2) == 4);    // 5 cells span at most 2 tiles of 8 per axis
    CHECK(som_tiles_reached(8, 16) == 25);  // 33 cells: at most 5
    const SomTiles t = SomTiles::of(70, 45, 8);
    CHECK(t.count() == 9 * 6);
    CHECK(t.neuron(0, 0) == 0);
    CHECK(t.neuron(1, 9) == 70 + 9);        // tile 1, cell (1, 1)
    CHECK(t.neuron(8, 6) == -1);            // x = 70: beyond the grid
    CHECK(t.neuron(9 * 5, 5 * 8) == -1);    // y = 45: beyond the grid
    CHECK(t.neuron(9 * 5, 4 * 8) == 44 * 70);
  }

  TEST_CASE_TEMPLATE_DEFINE("ties: of equal distances the lowest neuron index is the BMU", Backend, som_ties) {
    auto check_ties = [](auto real_tag, std::int64_t side, const std::vector<std::int32_t>& tied, bool all_equal) {
      using Real = decltype(real_tag);
      CAPTURE(side);
      const ExperimentConfig cfg = parse_model_experiment(som_toml(side, side, "window", 1), "som.toml");
      const SomPlan plan = make_som_plan(cfg, {});
      const std::uint8_t* px = plan.input->rgb.data();  // the first input
      const Real p[3] = {Real(px[0]) / Real(255), Real(px[1]) / Real(255), Real(px[2]) / Real(255)};
      std::array<std::vector<Real>, 3> w;
      for (int c = 0; c < 3; ++c) {
        // Every other neuron: the colour's complement, never at distance 0 (255 is odd: 1 - k/255 != k/255).
        w[c].assign(static_cast<std::size_t>(side * side), all_equal ? Real(0.5) : Real(1) - p[c]);
        for (const auto i : tied) w[c][static_cast<std::size_t>(i)] = p[c];
      }
      RunRequest request;
      RunResult res;
      SomSimulation<Backend, Real> sim(plan, request, res);
      sim.set_weights(w);
      sim.step();
      CHECK(sim.last_bmu() == (all_equal ? 0 : *std::min_element(tied.begin(), tied.end())));
    };
    for (const bool single : {true, false}) {
      CAPTURE(single);
      auto run = [&](auto tag) {
        check_ties(tag, 8, {}, true);  // every distance equal: neuron 0
        check_ties(tag, 8, {37, 50}, false);
        // Large enough to be split among threads and GPU blocks; the lowest tied index is not the first listed.
        check_ties(tag, 256, {60000, 1000, 65535, 70}, false);
        check_ties(tag, 256, {65535, 60000}, false);
      };
      if (single) run(float{});
      else run(double{});
    }
  }
  TEST_CASE_TEMPLATE_APPLY(som_ties, KBRAIN_TEST_BACKENDS);

  TEST_CASE("the disc's shrink schedule: 256, then (sqrt(r^2) - 1)^2 after every pass, floor 1") {
    CHECK(som_disc_r2(0) == 256);
    CHECK(som_disc_r2(1) == 225);
    CHECK(som_disc_r2(2) == 196);
    CHECK(som_disc_r2(14) == 4);
    CHECK(som_disc_r2(15) == 1);
    CHECK(som_disc_r2(16) == 1);
    CHECK(som_disc_r2(1000000) == 1);
  }

  TEST_CASE_TEMPLATE_DEFINE("the disc reaches r^2 = 256 in the last input of a pass and 225 in the next one", Backend,
                            som_disc_shrink) {
    const std::int64_t W = 40, H = 36, P = 30;
    const ExperimentConfig cfg = parse_model_experiment(som_toml(W, H, "disc", 3 * P), "som.toml");
    const SomPlan plan = make_som_plan(cfg, {});
    RunRequest request;
    RunResult res;
    SomSimulation<Backend, double> sim(plan, request, res);
    std::array<std::vector<double>, 3> before;
    for (std::int64_t n = 0; n < 2 * P + 1; ++n) {
      if (n == P - 1 || n == P || n == 2 * P) before = sim.weights();
      sim.step();
      const double r2 = n < P ? 256 : n < 2 * P ? 225 : 196;
      if (n == P - 1 || n == P || n == 2 * P) {
        CAPTURE(n);
        CHECK(changed(before, sim.weights()) == disc_count(W, H, sim.last_bmu(), r2));
      }
    }
    // Different radii reach different numbers of neurons here (the grid holds a disc of radius 15 somewhere).
    CHECK(disc_count(W, H, 18 * W + 20, 256) > disc_count(W, H, 18 * W + 20, 225));
  }
  TEST_CASE_TEMPLATE_APPLY(som_disc_shrink, KBRAIN_TEST_BACKENDS);

  TEST_CASE("BMP file order for BMP, PPM and PNG files, and training in that order") {
    test::TempDir tmp("som_images");
    // 3 x 2 pixels; in BMP file order the bottom row comes first.
    const std::vector<std::uint8_t> top = {1, 2, 3, 4, 5, 6, 7, 8, 9}, bottom = {10, 11, 12, 13, 14, 15, 16, 17, 18};
    std::vector<std::uint8_t> file_order = bottom, top_down = top;
    file_order.insert(file_order.end(), top.begin(), top.end());
    top_down.insert(top_down.end(), bottom.begin(), bottom.end());

    const auto ppm = tmp.write("tiny.ppm", "P6\n3 2\n255\n" + std::string(top_down.begin(), top_down.end()));
    const image::Rgb8Image from_ppm = image::read_rgb8(ppm, 1000);
    CHECK(from_ppm.width == 3);
    CHECK(from_ppm.height == 2);
    CHECK(from_ppm.rgb == file_order);

    const auto bmp = tmp.write("tiny.bmp", bmp_file(3, 2, file_order));
    CHECK(image::read_rgb8(bmp, 1000).rgb == file_order);

    const auto png = tmp.path / "sub" / "tiny.png";
    image::write_png_atomically(png, 3, 2, top_down);
    CHECK(image::read_rgb8(png, 1000).rgb == file_order);
    CHECK(!std::filesystem::exists(tmp.path / "sub" / "tiny.png.tmp"));

    // A 1 x 1 map with alpha = 1 takes each input's colour: after k steps, the k-th pixel in BMP file order.
    for (const std::int64_t k : {1, 3, 4, 6, 7}) {
      CAPTURE(k);
      const ExperimentConfig cfg = parse_model_experiment(
          som_toml(1, 1, "window", k, "image = \"tiny.bmp\"\n", "alpha = 1.0\n"), tmp.path / "som.toml");
      const SomPlan plan = make_som_plan(cfg, {});
      CHECK(plan.input->rgb == file_order);
      const auto w = train<SerialBackend, double>(plan).w;
      const std::size_t px = static_cast<std::size_t>((k - 1) % 6) * 3;
      // w + 1 (p - w) is p up to one rounding; neighbouring pixels differ by at least 1/255.
      for (int c = 0; c < 3; ++c) CHECK(std::fabs(w[c][0] - double(file_order[px + c]) / 255.0) < 1e-12);
    }
  }

  TEST_CASE("the runner writes checkpoint and final pictures; compare's probes hold the final weights") {
    test::TempDir tmp("som_run");
    const ExperimentConfig cfg = parse_model_experiment(
        som_toml(24, 16, "disc", 100, "width = 6\nheight = 5\nseed = 9\n", "checkpoints = [30, 60, 100, 500]\n"),
        tmp.path / "som.toml");
    const SomPlan plan = make_som_plan(cfg, {});
    CHECK(plan.checkpoints == std::vector<std::int64_t>{30, 60, 100});
    RunRequest request;
    request.out_dir = tmp.path / "out";
    request.progress = false;
    request.probe_cells = GalbraithSomModel::probe_cells(plan);
    request.probe_every = GalbraithSomModel::kProbeEvery;
    const RunResult res = run_model<GalbraithSomModel, SerialBackend, double>(plan, request);
    CHECK(res.steps == 100);
    // Four chunks (cut at the ends of the 30-pixel passes and at the last step) each read the 24 x 16 grid's three
    // channels; each input writes and reads the minima of the 3 x 2 tiles of 8 x 8; every input takes 11 operations
    // per neuron for its distance.
    CHECK(res.bytes_moved == 4.0 * 24 * 16 * 3 * 8 + 2.0 * 100 * 6 * double(sizeof(SomBest<double>)));
    CHECK(res.flops == 100.0 * 24 * 16 * 11);
    for (const char* name : {"som_weights_step_30.png", "som_weights_step_60.png", "som_weights_final.png"}) {
      CAPTURE(name);
      const image::Rgb8Image pic = image::read_rgb8(request.out_dir / name, 1 << 20);
      CHECK(pic.width == 24);
      CHECK(pic.height == 16);
    }
    CHECK(!std::filesystem::exists(request.out_dir / "som_weights_step_100.png"));  // the final picture is that one
    // The final picture is the reference's weights, grid row 0 at the bottom (= BMP file order row 0).
    const Reference<double> ref = reference<double>(plan);
    const image::Rgb8Image fin = image::read_rgb8(request.out_dir / "som_weights_final.png", 1 << 20);
    for (std::size_t n = 0; n < 24 * 16; ++n)
      for (int c = 0; c < 3; ++c) CHECK(int(fin.rgb[n * 3 + c]) == int(std::floor(ref.w[c][n] * 255 + 0.5)));
    REQUIRE(res.probes.size() == request.probe_cells.size() * 3);
    for (std::size_t k = 0; k < request.probe_cells.size(); ++k)
      for (int c = 0; c < 3; ++c)
        CHECK(res.probes[k * 3 + c] == ref.w[c][static_cast<std::size_t>(request.probe_cells[k])]);
    CHECK(res.value("bmu_digest", -1) == ref.digest());
    // Checkpoints change nothing: a run without files trains to the same weights.
    CHECK(train<SerialBackend, double>(plan).digest == ref.digest());
  }

  TEST_CASE("refusals: an unreadable image names the file and input.image; too large a grid names its key") {
    test::TempDir tmp("som_bad");
    const auto bad = tmp.write("bad.bmp", "BM this is not a bitmap");
    std::string message = config_error(som_toml(4, 4, "window", 10, "image = \"bad.bmp\"\n"), tmp.path / "som.toml");
    CAPTURE(message);
    CHECK(message.find("input.image") != std::string::npos);
    CHECK(message.find(bad.string()) != std::string::npos);
    // A BMP header that promises more pixels than the file has.
    std::string truncated = bmp_file(40, 40, std::vector<std::uint8_t>(40 * 40 * 3, 7));
    truncated.resize(200);
    const auto cut = tmp.write("cut.bmp", truncated);
    message = config_error(som_toml(4, 4, "window", 10, "image = \"cut.bmp\"\n"), tmp.path / "som.toml");
    CHECK(message.find("input.image") != std::string::npos);
    CHECK(message.find(cut.string()) != std::string::npos);
    // A grid of 2^32 neurons.
    message = config_error(som_toml(65536, 65536, "window", 10), tmp.path / "som.toml");
    CHECK(message.find("som.height") != std::string::npos);
    CHECK(message.find("2^31") != std::string::npos);
    // Generated-image keys beside a file.
    tmp.write("ok.ppm", "P6\n1 1\n255\nabc");
    message = config_error(som_toml(4, 4, "window", 10, "image = \"ok.ppm\"\nwidth = 5\n"), tmp.path / "som.toml");
    CHECK(message.find("input.width") != std::string::npos);
  }
}
