// cuDNN SDPA through the backend API, loaded with dlopen (attention_cudnn_sdpa.hpp says why and
// which graph). Without the cuDNN headers at build time the class compiles to a stub that
// reports cuDNN as unavailable.
#include "attention_cudnn_sdpa.hpp"

#include <dlfcn.h>

#include <array>
#include <deque>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#if __has_include(<cudnn_graph.h>)
#include <cudnn_graph.h>
#define AISP_HAVE_CUDNN_HEADERS 1
#else
#define AISP_HAVE_CUDNN_HEADERS 0
#endif

namespace aisp::attention {

#if AISP_HAVE_CUDNN_HEADERS
namespace {

// The handful of cuDNN entry points this file calls, resolved from libcudnn.so.9 at first use.
struct CudnnApi {
  void* library = nullptr;
  std::string error;  // why the library could not be used (empty when it can)
  std::string loaded_from;
  decltype(&::cudnnGetVersion) get_version = nullptr;
  decltype(&::cudnnGetErrorString) get_error_string = nullptr;
  decltype(&::cudnnGetLastErrorString) get_last_error_string = nullptr;
  decltype(&::cudnnCreate) create = nullptr;
  decltype(&::cudnnDestroy) destroy = nullptr;
  decltype(&::cudnnSetStream) set_stream = nullptr;
  decltype(&::cudnnBackendCreateDescriptor) create_descriptor = nullptr;
  decltype(&::cudnnBackendDestroyDescriptor) destroy_descriptor = nullptr;
  decltype(&::cudnnBackendSetAttribute) set_attribute = nullptr;
  decltype(&::cudnnBackendGetAttribute) get_attribute = nullptr;
  decltype(&::cudnnBackendFinalize) finalize = nullptr;
  decltype(&::cudnnBackendExecute) execute = nullptr;
};

template <class F>
bool resolve(CudnnApi& api, F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(api.library, name));
  if (slot == nullptr)
    api.error = std::string("libcudnn has no symbol ") + name;
  return slot != nullptr;
}

const CudnnApi& cudnn_api() {
  static const CudnnApi api = [] {
    CudnnApi a;
    // The loader's search path first; then the CUDA toolkit's library folder, where the test
    // machine keeps cuDNN without adding it to the loader's path.
    for (const char* name : {"libcudnn.so.9", "/usr/local/cuda/lib64/libcudnn.so.9"}) {
      a.library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (a.library != nullptr) {
        a.loaded_from = name;
        break;
      }
    }
    if (a.library == nullptr) {
      const char* why = dlerror();
      a.error = std::string("cuDNN 9 is not installed or not on the library path (dlopen "
                            "libcudnn.so.9: ") +
                (why != nullptr ? why : "not found") +
                "); install cuDNN 9 or add its folder to LD_LIBRARY_PATH";
      return a;
    }
    const bool ok = resolve(a, a.get_version, "cudnnGetVersion") &&
                    resolve(a, a.get_error_string, "cudnnGetErrorString") &&
                    resolve(a, a.get_last_error_string, "cudnnGetLastErrorString") &&
                    resolve(a, a.create, "cudnnCreate") && resolve(a, a.destroy, "cudnnDestroy") &&
                    resolve(a, a.set_stream, "cudnnSetStream") &&
                    resolve(a, a.create_descriptor, "cudnnBackendCreateDescriptor") &&
                    resolve(a, a.destroy_descriptor, "cudnnBackendDestroyDescriptor") &&
                    resolve(a, a.set_attribute, "cudnnBackendSetAttribute") &&
                    resolve(a, a.get_attribute, "cudnnBackendGetAttribute") &&
                    resolve(a, a.finalize, "cudnnBackendFinalize") &&
                    resolve(a, a.execute, "cudnnBackendExecute");
    if (ok && a.get_version() < 90000) {
      a.error = "cuDNN " + std::to_string(a.get_version()) +
                " is older than 9.0, which the backend SDPA graph needs";
    }
    return a;
  }();
  return api;
}

const CudnnApi& require_cudnn() {
  const CudnnApi& api = cudnn_api();
  if (!api.error.empty())
    throw CudnnSdpaUnavailable("cuDNN SDPA unavailable: " + api.error);
  return api;
}

[[noreturn]] void throw_cudnn(cudnnStatus_t status, const std::string& what) {
  const CudnnApi& api = cudnn_api();
  std::array<char, 1024> last{};
  api.get_last_error_string(last.data(), last.size());
  throw std::runtime_error("cuDNN SDPA: " + what + " failed: " + api.get_error_string(status) +
                           (last[0] != '\0' ? std::string(" (") + last.data() + ")" : ""));
}

void check(cudnnStatus_t status, const std::string& what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw_cudnn(status, what);
}

// An owned backend descriptor.
class Descriptor {
 public:
  Descriptor() = default;
  Descriptor(cudnnBackendDescriptorType_t type, std::string name) : name_(std::move(name)) {
    check(cudnn_api().create_descriptor(type, &handle_), "creating " + name_);
  }
  ~Descriptor() {
    if (handle_ != nullptr)
      cudnn_api().destroy_descriptor(handle_);
  }
  Descriptor(Descriptor&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(name_, other.name_);
    return *this;
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;

  Descriptor& set(cudnnBackendAttributeName_t attribute, cudnnBackendAttributeType_t type,
                  std::int64_t count, const void* values) {
    check(cudnn_api().set_attribute(handle_, attribute, type, count, values),
          "setting attribute " + std::to_string(static_cast<int>(attribute)) + " of " + name_);
    return *this;
  }
  Descriptor& set(cudnnBackendAttributeName_t attribute, const Descriptor& value) {
    const cudnnBackendDescriptor_t h = value.get();
    return set(attribute, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &h);
  }
  Descriptor& finalize() {
    check(cudnn_api().finalize(handle_), "finalizing " + name_);
    return *this;
  }
  cudnnStatus_t try_finalize() { return cudnn_api().finalize(handle_); }
  cudnnBackendDescriptor_t get() const { return handle_; }

 private:
  cudnnBackendDescriptor_t handle_ = nullptr;
  std::string name_;
};

using Dims = std::array<std::int64_t, 4>;

Descriptor tensor(std::int64_t uid, cudnnDataType_t type, const Dims& dims, const Dims& strides,
                  bool is_virtual, bool by_value = false) {
  Descriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor " + std::to_string(uid));
  const std::int64_t alignment = 16;
  t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data())
      .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data())
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment)
      .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
  if (by_value)
    t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
  return std::move(t.finalize());
}

Descriptor matmul(const Descriptor& a, const Descriptor& b, const Descriptor& c) {
  Descriptor desc(CUDNN_BACKEND_MATMUL_DESCRIPTOR, "matmul descriptor");
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute).finalize();
  Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, "matmul operation");
  op.set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
      .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
      .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c)
      .set(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc);
  return std::move(op.finalize());
}

// y = x <mode> b (b null for unary modes).
Descriptor pointwise(cudnnPointwiseMode_t mode, const Descriptor& x, const Descriptor* b,
                     const Descriptor& y) {
  Descriptor desc(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pointwise descriptor");
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode)
      .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &compute)
      .finalize();
  Descriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "pointwise operation");
  op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc)
      .set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
  if (b != nullptr)
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
  op.set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
  return std::move(op.finalize());
}

Descriptor reduction(cudnnReduceTensorOp_t mode, const Descriptor& x, const Descriptor& y) {
  Descriptor desc(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, "reduction descriptor");
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode)
      .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute)
      .finalize();
  Descriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, "reduction operation");
  op.set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc)
      .set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x)
      .set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y);
  return std::move(op.finalize());
}

enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kScale, kStats, kVirtual = 100 };

}  // namespace

struct CudnnSdpa::State {
  CudnnSdpaShape shape;
  cudnnHandle_t handle = nullptr;
  std::deque<Descriptor> tensors;  // kept alive with the graph (a deque: stable references)
  std::vector<Descriptor> operations;
  Descriptor graph, plan, variant_pack;
  bool with_stats = false;
  std::int64_t workspace = 0;
  std::size_t stats_bytes = 0;
  float scale = 1.0f;  // the by-value scalar: the variant pack points at it
  std::string description;

  ~State() {
    // Every descriptor goes before the handle it was built with.
    variant_pack = Descriptor();
    plan = Descriptor();
    graph = Descriptor();
    operations.clear();
    tensors.clear();
    if (handle != nullptr)
      cudnn_api().destroy(handle);
  }

  // Builds the operation graph; with_stats adds the FP32 softmax statistics as a real output.
  void build_graph(bool stats) {
    operations.clear();
    tensors.clear();
    with_stats = stats;
    const std::int64_t b = shape.batch, h = shape.heads, s = shape.seq, d = shape.head_dim;
    const Dims bhsd{b, h, s, d}, bhsd_strides{h * s * d, s * d, d, 1};
    const Dims bhds{b, h, d, s}, bhds_strides{h * s * d, s * d, 1, d};  // Kᵀ: K's memory
    const Dims scores{b, h, s, s}, scores_strides{h * s * s, s * s, s, 1};
    const Dims rows{b, h, s, 1}, rows_strides{h * s, s, 1, 1};
    const Dims scalar{1, 1, 1, 1};
    std::int64_t next_virtual = kVirtual;
    auto add = [&](Descriptor t) -> const Descriptor& {
      tensors.push_back(std::move(t));
      return tensors.back();
    };
    const Descriptor& q = add(tensor(kQ, CUDNN_DATA_BFLOAT16, bhsd, bhsd_strides, false));
    const Descriptor& kt = add(tensor(kK, CUDNN_DATA_BFLOAT16, bhds, bhds_strides, false));
    const Descriptor& v = add(tensor(kV, CUDNN_DATA_BFLOAT16, bhsd, bhsd_strides, false));
    const Descriptor& o = add(tensor(kO, CUDNN_DATA_BFLOAT16, bhsd, bhsd_strides, false));
    const Descriptor& scale_t =
        add(tensor(kScale, CUDNN_DATA_FLOAT, scalar, scalar, false, /*by_value=*/true));
    auto virtual_scores = [&](cudnnDataType_t type) -> const Descriptor& {
      return add(tensor(next_virtual++, type, scores, scores_strides, true));
    };
    auto virtual_rows = [&]() -> const Descriptor& {
      return add(tensor(next_virtual++, CUDNN_DATA_FLOAT, rows, rows_strides, true));
    };
    const Descriptor& s_raw = virtual_scores(CUDNN_DATA_FLOAT);
    const Descriptor& s_scaled = virtual_scores(CUDNN_DATA_FLOAT);
    const Descriptor& row_max = virtual_rows();
    const Descriptor& s_shifted = virtual_scores(CUDNN_DATA_FLOAT);
    const Descriptor& s_exp = virtual_scores(CUDNN_DATA_FLOAT);
    const Descriptor& row_sum = virtual_rows();
    const Descriptor& probs = virtual_scores(CUDNN_DATA_BFLOAT16);

    operations.push_back(matmul(q, kt, s_raw));
    operations.push_back(pointwise(CUDNN_POINTWISE_MUL, s_raw, &scale_t, s_scaled));
    operations.push_back(reduction(CUDNN_REDUCE_TENSOR_MAX, s_scaled, row_max));
    operations.push_back(pointwise(CUDNN_POINTWISE_SUB, s_scaled, &row_max, s_shifted));
    operations.push_back(pointwise(CUDNN_POINTWISE_EXP, s_shifted, nullptr, s_exp));
    operations.push_back(reduction(CUDNN_REDUCE_TENSOR_ADD, s_exp, row_sum));
    if (stats) {
      const Descriptor& log_sum = virtual_rows();
      const Descriptor& stats_t = add(tensor(kStats, CUDNN_DATA_FLOAT, rows, rows_strides, false));
      operations.push_back(pointwise(CUDNN_POINTWISE_LOG, row_sum, nullptr, log_sum));
      operations.push_back(pointwise(CUDNN_POINTWISE_ADD, row_max, &log_sum, stats_t));
    }
    operations.push_back(pointwise(CUDNN_POINTWISE_DIV, s_exp, &row_sum, probs));
    operations.push_back(matmul(probs, v, o));

    graph = Descriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
    std::vector<cudnnBackendDescriptor_t> ops;
    for (const Descriptor& op : operations)
      ops.push_back(op.get());
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle)
        .set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             static_cast<std::int64_t>(ops.size()), ops.data())
        .finalize();
  }

  // Ranks engines for the graph and keeps the first plan that finalizes; false if none does.
  bool choose_plan(std::string& tried) {
    Descriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "engine heuristics");
    const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)
        .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode)
        .finalize();
    std::int64_t count = 0;
    check(cudnn_api().get_attribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
          "counting heuristic results");
    tried += std::to_string(count) + " engine configs ranked" + (with_stats ? " (with stats)" : "");
    if (count <= 0)
      return false;
    std::vector<Descriptor> configs;
    std::vector<cudnnBackendDescriptor_t> handles;
    for (std::int64_t i = 0; i < count; ++i) {
      configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config");
      handles.push_back(configs.back().get());
    }
    std::int64_t returned = 0;
    check(cudnn_api().get_attribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned,
                                    handles.data()),
          "reading heuristic results");
    for (std::int64_t i = 0; i < returned; ++i) {
      Descriptor candidate(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
      candidate.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle)
          .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[static_cast<std::size_t>(i)]);
      const cudnnStatus_t status = candidate.try_finalize();
      if (status != CUDNN_STATUS_SUCCESS) {
        tried += "; config " + std::to_string(i) + ": " + cudnn_api().get_error_string(status);
        continue;
      }
      check(cudnn_api().get_attribute(candidate.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                      CUDNN_TYPE_INT64, 1, &returned, &workspace),
            "reading the plan's workspace size");
      // The engine's global index names it in cuDNN's logs (CUDNN_LOGINFO_DBG=1).
      std::int64_t engine_index = -1;
      {
        Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine");
        cudnnBackendDescriptor_t engine_handle = engine.get();
        std::int64_t n = 0;
        if (cudnn_api().get_attribute(configs[static_cast<std::size_t>(i)].get(),
                                      CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &n, &engine_handle) == CUDNN_STATUS_SUCCESS)
          cudnn_api().get_attribute(engine_handle, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64,
                                    1, &n, &engine_index);
      }
      description = "cuDNN " + std::to_string(cudnn_api().get_version()) + " engine " +
                    std::to_string(engine_index) + " (heuristics rank " + std::to_string(i) +
                    (with_stats ? ", graph with softmax stats" : ", inference graph") +
                    "), workspace " + std::to_string(workspace) + " bytes";
      plan = std::move(candidate);
      return true;
    }
    return false;
  }
};

std::string cudnn_availability() {
  const CudnnApi& api = cudnn_api();
  if (!api.error.empty())
    return api.error;
  const std::size_t v = api.get_version();
  return "cuDNN " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100) + " (" + api.loaded_from + ")";
}

bool cudnn_available() { return cudnn_api().error.empty(); }

CudnnSdpa::CudnnSdpa(const CudnnSdpaShape& shape, cudaStream_t stream)
    : state_(std::make_unique<State>()) {
  const CudnnApi& api = require_cudnn();
  state_->shape = shape;
  state_->scale = shape.scale;
  check(api.create(&state_->handle), "cudnnCreate");
  check(api.set_stream(state_->handle, stream), "cudnnSetStream");
  std::string tried;
  for (bool stats : {false, true}) {
    if (!tried.empty())
      tried += "; ";
    state_->build_graph(stats);
    if (state_->choose_plan(tried)) {
      state_->stats_bytes = stats ? static_cast<std::size_t>(shape.batch) * shape.heads *
                                        static_cast<std::size_t>(shape.seq) * sizeof(float)
                                  : 0;
      return;
    }
  }
  throw CudnnSdpaUnavailable("cuDNN SDPA: no engine of " + cudnn_availability() +
                           " runs the fused attention graph for B " + std::to_string(shape.batch) +
                           ", H " + std::to_string(shape.heads) + ", S " +
                           std::to_string(shape.seq) + ", D " + std::to_string(shape.head_dim) +
                           " BF16 on this GPU (" + tried +
                           "); run with CUDNN_LOGERR_DBG=1 "
                           "CUDNN_LOGDEST_DBG=stderr to see why");
}

CudnnSdpa::~CudnnSdpa() = default;

std::size_t CudnnSdpa::scratch_bytes() const {
  // The stats follow the workspace, 256-byte aligned.
  const std::size_t workspace = (static_cast<std::size_t>(state_->workspace) + 255) / 256 * 256;
  return workspace + state_->stats_bytes;
}

void CudnnSdpa::bind(const void* q, const void* k, const void* v, void* o, void* scratch) {
  std::vector<std::int64_t> uids{kQ, kK, kV, kO, kScale};
  std::vector<void*> pointers{const_cast<void*>(q), const_cast<void*>(k), const_cast<void*>(v), o,
                              &state_->scale};
  if (state_->with_stats) {
    uids.push_back(kStats);
    const std::size_t offset = (static_cast<std::size_t>(state_->workspace) + 255) / 256 * 256;
    pointers.push_back(static_cast<char*>(scratch) + offset);
  }
  void* workspace = state_->workspace > 0 ? scratch : nullptr;
  state_->variant_pack = Descriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
  state_->variant_pack
      .set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
           static_cast<std::int64_t>(uids.size()), uids.data())
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
           static_cast<std::int64_t>(pointers.size()), pointers.data())
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace)
      .finalize();
}

void CudnnSdpa::run() {
  if (state_->variant_pack.get() == nullptr)
    throw std::logic_error("cuDNN SDPA: bind() the tensors before run()");
  check(cudnn_api().execute(state_->handle, state_->plan.get(), state_->variant_pack.get()),
        "cudnnBackendExecute");
}

const std::string& CudnnSdpa::description() const { return state_->description; }

#else  // no cuDNN headers at build time

std::string cudnn_availability() {
  return "this build had no cuDNN headers (cudnn_graph.h); rebuild with cuDNN 9 installed";
}
bool cudnn_available() { return false; }

struct CudnnSdpa::State {};
CudnnSdpa::CudnnSdpa(const CudnnSdpaShape&, cudaStream_t) {
  throw CudnnSdpaUnavailable("cuDNN SDPA unavailable: " + cudnn_availability());
}
CudnnSdpa::~CudnnSdpa() = default;
std::size_t CudnnSdpa::scratch_bytes() const { return 0; }
void CudnnSdpa::bind(const void*, const void*, const void*, void*, void*) {}
void CudnnSdpa::run() {}
const std::string& CudnnSdpa::description() const {
  static const std::string none = "unavailable";
  return none;
}

#endif

}  // namespace aisp::attention
