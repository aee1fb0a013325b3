#pragma once
// explore's facade: one exploration as `liftc explore` runs it. A Request holds every option
// of the command line (those a run is stored with, and those of this command alone); run()
// does the rest (resume, replay, network or whole program, warm start, the store, the front
// and the -o files) and tells what happens through a Reporter. The command line parses
// flags into a Request and prints the Reporter's lines; nothing else of explore is its
// business.

#include <cstdio>
#include <string_view>

#include "liftc/explore/request.hpp"

namespace liftc::explore {

/// Where run() tells what happens: the report's text as it comes (the device, the space,
/// the store, the front, what was written; lines end with '\n'), and the stream of the live
/// progress line (nullptr: none). The report's text is written before the progress line
/// starts, so a stream that buffers should be flushed on each print.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void print(std::string_view text) = 0;
  virtual std::FILE* progress() = 0;
};

/// Runs the exploration `request` asks for. Throws liftc::Error on a bad option, a program
/// or rules that do not load, a device that refuses, and when no point validated ("no
/// front: ..."): the command exits non-zero.
void run(Request request, Reporter& report);

}  // namespace liftc::explore
