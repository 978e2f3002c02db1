#pragma once
// <out>/run.json: what ran (experiment, backend, precision, hardware, commit, command, phase times) and whether it
// finished. Written with "complete": false when the run starts and rewritten with "complete": true at the end, so a
// folder from an interrupted run is never mistaken for a complete one.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace kbrain {

struct RunManifest {
  std::map<std::string, std::string> fields;  // string values
  std::map<std::string, double> numbers;      // numeric values
  bool complete = false;
};
void write_manifest(const std::filesystem::path& file, const RunManifest& m);  // atomic (write + rename)

// The files in `dir` and their formats, for run.json's "files": "name: format" joined by "; ", names sorted
// (docs/output-formats.md lists the formats).
std::string describe_output_files(const std::filesystem::path& dir);

}  // namespace kbrain
