#pragma once
// A bundle folder as bytes for the work queue (queue.hpp), and back into a folder on the
// worker's machine. Its own files (bundle.txt, kernels.cl, an input that is not the run's)
// are packed; the files under inputs/, expected/ and allowance/ are named by their content
// hash and stored once, not per candidate. What is unpacked is checked: a path in a pack is
// one or two plain names (never absolute, never `..`), so a damaged or hostile row cannot
// write outside the folder.

#include <functional>
#include <string>

#include "liftc/explore/store/queue.hpp"

namespace liftc::explore {

/// Packs the bundle folder `dir` (the files of a bundle: write_bundle's).
PackedBundle pack_bundle(const std::string& dir);

/// Writes `bundle` into the folder `dir` (created, emptied first): its own files, and its
/// shared files from `cache_dir` (HASH files, kept between bundles), each file missing
/// there read with `fetch(hash)` and kept. A liftc::Error when the pack is damaged.
void unpack_bundle(const std::string& dir, const PackedBundle& bundle, const std::string& cache_dir,
                   const std::function<std::string(const std::string& hash)>& fetch);

/// Makes an unpacked bundle this machine's: its `device` line becomes `device` (the
/// worker's selector) and its `lock` line (a file of the explorer's machine) is dropped.
void retarget_bundle(const std::string& dir, const std::string& device);

}  // namespace liftc::explore
