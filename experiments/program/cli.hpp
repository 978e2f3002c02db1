#pragma once
// The `kbrain` subcommands as CLI11 definitions (cli.cpp).
#include <CLI/CLI.hpp>

#include "experiments/program/commands.hpp"

namespace kbrain {

struct CliCommands {
  RunOptions run;
  CompareOptions compare;
  AccuracyOptions accuracy;
  ReproduceOptions reproduce;
  StatsOptions stats;
  CLI::App* backends = nullptr;
  CLI::App* run_cmd = nullptr;
  CLI::App* compare_cmd = nullptr;
  CLI::App* accuracy_cmd = nullptr;
  CLI::App* models = nullptr;
  CLI::App* plot_cmd = nullptr;
  CLI::App* reproduce_cmd = nullptr;
  CLI::App* stats_cmd = nullptr;
  std::string plot_dir;
};

void define_commands(CLI::App& app, CliCommands& commands);
// After parsing: lists that repeat a value are refused (CLI::ValidationError).
void check_command_lists(const CliCommands& commands);

}  // namespace kbrain
