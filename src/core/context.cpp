// Context: harness-owned allocations, deterministic fills, the cuBLAS handle, scratch files.
#include <cublas_v2.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>

#include "aisp/check.hpp"
#include "aisp/context.hpp"
#include "core/context_state.hpp"
#include "core/nccl_library.hpp"
#include "core/random_fill.hpp"
#include "core/rank_exchange.hpp"

namespace aisp {

namespace detail {

ContextState::ContextState(ContextOptions opts) : options(std::move(opts)) {
  if (options.host_threads <= 0)
    options.host_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (options.device >= 0) AISP_CUDA_CHECK(cudaGetDeviceProperties(&properties, options.device));
}

ContextState::~ContextState() {
  // Destructors must not throw; a failing free shows up in the worker's final device check.
  if (cublas != nullptr) cublasDestroy(cublas);
  destroy_nccl_communicators(nccl);
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
    switch (it->memory()) {
    case Memory::device:
    case Memory::managed: {
      // cudaFree frees on any device, but keep the owner current as its allocation was.
      int current = 0;
      const bool elsewhere = cudaGetDevice(&current) == cudaSuccess && current != it->device();
      if (elsewhere) cudaSetDevice(it->device());
      cudaFree(it->data());
      if (elsewhere) cudaSetDevice(current);
      break;
    }
    case Memory::pinned: cudaFreeHost(it->data()); break;
    case Memory::host: std::free(it->data()); break;
    }
  }
  if (!scratch.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(scratch, ignored);
  }
}

}  // namespace detail

int run_device_count(const ContextOptions& options) {
  if (options.device < 0) return 0;
  return std::max(1, static_cast<int>(options.device_streams.size()));
}

void synchronize_run_devices(const ContextOptions& options) {
  if (options.device < 0) return;
  if (options.device_streams.size() <= 1) {
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
    return;
  }
  for (int d = 0; d < static_cast<int>(options.device_streams.size()); ++d) {
    const ScopedDevice on(d);
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
  }
  AISP_CUDA_CHECK(cudaSetDevice(options.device));
}

ScopedDevice::ScopedDevice(int device) {
  AISP_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device) {
    AISP_CUDA_CHECK(cudaSetDevice(device));
    changed_ = true;
  }
}

ScopedDevice::~ScopedDevice() {
  if (changed_) static_cast<void>(cudaSetDevice(previous_));
}

std::unique_ptr<Context> make_context(ContextOptions options) {
  return std::make_unique<Context>(std::make_unique<detail::ContextState>(std::move(options)));
}

Context::Context(std::unique_ptr<detail::ContextState> state) : state_(std::move(state)) {}
Context::~Context() = default;

cudaStream_t Context::stream() const { return state_->options.stream; }

int Context::device_count() const { return run_device_count(state_->options); }

namespace {

// The run's GPU `device`, or a message naming the ones there are.
void check_run_device(const Context& ctx, int device, const char* call) {
  const int count = ctx.device_count();
  if (device < 0 || device >= count)
    throw std::out_of_range(fmt::format(
        "{}({}): this run uses {} GPU{}{}; a pair that needs more declares "
        "Requirements::min_gpus (or is run with bench run --gpus N)",
        call, device, count, count == 1 ? "" : "s",
        count == 0 ? " (a CPU-only variant)" : fmt::format(" (devices 0..{})", count - 1)));
}

}  // namespace

cudaStream_t Context::stream(int device) const {
  check_run_device(*this, device, "stream");
  const ContextOptions& o = state_->options;
  if (device == o.device) return o.stream;
  return o.device_streams[static_cast<std::size_t>(device)];
}

bool Context::peer_access(int device, int peer) const {
  check_run_device(*this, device, "peer_access");
  check_run_device(*this, peer, "peer_access");
  if (device == peer) return true;
  int can = 0;
  AISP_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
  return can != 0;
}

int Context::rank(int device) const {
  check_run_device(*this, device, "rank");
  const RankExchange* ranks = state_->options.ranks;
  return ranks != nullptr ? ranks->rank() : device;
}

int Context::rank_count() const {
  const RankExchange* ranks = state_->options.ranks;
  return ranks != nullptr && has_gpu() ? ranks->size() : device_count();
}

ncclComm* Context::nccl(int device) {
  check_run_device(*this, device, "nccl");
  if (state_->nccl.empty() && state_->options.ranks != nullptr) {
    state_->nccl.push_back(detail::create_nccl_rank_communicator(*state_->options.ranks));
    AISP_CUDA_CHECK(cudaSetDevice(state_->options.device));
  } else if (state_->nccl.empty()) {
    state_->nccl = detail::create_nccl_communicators(device_count());
    // ncclCommInitAll leaves some other device current; the run's primary device stays current.
    AISP_CUDA_CHECK(cudaSetDevice(state_->options.device));
  }
  return state_->nccl[static_cast<std::size_t>(device)];
}
std::uint64_t Context::seed() const { return state_->options.seed; }
bool Context::has_gpu() const { return state_->options.device >= 0; }
int Context::device() const { return state_->options.device; }
int Context::host_threads() const { return state_->options.host_threads; }
const std::vector<Tensor>& Context::tensors() const { return state_->tensors; }

void Context::mark(std::string_view name) {
  if (state_->marks != nullptr) {
    state_->marks->record(name, state_->options.stream);
  }
}

const cudaDeviceProp& Context::device_properties() const {
  if (!has_gpu())
    throw std::logic_error("device_properties() called by a CPU-only variant: declare a GPU "
                           "requirement or do not use the device");
  return state_->properties;
}

Tensor Context::alloc(std::string name, DType dtype, std::size_t count, Role role,
                      Memory memory) {
  return alloc(std::move(name), dtype, count, role, memory, has_gpu() ? device() : 0);
}

Tensor Context::alloc(std::string name, DType dtype, std::size_t count, Role role, Memory memory,
                      int device) {
  if (has_gpu()) check_run_device(*this, device, "alloc");
  for (const auto& t : state_->tensors)
    if (t.name() == name)
      throw std::invalid_argument(fmt::format(
          "alloc: a tensor named '{}' exists already; names key the deterministic fill, so give "
          "each tensor its own name",
          name));
  if (count == 0)
    throw std::invalid_argument(fmt::format("alloc: tensor '{}' has zero elements", name));
  if (!has_gpu() && memory != Memory::host)
    throw std::logic_error(fmt::format("alloc: a CPU-only variant asked for {} memory for '{}'; "
                                       "use Memory::host",
                                       memory_name(memory), name));
  const std::size_t bytes = count * dtype_size(dtype);
  void* data = nullptr;
  std::optional<ScopedDevice> on;  // the allocation's device current while it is made
  if (has_gpu() && device != this->device()) on.emplace(device);
  switch (memory) {
  case Memory::device: AISP_CUDA_CHECK(cudaMalloc(&data, bytes)); break;
  case Memory::pinned: AISP_CUDA_CHECK(cudaMallocHost(&data, bytes)); break;
  case Memory::managed: AISP_CUDA_CHECK(cudaMallocManaged(&data, bytes)); break;
  case Memory::host: {
    // Page-aligned: suits O_DIRECT reads and wide vector loads alike.
    const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
    data = std::aligned_alloc(4096, rounded);
    if (data == nullptr)
      throw std::runtime_error(fmt::format("alloc: out of host memory for '{}' ({} bytes)", name,
                                           bytes));
    break;
  }
  }
  state_->tensors.emplace_back(std::move(name), dtype, count, memory, role, data, device);
  state_->allocated_bytes += bytes;
  return state_->tensors.back();
}

void Context::fill_uniform(const Tensor& t, double lo, double hi) {
  if (!dtype_is_floating(t.dtype()))
    throw std::invalid_argument(fmt::format(
        "fill_uniform: tensor '{}' is {}; use fill_uniform_int for integer tensors", t.name(),
        dtype_name(t.dtype())));
  const auto key = detail::fill_key(seed(), t.name().data(), t.name().size());
  const detail::InputDistribution distribution = state_->options.distribution;
  if (t.memory() == Memory::device || t.memory() == Memory::managed) {
    const ScopedDevice on(t.device());  // the fill kernel runs where the tensor lives
    detail::fill_uniform_device(t.dtype(), t.data(), t.count(), key, lo, hi, stream(t.device()),
                                distribution);
  } else {
    detail::fill_uniform_host(t.dtype(), t.data(), t.count(), key, lo, hi, host_threads(),
                              distribution);
  }
  FillRecord record;
  record.tensor = t.name();
  record.dtype = t.dtype();
  record.lo = lo;
  record.hi = hi;
  record.distribution = detail::distribution_allowed(t.dtype(), distribution)
                            ? distribution
                            : detail::InputDistribution::uniform;
  state_->fills.push_back(std::move(record));
}

void Context::fill_uniform_int(const Tensor& t, std::int64_t lo, std::int64_t hi) {
  if (dtype_is_floating(t.dtype()) || hi < lo)
    throw std::invalid_argument(fmt::format(
        "fill_uniform_int: tensor '{}' ({}) needs an integer dtype and lo <= hi", t.name(),
        dtype_name(t.dtype())));
  const auto key = detail::fill_key(seed(), t.name().data(), t.name().size());
  if (t.memory() == Memory::device || t.memory() == Memory::managed) {
    const ScopedDevice on(t.device());
    detail::fill_int_device(t.dtype(), t.data(), t.count(), key, lo, hi, stream(t.device()));
  } else {
    detail::fill_int_host(t.dtype(), t.data(), t.count(), key, lo, hi, host_threads());
  }
  FillRecord record;
  record.tensor = t.name();
  record.dtype = t.dtype();
  record.integer = true;
  record.int_lo = lo;
  record.int_hi = hi;
  state_->fills.push_back(std::move(record));
}

cublasContext* Context::cublas() {
  if (!has_gpu()) throw std::logic_error("cublas() called by a CPU-only variant");
  if (state_->cublas == nullptr) {
    AISP_CUBLAS_CHECK(cublasCreate(&state_->cublas));
    AISP_CUBLAS_CHECK(cublasSetStream(state_->cublas, stream()));
    // The harness's math policy: no implicit TF32 or reduced precision. A variant that wants
    // tensor-core math for fp32 says so in its own calls and in its tolerance justification.
    AISP_CUBLAS_CHECK(cublasSetMathMode(state_->cublas, CUBLAS_DEFAULT_MATH));
  }
  return state_->cublas;
}

const std::filesystem::path& Context::scratch_dir() {
  if (state_->scratch.empty()) {
    const std::filesystem::path root = state_->options.scratch_root.empty()
                                           ? std::filesystem::temp_directory_path()
                                           : state_->options.scratch_root;
    std::filesystem::create_directories(root);
    std::string pattern = (root / "aisp-scratch-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error(fmt::format("scratch_dir: cannot create a directory under {}: {}",
                                           root.string(), std::strerror(errno)));
    state_->scratch = pattern;
  }
  return state_->scratch;
}

bool on_stream_device(const Tensor& t, cudaStream_t stream) {
  if (t.memory() != Memory::device && t.memory() != Memory::managed) return true;
  int device = 0;
  if (stream != nullptr) {
    AISP_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  } else {
    AISP_CUDA_CHECK(cudaGetDevice(&device));
  }
  return device == t.device();
}

void poison_tensor(const Tensor& t, cudaStream_t stream, bool alternate) {
  const int byte = dtype_is_floating(t.dtype())
                       ? kFloatPoisonByte
                       : (alternate ? kIntegerPoisonAlternateByte : kIntegerPoisonByte);
  if ((t.memory() == Memory::device || t.memory() == Memory::managed) &&
      !on_stream_device(t, stream)) {
    // Another GPU of a multi-GPU run: set there, after everything queued on it.
    if (stream != nullptr) AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
    const ScopedDevice on(t.device());
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
    AISP_CUDA_CHECK(cudaMemset(t.data(), byte, t.bytes()));
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
  } else if (t.memory() == Memory::device || t.memory() == Memory::managed) {
    AISP_CUDA_CHECK(cudaMemsetAsync(t.data(), byte, t.bytes(), stream));
    AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  } else {
    std::memset(t.data(), byte, t.bytes());
  }
}

HostBytes read_tensor_bytes(const Tensor& t, cudaStream_t stream) {
  HostBytes bytes(t.bytes());
  if ((t.memory() == Memory::device || t.memory() == Memory::managed) &&
      !on_stream_device(t, stream)) {
    if (stream != nullptr) AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
    const ScopedDevice on(t.device());
    AISP_CUDA_CHECK(cudaDeviceSynchronize());  // the work of its own GPU's stream is done
    AISP_CUDA_CHECK(cudaMemcpy(bytes.data(), t.data(), t.bytes(), cudaMemcpyDeviceToHost));
  } else if (t.memory() == Memory::device || t.memory() == Memory::managed) {
    AISP_CUDA_CHECK(cudaMemcpyAsync(bytes.data(), t.data(), t.bytes(), cudaMemcpyDeviceToHost,
                                    stream));
    AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  } else {
    if (stream != nullptr) AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(bytes.data(), t.data(), t.bytes());
  }
  return bytes;
}

}  // namespace aisp
