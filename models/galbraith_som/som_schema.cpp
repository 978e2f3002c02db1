#include "models/galbraith_som/som_schema.hpp"

#include <cstdint>
#include <limits>

namespace kbrain::galbraith {

ModelSchema som_schema() {
  const double int32_max = std::numeric_limits<std::int32_t>::max();
  ModelSchema s;
  s.kind = "galbraith_som";
  s.summary = "Galbraith 2010 self-organising map: a W x H grid of RGB weights trained one pixel per step (BMU by "
              "lexicographic (distance, index) minimum, window or disc neighbourhood)";
  s.family = "model_tables";
  s.variables = {{kSomVarNames[SOM_R], "1"}, {kSomVarNames[SOM_G], "1"}, {kSomVarNames[SOM_B], "1"}};
  s.parameter_sets = {"galbraith2010"};
  s.variant_setting = "simulation.neighbourhood";
  s.tables.push_back(TableSpec{
      "simulation",
      {SettingSpec::choice("neighbourhood", {"window", "disc"},
                           "window: |u|, |v| <= 2 around the BMU (the experiment text's window of width 5); disc: "
                           "u^2 + v^2 < r^2, r^2 = 256 at the start and (sqrt(r^2) - 1)^2 after every full pass over "
                           "the image, at least 1 (the appendix code); no wrap-around at the grid's edges"),
       SettingSpec::number("alpha", 0, 1, 0.05, "learning rate: w += alpha (p - w) inside the neighbourhood"),
       SettingSpec::integer_list("checkpoints", 1, 9.007199254740992e15,
                                 "steps after which the weights are written as som_weights_step_<n>.png (the final "
                                 "weights are always written, as som_weights_final.png)")}});
  s.tables.push_back(TableSpec{
      "som",
      {SettingSpec::integer("width", 1, int32_max, 512, "W, neurons per grid row; compare.sizes sets W = H = size"),
       SettingSpec::integer("height", 1, int32_max, 512, "H, grid rows (W H at most 2^31 - 1)"),
       SettingSpec::integer("seed", 0, 9.007199254740992e15, 1,
                            "weights: channel c of neuron n = floor(256 u) / 255, u = counter_uniform(seed, n, c)")}});
  s.tables.push_back(TableSpec{
      "input",
      {SettingSpec::file("image", "training image (BMP, PNG, PPM, ...; read as 8-bit RGB), one pixel per step in BMP "
                                  "file order: bottom row first, each row left to right, whatever the format; absent: "
                                  "the generated image"),
       SettingSpec::integer("width", 1, int32_max, 2400, "generated image: width (the thesis' picture: 2400)"),
       SettingSpec::integer("height", 1, int32_max, 1800, "generated image: height (the thesis' picture: 1800)"),
       SettingSpec::integer("seed", 0, 9.007199254740992e15, 2010, "generated image: counter-RNG seed"),
       SettingSpec::integer("passes", 0, 1e6, 0,
                            "> 0: train for this many full passes over the image (steps = passes x pixels), "
                            "instead of simulation.steps")}});
  return s;
}

}  // namespace kbrain::galbraith
