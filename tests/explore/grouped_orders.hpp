#pragma once
// A grouped convolution whose map over its groups zips the groups' kernels, biases and window
// channels in a given order: shared by the split's table (groups_test.cpp) and explore's on
// PoCL (cli_groups_test.cpp).

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace liftc::explore::test {

/// The orders of a grouped convolution's zip: k its kernels, b its biases, w its window
/// channels; a trailing `t` takes the group's triple whole (`t -> ... t.0 ...`) rather than
/// destructured.
inline const std::vector<std::string> kGroupZipOrders = {"kbw", "kwb", "bkw", "bwk", "wkb", "wbk",
                                                         "kbwt", "kwbt", "bkwt", "bwkt", "wkbt", "wbkt"};

/// A grouped convolution (G = 2 groups of 3 kernels over 4 of the 8 channels each, bias,
/// ReLU) whose map over its groups zips k, b and w in `order` (kGroupZipOrders), the
/// function's parameters in the same order; grouped.sr's order is "kbw". Its definition is
/// `gconv`.
inline std::string grouped_in_order(const std::string& order) {
  const std::map<char, std::pair<const char*, const char*>> parts = {
      {'k', {"gker", "split(NO / G, gk)"}},
      {'b', {"gbias", "split(NO / G, gb)"}},
      {'w', {"gwin", "transpose(map(transpose, map2D(split(NI / G), win)))"}}};
  const bool whole = order.size() == 4 && order[3] == 't';
  std::vector<std::string> params, operands;
  std::map<char, std::string> name;  // how the function reads each part
  for (std::size_t i = 0; i < 3; ++i) {
    params.push_back(parts.at(order[i]).first);
    operands.push_back(parts.at(order[i]).second);
    name[order[i]] = whole ? fmt::format("t.{}", i) : parts.at(order[i]).first;
  }
  return fmt::format(R"(size H = 5, W = 4, NI = 8, NO = 6, G = 2
input src : [[[float]NI]W]H
input gk : [[[[float](NI/G)]3]3]NO
input gb : [float]NO
def gconv = map2D(win -> join(join(map({} ->
                    map((kk, bz) -> map(x -> max(x, 0.0), reduce(bz, (s, pr) -> s + pr.0 * pr.1, zip(join(join({})), join(join(kk))))),
                        zip({}, {})),
                  zip({})))),
              slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, src)))
)",
                     whole ? std::string("t") : fmt::format("({})", fmt::join(params, ", ")), name['w'], name['k'],
                     name['b'], fmt::join(operands, ", "));
}

}  // namespace liftc::explore::test
