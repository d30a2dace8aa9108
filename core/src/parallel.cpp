// The thread pool of parallel.hpp. One run at a time takes the pool: its tasks are handed out by an atomic
// counter, the caller works on them too, and helpers that arrive after the last task was taken stay out.
#include "attn/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "attn/error.hpp"

namespace attn {
namespace {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kThreads = false;  // the single-threaded WebAssembly flavours: no pthreads at all
#else
constexpr bool kThreads = true;
#endif

int64_t hardware_threads() {
#ifdef __EMSCRIPTEN__
    return 1;  // emscripten's hardware_concurrency reads navigator, which Node 20 lacks: the loader sets it
#else
    const int64_t n = static_cast<int64_t>(std::thread::hardware_concurrency());
    return std::clamp<int64_t>(n, 1, kMaxThreads);
#endif
}

std::atomic<int64_t> chosen_threads{0};  // 0: not set, the hardware's
std::atomic<int64_t> runs_split{0};
thread_local bool inside_task = false;

class Pool {
public:
    void run(int64_t tasks, parallel::TaskBody body, void* context, int64_t threads) {
        std::unique_lock<std::mutex> running(run_mutex_, std::try_to_lock);
        const int64_t wanted = std::min(threads, tasks) - 1;
        const int64_t helpers = running ? start_helpers(wanted) : 0;
        if (helpers == 0) {  // the pool is busy with another caller's run, or no thread could start
            run_alone(tasks, body, context);
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            body_ = body;
            context_ = context;
            tasks_ = tasks;
            next_.store(0);
            error_ = nullptr;
            helpers_wanted_ = helpers;
            open_ = true;
            ++generation_;
        }
        ++runs_split;
        wake_.notify_all();
        work();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            open_ = false;  // a helper that wakes from now on stays out
        }
        // The helpers still at work are finishing their last task.
#ifdef __EMSCRIPTEN__
        while (busy_.load() != 0) {
            // spin: a browser's main thread may not wait on a condition variable (Emscripten warns, then spins)
        }
#else
        {
            std::unique_lock<std::mutex> lock(mutex_);
            finished_.wait(lock, [&] { return busy_.load() == 0; });
        }
#endif
        std::exception_ptr error;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            error = error_;
        }
        if (error) std::rethrow_exception(error);
    }

    static void run_alone(int64_t tasks, parallel::TaskBody body, void* context) {
        const bool was_inside = inside_task;
        inside_task = true;
        try {
            for (int64_t t = 0; t < tasks; ++t) body(context, t);
        } catch (...) {
            inside_task = was_inside;
            throw;
        }
        inside_task = was_inside;
    }

private:
    // Threads are made as a run first needs them and kept (never joined: in a browser, joining a thread
    // whose worker has not started would wait forever). Returns how many helpers there are, at most `wanted`.
    int64_t start_helpers(int64_t wanted) {
        while (static_cast<int64_t>(helpers_.size()) < wanted) {
            try {
                helpers_.emplace_back(&Pool::help, this, static_cast<int64_t>(helpers_.size()));
            } catch (const std::system_error&) {
                break;  // no more threads: run with those there are
            }
        }
        return std::min<int64_t>(wanted, static_cast<int64_t>(helpers_.size()));
    }

    void help(int64_t index) {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return generation_ != seen; });
            seen = generation_;
            if (!open_ || index >= helpers_wanted_) continue;
            ++busy_;
            lock.unlock();
            work();
            lock.lock();
            if (--busy_ == 0) finished_.notify_all();
        }
    }

    // Takes tasks until none is left; the first exception stops the handing out.
    void work() {
        inside_task = true;
        for (;;) {
            const int64_t task = next_.fetch_add(1);
            if (task >= tasks_) break;
            try {
                body_(context_, task);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                if (!error_) error_ = std::current_exception();
                next_.store(tasks_);
            }
        }
        inside_task = false;
    }

    std::mutex run_mutex_;  // held by the run in progress
    std::mutex mutex_;      // guards what follows, but next_
    std::condition_variable wake_, finished_;
    std::vector<std::thread> helpers_;
    uint64_t generation_ = 0;
    bool open_ = false;
    int64_t helpers_wanted_ = 0;
    std::atomic<int64_t> busy_{0};  // helpers inside the run (changed under mutex_, read by the spin too)
    parallel::TaskBody body_ = nullptr;
    void* context_ = nullptr;
    int64_t tasks_ = 0;
    std::atomic<int64_t> next_{0};
    std::exception_ptr error_;
};

Pool& pool() {
    static Pool* const instance = new Pool;  // never destroyed: its helpers wait until the process ends
    return *instance;
}

}  // namespace

void set_num_threads(int64_t n) {
    if (n < 1 || n > kMaxThreads)
        throw Error("set_num_threads: the number of threads must be an integer from 1 to " +
                    std::to_string(kMaxThreads) + ", got " + std::to_string(n));
    if (!kThreads && n != 1)
        throw Error("set_num_threads: this build runs on one thread only, got " + std::to_string(n));
    chosen_threads.store(n);
}

int64_t get_num_threads() {
    const int64_t n = chosen_threads.load();
    return n > 0 ? n : kThreads ? hardware_threads() : 1;
}

bool has_threads() { return kThreads; }

namespace parallel {

void run_tasks(int64_t tasks, TaskBody body, void* context) {
    if (tasks <= 0) return;
    const int64_t threads = get_num_threads();
    if (!kThreads || threads <= 1 || tasks == 1 || inside_task) {
        Pool::run_alone(tasks, body, context);
        return;
    }
    pool().run(tasks, body, context, threads);
}

int64_t split_runs() { return runs_split.load(); }

}  // namespace parallel
}  // namespace attn
