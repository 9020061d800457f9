// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// tiny_llm's continuous batching of requests that arrive on their own schedule (Poisson), the one
// rule every backend serves by (header-only: the GPU plugin includes it too).
//
// The loop runs in steps. At each step boundary it reads the clock once; every request that has
// arrived by then joins, first come first served, while its `batch` sequences fit in the
// `max_batch` rows: its prefill runs (alone, stalling the running sequences, as a server without
// chunked prefill does) and chooses its first token. Then one decode step gives every active
// sequence its next token. A request that arrives while a prefill or a step runs waits for the
// next boundary: that wait is queueing and counts in its TTFT, which runs from the scheduled
// arrival time. A request whose sequences have all their tokens leaves after the step, freeing
// its rows (and their KV pages). With nothing active the loop sleeps until the next arrival. The
// trace counts what the prefills and steps read (decode_traffic.h), since only the loop knows
// which sequences each step served.
#include "decode_traffic.h"
#include "request_schedule.h"

#include <chrono>
#include <thread>
#include <vector>

namespace kwb::llm {

// The repetition's clock: real time from its start (the backends' operations are synchronous,
// so the clock reads when their tokens exist).
class SteadyServingClock {
public:
    double now_ms() const { return std::chrono::duration<double, std::milli>(clock::now() - start_).count(); }
    void wait_until_ms(double t)
    {
        std::this_thread::sleep_until(
            start_ + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double, std::milli>(t)));
    }

private:
    using clock = std::chrono::steady_clock;
    clock::time_point start_ = clock::now();
};

struct ServingTrace {
    struct Reading {
        double t_ms; // on the repetition's clock
        bool ttft; // else an inter-token gap
        double value_ms;
    };
    std::vector<ServedRequest> served; // per request, in schedule order
    std::vector<Reading> readings; // as they happened
    double wall_ms = 0;
    int peak_rows = 0;
    DecodeTraffic traffic; // its steps: the decode steps run
};

// Serves `requests` (arrival_ms ascending) through `backend`, which provides, each returning when
// its tokens are chosen:
//   prefill(request, first_row)  the request's batch sequences into rows [first_row, + batch);
//   step(rows)                   one token for each of rows [0, rows);
//   retire(kept)                 rows not in `kept` leave; kept[i] is the old row now at row i.
// Clock: now_ms() and wait_until_ms(t), e.g. SteadyServingClock.
template<class Backend, class Clock>
ServingTrace serve_continuous(
    const std::vector<Request>& requests, int batch, int max_batch, Backend& backend, Clock& clock)
{
    struct Active {
        std::size_t request;
        int tokens;
        double last_ms;
    };
    ServingTrace trace;
    trace.served.resize(requests.size());
    std::vector<Active> active; // in row order, `batch` rows each
    std::size_t next = 0, done = 0;
    int rows = 0;
    while (done < requests.size()) {
        const double boundary = clock.now_ms();
        while (next < requests.size() && requests[next].arrival_ms <= boundary && rows + batch <= max_batch) {
            backend.prefill(static_cast<int>(next), rows);
            ++trace.traffic.prefills;
            const double at = clock.now_ms();
            trace.served[next].ttft_ms = at - requests[next].arrival_ms;
            trace.readings.push_back({at, true, trace.served[next].ttft_ms});
            active.push_back({next++, 1, at});
            rows += batch;
        }
        trace.peak_rows = std::max(trace.peak_rows, rows);
        if (active.empty()) {
            clock.wait_until_ms(requests[next].arrival_ms);
            continue;
        }
        backend.step(rows);
        ++trace.traffic.steps;
        for (const auto& a : active)
            trace.traffic.kv_positions += static_cast<double>(batch) * decode_context(requests[a.request], a.tokens);
        const double at = clock.now_ms();
        std::vector<Active> staying;
        std::vector<int> kept;
        for (std::size_t i = 0; i < active.size(); ++i) {
            auto a = active[i];
            auto& itl = trace.served[a.request].itl_ms;
            itl.push_back(at - a.last_ms);
            trace.readings.push_back({at, false, itl.back()});
            a.last_ms = at;
            if (++a.tokens < requests[a.request].gen_tokens) {
                staying.push_back(a);
                for (int b = 0; b < batch; ++b)
                    kept.push_back(static_cast<int>(i) * batch + b);
            } else
                ++done;
        }
        if (staying.size() != active.size()) {
            backend.retire(kept);
            rows = static_cast<int>(kept.size());
        }
        active = std::move(staying);
    }
    trace.wall_ms = clock.now_ms();
    return trace;
}

} // namespace kwb::llm
