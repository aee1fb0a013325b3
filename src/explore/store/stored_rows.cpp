// An evaluation's samples and a reference's tensors as every store keeps them, and their checks.

#include "stored_rows.hpp"

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace liftc::explore::stored {

Error damaged(const std::string& store, const std::string& what, const std::string& why) {
  return Error(fmt::format("{}: {} is damaged ({})", store, what, why));
}

std::string samples_to_json(const std::vector<double>& samples) { return nlohmann::json(samples).dump(); }

std::string insert_evaluation_statement() {
  std::vector<std::string> names, marks;
  for (std::size_t i = 1; i < std::size(kEvaluationColumns); ++i) {
    names.push_back(kEvaluationColumns[i].name);
    marks.push_back("?");
  }
  return fmt::format("INSERT INTO evaluations({}) VALUES({}) RETURNING id", fmt::join(names, ", "),
                     fmt::join(marks, ", "));
}

std::string evaluation_select_list(const std::set<std::string>& absent) {
  std::vector<std::string> names;
  for (const EvaluationColumn& c : kEvaluationColumns) names.push_back(absent.count(c.name) ? "NULL" : c.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<double> samples_from_json(const std::string& text, const std::string& store, const std::string& what) {
  nlohmann::json samples = nlohmann::json::parse(text, nullptr, false);
  if (samples.is_discarded() || !samples.is_array())
    throw damaged(store, what, "its samples_ms is not a JSON list of numbers");
  std::vector<double> out;
  for (const auto& v : samples) {
    if (!v.is_number() && !v.is_null()) throw damaged(store, what, "its samples_ms is not a JSON list of numbers");
    // null: what nlohmann::json writes for a sample that is not finite
    out.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
  }
  return out;
}

EncodedReference encode_reference(const interp::Tensors& outputs) {
  nlohmann::json meta = nlohmann::json::array();
  std::string data;
  for (const auto& [name, t] : outputs) {
    bool f = t.dtype == io::DType::Float32;
    meta.push_back({{"name", name}, {"dtype", f ? "f32" : "i32"}, {"shape", t.shape}});
    const char* p = f ? reinterpret_cast<const char*>(t.f32.data()) : reinterpret_cast<const char*>(t.i32.data());
    data.append(p, 4 * static_cast<std::size_t>(t.element_count()));
  }
  return {meta.dump(), std::move(data)};
}

namespace {

// The element count of shape `shape`, checked against the `left` elements the data still
// holds as it is multiplied (so no shape, however large, overflows): left + 1 when it needs more.
std::size_t element_count(const nlohmann::json& shape, std::size_t left, std::vector<std::int64_t>& sizes,
                          const std::function<Error(const std::string&)>& bad, const std::string& name) {
  std::size_t count = 1;
  bool empty = false;
  for (const auto& d : shape) {
    // Sizes parse as unsigned JSON numbers; a negative one parses as signed.
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      throw bad(fmt::format("the shape of '{}' is not a list of sizes >= 0", name));
    auto n = d.get<std::uint64_t>();
    sizes.push_back(static_cast<std::int64_t>(n));
    if (n == 0) empty = true;
    else if (!empty && count > left / n) count = left + 1;  // more than the data holds
    else if (!empty) count *= n;
  }
  return empty ? 0 : count;
}

}  // namespace

interp::Tensors decode_reference(const std::string& meta_text, const std::string& data, const std::string& store,
                                 const std::string& key) {
  std::function<Error(const std::string&)> bad = [&](const std::string& why) {
    return damaged(store, fmt::format("the reference {}", key), why);
  };
  nlohmann::json meta = nlohmann::json::parse(meta_text, nullptr, false);
  if (meta.is_discarded() || !meta.is_array()) throw bad("its meta is not a JSON list");
  interp::Tensors out;
  std::size_t offset = 0;
  for (const auto& m : meta) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || m["name"].get<std::string>().empty())
      throw bad("an entry of its meta has no name");
    std::string name = m["name"].get<std::string>();
    if (!m.contains("dtype") || (m["dtype"] != "f32" && m["dtype"] != "i32"))
      throw bad(fmt::format("'{}' has no dtype f32 or i32", name));
    if (!m.contains("shape") || !m["shape"].is_array()) throw bad(fmt::format("'{}' has no shape", name));
    io::Tensor t;
    t.dtype = m["dtype"] == "f32" ? io::DType::Float32 : io::DType::Int32;
    const std::size_t left = (data.size() - offset) / 4;
    std::size_t count = element_count(m["shape"], left, t.shape, bad, name);
    if (count > left) throw bad(fmt::format("its data is shorter than the shape of '{}' needs", name));
    if (t.dtype == io::DType::Float32) {
      t.f32.resize(count);
      std::memcpy(t.f32.data(), data.data() + offset, 4 * count);
    } else {
      t.i32.resize(count);
      std::memcpy(t.i32.data(), data.data() + offset, 4 * count);
    }
    offset += 4 * count;
    if (!out.emplace(name, std::move(t)).second) throw bad(fmt::format("'{}' appears twice", name));
  }
  if (offset != data.size()) throw bad("its data is longer than its meta says");
  return out;
}

}  // namespace liftc::explore::stored
