//===- BeamSearch.cpp - two-phase beam search over GPU schedules ----------===//
#include "BeamSearch.h"

#include "CodeSize.h"

#include "Errors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <unordered_set>

namespace strata::autoscheduler {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

uint64_t seed_for(uint64_t seed, const Node &node, int pass) {
    // FNV-1a over the Func's name as written: the sample a Func gets does not
    // depend on the order in which Funcs are visited, nor on the "$N" that
    // Halide appends when a process has made other Funcs of that name (the
    // same pipeline built twice must be searched alike).
    const std::string &name = node.name;
    const size_t dollar = name.rfind('$');
    const bool suffixed = dollar != std::string::npos && dollar + 1 < name.size() &&
                          name.find_first_not_of("0123456789", dollar + 1) == std::string::npos;
    uint64_t h = 1469598103934665603ull;
    for (char c : name.substr(0, suffixed ? dollar : name.size())) h = (h ^ uint8_t(c)) * 1099511628211ull;
    return seed * 0x9E3779B97F4A7C15ull ^ h ^ (uint64_t(pass) << 56);
}

// The stage whose loops dominate a Func's work: its tiling is searched; the
// others follow it when they have as many pure loops, else take the default.
// Work is points times what each point does (a store, its loads and its
// arithmetic), not points alone: iir_blur's scans cover one column less than
// the pure definition that initializes them, but do the Func's work, and
// their pure loops differ from its, so they would never have their tiling
// searched.
int dominant_stage(const Node &node) {
    int best = 0;
    double most = -1;
    for (const auto &st : node.stages) {
        double work = st->work_per_point();
        for (const Span &s : st->loop_bounds(node.root_region)) work *= double(s.extent);
        if (work > most) most = work, best = st->index;
    }
    return best;
}

// Chunk lengths tried for a root reduction (StageChoice::reduction_chunk):
// a staged tile of T threads' rows holds T × chunk values per operand.
constexpr int64_t kReductionChunks[] = {8, 16, 32};

}  // namespace

BeamSearch::BeamSearch(const FunctionDAG &dag, const costmodel::GpuSpec &spec, const costmodel::CostModel &model,
                       const Params &params)
    : dag_(dag), spec_(spec), model_(model), params_(params), featurizer_(dag, spec, params.memoize),
      workers_(WorkerPool::threads_for(params.threads)), slots_(dag),
      defaults_(dag.nodes().size()), free_(dag.nodes().size(), true), sampler_(params.seed ^ 0x5A3D1E) {}

namespace {
constexpr size_t kReservoir = 512;

// The device buffer a Func gets with this placement: its whole root region
// when Root, nothing otherwise (members live in registers or shared memory).
// Whole numbers of bytes, so sums of them are exact in any order.
double root_bytes(const Node &node, Placement placement) {
    return placement == Placement::Root ? double(node.root_points()) * node.bytes_per_point : 0.0;
}
}  // namespace

void BeamSearch::offer_sample(const Schedule &schedule, double cost) {
    if (!offered_.insert(schedule.hash()).second) return;
    // Algorithm R over distinct schedules: each of the n offered so far is
    // in the reservoir with probability kReservoir / n.
    const size_t n = offered_.size();
    if (reservoir_.size() < kReservoir) {
        reservoir_.emplace_back(schedule, cost);
        return;
    }
    const size_t slot = std::uniform_int_distribution<size_t>(0, n - 1)(sampler_);
    if (slot < kReservoir) reservoir_[slot] = {schedule, cost};
}

std::optional<SearchResult> BeamSearch::sample(int i) const {
    // Distinct from the answer: the search's best is sample 0.
    std::vector<const std::pair<Schedule, double> *> pool;
    const uint64_t best = best_seen_ ? best_seen_->hash() : 0;
    for (const auto &entry : reservoir_) {
        if (!best_seen_ || entry.first.hash() != best) pool.push_back(&entry);
    }
    // An order that depends only on the schedules and the seed.
    std::sort(pool.begin(), pool.end(), [&](const auto *a, const auto *b) {
        return hash_combine(a->first.hash(), params_.seed) < hash_combine(b->first.hash(), params_.seed);
    });
    if (i < 1 || i > int(pool.size())) return std::nullopt;
    return SearchResult{pool[i - 1]->first, pool[i - 1]->second, stats_};
}

double BeamSearch::price_whole(const Schedule &complete) {
    if (!params_.memoize) return price_analysed(complete, featurizer_.analyze_all(complete));
    stats_.candidates += 1;
    bool legal = fits_on_device(device_bytes(complete));
    std::vector<uint64_t> keys;
    for (const Node *node : dag_.funcs()) {
        if (complete.choice(node->id).placement != Placement::Root) continue;
        for (const auto &st : node->stages) {
            uint64_t key = 0;
            const KernelFeatures &k = featurizer_.kernel(complete, node->id, st->index, &key);
            legal &= k.legal;
            keys.push_back(key);
            if (kernel_costs_.count(key)) {
                ++stats_.kernel_cost_hits;
            } else {
                kernel_costs_[key] = model_.predict({&k.stages})[0];
                ++stats_.kernels_priced;
            }
        }
    }
    if (!legal) return kInfinity;
    ExactSum cost;  // as KernelTable::price sums: the same number
    for (uint64_t key : keys) cost += kernel_costs_.at(key);
    return cost.seconds();
}

double BeamSearch::price_analysed(const Schedule &complete, const std::vector<KernelFeatures> &kernels) {
    stats_.candidates += 1;
    stats_.kernels_featurized += int64_t(kernels.size());
    stats_.kernels_priced += int64_t(kernels.size());
    bool legal = fits_on_device(device_bytes(complete));
    ExactSum cost;
    for (const KernelFeatures &k : kernels) {
        legal &= k.legal;
        cost += model_.predict({&k.stages})[0];
    }
    return legal ? cost.seconds() : kInfinity;
}

double BeamSearch::cost(const Schedule &schedule) { return price_whole(schedule); }

double BeamSearch::device_bytes(const Schedule &schedule) const {
    double bytes = 0;
    for (const auto &node : dag_.nodes()) {
        const Placement placement = node->is_input() ? Placement::Root : schedule.choice(node->id).placement;
        bytes += root_bytes(*node, placement);
    }
    return bytes;
}

double BeamSearch::device_bytes_with(const BeamState &state, const Node &node, Placement placement) const {
    return state.device_bytes + root_bytes(node, placement) - root_bytes(node, state.complete.choice(node.id).placement);
}

bool BeamSearch::fits_on_device(double bytes) const {
    // The buffers of every root Func live on the device at once at worst.
    return spec_.device_memory_bytes <= 0 || bytes <= double(spec_.device_memory_bytes);
}

void BeamSearch::keep(int node, FuncChoice choice) {
    kept_[node] = std::make_shared<const FuncChoice>(std::move(choice));
    defaults_[node] = kept_[node];
}

void BeamSearch::complete(Schedule &schedule) {
    for (const Node *node : dag_.funcs()) {
        if (schedule.decided(node->id)) continue;
        if (!defaults_[node->id]) defaults_[node->id] = std::make_shared<const FuncChoice>(default_choice(*node, spec_));
        schedule.set(node->id, defaults_[node->id]);
    }
}

const BeamSearch::Choices &BeamSearch::root_options(const Node &node, Mode mode, int pass, const Schedule *guide) {
    auto cached = root_options_.find({node.id, int(mode), pass});
    if (cached != root_options_.end()) return cached->second;
    Choices &out = root_options_[{node.id, int(mode), pass}];
    if (node.is_extern) {
        out.push_back(std::make_shared<const FuncChoice>(FuncChoice::root(std::vector<StageChoice>(node.stages.size()))));
        return out;
    }
    const int main = dominant_stage(node);
    const std::vector<int64_t> main_extents = pure_extents(*node.stages[main]);
    std::vector<GpuTiling> tilings;
    if (mode == Mode::InlineOrRoot) {
        tilings.push_back(default_tiling(main_extents, spec_));
    } else {
        TilingOptions options;
        options.max_threads_per_block = params_.max_threads_per_block;
        options.samples_per_group = params_.sampling ? params_.samples_per_group : std::numeric_limits<int>::max();
        options.coarse = pass == 0;
        std::mt19937_64 rng(seed_for(params_.seed, node, pass));
        if (pass > 0 && guide && guide->decided(node.id) && guide->choice(node.id).placement == Placement::Root) {
            tilings = neighbour_tilings(guide->choice(node.id).stages[main].tiling, main_extents, spec_, options);
            options.coarse = true;
            if (params_.sampling) options.samples_per_group = 1;
        }
        std::vector<GpuTiling> sampled = candidate_tilings(main_extents, spec_, options, rng);
        tilings.insert(tilings.end(), sampled.begin(), sampled.end());
        tilings.push_back(default_tiling(main_extents, spec_));
    }
    std::vector<GpuTiling> seen;
    for (const GpuTiling &t : tilings) {
        if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
        seen.push_back(t);
        std::vector<StageChoice> stages(node.stages.size());
        for (const auto &st : node.stages) {
            const std::vector<int64_t> extents = pure_extents(*st);
            TilingOptions limits;
            limits.max_threads_per_block = params_.max_threads_per_block;
            if (st->index == main) {
                stages[st->index].tiling = t;
            } else if (extents.size() == main_extents.size() && is_legal(t, extents, spec_, limits)) {
                stages[st->index].tiling = t;
            } else {
                stages[st->index].tiling = default_tiling(extents, spec_);
            }
        }
        // The same tiling with each reduction chunk length (K-tiling).
        if (mode == Mode::Full) {
            for (int64_t chunk : kReductionChunks) {
                std::vector<StageChoice> chunked = stages;
                bool any = false;
                for (const auto &st : node.stages) {
                    if (!chunkable(dag_, *st, chunked[st->index].tiling, chunk)) continue;
                    chunked[st->index].reduction_chunk = chunk;
                    any = true;
                }
                if (any) out.push_back(std::make_shared<const FuncChoice>(FuncChoice::root(std::move(chunked))));
            }
        }
        out.push_back(std::make_shared<const FuncChoice>(FuncChoice::root(std::move(stages))));
    }
    return out;
}

BeamSearch::Choices BeamSearch::options(const Schedule &state, const Node &node, Mode mode, bool free_func, int pass,
                                        const Schedule *guide) {
    static const auto kInline = std::make_shared<const FuncChoice>(FuncChoice::inlined());
    Choices out;
    if (auto kept = kept_.find(node.id); kept != kept_.end()) return {kept->second};
    if (node.is_output || node.is_extern) return root_options(node, mode, pass, guide);
    if (node.must_inline()) return {kInline};

    // A frozen Func keeps its phase-1 placement; only its tiling is searched.
    if (!free_func && guide && guide->decided(node.id)) {
        const FuncChoice &g = guide->choice(node.id);
        if (g.placement == Placement::Inline && state.can_place(node.id, Placement::Inline)) {
            out.push_back(kInline);
            return out;
        }
        if (g.placement == Placement::Root) return root_options(node, mode, pass, guide);
    }

    if (state.can_place(node.id, Placement::Inline)) out.push_back(kInline);
    const Choices &roots = root_options(node, mode, pass, guide);
    out.insert(out.end(), roots.begin(), roots.end());
    if (mode == Mode::InlineOrRoot) return out;

    const std::set<KernelSite> sites = state.consumer_sites(node.id);
    if (sites.size() == 1 && !kept_.count(sites.begin()->func)) {
        const Choices members = member_options(state, node, *sites.begin());
        out.insert(out.end(), members.begin(), members.end());
    }
    return out;
}

// Whether Halide can prove a per-block (Block or Staged) member's buffer
// extent constant along the loops of its kernel (tiled by `tiling`) that
// its footprint follows. Not along a fused block loop the block tiles over
// several points: Halide cannot prove it through the fused index
// (depthwise_separable_conv's dw_padded, 4 rows and 4 batches a block: its
// storage bounds were left to checks inside the kernel); one the footprint
// does not follow is constant (resnet_block's staged conv1_padded, whatever
// the block's channels). Nor through a division (an upsample reading x / 2)
// along a guarded loop whose last tile may not be shifted inwards (see
// divided_guarded_loops(); shift_tails_under_divisions() shifts the others
// once the search is done).
bool BeamSearch::block_extent_provable(const GpuTiling &tiling, const MemberFootprint &footprint,
                                       const KernelSite &site) {
    const Stage &kernel_stage = *dag_.nodes()[site.func]->stages[site.stage];
    size_t pure = 0;
    for (size_t i = 0; i < kernel_stage.loops.size(); ++i) {
        if (kernel_stage.loops[i].is_rvar) continue;
        const size_t d = pure++;
        if (d < tiling.dims.size() && tiling.dims[d].tile() > 1 && tiling.block_loop_fused(d) &&
            footprint.followed_loops.count(int(i))) {
            return false;
        }
    }
    for (size_t d : divided_guarded_loops(kernel_stage, tiling, footprint)) {
        if (!tail_may_shift(site.func, site.stage, d, tiling.dims[d].tile())) return false;
    }
    return true;
}

// Where all of a Func's consumers are in one kernel (`site`), the ways it
// may be computed inside it: per block (Block), per thread (Thread), per
// block and chunk of a chunked reduction (Staged), each only where Halide
// can give its buffer the constant size the writer bounds it by.
BeamSearch::Choices BeamSearch::member_options(const Schedule &state, const Node &node, const KernelSite &site) {
    Choices out;
    // A member's buffer holds the region its consumers need; an update
    // that stores elsewhere (a scan along an RVar, a histogram) writes
    // past it, so such Funcs are never members.
    const bool stores_in_place = std::none_of(node.stages.begin(), node.stages.end(),
                                              [](const auto &st) { return st->data_dependent_store; });
    const bool has_pure_loops = std::all_of(node.stages.begin(), node.stages.end(), [](const auto &st) {
        return std::any_of(st->loops.begin(), st->loops.end(), [](const Loop &l) { return !l.is_rvar; });
    });
    const GpuTiling &kernel_tiling = state.choice(site.func).stages[site.stage].tiling;
    const bool kernel_has_threads = kernel_tiling.thread_dims() > 0;
    // Members get constant-size buffers (shared or registers), measured
    // at every position of the tile within the footprint's period.
    const MemberFootprint footprint = member_footprint(dag_, state, node.id, site.func, site.stage);
    const bool bounded = stores_in_place && footprint.period > 0 && footprint.period <= kMaxMemberPeriod;
    // Computed outside the kernel's reduction loops, Block and Thread
    // members cover them whole; a Staged one covers one chunk of the
    // chunked loop and all of the others.
    const Stage &kernel_stage = *dag_.nodes()[site.func]->stages[site.stage];
    const bool constant_whole = footprint.symbolic_reductions.empty();
    const bool constant_per_chunk =
        constant_whole || (footprint.symbolic_reductions.size() == 1 &&
                           *footprint.symbolic_reductions.begin() == chunked_rvar(kernel_stage));
    const bool per_block_provable = block_extent_provable(kernel_tiling, footprint, site);
    if (has_pure_loops && kernel_has_threads && bounded && constant_whole && per_block_provable &&
        state.can_place(node.id, Placement::Block, site.func, site.stage)) {
        out.push_back(std::make_shared<const FuncChoice>(FuncChoice::at(Placement::Block, site.func, site.stage)));
    }
    // Per-thread Funcs need the thread's points in one box (a strided
    // thread's would span its whole block tile), and an affine footprint
    // (no clamp, no division): registers and unrolled loops need a
    // constant size that Halide proves by itself, and it does for those
    // only. (Forcing one with bound_extent() would compute past the
    // image at the border tiles, and leaves checks in the kernel that
    // the CUDA back end cannot compile.)
    const bool compact_threads = kernel_tiling.compact || !kernel_tiling.layout_matters();
    const bool affine = footprint.period == 1 && !footprint.clamped;
    // Nor along a fused block loop: the writer can say a one-point
    // extent there (bound_extent), but a longer one Halide cannot prove
    // through the fused index, and forcing it would compute past the
    // image (depthwise_separable_conv's dw_padded, 4 batches per thread).
    if (kernel_has_threads && compact_threads && bounded && affine && constant_whole &&
        !kernel_tiling.serial_along_fused_block() &&
        state.can_place(node.id, Placement::Thread, site.func, site.stage)) {
        out.push_back(std::make_shared<const FuncChoice>(FuncChoice::at(Placement::Thread, site.func, site.stage)));
    }
    // A tile of an operand per chunk of a chunked reduction (K-tiling):
    // pure Funcs only, so the tile is a plain copy of what one chunk reads.
    if (has_pure_loops && kernel_has_threads && bounded && constant_per_chunk && per_block_provable &&
        node.stages.size() == 1 && state.can_place(node.id, Placement::Staged, site.func, site.stage)) {
        out.push_back(std::make_shared<const FuncChoice>(FuncChoice::at(Placement::Staged, site.func, site.stage)));
    }
    return out;
}

bool BeamSearch::tail_may_shift(int func, int stage, size_t d, int64_t tile) {
    const auto key = std::make_tuple(func, stage, d, tile);
    if (auto known = shiftable_tails_.find(key); known != shiftable_tails_.end()) return known->second;
    const Node &node = *dag_.nodes()[func];
    const bool may = autoscheduler::tail_may_shift(dag_, node, *node.stages[stage], d, tile, reached_from_root_[func]);
    shiftable_tails_.emplace(key, may);
    return may;
}

BeamSearch::BeamState BeamSearch::start_state() {
    BeamState state{Schedule(dag_), Schedule(dag_), std::nullopt, 0};
    complete(state.complete);
    state.device_bytes = device_bytes(state.complete);
    return state;
}

std::vector<BeamSearch::BeamState> BeamSearch::beam_step(std::vector<BeamState> beam, const Node &node, Mode mode,
                                                         int pass, const Schedule *guide,
                                                         std::vector<double> *costs_out) {
    Candidates candidates;
    for (size_t b = 0; b < beam.size(); ++b) {
        for (auto &choice : options(beam[b].partial, node, mode, free_[node.id], pass, guide)) {
            candidates.emplace_back(int(b), std::move(choice));
        }
    }
    const Priced priced = price_candidates(beam, node.id, candidates);
    const std::vector<double> &costs = priced.costs;

    std::vector<Child> children;
    for (size_t i = 0; i < candidates.size(); ++i) {
        if (!std::isfinite(costs[i])) continue;
        const auto &[state, choice] = candidates[i];
        // Every candidate is a complete schedule once filled with defaults:
        // the best of them all is the search's answer if nothing beats it.
        if (costs[i] < best_seen_cost_ || params_.sample_index > 0) {
            Schedule complete_child = beam[state].complete;
            complete_child.set(node.id, choice);
            if (costs[i] < best_seen_cost_) {
                best_seen_cost_ = costs[i];
                best_seen_ = complete_child;
            }
            if (params_.sample_index > 0) offer_sample(complete_child, costs[i]);
        }
        children.push_back(Child{i, costs[i], beam[state].partial.hash_with(node.id, choice->hash()), 0});
    }
    if (costs_out) costs_out->clear();
    if (children.empty()) {
        // Nothing legal (e.g. every tiling over the limits): keep the default.
        BeamState fallback = beam.front();
        fallback.partial.set(node.id, default_choice(node, spec_));
        fallback.complete.set(node.id, fallback.partial.shared_choice(node.id));
        fallback.kernels.reset();
        fallback.device_bytes = device_bytes(fallback.complete);
        if (costs_out) costs_out->push_back(kInfinity);
        std::vector<BeamState> next;
        next.push_back(std::move(fallback));
        return next;
    }
    return keep_cheapest(beam, node, candidates, priced, children, costs_out);
}

// The beam's next states: the cheapest children first, equal costs in tie
// order (computed only for the runs of equal costs the beam reaches), equal
// schedules kept once, at most beam_width_ of them.
std::vector<BeamSearch::BeamState> BeamSearch::keep_cheapest(const std::vector<BeamState> &beam, const Node &node,
                                                             const Candidates &candidates, const Priced &priced,
                                                             std::vector<Child> &children,
                                                             std::vector<double> *costs_out) {
    std::vector<BeamState> next;
    std::sort(children.begin(), children.end(), [](const Child &a, const Child &b) {
        return a.cost != b.cost ? a.cost < b.cost : a.candidate < b.candidate;
    });
    std::unordered_set<uint64_t> seen;
    for (auto run = children.begin(); run != children.end() && int(next.size()) < beam_width_;) {
        const auto end = std::find_if(run, children.end(), [&](const Child &c) { return c.cost != run->cost; });
        if (end - run > 1) {
            for (auto c = run; c != end; ++c) {
                const auto &[state, choice] = candidates[c->candidate];
                c->tie_order = beam[state].partial.tie_order_with(node.id, choice->hash());
            }
            std::sort(run, end, [](const Child &a, const Child &b) {
                return a.tie_order != b.tie_order ? a.tie_order < b.tie_order : a.candidate < b.candidate;
            });
        }
        for (; run != end && int(next.size()) < beam_width_; ++run) {
            const Child &c = *run;
            if (!seen.insert(c.key).second) continue;
            if (costs_out) costs_out->push_back(c.cost);
            const auto &[state, choice] = candidates[c.candidate];
            const BeamState &parent = beam[state];
            BeamState child{parent.partial, parent.complete, std::nullopt,
                            device_bytes_with(parent, node, choice->placement)};
            child.partial.set(node.id, choice);
            child.complete.set(node.id, choice);
            if (parent.kernels) child.kernels = parent.kernels->with(priced.changes[c.candidate], kernel_costs_);
            next.push_back(std::move(child));
        }
        run = end;
    }
    return next;
}

BeamSearch::Priced BeamSearch::price_candidates(std::vector<BeamState> &beam, int node,
                                                const Candidates &candidates) {
    Priced out;
    if (!params_.memoize) {
        // Without memoization each candidate is featurized and priced whole,
        // on its own: nothing one candidate computed is reused for another.
        // The candidates are analysed side by side, as the memoized search
        // analyses its new kernels, so that only the memoization differs.
        std::vector<Schedule> children;
        for (const auto &[state, choice] : candidates) {
            children.push_back(beam[state].complete);
            children.back().set(node, choice);
        }
        std::vector<std::vector<KernelFeatures>> kernels(children.size());
        workers_.run(children.size(), [&](size_t i) { kernels[i] = featurizer_.analyze_all(children[i]); });
        for (size_t i = 0; i < children.size(); ++i) out.costs.push_back(price_analysed(children[i], kernels[i]));
        return out;
    }
    stats_.candidates += int64_t(candidates.size());
    std::vector<uint64_t> pending;
    std::set<uint64_t> queued;
    auto queue = [&](uint64_t key) {
        if (key && !kernel_costs_.count(key) && queued.insert(key).second) pending.push_back(key);
    };
    std::vector<BeamState *> fresh;
    for (BeamState &state : beam) {
        if (state.kernels) continue;
        state.kernels.emplace(slots_, featurizer_, state.complete);
        for (uint64_t key : state.kernels->keys()) queue(key);
        fresh.push_back(&state);
    }
    // The candidates recompose their states' kernels on the pool's threads,
    // a state's candidates on one (recompose() borrows the state's complete
    // schedule); then the step's new kernels are analysed together.
    std::vector<std::vector<size_t>> of_state(beam.size());
    for (size_t i = 0; i < candidates.size(); ++i) of_state[size_t(candidates[i].first)].push_back(i);
    std::vector<PendingKernels> found(beam.size());
    out.changes.resize(candidates.size());
    workers_.run(beam.size(), [&](size_t state) {
        for (size_t i : of_state[state]) {
            out.changes[i] = beam[state].kernels->recompose(beam[state].complete, node, candidates[i].second,
                                                            &found[state]);
        }
    });
    PendingKernels unanalysed;
    for (PendingKernels &f : found) unanalysed.absorb(std::move(f));
    for (const std::vector<RecomposedKernel> &changes : out.changes) {
        for (const RecomposedKernel &c : changes) queue(c.key);
    }
    const bool analysing = !unanalysed.empty();
    featurizer_.analyze_pending(unanalysed, workers_);
    if (analysing) {
        for (size_t i = 0; i < candidates.size(); ++i) beam[candidates[i].first].kernels->settle(out.changes[i]);
    }
    predict_kernels(pending);
    for (BeamState *state : fresh) state->kernels->set_prices(kernel_costs_);

    const Node &decided = *dag_.nodes()[node];
    for (size_t i = 0; i < candidates.size(); ++i) {
        const auto &[state, choice] = candidates[i];
        const KernelTable &table = *beam[state].kernels;
        const bool fits = fits_on_device(device_bytes_with(beam[state], decided, choice->placement));
        out.costs.push_back(fits ? table.price(out.changes[i], kernel_costs_) : kInfinity);
        int64_t kernels = table.kernels();
        for (const RecomposedKernel &c : out.changes[i]) kernels += (c.key ? 1 : 0) - (table.key(c.slot) ? 1 : 0);
        stats_.kernel_cost_hits += kernels;
    }
    stats_.kernel_cost_hits -= int64_t(pending.size());
    return out;
}

void BeamSearch::predict_kernels(const std::vector<uint64_t> &keys) {
    if (keys.empty()) return;
    std::vector<const costmodel::ScheduleFeatures *> batch;
    for (uint64_t key : keys) batch.push_back(&featurizer_.cached(key)->stages);
    const std::vector<double> seconds = model_.predict(batch);
    for (size_t j = 0; j < keys.size(); ++j) kernel_costs_[keys[j]] = seconds[j];
    stats_.kernels_priced += int64_t(keys.size());
}

std::vector<int> BeamSearch::choose_free_funcs(const Schedule &phase1) {
    // Rank kernels by their cost in phase 1's schedule.
    std::vector<std::pair<double, int>> ranked;
    for (const Node *node : dag_.funcs()) {
        if (phase1.choice(node->id).placement != Placement::Root) continue;
        double c = 0;
        for (const auto &st : node->stages) {
            uint64_t key = 0;
            const KernelFeatures &kernel = featurizer_.kernel(phase1, node->id, st->index, &key);
            // Without memoization the prices of phase 1 are gone: price again.
            auto it = kernel_costs_.find(key);
            c += it != kernel_costs_.end() ? it->second : model_.predict({&kernel.stages})[0];
        }
        ranked.push_back({-c, node->id});
    }
    std::sort(ranked.begin(), ranked.end());
    const int n = int(dag_.funcs().size());
    const int keep = params_.free_stages > 0 ? params_.free_stages : int(std::ceil(std::log2(std::max(n, 2)))) + 2;
    std::set<int> chosen;
    for (int i = 0; i < int(ranked.size()) && i < keep; ++i) {
        const Node &kernel = *dag_.nodes()[ranked[i].second];
        chosen.insert(kernel.id);
        // Its producers may move into it.
        for (const auto &st : kernel.stages) {
            for (const Edge *e : st->producers) {
                if (!e->producer->is_input()) chosen.insert(e->producer->id);
            }
        }
    }
    return std::vector<int>(chosen.begin(), chosen.end());
}

SearchResult BeamSearch::run() {
    // Widths B, B/4, B/16, ... down to 2, narrowest first: the answer is the
    // best schedule any of them priced, so beam 128's answer is never worse
    // than beam 32's or 8's (each is run inside it), for about 1.33x the
    // search of width B alone (and less: the kernels are memoized).
    std::vector<int> widths;
    for (int w = params_.beam_size; w >= 1; w /= 4) {
        widths.push_back(w);
        if (w < 8) break;
    }
    std::reverse(widths.begin(), widths.end());
    std::optional<Schedule> best;
    double best_cost = kInfinity;
    std::vector<std::pair<Schedule, double>> finalists;
    for (int width : widths) {
        beam_width_ = width;
        std::fill(free_.begin(), free_.end(), true);
        auto [schedule, cost] = run_width();
        if (!best || cost < best_cost) best = schedule, best_cost = cost;
        const bool seen_cheaper = best_seen_ && best_seen_cost_ < best_cost;
        const Schedule &finalist = seen_cheaper ? *best_seen_ : *best;
        if (finalists.empty() || finalists.back().first.hash() != finalist.hash()) {
            finalists.emplace_back(finalist, seen_cheaper ? best_seen_cost_ : best_cost);
        }
    }
    SearchResult result = finish(*best, best_cost);
    std::reverse(finalists.begin(), finalists.end());  // each width's is no dearer than the last's
    result.finalists = std::move(finalists);
    return result;
}

std::pair<Schedule, double> BeamSearch::run_width() {
    const auto started = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        const std::chrono::duration<double> d = std::chrono::steady_clock::now() - started;
        return ", width " + std::to_string(beam_width_) + " at " + std::to_string(d.count()) + " s";
    };
    std::vector<const Node *> order;
    for (const Node *node : dag_.funcs()) order.push_back(node);
    std::reverse(order.begin(), order.end());  // consumers first

    auto search = [&](Mode mode, int pass, const Schedule *guide) {
        std::vector<BeamState> beam;
        beam.push_back(start_state());
        std::vector<double> costs;
        for (const Node *node : order) {
            beam = beam_step(std::move(beam), *node, mode, pass, guide, &costs);
            log(3, "  decided " + node->name + ": best " + std::to_string(costs.empty() ? 0 : costs[0] * 1e3) +
                       " ms, beam " + std::to_string(beam.size()));
        }
        return std::make_pair(beam.front().partial, costs.empty() ? kInfinity : costs.front());
    };

    if (!params_.two_phase) {
        // One search of the full space over every Func, coarse to fine.
        std::optional<Schedule> previous;
        double best_cost = kInfinity;
        for (int pass = 0; pass < params_.passes; ++pass) {
            auto [candidate, candidate_cost] = search(Mode::Full, pass, previous ? &*previous : nullptr);
            log(2, "one-phase pass " + std::to_string(pass + 1) + ": " + std::to_string(candidate_cost * 1e3) +
                       " ms predicted" + elapsed());
            if (!previous || candidate_cost < best_cost) previous = candidate, best_cost = candidate_cost;
        }
        stats_.free_funcs = int(dag_.funcs().size());
        return {*previous, best_cost};
    }

    auto [best, best_cost] = search(Mode::InlineOrRoot, 0, nullptr);
    stats_.phase1_cost = best_cost;
    log(2, "phase 1 (inline/root): " + std::to_string(best_cost * 1e3) + " ms predicted" + elapsed());

    {
        const Schedule phase1 = best;
        std::fill(free_.begin(), free_.end(), false);
        for (int id : choose_free_funcs(phase1)) free_[id] = true;
        stats_.free_funcs = int(std::count(free_.begin(), free_.end(), true));
        const Schedule *guide = &phase1;
        Schedule previous = phase1;
        for (int pass = 0; pass < params_.passes; ++pass) {
            auto [candidate, candidate_cost] = search(Mode::Full, pass, pass == 0 ? guide : &previous);
            log(2, "phase 2 pass " + std::to_string(pass + 1) + ": " + std::to_string(candidate_cost * 1e3) +
                       " ms predicted" + elapsed());
            if (candidate_cost < best_cost) best = candidate, best_cost = candidate_cost;
            previous = best;
        }
    }
    return {best, best_cost};
}

SearchResult BeamSearch::finish(const Schedule &best, double best_cost) {
    // Monotone: nothing priced anywhere in the search (any pass, any step)
    // beats the answer, so a wider beam never answers worse than what it saw.
    SearchResult result{best, best_cost, stats_};
    if (best_seen_ && best_seen_cost_ < best_cost) {
        result.schedule = *best_seen_;
        result.cost = best_seen_cost_;
    }
    result.stats.final_cost = result.cost;
    result.stats.kernels_featurized += featurizer_.stats().kernels_featurized;
    result.stats.kernel_feature_hits = featurizer_.stats().kernel_cache_hits;
    return result;
}

}  // namespace strata::autoscheduler
