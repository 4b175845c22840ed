// FunctionDAG: the pipeline as the search sees it — every Func and input
// buffer as a Node, every definition (pure and update) of a Func as a Stage
// with its loops, its arithmetic and its loads, and every producer-consumer
// pair as an Edge carrying the producer's footprint as a function of the
// consumer's loop bounds, derived with Halide's bounds machinery.
//
// Estimates are applied once, here: scalar parameters and input-buffer
// shapes take their estimated values, outputs their estimated regions, and
// every Node gets the region it covers when computed at root. A missing
// estimate is a user error that names the Func or parameter and dimension.
//
// Call sites that Halide's simplifier removes (a weight of zero, f(x) -
// f(x)) are no Access and no Edge: lowering simplifies every definition
// before it builds code. Footprints are taken before simplifying, as
// Halide infers bounds, and a Func read only through removed sites is
// `unread`: Halide builds no code for it. As Halide's bounds inference
// does, a select whose condition loads nothing is read as an if_then_else:
// each arm's calls need only what the condition can pick (Edge::narrowed,
// Edge::used).
//
// Map of the file:
//   Span, Region        concrete index intervals
//   Loop                one loop of a stage (pure var or RVar)
//   Access              one call site: which Node, and its index expressions
//   Stage               one definition of a Func
//   Edge                producer Node → consumer Stage, with footprint bounds
//   Node                a Func or an input buffer
//   FunctionDAG         all of the above, in realization order
//
// Example:
//   FunctionDAG dag(pipeline.outputs());
//   for (const Node &n : dag.nodes()) std::cout << n.name << " " << n.root_points() << "\n";
#pragma once

#include "CompiledExpr.h"
#include "OpCounts.h"

#include "Halide.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata::autoscheduler {

struct Span {
    int64_t min = 0;
    int64_t extent = 0;
    int64_t max() const { return min + extent - 1; }
};
using Region = std::vector<Span>;

int64_t points(const Region &r);
// The smallest region covering both (of equal dimensions); an empty one
// (no points: a narrowed footprint where its condition never holds) adds nothing.
Region bounding_box(const Region &a, const Region &b);

struct Node;
struct Stage;

struct Loop {
    std::string var;         // the name in the definition's schedule ("x", "r$x")
    bool is_rvar = false;
    int pure_dim = -1;       // pure loops: the Func dimension whose region it spans
    // RVars: bounds over the stage's bound symbols (see Stage::bound_symbols).
    std::optional<CompiledExpr> rvar_min, rvar_extent;
    // RVars whose extent is a compile-time constant (not just constant under
    // the estimates): only those can be unrolled.
    std::optional<int64_t> static_extent;
    // RVars whose bounds are both compile-time constants: an unrolled
    // step's index along it is a number in the code Halide writes.
    bool constant_bounds() const { return static_extent && rvar_min && rvar_min->is_constant(); }

    // The name scheduling calls take: Halide names a loop made by a split
    // "<old>.<new>" and matches it by its last part.
    std::string handle() const {
        const size_t dot = var.rfind('.');
        return dot == std::string::npos ? var : var.substr(dot + 1);
    }
};

// A call from a stage (or from an inlined Func) to a Node.
struct Access {
    Node *callee = nullptr;
    // One per callee dimension, over the caller's loop variables (point
    // symbols, see Stage::point_symbols); empty optional when the index is
    // data-dependent or otherwise not computable.
    std::vector<std::optional<CompiledExpr>> index;
    // The text of each index that is not computable (empty for the others):
    // two sites with the same text at the same point load the same element.
    std::vector<std::string> opaque_index;
    // The Funcs those data-dependent indices read (a gather's index Func):
    // inlined there, they let Halide's simplifier drop a clamp that its
    // bounds inference then misses.
    std::vector<const Node *> index_reads;
    int count = 1;  // loads per point: identical addresses load once; data-dependent sites that look alike each count
    // The caller's own values whose expressions make the call (bit i: value
    // i; all of them for a call in a stored index or a where clause). A
    // Func inlined where only some of its elements are read brings only
    // the loads of those elements' values (elements_for()).
    uint64_t in_values = 0;
    // Each callee element read here: its bytes, and the caller's values
    // whose expressions read it (as in_values).
    struct ElementRead {
        int element = 0;
        int bytes = 0;
        uint64_t in_values = 0;
    };
    std::vector<ElementRead> element_reads;
    // What a load here reads for the caller's values in `values` (kAllValues:
    // for all of them): the callee's tuple elements those values read
    // (Halide gives each element its own buffer), and their bytes. An
    // inlined tuple Func read for one value loads only what that value
    // reads (fuzz seed 3257's argmax index through an inlined pair: 4
    // bytes, not the pair's 8).
    uint64_t elements_for(uint64_t values) const {
        uint64_t out = 0;
        for (const ElementRead &r : element_reads) {
            if (r.in_values & values) out |= r.element < 64 ? uint64_t(1) << r.element : ~uint64_t(0);
        }
        return out;
    }
    int bytes_for(uint64_t values) const {
        int sum = 0;
        for (const ElementRead &r : element_reads) sum += (r.in_values & values) ? r.bytes : 0;
        return sum;
    }
};

// Every value of a Func, as a mask of Access::elements or Access::in_values
// (a Func of more than 64 values: all of them, always).
constexpr uint64_t kAllValues = ~uint64_t(0);

struct Stage {
    Node *node = nullptr;
    int index = 0;              // 0: pure definition, k: update k - 1
    std::string name;           // "<func>.s<index>"
    Halide::Internal::Definition definition;
    std::vector<Loop> loops;    // innermost first
    OpCounts ops;               // one point of this definition (not counting inlined producers)
    // What one point does, in operations: its store, its loads and its
    // arithmetic. How the search and the code-size pass weigh stages.
    double work_per_point() const { return 1 + ops.loads + ops.arithmetic(); }
    std::vector<Access> accesses;
    std::vector<struct Edge *> producers;
    // Update stages whose left-hand side is not just pure vars (e.g. a histogram).
    bool data_dependent_store = false;
    // Its RDom has a where clause (rfactor's merge of lanes a guarded split
    // may leave empty has one): every point runs under an if of its own.
    bool predicated = false;
    // Of its loop points at root (the estimates), the share where the where
    // clause holds: a point it fails computes nothing (an rfactor
    // intermediate over 256 lanes of a 210-long row: 0.82). 1 without a
    // clause or where it cannot be evaluated.
    double predicate_density = 1;
    // Of those, the ones whose stored location depends on loaded data (a
    // histogram's bin), not only on the loop point (a scan's row).
    bool store_reads_data = false;
    // Of those, the ones whose every index other than the pure vars
    // simplifies to a constant (a one-bin histogram's bin, `clamp(v, 0,
    // 0)`): the stored location stays put across the reduction loops, and
    // the compiled code keeps it in a register between them, as it does an
    // accumulator's.
    bool store_fixed = false;
    // Whether a point stores wherever its index or its data says: once per
    // point it computes, not once per pass over the reduction loops.
    bool stores_each_point() const { return data_dependent_store && !store_fixed; }
    // An update's loads of its own Func, which `accesses` leaves out: at
    // the point it stores (an accumulator: `f(x) = f(x) + g(r, x)`), and at
    // other points (a scan's neighbour, `f(r) = f(r - 1) + g(r)`), one per
    // distinct site. A scan's step may read only the neighbour, and an
    // edge stage (`f(0) = g(0)`) reads nothing of its own.
    bool reads_own_point = false;
    int own_reads_elsewhere = 0;
    // Where the stage stores, one index per dimension of its Func over its
    // loop point (point_symbols); an empty optional where the location
    // depends on loaded data.
    std::vector<std::optional<CompiledExpr>> store_index;
    // Of an update: the box of its own Func it stores to and reads, one
    // bound per dimension over its loop bounds (bound_symbols); an empty
    // optional where data decides. Halide computes the Func over this box
    // too, whatever its consumers read: a prefix sum over a whole row whose
    // consumer reads half of it is initialised over the whole row.
    std::vector<std::optional<CompiledExpr>> own_footprint_min, own_footprint_max;
    // A scan's chain: the innermost RVar loop that moves the stored point of
    // an update reading its own Func elsewhere (each step waits for what the
    // step before stored); -1 for every other stage.
    int chain_loop = -1;
    // Update stages that Halide can prove associative (and so can rfactor).
    bool associative = false;

    // Symbols for loop bounds: loop i → [2i] = min, [2i+1] = max.
    std::vector<std::string> bound_symbols;
    // Symbols for a point of the loop nest: loop i → [i].
    std::vector<std::string> point_symbols;

    // The concrete loop bounds when the Func is computed over `region`.
    std::vector<Span> loop_bounds(const Region &region) const;
    bool is_update() const { return index > 0; }
};

struct Edge {
    Node *producer = nullptr;
    Stage *consumer = nullptr;
    int calls = 0;  // call sites of the producer in the consumer's definition
    // The producer is read only under a condition (a select's arm, an
    // RDom's where clause).
    bool conditional = false;
    // Of those, read under a condition that loads nothing (a causal mask, a
    // concatenation's channel test): the region depends on where the
    // consumer's box lies, not only on its size, and is empty where the
    // condition never holds over the box.
    bool narrowed = false;
    // For a narrowed edge, whether the consumer's box reads the producer at
    // all (over the consumer stage's bound symbols; nothing where it always
    // does), and the consumer loops that condition reads. Where it is false
    // and those loops are fixed over the box (one point each: loops outside
    // the producer's compute level), Halide computes none of the producer
    // (Box::used), though its narrowed bounds need not cross: a clamped
    // index keeps them apart (a concatenation's first part read at
    // min(c, 11), per block of one channel past 11). Where one of them runs
    // inside the level, Halide only narrows, and computes what the clamp
    // leaves (one row per block past the split, fuzz seed 3192).
    std::optional<CompiledExpr> used;
    std::vector<int> used_loops;
    // Per producer dimension: footprint bounds over the consumer stage's
    // bound symbols; empty optionals mean "the producer's whole root region".
    std::vector<std::optional<CompiledExpr>> footprint_min, footprint_max;
    // The same bounds as Halide expressions (undefined where unbounded), for
    // the dimensions the fast form cannot express (e.g. float arithmetic).
    std::vector<Halide::Internal::Interval> symbolic_footprint;

    // The producer region one computation of the consumer over `loops`
    // needs. Clamped to the producer's root region unless `unclamped`: a
    // box near the border can reach past it (a guarded split's last tile),
    // and what Halide computes there is the unclamped footprint.
    Region footprint(const std::vector<Span> &loops, bool unclamped = false) const;

    // Per producer dimension: the footprint grows when the consumer's box
    // moves far past the estimates: a constant index beside a moving one
    // (interpolate's output reads its level at (x, y, c) and at (x, y, 3))
    // spans from the constant to wherever the box is. Set once the root
    // regions are known.
    std::vector<bool> grows_far_away;

    // Whether the footprint along producer dimension `dim` is never larger
    // than the largest it has over rounding_period(dim) consecutive
    // positions of the consumer's box, wherever the box is: true for affine
    // indices, clamps (which only shrink it) and divisions by constants;
    // false for wraps and choices (mod, select), for dimensions the fast
    // form cannot express, and where it grows far away (a member buffer
    // must be bounded wherever the kernel runs, not only inside the
    // estimates). Without `dim`: along every dimension.
    bool bounded_by_interior(int dim) const;
    bool bounded_by_interior() const;
    // The period with which the footprint's extent along `dim` repeats as
    // the consumer's box moves (the divisions' divisors; 1 for affine
    // indices), 0 if none. Without `dim`: the least common multiple over
    // the dimensions, 0 if one has none.
    int64_t rounding_period(int dim) const;
    int64_t rounding_period() const;
    // Whether the footprint along `dim` depends on where consumer loop
    // `loop` runs (its bounds appear in the footprint's bounds).
    bool footprint_reads_loop(int dim, int loop) const;
    // Whether the footprint clamps (min, max): its size changes near the
    // borders of what it is clamped to.
    bool clamps() const;
};

struct Node {
    enum class Kind { Func, InputBuffer };

    int id = 0;                 // position in realization order
    std::string name;
    Kind kind = Kind::Func;
    Halide::Internal::Function func;  // Funcs only
    int dimensions = 0;
    std::vector<std::string> dim_names;
    int bytes_per_point = 0;    // all tuple elements together
    bool is_output = false;
    bool is_extern = false;
    bool specialized = false;   // some definition has Func::specialize() branches
    // The user already scheduled it (a compute level, loop directives on a
    // stage): Strata keeps that schedule rather than replace it.
    bool user_scheduled = false;
    std::vector<std::unique_ptr<Stage>> stages;
    std::vector<Edge *> consumers;  // edges to stages that call this node
    Region root_region;         // what it covers when computed at root
    // Input buffers: the parameter (or embedded buffer) behind them, for
    // their declared estimates when reads are data-dependent.
    Halide::Parameter param;
    Halide::Buffer<> buffer;

    // Dimensions that some consumer reads at places no bound covers (a
    // data-dependent index): such a Func can only be inlined, and such an
    // input is taken at its declared estimate.
    std::vector<bool> unbounded;
    bool must_inline() const {
        return kind == Kind::Func && std::find(unbounded.begin(), unbounded.end(), true) != unbounded.end();
    }

    bool is_input() const { return kind == Kind::InputBuffer; }
    bool has_updates() const { return stages.size() > 1; }
    // Pure, not an output, not extern, and not consumed by an extern stage.
    bool inlinable = false;
    // Extern stages that read this Func (their reads are not analysable).
    std::vector<const Node *> extern_consumers;
    // Not an output, and no read of it survives Halide's simplification of
    // its consumers (f(x) - f(x), a weight of zero), directly or through
    // other such Funcs: Halide builds no code for it.
    bool unread = false;
    int64_t root_points() const { return points(root_region); }
    // `region` widened to what the updates store to and read of it, as
    // Halide's bounds inference widens a Func wherever it is computed: a
    // histogram's initial values cover every bin its update may store to,
    // whatever its consumers read (Mullapudi2016's bilateral_grid grid
    // per thread: 11 to 13 bins, where the blur reads 5).
    void include_own_footprints(Region &region) const;
};

// What the DAG makes of wrapper Funcs (Func::in()). The search ignores them:
// Strata never makes one, and a user's keep their own schedule. An imported
// schedule (another autoscheduler's: Anderson2021 stages operands through
// `in()` wrappers) is read as Halide lowers it, each wrapper a Node between
// the Func it wraps and the consumers whose calls it intercepts. That DAG is
// built over a deep copy of the pipeline's Funcs: for pricing only, as
// scheduling its Nodes changes nothing the pipeline lowers.
enum class Wrappers { Ignored, AsLowered };

class FunctionDAG {
public:
    // Throws Halide::CompileError (via fail()) on missing estimates.
    explicit FunctionDAG(const std::vector<Halide::Func> &outputs, Wrappers wrappers = Wrappers::Ignored);
    FunctionDAG(const FunctionDAG &) = delete;
    FunctionDAG &operator=(const FunctionDAG &) = delete;

    // Funcs and input buffers, producers before consumers (Halide's topological order).
    const std::vector<std::unique_ptr<Node>> &nodes() const { return nodes_; }
    // The Funcs alone (no input buffers), in the same order.
    const std::vector<Node *> &funcs() const { return funcs_; }
    Node *node(const std::string &name) const;

    // What computing `from` over `region` reaches through its producers,
    // by Node id (nullopt where it reaches nothing): the bounds inference
    // of that one Func at the estimates, not clamped to the producers'
    // regions. Extern stages are not looked through.
    //
    //   Region early = from.root_region;
    //   early[0].min -= 16, early[0].extent += 16;
    //   auto reached = dag.regions_reached(from, early);   // reached[input->id]: what it reads
    std::vector<std::optional<Region>> regions_reached(const Node &from, const Region &region) const;

    // A human-readable dump (for STRATA_VERBOSE=3 and tests). Without
    // regions it describes the algorithm alone, whatever the sizes.
    std::string describe(bool with_regions = true) const;

private:
    void add_stage_analysis(Stage &stage, const Halide::Internal::FuncValueBounds &value_bounds);
    void compute_root_regions();
    void mark_unread_funcs();
    // The region an extern stage reads of `node`: its estimates, else the extern's own region.
    Region extern_read_region(const Node &node, const Node &reader) const;
    Node *input_node(const Halide::Internal::Call *call);

    std::vector<std::unique_ptr<Node>> nodes_;
    std::vector<Node *> funcs_;
    std::vector<std::unique_ptr<Edge>> edges_;
    std::map<std::string, Node *> by_name_;
};

}  // namespace strata::autoscheduler
