// Allocation, upload, canary checking and read-back of plan buffers.

#include "guarded_buffer.hpp"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "liftc/support/half.hpp"

namespace liftc::runtime::detail {
namespace {

// Compares one canary region against the pattern (guard.hpp, as liftc-runner does);
// appends a violation if it changed.
void check_region(const std::vector<std::byte>& got, const GuardedBuffer& buf, CanarySide side,
                  std::vector<CanaryViolation>& out) {
  guard::Damage d = guard::damage(got.data(), got.size());
  if (d.changed_bytes == 0) return;
  CanaryViolation v{buf.index, buf.spec->name, side, 0, 0};
  v.first_offset = d.first_offset;
  v.changed_bytes = d.changed_bytes;
  out.push_back(std::move(v));
}

std::string describe(const GuardedBuffer& buf) {
  return fmt::format("buffer {} '{}' ({} bytes + {}/{} canary bytes)", buf.index, buf.spec->name, buf.spec->bytes,
                     buf.before, buf.after);
}

}  // namespace

std::vector<GuardedBuffer> allocate_guarded(const cl::Context& context, const cl::CommandQueue& queue,
                                            const DeviceInfo& device, const LaunchPlan& plan,
                                            std::size_t canary_bytes) {
  std::vector<GuardedBuffer> buffers;
  buffers.reserve(plan.buffers.size());
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const BufferSpec& spec = plan.buffers[b];
    GuardedBuffer buf;
    buf.spec = &spec;
    buf.index = b;
    const guard::Layout layout = guard::layout(spec.bytes, canary_bytes, device.mem_base_addr_align_bytes);
    buf.after = layout.after;
    buf.before = layout.before;
    const std::size_t total = layout.total();

    buf.whole = checked("allocating " + describe(buf), [&] { return cl::Buffer(context, CL_MEM_READ_WRITE, total); });
    if (buf.before > 0) {
      cl_buffer_region region{buf.before, spec.bytes};
      buf.data = checked("creating the data sub-buffer of " + describe(buf), [&] {
        return buf.whole.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
      });
    } else {
      buf.data = buf.whole;
    }

    std::vector<std::byte> staging(total);
    guard::fill_canaries(staging.data(), layout);
    std::byte* payload = staging.data() + buf.before;
    if (auto* f = std::get_if<std::vector<float>>(&spec.host); f && spec.elem == ElemType::Half) {
      for (std::size_t e = 0; e < f->size(); ++e) {
        const std::uint16_t h = half::from_float((*f)[e]);
        std::memcpy(payload + 2 * e, &h, sizeof h);
      }
    } else if (f) {
      std::memcpy(payload, f->data(), spec.bytes);
    } else if (auto* i = std::get_if<std::vector<std::int32_t>>(&spec.host)) {
      std::memcpy(payload, i->data(), spec.bytes);
    } else {
      guard::fill(payload, spec.bytes, spec.elem == ElemType::Half ? guard::kPoisonHalfWord : guard::kPoison);
    }
    checked("uploading " + describe(buf),
            [&] { queue.enqueueWriteBuffer(buf.whole, CL_TRUE, 0, total, staging.data()); });
    buffers.push_back(std::move(buf));
  }
  return buffers;
}

std::vector<CanaryViolation> check_canaries(const cl::CommandQueue& queue, const std::vector<GuardedBuffer>& buffers) {
  std::vector<CanaryViolation> violations;
  for (const GuardedBuffer& buf : buffers) {
    const std::string action = "reading the canaries of " + describe(buf);
    if (buf.before > 0) {
      std::vector<std::byte> got(buf.before);
      checked(action, [&] { queue.enqueueReadBuffer(buf.whole, CL_TRUE, 0, buf.before, got.data()); });
      check_region(got, buf, CanarySide::Before, violations);
    }
    if (buf.after > 0) {
      std::vector<std::byte> got(buf.after);
      checked(action, [&] {
        queue.enqueueReadBuffer(buf.whole, CL_TRUE, buf.before + buf.spec->bytes, buf.after, got.data());
      });
      check_region(got, buf, CanarySide::After, violations);
    }
  }
  return violations;
}

HostData read_back(const cl::CommandQueue& queue, const GuardedBuffer& buf) {
  const std::string action = "reading back " + describe(buf);
  auto read_into = [&](auto& vec) {
    checked(action, [&] { queue.enqueueReadBuffer(buf.whole, CL_TRUE, buf.before, buf.spec->bytes, vec.data()); });
  };
  if (buf.spec->elem == ElemType::Half) {  // as floats, exactly; the poison half stays a NaN of its own payload
    std::vector<std::uint16_t> halves(buf.spec->bytes / 2);
    read_into(halves);
    std::vector<float> values(halves.size());
    for (std::size_t e = 0; e < halves.size(); ++e) values[e] = half::to_float(halves[e]);
    return values;
  }
  if (buf.spec->elem == ElemType::Float) {
    std::vector<float> values(buf.spec->bytes / sizeof(float));
    read_into(values);
    return values;
  }
  std::vector<std::int32_t> values(buf.spec->bytes / sizeof(std::int32_t));
  read_into(values);
  return values;
}

}  // namespace liftc::runtime::detail
