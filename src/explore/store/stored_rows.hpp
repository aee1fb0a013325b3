#pragma once
// What a store keeps in text or bytes, the same in every backend: an evaluation's timed
// samples as a JSON list, and an interpreter reference as JSON meta and raw bytes; read back
// with checks (a damaged value is a liftc::Error naming the store and the row).

#include <string>
#include <vector>

#include "liftc/interp/interp.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::stored {

/// "STORE: WHAT is damaged (WHY)".
Error damaged(const std::string& store, const std::string& what, const std::string& why);

/// The samples as the JSON list a row keeps (a sample that is not finite is null).
std::string samples_to_json(const std::vector<double>& samples);
/// The samples of a row's JSON list (null: NaN); `what` names the row in the error.
std::vector<double> samples_from_json(const std::string& text, const std::string& store, const std::string& what);

/// A reference as a row of refs keeps it: its tensors' names, dtypes and shapes, and their
/// elements' bytes one after the other.
struct EncodedReference {
  std::string meta;
  std::string data;
};
EncodedReference encode_reference(const interp::Tensors& outputs);
/// The tensors of a stored reference `key`, checked against its meta.
interp::Tensors decode_reference(const std::string& meta, const std::string& data, const std::string& store,
                                 const std::string& key);

}  // namespace liftc::explore::stored
