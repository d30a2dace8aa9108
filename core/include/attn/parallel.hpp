#pragma once
// The threads the core runs its large products and the fast path's attention on (torch.set_num_threads).
//
// A pool of std::threads, made on first use, helps the calling thread through a list of tasks. The tasks
// are fixed by the sizes of the work alone, never by the number of threads, and each one computes its
// outputs whole with the single-thread kernel's instruction sequence (no sum is split between threads),
// so the results have the same bits on any number of threads; only which thread runs a task changes.
#include <cstdint>

namespace attn {

inline constexpr int64_t kMaxThreads = 256;

// How many threads (the caller's included) the core may use: 1 to kMaxThreads, else an Error naming the
// value. A build without threads (the single-threaded WebAssembly flavours) takes only 1.
void set_num_threads(int64_t n);

// The number set; until then the hardware's (std::thread::hardware_concurrency), or 1 in WebAssembly,
// whose loader asks the browser or Node and sets it.
int64_t get_num_threads();

// Whether this build can run more than one thread.
bool has_threads();

namespace parallel {

using TaskBody = void (*)(void* context, int64_t task);

// Runs body(context, task) once for every task in [0, tasks), on up to get_num_threads() threads; returns
// when all have run (rethrowing the first exception a task threw). Tasks must write disjoint outputs.
// Inside a task, or while another thread's run holds the pool, the tasks run in order on the caller alone.
// The caller never waits for a helper that has not started (in a browser a new thread may start late).
void run_tasks(int64_t tasks, TaskBody body, void* context);

// How many runs so far were split between the caller and helper threads (woken to take tasks; on a busy
// machine the caller may take them all first): the tests check that the threaded split was chosen.
int64_t split_runs();

}  // namespace parallel
}  // namespace attn
