// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// kwb/worker.h: a C++ benchmark program as a Kernel Workbench worker arm (docs/worker-protocol.md,
// protocol 1). One header, C++17, no dependency beyond the CUDA runtime, and not even that when
// compiled without CUDA: with nvcc (__CUDACC__) or KWB_WORKER_CUDA defined, launches are timed with
// CUDA events on the legacy default stream and the L2 is flushed for cold timing; otherwise
// std::chrono::steady_clock times them and there is no cache to flush.
//
//     struct State { std::vector<float> a, b, c; int n = 0; };
//     int main(int argc, char** argv)
//     {
//         kwb::worker::Kernel<State> k;
//         k.name = "my-kernel";
//         k.params = {{"n", 1024, {}, "problem size"}, {"variant", "fast", {"fast", "slow"}}};
//         k.setup = [](State& s, const kwb::worker::Params& p, std::uint64_t seed) { /* inputs from seed */ };
//         k.run = [](State& s) { /* one launch */ };
//         k.output = [](State& s) { return kwb::worker::host_output(s.c.data(), s.c.size()); };
//         k.reference = [](State& s) { return std::vector<float>(/* the right answer */); }; // optional
//         k.flop_per_launch = [](const kwb::worker::Params& p) { return 2.0 * p.integer("n"); }; // optional
//         return kwb::worker::serve(k, argc, argv);
//     }
//
// serve() first moves the protocol onto private duplicates of fds 0 and 1, points fd 1 at stderr
// and fd 0 at /dev/null: whatever the program or its libraries print after that lands in kwb's
// stderr tail and cannot corrupt the protocol. Print nothing to stdout before calling it.
// Exceptions thrown by the kernel's callables are answered `ok: false` with what(); the worker
// keeps serving. Launches on the legacy default stream or on blocking streams are timed correctly;
// work on a cudaStreamNonBlocking stream is not ordered with the timing events.
//
// The parts, each one concept: worker/config.h (CUDA or not), json.h (the protocol's JSON),
// kernel.h (what a kernel declares), device.h (timing, outputs, the reference comparison),
// channel.h (the private protocol streams), server.h (the requests, serve()).

#include "worker/server.h"
