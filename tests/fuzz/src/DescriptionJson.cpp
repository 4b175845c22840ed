#include "strata/fuzz/DescriptionJson.h"

#include "Overloaded.h"

#include <fstream>
#include <map>
#include <sstream>

namespace strata::fuzz {

namespace {

using nlohmann::json;

constexpr const char *kFormat = "strata-random-pipeline";
constexpr int kVersion = 1;

// ---- writing ----

json expr_to_json(const Expr &e) {
    json j;
    switch (e.kind) {
    case Expr::Kind::Operand:
        j["operand"] = e.operand;
        if (e.element) j["element"] = e.element;
        break;
    case Expr::Kind::Constant:
        j["const"] = e.value;
        j["type"] = name_of(e.type);
        break;
    case Expr::Kind::Coordinate: j["coord"] = e.dim; break;
    case Expr::Kind::Cast:
        j["cast"] = name_of(e.type);
        j["arg"] = expr_to_json(e.args[0]);
        break;
    case Expr::Kind::Unary:
        j["unary"] = name_of(e.unary);
        j["arg"] = expr_to_json(e.args[0]);
        break;
    case Expr::Kind::Binary:
    case Expr::Kind::Select:
        j[e.kind == Expr::Kind::Binary ? "binary" : "select"] =
            e.kind == Expr::Kind::Binary ? name_of(e.binary) : name_of(e.compare);
        j["args"] = json::array();
        for (const Expr &a : e.args) j["args"].push_back(expr_to_json(a));
        break;
    }
    return j;
}

json op_to_json(const Op &op, const std::vector<Stage> &stages) {
    auto name = [&](int i) { return stages.at(i).name; };
    json j;
    j["op"] = op_name(op);
    std::visit(Overloaded{[&](const InputOp &o) {
                              j["type"] = name_of(o.type);
                              j["shape"] = o.shape;
                              if (o.range) j["range"] = {o.range->lo, o.range->hi};
                          },
                          [&](const PointwiseOp &o) {
                              j["operands"] = json::array();
                              for (const PointwiseOperand &p : o.operands) {
                                  j["operands"].push_back({{"stage", name(p.stage)}, {"dims", p.dims}});
                              }
                              j["values"] = json::array();
                              for (const Expr &v : o.values) j["values"].push_back(expr_to_json(v));
                          },
                          [&](const StencilOp &o) {
                              j["input"] = name(o.input);
                              j["dims"] = o.dims;
                              j["sizes"] = o.sizes;
                              j["weights"] = o.weights;
                              j["as_reduction"] = o.as_reduction;
                          },
                          [&](const BoundaryOp &o) {
                              j["input"] = name(o.input);
                              j["kind"] = name_of(o.kind);
                              j["pad_before"] = o.pad_before;
                              j["pad_after"] = o.pad_after;
                              if (o.kind == BoundaryKind::ConstantExterior) j["value"] = o.value;
                          },
                          [&](const ResampleOp &o) {
                              j["input"] = name(o.input);
                              j["dim"] = o.dim;
                              j["kind"] = name_of(o.kind);
                              j["factor"] = o.factor;
                          },
                          [&](const TransposeOp &o) {
                              j["input"] = name(o.input);
                              j["order"] = o.order;
                          },
                          [&](const ReduceOp &o) {
                              j["input"] = name(o.input);
                              j["dims"] = o.dims;
                              j["kind"] = name_of(o.kind);
                              j["type"] = name_of(o.type);
                              j["inline_form"] = o.inline_form;
                          },
                          [&](const HistogramOp &o) {
                              j["index"] = name(o.index);
                              if (o.weight) j["weight"] = name(*o.weight);
                              j["bins"] = o.bins;
                          },
                          [&](const ScanOp &o) {
                              j["input"] = name(o.input);
                              j["dim"] = o.dim;
                              j["kind"] = name_of(o.kind);
                              if (o.kind == ScanKind::Recursive) j["coefficient"] = o.coefficient;
                              j["reverse"] = o.reverse;
                              j["type"] = name_of(o.type);
                          },
                          [&](const GatherOp &o) {
                              j["source"] = name(o.source);
                              j["index"] = name(o.index);
                              j["dim"] = o.dim;
                          },
                          [&](const ConcatOp &o) {
                              j["first"] = name(o.first);
                              j["second"] = name(o.second);
                              j["dim"] = o.dim;
                          },
                          [&](const Conv2dOp &o) {
                              j["input"] = name(o.input);
                              j["weights"] = name(o.weights);
                          },
                          [&](const MatmulOp &o) {
                              j["lhs"] = name(o.lhs);
                              j["rhs"] = name(o.rhs);
                          },
                          [&](const PoolOp &o) {
                              j["input"] = name(o.input);
                              j["kind"] = name_of(o.kind);
                              j["window"] = o.window;
                              j["stride"] = o.stride;
                          },
                          [&](const ArgReduceOp &o) {
                              j["input"] = name(o.input);
                              j["dims"] = o.dims;
                              j["maximum"] = o.maximum;
                          }},
               op);
    return j;
}

// ---- reading ----

// A JSON object read field by field, with errors that say where.
class Fields {
public:
    Fields(const json &object, std::string where) : object_(object), where_(std::move(where)) {
        if (!object_.is_object()) fail("is not a JSON object");
    }

    [[noreturn]] void fail(const std::string &problem) const { throw std::invalid_argument(where_ + " " + problem); }

    bool has(const char *key) const { return object_.contains(key); }

    const json &at(const char *key) const {
        if (!has(key)) fail(std::string("has no field '") + key + "'");
        return object_.at(key);
    }

    template <typename T>
    T get(const char *key) const {
        try {
            return at(key).get<T>();
        } catch (const json::exception &e) {
            fail(std::string("field '") + key + "': " + e.what());
        }
    }

    template <typename T>
    T get(const char *key, T fallback) const {
        return has(key) ? get<T>(key) : fallback;
    }

    // A number that must be an integer (JSON has only one number type).
    int get_int(const char *key) const {
        const json &v = at(key);
        if (!v.is_number_integer()) fail(std::string("field '") + key + "' must be an integer");
        return v.get<int>();
    }

    template <typename Parse>
    auto get_enum(const char *key, Parse parse) const {
        try {
            return parse(get<std::string>(key));
        } catch (const std::invalid_argument &e) {
            fail(std::string("field '") + key + "': " + e.what());
        }
    }

    const std::string &where() const { return where_; }

private:
    const json &object_;
    std::string where_;
};

Expr expr_from_json(const json &j, const std::string &where) {
    Fields f(j, where);
    Expr e;
    if (f.has("operand")) {
        e.kind = Expr::Kind::Operand;
        e.operand = f.get_int("operand");
        e.element = f.has("element") ? f.get_int("element") : 0;
    } else if (f.has("const")) {
        e.kind = Expr::Kind::Constant;
        e.value = f.get<double>("const");
        e.type = f.get_enum("type", parse_scalar_type);
    } else if (f.has("coord")) {
        e.kind = Expr::Kind::Coordinate;
        e.dim = f.get_int("coord");
    } else if (f.has("cast")) {
        e.kind = Expr::Kind::Cast;
        e.type = f.get_enum("cast", parse_scalar_type);
        e.args = {expr_from_json(f.at("arg"), where + "/cast")};
    } else if (f.has("unary")) {
        e.kind = Expr::Kind::Unary;
        e.unary = f.get_enum("unary", parse_unary_op);
        e.args = {expr_from_json(f.at("arg"), where + "/" + name_of(e.unary))};
    } else if (f.has("binary") || f.has("select")) {
        const bool is_binary = f.has("binary");
        e.kind = is_binary ? Expr::Kind::Binary : Expr::Kind::Select;
        if (is_binary)
            e.binary = f.get_enum("binary", parse_binary_op);
        else
            e.compare = f.get_enum("select", parse_compare_op);
        const json &args = f.at("args");
        if (!args.is_array()) f.fail("field 'args' must be an array");
        for (size_t i = 0; i < args.size(); ++i) {
            e.args.push_back(expr_from_json(args[i], where + "/args[" + std::to_string(i) + "]"));
        }
    } else {
        f.fail("is no expression (operand, const, coord, cast, unary, binary or select)");
    }
    return e;
}

// The index of the earlier stage that field `key` names.
int stage_index(const Fields &f, const char *key, const std::map<std::string, int> &earlier) {
    const std::string name = f.get<std::string>(key);
    auto it = earlier.find(name);
    if (it == earlier.end()) f.fail(std::string("field '") + key + "': no earlier stage is named '" + name + "'");
    return it->second;
}

Op op_from_json(const Fields &f, const std::map<std::string, int> &earlier) {
    auto stage = [&](const char *key) { return stage_index(f, key, earlier); };
    const std::string kind = f.get<std::string>("op");
    if (kind == "input") {
        InputOp o;
        o.type = f.get_enum("type", parse_scalar_type);
        o.shape = f.get<Shape>("shape");
        if (f.has("range")) {
            const auto r = f.get<std::vector<double>>("range");
            if (r.size() != 2) f.fail("field 'range' must be [lo, hi]");
            o.range = ValueBounds{r[0], r[1]};
        }
        return o;
    }
    if (kind == "pointwise") {
        PointwiseOp o;
        const json &operands = f.at("operands");
        if (!operands.is_array()) f.fail("field 'operands' must be an array");
        for (size_t i = 0; i < operands.size(); ++i) {
            Fields p(operands[i], f.where() + " operand " + std::to_string(i));
            o.operands.push_back({stage_index(p, "stage", earlier), p.get<std::vector<int>>("dims")});
        }
        const json &values = f.at("values");
        if (!values.is_array()) f.fail("field 'values' must be an array");
        for (size_t i = 0; i < values.size(); ++i) {
            o.values.push_back(expr_from_json(values[i], f.where() + " value " + std::to_string(i)));
        }
        return o;
    }
    if (kind == "stencil") {
        return StencilOp{stage("input"), f.get<std::vector<int>>("dims"), f.get<std::vector<int>>("sizes"),
                         f.get<std::vector<double>>("weights"), f.get<bool>("as_reduction", false)};
    }
    if (kind == "boundary") {
        return BoundaryOp{stage("input"), f.get_enum("kind", parse_boundary_kind),
                          f.get<std::vector<int>>("pad_before"), f.get<std::vector<int>>("pad_after"),
                          f.get<double>("value", 0.0)};
    }
    if (kind == "resample") {
        return ResampleOp{stage("input"), f.get_int("dim"), f.get_enum("kind", parse_resample_kind),
                          f.get_int("factor")};
    }
    if (kind == "transpose") return TransposeOp{stage("input"), f.get<std::vector<int>>("order")};
    if (kind == "reduce") {
        return ReduceOp{stage("input"), f.get<std::vector<int>>("dims"), f.get_enum("kind", parse_reduce_kind),
                        f.get_enum("type", parse_scalar_type), f.get<bool>("inline_form", false)};
    }
    if (kind == "histogram") {
        HistogramOp o;
        o.index = stage("index");
        if (f.has("weight")) o.weight = stage("weight");
        o.bins = f.get_int("bins");
        return o;
    }
    if (kind == "scan") {
        return ScanOp{stage("input"),
                      f.get_int("dim"),
                      f.get_enum("kind", parse_scan_kind),
                      f.get<double>("coefficient", 0.5),
                      f.get<bool>("reverse", false),
                      f.get_enum("type", parse_scalar_type)};
    }
    if (kind == "gather") return GatherOp{stage("source"), stage("index"), f.get_int("dim")};
    if (kind == "concat") return ConcatOp{stage("first"), stage("second"), f.get_int("dim")};
    if (kind == "conv2d") return Conv2dOp{stage("input"), stage("weights")};
    if (kind == "matmul") return MatmulOp{stage("lhs"), stage("rhs")};
    if (kind == "pool") {
        return PoolOp{stage("input"), f.get_enum("kind", parse_pool_kind), f.get_int("window"), f.get_int("stride")};
    }
    if (kind == "argreduce")
        return ArgReduceOp{stage("input"), f.get<std::vector<int>>("dims"), f.get<bool>("maximum")};
    f.fail("has an unknown op '" + kind + "'");
}

}  // namespace

json to_json(const Description &d) {
    json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["seed"] = d.seed;
    j["budget"] = d.budget;
    j["stages"] = json::array();
    for (const Stage &s : d.stages) {
        json stage = {{"name", s.name}};
        stage.update(op_to_json(s.op, d.stages));
        if (!is_input(s)) {
            std::vector<std::string> types;
            for (ScalarType t : s.types) types.push_back(name_of(t));
            stage["types"] = types;
            stage["shape"] = s.shape;
        }
        j["stages"].push_back(stage);
    }
    j["outputs"] = json::array();
    for (int o : d.outputs) j["outputs"].push_back(d.stages.at(o).name);
    return j;
}

Description from_json(const json &j) {
    Fields top(j, "the description");
    if (top.get<std::string>("format", "") != kFormat) top.fail(std::string("is not a ") + kFormat + " file");
    if (top.get_int("version") != kVersion) {
        top.fail("has version " + std::to_string(top.get_int("version")) + "; this build reads version " +
                 std::to_string(kVersion));
    }
    Description d;
    d.seed = top.get<uint64_t>("seed", 0);
    d.budget = top.get<int>("budget", 0);
    const json &stages = top.at("stages");
    if (!stages.is_array()) top.fail("field 'stages' must be an array");
    std::map<std::string, int> index;
    std::vector<std::pair<std::vector<std::string>, Shape>> stated;  // the file's derived facts, if any
    for (size_t i = 0; i < stages.size(); ++i) {
        Fields f(stages[i], "stage " + std::to_string(i));
        Stage s;
        s.name = f.get<std::string>("name");
        Fields named(stages[i], "stage '" + s.name + "'");
        s.op = op_from_json(named, index);
        stated.emplace_back(std::holds_alternative<InputOp>(s.op) ? std::vector<std::string>{}
                                                                  : named.get<std::vector<std::string>>("types", {}),
                            std::holds_alternative<InputOp>(s.op) ? Shape{} : named.get<Shape>("shape", {}));
        index[s.name] = int(i);
        d.stages.push_back(std::move(s));
    }
    for (const std::string &name : top.get<std::vector<std::string>>("outputs")) {
        auto it = index.find(name);
        if (it == index.end()) top.fail("lists output '" + name + "', which is not a stage");
        d.outputs.push_back(it->second);
    }
    infer(d);
    for (size_t i = 0; i < d.stages.size(); ++i) {
        const Stage &s = d.stages[i];
        std::vector<std::string> types;
        for (ScalarType t : s.types) types.push_back(name_of(t));
        const auto &[stated_types, stated_shape] = stated[i];
        if ((!stated_types.empty() && stated_types != types) || (!stated_shape.empty() && stated_shape != s.shape)) {
            throw std::invalid_argument("stage '" + s.name + "': the file says its shape is " +
                                        to_string(stated_shape) + ", but its operation gives " + to_string(s.shape) +
                                        " (or the types differ)");
        }
    }
    return d;
}

Description read_description(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the pipeline description " + path);
    try {
        return from_json(json::parse(in));
    } catch (const json::parse_error &e) {
        throw std::invalid_argument(path + ": " + e.what());
    } catch (const std::invalid_argument &e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

void write_description(const Description &description, const std::string &path) {
    const std::string text = to_json(description).dump(1) + "\n";
    std::ofstream out(path);
    out << text;
    if (!out) throw std::runtime_error("cannot write the pipeline description " + path);
}

}  // namespace strata::fuzz
