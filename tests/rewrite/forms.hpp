#pragma once
// The forms of a convolution in examples/conv/forms/ (issue 17) and which strategies of
// rules/strategies.rules each one is not offered, with the reason rules/README.md's table
// gives. Shared by the rewrite test (offered strategies) and the end-to-end test (PoCL).

#include <string>
#include <vector>

namespace liftc::rewrite::test {

/// A strategy a form is not offered, and why.
struct NotOffered {
  const char* form;      // file name in examples/conv/forms/
  const char* strategy;
  const char* reason;
};

/// Every (form, strategy) pair that is not offered although conv/conv_small.sr is.
const std::vector<NotOffered>& forms_not_offered();

/// A strategy offered to a form although conv/conv_small.sr is not offered it (a strategy
/// of the form's own kind: conv-depthwise-kappa, conv-depthwise-tile and (but for a channel
/// multiplier) conv-depthwise-local for the depthwise forms,
/// conv-pool-tile and conv-pool-kappa for a convolution and its pooling in one definition,
/// conv-dw-pw-private and conv-dw-pw-local for a depthwise convolution fused with its pointwise one).
struct OnlyOffered {
  const char* form;
  const char* strategy;
};

/// Every (form, strategy) pair offered beyond conv/conv_small.sr's strategies.
const std::vector<OnlyOffered>& forms_only_offered();

/// The file names of examples/conv/forms/*.sr, sorted.
std::vector<std::string> conv_forms();

/// The strategies of rewrite::default_strategies(library()) that apply to `text` (rewrite_program succeeds).
std::vector<std::string> offered_strategies(const std::string& text);

}  // namespace liftc::rewrite::test
