// SPDX-License-Identifier: GPL-3.0-or-later
// tiny_llm's serving on the GPU: a repetition's requests one after another (CUDA events between
// tokens, nothing waits for the host), or arriving as a Poisson process into the continuously
// batched loop of cpu/continuous_batching.h. There every prefill and step ends with a stream
// synchronisation, so the loop's clock (host steady time from the repetition's start) reads when
// the tokens exist, the few microseconds of the synchronisation included: a server decides its
// next batch at that point too. Rows stay compact (the decode kernels index sequences 0..n-1): a
// leaving request's rows are filled by moving later rows' next token, length and page-table
// row; its pages return to the free list, from which the next joining request takes its own.
#include "tiny_llm_engine.h"

namespace kwb::cuda::tllm {

void TinyLlm::launch(cudaStream_t stream)
{
    if (!cfg_.poisson())
        return launch_sequential(stream);
    free_pages_.assign(table_host_.rbegin(), table_host_.rend()); // taken from the back: shuffled order
    row_pages_.clear();
    serving_stream_ = stream;
    llm::SteadyServingClock clock;
    trace_ = llm::serve_continuous(requests_, cfg_.sched.batch, cfg_.max_batch, *this, clock);
    traffic_ = trace_.traffic; // the steps it ran, each with the sequences then active
}

void TinyLlm::set_row_pages(int row, std::vector<int> pages, cudaStream_t stream)
{
    std::vector<int> line(static_cast<std::size_t>(max_pages_), pages.back()); // past the end: never read
    std::copy(pages.begin(), pages.end(), line.begin());
    KWB_CUDA(cudaMemcpyAsync(table_.as<int>() + static_cast<std::size_t>(row) * max_pages_, line.data(),
        line.size() * 4, cudaMemcpyHostToDevice, stream)); // pageable: staged before it returns
    row_pages_.push_back(std::move(pages));
}

void TinyLlm::prefill(int request, int first_row)
{
    const auto& r = requests_[static_cast<std::size_t>(request)];
    const int batch = cfg_.sched.batch;
    const auto need = static_cast<std::size_t>((r.prompt_len + r.gen_tokens + cfg_.page_size - 1) / cfg_.page_size);
    row_pages_.resize(static_cast<std::size_t>(first_row));
    for (int b = 0; b < batch; ++b) {
        std::vector<int> pages(free_pages_.end() - static_cast<std::ptrdiff_t>(need), free_pages_.end());
        free_pages_.resize(free_pages_.size() - need);
        set_row_pages(first_row + b, std::move(pages), serving_stream_);
    }
    prefill(prompts_.as<int>() + prompt_at_[static_cast<std::size_t>(request)], r.prompt_len,
        cu_.as<int>() + static_cast<std::size_t>(request) * (batch + 1), first_row, serving_stream_);
    KWB_CUDA(cudaStreamSynchronize(serving_stream_));
}

void TinyLlm::step(int rows)
{
    step(rows, serving_stream_);
    KWB_CUDA(cudaStreamSynchronize(serving_stream_));
}

void TinyLlm::retire(const std::vector<int>& kept)
{
    std::vector<bool> stays(row_pages_.size(), false);
    for (int k : kept)
        stays[static_cast<std::size_t>(k)] = true;
    for (std::size_t r = 0; r < stays.size(); ++r)
        if (!stays[r])
            free_pages_.insert(free_pages_.end(), row_pages_[r].begin(), row_pages_[r].end());
    // kept is ascending, so row k moves down to row i <= k before anything overwrites it.
    std::vector<std::vector<int>> moved;
    const auto row_bytes = static_cast<std::size_t>(max_pages_) * 4;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        const auto k = static_cast<std::size_t>(kept[i]);
        if (k != i) {
            KWB_CUDA(cudaMemcpyAsync(
                next_.as<int>() + i, next_.as<int>() + k, 4, cudaMemcpyDeviceToDevice, serving_stream_));
            KWB_CUDA(cudaMemcpyAsync(
                seq_len_.as<int>() + i, seq_len_.as<int>() + k, 4, cudaMemcpyDeviceToDevice, serving_stream_));
            KWB_CUDA(cudaMemcpyAsync(table_.as<int>() + i * max_pages_, table_.as<int>() + k * max_pages_, row_bytes,
                cudaMemcpyDeviceToDevice, serving_stream_));
        }
        moved.push_back(std::move(row_pages_[k]));
    }
    row_pages_ = std::move(moved);
}

// What both arrival modes report: the serving metrics, the bytes-moved ones, the memory held, each
// request's TTFT as the repetition's iteration values, and every reading for the engine's `ttft`
// and `itl` lanes.
nlohmann::json TinyLlm::served_json(const std::vector<llm::ServedRequest>& served, double wall_ms,
    const std::vector<llm::ServingTrace::Reading>& readings) const
{
    std::map<std::string, double> m;
    llm::serving_metrics(served, wall_ms, generated_, m);
    llm::traffic_metrics(bytes_, traffic_, m);
    nlohmann::json out(m);
    out["peak_mem_mib"] = static_cast<double>(allocated_) / (1 << 20);
    nlohmann::json ttft = nlohmann::json::array(), ttft_at = nlohmann::json::array(), itl = nlohmann::json::array(),
                   itl_at = nlohmann::json::array();
    for (const auto& r : readings) {
        (r.ttft ? ttft : itl).push_back(r.value_ms);
        (r.ttft ? ttft_at : itl_at).push_back(r.t_ms);
    }
    nlohmann::json iterations = nlohmann::json::array();
    for (const auto& s : served)
        iterations.push_back(s.ttft_ms);
    out["iterations"] = iterations;
    out["readings"] = {{"ttft", {{"unit", "ms"}, {"t_ms", ttft_at}, {"values", ttft}}},
        {"itl", {{"unit", "ms"}, {"t_ms", itl_at}, {"values", itl}}}};
    return out;
}

void TinyLlm::launch_sequential(cudaStream_t stream)
{
    std::size_t e = 0;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
        const auto& r = requests_[i];
        KWB_CUDA(cudaEventRecord(events_[e++], stream));
        prefill(
            prompts_.as<int>() + prompt_at_[i], r.prompt_len, cu_.as<int>() + i * (cfg_.sched.batch + 1), 0, stream);
        KWB_CUDA(cudaEventRecord(events_[e++], stream));
        for (int t = 1; t < r.gen_tokens; ++t) {
            step(cfg_.sched.batch, stream);
            KWB_CUDA(cudaEventRecord(events_[e++], stream));
        }
    }
}

nlohmann::json TinyLlm::metrics() const
{
    if (cfg_.poisson()) {
        auto out = served_json(trace_.served, trace_.wall_ms, trace_.readings);
        out["decode_steps"] = trace_.traffic.steps;
        out["peak_batch"] = trace_.peak_rows;
        return out;
    }
    KWB_CUDA(cudaEventSynchronize(events_.back()));
    const auto gap = [](cudaEvent_t a, cudaEvent_t b) {
        float ms = 0;
        KWB_CUDA(cudaEventElapsedTime(&ms, a, b));
        return static_cast<double>(ms);
    };
    // Each request's TTFT at its first token and each gap at its token, on the repetition's clock
    // (from its first event).
    std::vector<llm::ServedRequest> served;
    std::vector<llm::ServingTrace::Reading> readings;
    std::size_t e = 0;
    for (const auto& r : requests_) {
        llm::ServedRequest s;
        s.ttft_ms = gap(events_[e], events_[e + 1]);
        readings.push_back({gap(events_.front(), events_[e + 1]), true, s.ttft_ms});
        for (int t = 1; t < r.gen_tokens; ++t) {
            s.itl_ms.push_back(gap(events_[e + t], events_[e + t + 1]));
            readings.push_back({gap(events_.front(), events_[e + t + 1]), false, s.itl_ms.back()});
        }
        e += r.gen_tokens + 1;
        served.push_back(std::move(s));
    }
    return served_json(served, gap(events_.front(), events_.back()), readings);
}

} // namespace kwb::cuda::tllm
