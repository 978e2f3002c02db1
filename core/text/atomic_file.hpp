#pragma once
// Writes a whole text file so that a reader, or a run cut short, sees the old file or the new one, never a truncated
// one: `<file>.tmp` in the same folder, then a rename over `file` (atomic on POSIX). Creates missing folders.
// Throws std::runtime_error naming the file.
#include <filesystem>
#include <string>

namespace kbrain::text {

void write_file_atomically(const std::filesystem::path& file, const std::string& text);

// Before an output file is created: a symbolic link at `file` is removed, not followed, so that a link planted in an
// output folder cannot make kbrain overwrite the file it points to. Output files are always new regular files.
void remove_planted_link(const std::filesystem::path& file);

}  // namespace kbrain::text
