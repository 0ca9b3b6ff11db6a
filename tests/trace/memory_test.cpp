// The memory bound of a loaded trace: per-track and per-event costs small enough
// that peak RSS stays within 1.5 x the JSON for any trace shape, and the model's
// own accounting of the bytes it holds.
#include "trace/traceloader.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

enum class Shape { ManyTracks, OneTrack };

// One event per line, as tests/bench/trace_memory_bench.py writes them.
std::string event(Shape shape, size_t i)
{
    char buf[160];
    if (shape == Shape::ManyTracks)
        std::snprintf(buf, sizeof buf,
                      "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op\",\"pid\":1,\"tid\":%zu,"
                      "\"ts\":%zu,\"dur\":1}\n",
                      i ? "," : "", i, i);
    else
        std::snprintf(buf, sizeof buf,
                      "%s{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":1}\n", i ? "," : "",
                      i);
    return buf;
}

// Writes a trace of about `bytes` to a file; returns its size and event count.
std::pair<uint64_t, size_t> writeTrace(const std::string &path, Shape shape, uint64_t bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    std::string chunk = "{\"traceEvents\":[\n";
    uint64_t size = 0;
    size_t i = 0;
    while (size + chunk.size() < bytes) {
        const std::string e = event(shape, i++);
        chunk += e;
        if (chunk.size() > (1u << 20)) {
            out << chunk;
            size += chunk.size();
            chunk.clear();
        }
    }
    chunk += "]}\n";
    out << chunk;
    size += chunk.size();
    return {size, i};
}

std::string traceText(Shape shape, size_t events)
{
    std::string s = "{\"traceEvents\":[\n";
    for (size_t i = 0; i < events; ++i)
        s += event(shape, i);
    return s + "]}\n";
}

// kB from /proc/self/status; -1 when not readable.
long statusKb(const char *field)
{
    std::ifstream f("/proc/self/status");
    std::string line;
    const size_t n = std::strlen(field);
    while (std::getline(f, line))
        if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
            return std::stol(line.substr(n + 1));
    return -1;
}

// Resets the process's peak RSS (VmHWM) to its current RSS (Linux 4.0+).
bool resetPeakRss()
{
    std::ofstream f("/proc/self/clear_refs");
    if (!f)
        return false;
    f << "5";
    f.flush();
    return static_cast<bool>(f);
}

void expectPeakWithinBound(Shape shape, const char *what)
{
    if (kSanitized)
        GTEST_SKIP() << "sanitizers change the memory a load takes";
    const std::string path = ::testing::TempDir() + "syncscope_memory_" + what + ".json";
    const auto [size, events] = writeTrace(path, shape, 40u << 20);
    if (!resetPeakRss() || statusKb("VmHWM") < 0) {
        std::remove(path.c_str());
        GTEST_SKIP() << "this system cannot reset and read the peak RSS";
    }
    const long before = statusKb("VmRSS");
    uint64_t loaded = 0;
    {
        const auto model = syncscope::loadTrace(path);
        loaded = model->counts().durationEvents;
    }
    const long peak = statusKb("VmHWM");
    std::remove(path.c_str());
    ASSERT_EQ(loaded, events);
    const double ratio = double(peak - before) * 1024.0 / double(size);
    EXPECT_LE(ratio, 1.5) << what << ": " << events << " events in " << size
                          << " bytes of JSON raised the peak RSS by " << (peak - before) << " kB";
}

} // namespace

TEST(TraceMemory, PeakRssOfAMillionTracksShapeIsWithinOneAndAHalfTimesTheJson)
{
    // About 470k tracks of one event each: per-track costs dominate.
    expectPeakWithinBound(Shape::ManyTracks, "many_tracks");
}

TEST(TraceMemory, PeakRssOfTinyEventsIsWithinOneAndAHalfTimesTheJson)
{
    // About 790k minimal events on one track: per-event costs dominate.
    expectPeakWithinBound(Shape::OneTrack, "tiny_events");
}

TEST(TraceMemory, ModelAccountsForAFewDozenBytesPerTrackAndPerEvent)
{
    const auto empty = syncscope::loadTraceFromMemory("{\"traceEvents\":[]}", "empty.json");
    const uint64_t base = empty->memoryBytes();

    // 100k tracks of one event: the track, its tid string and one event.
    const size_t nTracks = 100000;
    const auto tracks = syncscope::loadTraceFromMemory(traceText(Shape::ManyTracks, nTracks), "tracks.json");
    ASSERT_EQ(tracks->tracks().size(), nTracks);
    const double perTrack = double(tracks->memoryBytes() - base) / double(nTracks);
    EXPECT_LE(perTrack, 110.0);
    EXPECT_GE(perTrack, 60.0); // the accounting counts the columns themselves

    // 200k events on one track without args: the columns only, the rarely present
    // args (external id, correlation, ...) cost nothing when absent.
    const size_t nEvents = 200000;
    const auto one = syncscope::loadTraceFromMemory(traceText(Shape::OneTrack, nEvents), "one.json");
    ASSERT_EQ(one->tracks()[0].size(), nEvents);
    const double perEvent = double(one->memoryBytes() - base) / double(nEvents);
    EXPECT_LE(perEvent, 40.0);
    EXPECT_GE(perEvent, 38.0); // start, dur, name, cat, depth, parent, args
}

TEST(TraceMemory, RunningOutOfMemoryIsOneSentenceWithWhatAndHowMuch)
{
    if (kSanitized)
        GTEST_SKIP() << "sanitizers reserve address space; a limit on it cannot be tested";
    const std::string path = ::testing::TempDir() + "syncscope_memory_oom.json";
    writeTrace(path, Shape::ManyTracks, 60u << 20);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The load needs about 70 MB more than the process has; allow 24.
        close(fds[0]);
        const long vm = statusKb("VmSize");
        rlimit lim{};
        lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(vm + 24 * 1024) * 1024;
        std::string text = "no limit";
        if (vm > 0 && setrlimit(RLIMIT_AS, &lim) == 0) {
            try {
                syncscope::loadTrace(path);
                text = "loaded";
            } catch (const syncscope::Error &e) {
                text = e.what();
            } catch (const std::exception &e) {
                text = std::string("other exception: ") + e.what();
            }
        }
        const ssize_t w = write(fds[1], text.data(), text.size());
        _exit(w == static_cast<ssize_t>(text.size()) ? 0 : 1);
    }
    close(fds[1]);
    std::string text;
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        text.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    std::remove(path.c_str());
    if (text == "no limit")
        GTEST_SKIP() << "cannot limit the address space here";
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
    // One sentence: the file, what was being done, what was held and needed.
    EXPECT_NE(text.find("syncscope_memory_oom.json: ran out of memory while "), std::string::npos) << text;
    EXPECT_NE(text.find("events"), std::string::npos) << text;
    EXPECT_NE(text.find("the trace model held "), std::string::npos) << text;
    EXPECT_NE(text.find("needs about "), std::string::npos) << text;
    EXPECT_EQ(text.find("bad_alloc"), std::string::npos) << text;
    EXPECT_EQ(text.back(), '.') << text;
}
