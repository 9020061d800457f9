// SPDX-License-Identifier: GPL-3.0-or-later
#include "formula/formula_templates.h"

#include "formula/formula_variables.h"
#include "formula/prediction.h"

#include <algorithm>

namespace kwb {

const std::vector<FormulaTemplate>& formula_templates()
{
    static const std::vector<FormulaTemplate> templates = {
        {"occupancy-smem", "Occupancy from shared memory per block",
            "A latency-bound kernel runs in time inversely proportional to the blocks resident per SM, and shared "
            "memory is what limits them (an upper bound: other limits may bind first).",
            "100 * (1 - min(floor(smem_per_sm / baseline_smem_per_block), max_blocks_per_sm) / "
            "min(floor(smem_per_sm / treatment_smem_per_block), max_blocks_per_sm))",
            {{"baseline_smem_per_block", 98304, "study", "bytes of shared memory per block, baseline"},
                {"treatment_smem_per_block", 65536, "study", "bytes of shared memory per block, treatment"}},
            {"smem_per_sm", "max_blocks_per_sm"}},
        {"roofline", "Roofline time",
            "Each launch takes the longer of its compute time at the BF16 tensor peak and its memory time at the "
            "HBM peak; the change moves FLOPs or bytes.",
            "100 * (1 - max(treatment_gflop / (peak_bf16_tflops * 1000), treatment_gbytes / peak_hbm_gbs) / "
            "max(baseline_gflop / (peak_bf16_tflops * 1000), baseline_gbytes / peak_hbm_gbs))",
            {{"baseline_gflop", 0.5, "study", "GFLOP per launch, baseline"},
                {"treatment_gflop", 0.5, "study", "GFLOP per launch, treatment"},
                {"baseline_gbytes", 1.0, "study", "GB moved per launch, baseline"},
                {"treatment_gbytes", 0.5, "study", "GB moved per launch, treatment"}},
            {"peak_bf16_tflops", "peak_hbm_gbs"}},
        {"launch-overhead", "Launch overhead",
            "A step is its GPU work plus a fixed host cost per launch; the change removes launches (fusion, graph "
            "capture) and leaves the work alone.",
            "100 * (baseline_launches - treatment_launches) * launch_us / (work_us + baseline_launches * launch_us)",
            {{"baseline_launches", 300, "study", "launches per step, baseline"},
                {"treatment_launches", 1, "study", "launches per step, treatment"},
                {"launch_us", 4, "study", "host cost of one launch, microseconds"},
                {"work_us", 2000, "study", "GPU work per step, microseconds"}},
            {}},
        {"loop-iteration", "Loop-iteration cost",
            "The kernel is a fixed cost plus a main loop whose iterations each cost the same; the change does the "
            "same work in fewer iterations (a deeper tile, unrolling).",
            "100 * (baseline_iters - treatment_iters) * iter_ns / (fixed_ns + baseline_iters * iter_ns)",
            {{"baseline_iters", 64, "study", "main-loop iterations, baseline"},
                {"treatment_iters", 32, "study", "main-loop iterations, treatment"},
                {"iter_ns", 12, "study", "cost of one iteration, nanoseconds"},
                {"fixed_ns", 500, "study", "cost outside the loop, nanoseconds"}},
            {}},
    };
    return templates;
}

const FormulaTemplate* find_formula_template(const std::string& id)
{
    const auto& all = formula_templates();
    const auto it = std::find_if(all.begin(), all.end(), [&](const FormulaTemplate& t) { return t.id == id; });
    return it == all.end() ? nullptr : &*it;
}

void apply_formula_template(Study& study, const FormulaTemplate& t)
{
    study.prediction.formula = t.formula;
    const auto known = formula_variables(study);
    for (const auto& input : t.inputs)
        if (std::none_of(known.begin(), known.end(), [&](const FormulaVariable& v) { return v.name == input.name; }))
            study.prediction.variables[input.name] = input.value;
    refresh_prediction(study);
}

} // namespace kwb
