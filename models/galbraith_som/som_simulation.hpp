#pragma once
// Trains a Galbraith SOM on one backend, by one of three strategies with the same result (SomStrategy):
//  - Resident (GPUs): step() queues an input; a full batch, the last step, or anything that reads the weights
//    launches the queued inputs as one launch of teams that are all resident and exchange their minima as stamped
//    words per input, each thread keeping its neurons' weights in registers where they fit
//    (som_resident_kernels.hpp);
//  - PerInput (GPUs, grids the resident words cannot index): one launch per input that first applies the previous
//    input's update (som_step_kernels.hpp), the same launch every input, so it is recorded once and replayed in
//    batches where the backend has a step graph (backends/step_replay.hpp); the update still pending is applied
//    before anything reads the weights;
//  - Chunks (CPUs): step() queues an input; a full chunk, the end of a pass (the disc's radius changes there), the
//    last step, or anything that reads the weights launches the queued inputs as one chunk (som_kernels.hpp): a
//    pass for their tile minima and one team that resolves them in order.
// The host does not wait for a step; it waits at checkpoints and at the end. Which strategy wins where is measured
// in docs/models/galbraith-som.md: on a GPU a launch per input costs more than the input's work, and the chunk's one
// resolving team is slower still for the window; on CPUs chunks reuse the cached weights for every input of the
// chunk.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <Kokkos_Core.hpp>

#include "backends/step_replay.hpp"
#include "core/image/image_file.hpp"
#include "models/common/device_sampler.hpp"
#include "models/galbraith_som/som_kernels.hpp"
#include "models/galbraith_som/som_plan.hpp"
#include "models/galbraith_som/som_resident_launch.hpp"
#include "models/galbraith_som/som_step_kernels.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::galbraith {

// The weights as a picture: neuron (x, y) is pixel (x, y) with grid row 0 at the bottom (as the study's OpenGL
// window drew them), channel = round(255 w) clamped to [0, 255]. Returns rows top first, for write_png_atomically.
template <class Real>
std::vector<std::uint8_t> som_weight_picture(std::int64_t width, std::int64_t height, const std::vector<Real>& r,
                                             const std::vector<Real>& g, const std::vector<Real>& b) {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(width * height) * 3);
  auto byte = [](Real w) {
    const double v = double(w) * 255.0 + 0.5;
    return static_cast<std::uint8_t>(v <= 0 ? 0 : v >= 255 ? 255 : static_cast<int>(v));
  };
  for (std::int64_t y = 0; y < height; ++y)
    for (std::int64_t x = 0; x < width; ++x) {
      const auto n = static_cast<std::size_t>(y * width + x);
      const auto o = static_cast<std::size_t>(((height - 1 - y) * width + x) * 3);
      px[o] = byte(r[n]);
      px[o + 1] = byte(g[n]);
      px[o + 2] = byte(b[n]);
    }
  return px;
}

enum class SomStrategy { PerInput, Chunks, Resident };

// Inputs of one resident launch at most (the host waits for nothing in between; a launch this long leaves the
// weights to readers between launches without a measurable cost per input).
inline constexpr std::int64_t kSomResidentInputs = 1 << 16;

template <class Backend, class Real>
class SomSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Reader = SomReader<Real, Mem>;
  using Sampler = DeviceSampler<Exec, Real, Reader>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;
  using Weights = std::array<std::vector<Real>, 3>;

  // The weights, picture and reductions on the backend (som_device_bytes), refused (exit 2) beyond its free memory,
  // with the largest grid that fits; on the host the run adds the weights' copy for the checkpoint pictures, which on
  // a CPU backend shares that memory: there both are checked together.
  static MemoryStatement memory(const SomPlan& plan, const RunRequest&) {
    const auto hw = Backend::describe();
    const auto on_device = [&](std::int64_t w, std::int64_t h) {
      return double(som_device_bytes(w, h, plan.pixels(), sizeof(Real)));
    };
    const auto on_host = [&](std::int64_t w, std::int64_t h) { return double(3 * w * h) * double(sizeof(Real) + 1); };
    const auto need = [&](std::int64_t w, std::int64_t h) {
      return on_device(w, h) + (Backend::is_gpu ? 0.0 : on_host(w, h));
    };
    MemoryStatement m;
    m.device_bytes = on_device(plan.width, plan.height);
    m.host_bytes = on_host(plan.width, plan.height);
    const double free = double(hw.free_memory_bytes);
    if (free > 0 && need(plan.width, plan.height) > free)
      throw NotEnoughMemory(fmt::format(
          "{}: [som]: a {} x {} SOM with a {} x {} picture needs {} on {} ({}){} but {} are free; at most {} neurons "
          "fit beside this picture",
          plan.config->source.string(), plan.width, plan.height, plan.input->width, plan.input->height,
          byte_text(need(plan.width, plan.height)), Backend::name, hw.device,
          Backend::is_gpu ? "" : " with the weights' host copy", byte_text(free),
          largest_fitting(plan.neurons(), free, [&](std::int64_t n) {
            const auto side = static_cast<std::int64_t>(std::ceil(std::sqrt(double(n))));  // a square grid
            return need(side, side);
          })));
    return m;
  }

  // GPUs: resident teams where the words can index every neuron (grids up to 4096 x 4096), else a launch per input;
  // CPUs: chunks.
  static SomStrategy default_strategy(std::int64_t neurons) {
    if (!Backend::is_gpu) return SomStrategy::Chunks;
    return neurons <= SomStampedBest<Real>::kMaxNeurons ? SomStrategy::Resident : SomStrategy::PerInput;
  }

  // strategy: by default default_strategy(neurons). league: the resident strategy's teams (tests choose smaller ones
  // to reach every kernel shape); by default resident_league<Backend>().
  SomSimulation(const SomPlan& plan, const RunRequest& request, RunResult& res,
                std::optional<SomStrategy> strategy = std::nullopt, ResidentLeague league = resident_league<Backend>())
      : plan_(plan), n_(plan.neurons()), pixels_(plan.pixels()), out_dir_(request.out_dir),
        probe_cells_(request.probe_cells), strategy_(strategy.value_or(default_strategy(plan.neurons()))) {
    const auto hw = Backend::describe();
    const std::int64_t need = som_device_bytes(plan.width, plan.height, pixels_, sizeof(Real));
    if (hw.free_memory_bytes > 0 && std::uint64_t(need) > hw.free_memory_bytes)
      throw std::runtime_error(fmt::format("a {} x {} SOM with a {} x {} picture needs {} bytes; {} ({}) has {} free",
                                           plan.width, plan.height, plan.input->width, plan.input->height, need,
                                           Backend::name, hw.device, hw.free_memory_bytes));
    w_.r = Kokkos::View<Real*, Mem>(no_init("som_r"), n_);
    w_.g = Kokkos::View<Real*, Mem>(no_init("som_g"), n_);
    w_.b = Kokkos::View<Real*, Mem>(no_init("som_b"), n_);
    Kokkos::parallel_for("kbrain::som::init", range(), SomInit<Real, Mem>{w_, plan.seed});
    Kokkos::View<std::uint8_t*, Mem> image(no_init("som_image"), plan.input->rgb.size());
    Kokkos::deep_copy(image, Kokkos::View<const std::uint8_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                 plan.input->rgb.data(), plan.input->rgb.size()));
    image_ = image;
    last_ = Kokkos::View<std::int32_t, Mem>("som_last_bmu");
    digest_ = Kokkos::View<std::uint64_t, Mem>("som_digest");
    Kokkos::deep_copy(digest_, kSomDigestStart);
    tiles_ = SomTiles::of(plan.width, plan.height, som_tile_side(plan.width, plan.height));
    if (strategy_ == SomStrategy::Chunks) {
      tile_best_ = Kokkos::View<SomBest<Real>**, Kokkos::LayoutRight, Mem>(no_init("som_tile_best"),
                                                                            kSomChunkInputs, tiles_.count());
      size_resolve_team();
    }
    if (strategy_ == SomStrategy::PerInput) prepare_per_input();
    if (strategy_ == SomStrategy::Resident) resident_.emplace(training(), last_, league);
    // A checkpoint at the last step is the final picture.
    if (!out_dir_.empty())
      for (const auto c : plan.checkpoints)
        if (c < plan.steps) checkpoints_.push_back(c);
    res.connections = 3.0 * double(n_);  // weights
    const std::string how =
        strategy_ == SomStrategy::Resident
            ? fmt::format("batches of up to {} inputs in {}", kSomResidentInputs, resident_->describe())
        : strategy_ == SomStrategy::Chunks
            ? fmt::format("chunks of up to {} inputs (tile minima of {}x{} neurons, then one team takes the inputs in "
                          "order: the sequential result)",
                          kSomChunkInputs, tiles_.side, tiles_.side)
            : fmt::format("one launch per input (the previous input's update fused with the BMU search, {} teams' "
                          "minima combined by the last team done){}",
                          train_.league, replay_.kReplays ? ", replayed from a step graph" : "");
    res.strategy = fmt::format("{}, {} neighbourhood, input {} ({} x {})", how, to_string(plan.neighbourhood),
                               plan.input_label, plan.input->width, plan.input->height);
  }

  std::int64_t steps_per_call() const { return 1; }
  std::int64_t steps_done() const { return steps_; }
  void fence() {
    replay_.fence();
    Exec().fence();
  }
  std::int64_t device_bytes() const { return som_device_bytes(plan_.width, plan_.height, pixels_, sizeof(Real)); }
  SomStrategy strategy() const { return strategy_; }
  // The weights after every input so far (applies what is pending first).
  Reader state() {
    train_queued();
    return Reader{w_};
  }

  // PerInput: issues the input's launch. Chunks and Resident: queue the input; a chunk is launched when it is full,
  // at the end of a pass and at the last step, a resident batch when it is full and at the last step.
  void step() {
    if (strategy_ == SomStrategy::PerInput) {
      replay_.step([this](const Exec& exec) { launch_train(exec, true); });
      pending_ = true;
      ++steps_;
      bytes_moved_ += double(n_) * 3.0 * double(sizeof(Real));
      if (steps_ == plan_.steps) train_queued();  // the last input's update: part of the training
    } else {
      if (queued_ == 0) chunk_first_ = steps_;
      ++queued_;
      ++steps_;
      // a chunk also ends with its pass (one rule a chunk); a resident batch reads each input's rule itself
      const bool full = strategy_ == SomStrategy::Resident
                            ? queued_ == kSomResidentInputs
                            : queued_ == kSomChunkInputs || steps_ % pixels_ == 0;
      if (full || steps_ == plan_.steps) train_queued();
    }
    if (next_checkpoint_ < checkpoints_.size() && checkpoints_[next_checkpoint_] == steps_) {
      train_queued();
      due_.push_back(steps_);
      ++next_checkpoint_;
    }
  }

  // Checkpoints are drain points (the runner fences, then calls drain_spikes; the time counts as output).
  bool spikes_due(std::int64_t, std::int64_t, bool) const { return !due_.empty(); }
  SpikeEvents drain_spikes(bool final_drain) {
    for (const std::int64_t s : due_) write_picture(fmt::format("som_weights_step_{}.png", s));
    due_.clear();
    if (final_drain && !out_dir_.empty()) write_picture("som_weights_final.png");
    return {};
  }

  // The BMU digest, the last BMU and the disc's final r^2; the final weights of the probe neurons (r, g, b of each,
  // appended to res.probes: the runner samples nothing during the loop, see GalbraithSomModel::kProbeEvery).
  void finish(RunResult& res) {
    res.values.emplace_back("bmu_digest", bmu_digest());
    if (steps_ > 0) res.values.emplace_back("last_bmu", double(last_bmu()));
    if (plan_.neighbourhood == Neighbourhood::Disc)
      res.values.emplace_back("final_r2", som_disc_r2(std::max<std::int64_t>(0, steps_ - 1) / pixels_));
    res.figures.emplace_back("neuron_steps", double(n_) * double(steps_));
    if (strategy_ == SomStrategy::Chunks) res.details.emplace_back("resolve_team", double(resolve_team_));
    // compare's GB/s and flop/B: every input (PerInput) or chunk (Chunks) reads the grid's three channels once, and a
    // chunk writes and reads its tile minima (recomputed tiles and the neighbourhood's writes left out: a lower
    // bound); every input computes each neuron's distance
    res.bytes_moved = bytes_moved_;
    res.flops = double(n_) * double(steps_) * double(kSomFlopsPerNeuron);
    if (!probe_cells_.empty()) {
      const Weights w = weights();
      for (const auto i : probe_cells_)
        for (int c = 0; c < 3; ++c) res.probes.push_back(double(w[c][static_cast<std::size_t>(i)]));
    }
  }

  // Host copies of the three channels after every input so far.
  Weights weights() {
    train_queued();
    Weights out;
    const Kokkos::View<Real*, Mem>* views[3] = {&w_.r, &w_.g, &w_.b};
    for (int c = 0; c < 3; ++c) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), *views[c]);
      out[c].assign(h.data(), h.data() + n_);
    }
    return out;
  }
  // Replaces the weights (tests: grids with chosen, e.g. tied, weights). Trains the queued inputs first.
  void set_weights(const Weights& w) {
    train_queued();
    const Kokkos::View<Real*, Mem>* views[3] = {&w_.r, &w_.g, &w_.b};
    for (int c = 0; c < 3; ++c) {
      if (w[c].size() != static_cast<std::size_t>(n_)) throw std::invalid_argument("set_weights: one value per neuron");
      Kokkos::deep_copy(*views[c], Kokkos::View<const Real*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(w[c].data(), w[c].size()));
    }
  }
  // The BMU of the last input (-1 before the first step).
  std::int32_t last_bmu() {
    if (steps_ == 0) return -1;
    if (strategy_ == SomStrategy::PerInput) {
      replay_.fence();
      SomBest<Real> b;
      Kokkos::deep_copy(b, Kokkos::subview(train_.best, (steps_ - 1) & 1));
      return b.index;
    }
    train_queued();
    std::int32_t b = -1;
    Kokkos::deep_copy(b, last_);
    return b;
  }
  // 53 bits of the digest of every BMU so far, in order.
  double bmu_digest() {
    train_queued();
    std::uint64_t h = 0;
    Kokkos::deep_copy(h, digest_);
    return double(h >> 11);
  }

 private:
  Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> range() const {
    return Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n_);
  }
  SomRule rule_of_pass(std::int64_t pass) {
    SomRule rule;
    rule.disc = plan_.neighbourhood == Neighbourhood::Disc;
    rule.half = kSomWindowHalf;
    rule.reach = kSomWindowHalf;
    if (rule.disc) {
      if (pass != r2_pass_) {
        r2_ = som_disc_r2(pass);
        r2_pass_ = pass;
      }
      rule.r2 = r2_;
      rule.reach = som_disc_reach(r2_);
    }
    return rule;
  }
  // PerInput: applies the pending update and waits for every input (the weights are read or written next, on
  // another instance). Chunks: launches the queued inputs as one chunk (they lie in one pass); the host does not wait.
  void train_queued() {
    if (strategy_ == SomStrategy::PerInput) {
      if (pending_) replay_.launch_now([this](const Exec& exec) { launch_train(exec, false); });
      pending_ = false;
      replay_.fence();
      return;
    }
    if (queued_ == 0) return;
    if (strategy_ == SomStrategy::Resident) {
      resident_->launch(chunk_first_, queued_);
      bytes_moved_ += double(queued_) * double(n_) * 3.0 * double(sizeof(Real));
      queued_ = 0;
      return;
    }
    const int inputs = static_cast<int>(queued_);
    const std::int64_t first_pixel = chunk_first_ % pixels_;
    const SomRule rule = rule_of_pass(chunk_first_ / pixels_);
    Kokkos::parallel_for("kbrain::som::chunk_tiles",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, tiles_.count() * inputs),
                         SomChunkTiles<Real, Mem>{w_, image_, tile_best_, tiles_, first_pixel, inputs});
    const SomChunkResolve<Real, Exec> resolve{
        w_, image_, tile_best_, digest_, last_, tiles_, rule, Real(plan_.alpha), first_pixel, inputs, resolve_list_};
    Kokkos::TeamPolicy<Exec> policy(1, resolve_team_);
    policy.set_scratch_size(
        0, Kokkos::PerTeam(SomChunkResolve<Real, Exec>::scratch_bytes(tiles_, resolve_list_, resolve_team_)));
    Kokkos::parallel_for("kbrain::som::chunk_resolve", policy, resolve);
    bytes_moved_ += double(n_) * 3.0 * double(sizeof(Real)) +
                    2.0 * double(inputs) * double(tiles_.count()) * double(sizeof(SomBest<Real>));
    queued_ = 0;
  }
  // PerInput: the cursor (the next input, none pending), the teams' minima, the disc's r^2 of every pass; teams
  // of 256 threads with about 4 neurons a thread on GPUs, one team a thread on CPUs.
  void prepare_per_input() {
    SomTrainInput<Real, Exec>& t = train_;
    static_cast<SomTraining<Real, Mem>&>(t) = training();
    t.cursor = Kokkos::View<std::int64_t*, Mem>("som_cursor", kSomCursorWords);
    Kokkos::deep_copy(Kokkos::subview(t.cursor, int(kSomPendingInput)), std::int64_t(-1));
    t.best = Kokkos::View<SomBest<Real>*, Mem>("som_best", 2);
    train_team_ = Backend::is_gpu ? 256 : 1;
    const std::int64_t per_thread = Backend::is_gpu ? 4 : 1;
    const std::int64_t teams = Backend::is_gpu ? (n_ + train_team_ * per_thread - 1) / (train_team_ * per_thread)
                                               : std::int64_t(kx::concurrency<Exec>());
    t.league = static_cast<int>(std::clamp<std::int64_t>(teams, 1, Backend::is_gpu ? 4096 : n_));
    t.per_team = (n_ + t.league - 1) / t.league;
    t.partial = Kokkos::View<SomBest<Real>*, Mem>(no_init("som_team_best"), t.league);
  }
  // What the GPU strategies' kernels read of this training, with the disc's r^2 of every pass on the backend (r^2
  // stops changing at 1, by pass 16; later passes read the last entry).
  SomTraining<Real, Mem> training() const {
    const std::int64_t passes = std::max<std::int64_t>(17, (plan_.steps + pixels_ - 1) / pixels_);
    Kokkos::View<double*, Mem> r2(no_init("som_pass_r2"), passes);
    auto h = Kokkos::create_mirror_view(r2);
    for (std::int64_t p = 0; p < passes; ++p) h(p) = som_disc_r2(p);
    Kokkos::deep_copy(r2, h);
    SomTraining<Real, Mem> t;
    t.w = w_;
    t.image = image_;
    t.pass_r2 = r2;
    t.digest = digest_;
    t.neurons = n_;
    t.pixels = pixels_;
    t.width = static_cast<std::int32_t>(plan_.width);
    t.alpha = Real(plan_.alpha);
    t.disc = plan_.neighbourhood == Neighbourhood::Disc;
    t.half = kSomWindowHalf;
    return t;
  }
  // One input's launch (search), or the pending update alone (a flush).
  void launch_train(const Exec& exec, bool search) {
    SomTrainInput<Real, Exec> f = train_;
    f.search = search;
    Kokkos::TeamPolicy<Exec> policy(exec, f.league, train_team_);
    policy.set_scratch_size(0, Kokkos::PerTeam(SomTrainInput<Real, Exec>::scratch_bytes(train_team_)));
    Kokkos::parallel_for(search ? "kbrain::som::input" : "kbrain::som::flush", kx::light_weight(policy), f);
  }
  static auto no_init(const char* name) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name));
  }
  // The resolving team, once per run: its list holds the tiles a full chunk can update at the run's largest reach
  // (the first pass's), and its size is the most threads the backend gives it with that scratch.
  void size_resolve_team() {
    resolve_list_ = static_cast<int>(std::min<std::int64_t>(
        tiles_.count(), std::int64_t(kSomChunkInputs) * som_tiles_reached(tiles_.side, rule_of_pass(0).reach)));
    const SomChunkResolve<Real, Exec> probe{w_, image_, tile_best_, digest_, last_, tiles_, rule_of_pass(0),
                                            Real(plan_.alpha), 0, 1, resolve_list_};
    Kokkos::TeamPolicy<Exec> one(1, Kokkos::AUTO);
    one.set_scratch_size(
        0, Kokkos::PerTeam(SomChunkResolve<Real, Exec>::scratch_bytes(tiles_, resolve_list_, kSomResolveTeamMax)));
    resolve_team_ = std::min(one.team_size_max(probe, Kokkos::ParallelForTag()), kSomResolveTeamMax);
  }
  void write_picture(const std::string& name) {
    if (out_dir_.empty()) return;
    const Weights w = weights();
    image::write_png_atomically(out_dir_ / name, plan_.width, plan_.height,
                                som_weight_picture(plan_.width, plan_.height, w[0], w[1], w[2]));
  }

  const SomPlan& plan_;
  std::int64_t n_, pixels_;
  std::filesystem::path out_dir_;
  std::vector<std::int64_t> probe_cells_;
  SomWeights<Real, Mem> w_;
  Kokkos::View<const std::uint8_t*, Mem> image_;
  SomStrategy strategy_;
  SomTrainInput<Real, Exec> train_;  // PerInput: the launch of every input (its views: cursor, minima, BMUs)
  std::optional<SomResidentLaunch<Backend, Real>> resident_;  // Resident: the batch launch (its words)
  int train_team_ = 1;
  bool pending_ = false;  // PerInput: an update is owed (the cursor's pending input)
  StepReplay<Backend> replay_;
  SomTiles tiles_;
  Kokkos::View<SomBest<Real>**, Kokkos::LayoutRight, Mem> tile_best_;
  Kokkos::View<std::int32_t, Mem> last_;
  Kokkos::View<std::uint64_t, Mem> digest_;
  std::int64_t chunk_first_ = 0, queued_ = 0;  // the queued inputs: steps chunk_first_ ... chunk_first_ + queued_ - 1
  double bytes_moved_ = 0;
  int resolve_team_ = 0, resolve_list_ = 0;  // Chunks: the resolving team's threads and its list of tiles
  std::vector<std::int64_t> checkpoints_, due_;
  std::size_t next_checkpoint_ = 0;
  double r2_ = kSomDiscStartR2;
  std::int64_t r2_pass_ = 0;
  std::int64_t steps_ = 0;
};

}  // namespace kbrain::galbraith
