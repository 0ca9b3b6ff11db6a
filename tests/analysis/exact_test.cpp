// Exact times from file to report, and the sync verdicts on hand-made traces whose
// figures are worked out by hand (tests/data/sync_replay.json, kineto_exact_times.json).
#include "analysis/jobanalysis.h"
#include "analysis/jsonwriter.h"
#include "analysis/syncreplay.h"
#include "common/error.h"
#include "testutil.h"
#include "trace/jsonscanner.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace syncscope;
using json::NumberStatus;

namespace {

constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();

// The text of v ns as microseconds with exactly 3 decimals, built from the digits.
std::string microsText(uint64_t v)
{
    return std::to_string(v / 1000) + "." + std::to_string(1000 + v % 1000).substr(1);
}

TimeNs parsed(std::string_view text)
{
    int64_t v = 0;
    EXPECT_EQ(json::parseMicros(text, v), NumberStatus::Ok) << text;
    return v;
}

NumberStatus status(std::string_view text)
{
    int64_t v = 0;
    return json::parseMicros(text, v);
}

} // namespace

// Every count of integer digits from 1 to 19 and every fractional length: the
// expected value is chosen first and the text written from it.
TEST(NumberParser, EveryDigitCountAndFractionLength)
{
    std::mt19937_64 rng(7);
    for (int digits = 1; digits <= 16; ++digits) {
        for (int round = 0; round < 200; ++round) {
            // A value whose microsecond part has exactly `digits` digits.
            uint64_t lo = 1, hi = 9;
            for (int d = 1; d < digits; ++d)
                lo *= 10;
            hi = lo * 10 - 1;
            if (digits == 16)
                hi = std::min<uint64_t>(hi, uint64_t(kMax) / 1000 - 1);
            const uint64_t whole = lo + rng() % (hi - lo + 1);
            const uint64_t ns = whole * 1000 + rng() % 1000;
            const std::string base = microsText(ns);
            // 3 fractional digits: exact.
            EXPECT_EQ(parsed(base), TimeNs(ns)) << base;
            // Fewer fractional digits: the rest is zeros.
            const std::string us = std::to_string(whole);
            EXPECT_EQ(parsed(us), TimeNs(whole * 1000)) << us;
            EXPECT_EQ(parsed(us + "."), TimeNs(whole * 1000)) << us; // "12." is read as 12
            EXPECT_EQ(parsed(us + ".5"), TimeNs(whole * 1000 + 500));
            EXPECT_EQ(parsed(us + ".25"), TimeNs(whole * 1000 + 250));
            // More fractional digits, every length to 9: round half-to-even.
            for (int extra = 1; extra <= 6; ++extra) {
                const std::string zeros(static_cast<size_t>(extra - 1), '0');
                EXPECT_EQ(parsed(base + "4" + zeros), TimeNs(ns)) << base << "4" << zeros;
                EXPECT_EQ(parsed(base + "6" + zeros), TimeNs(ns + 1));
                // Exactly half: to the even neighbour.
                EXPECT_EQ(parsed(base + "5" + zeros), TimeNs(ns % 2 == 0 ? ns : ns + 1)) << base << "5" << zeros;
                if (extra >= 2) // just above half rounds up
                    EXPECT_EQ(parsed(base + "5" + zeros.substr(1) + "1"), TimeNs(ns + 1));
            }
            EXPECT_EQ(parsed("-" + base), -TimeNs(ns));
            EXPECT_EQ(parsed("-" + base + "5"), -TimeNs(ns % 2 == 0 ? ns : ns + 1));
        }
    }
    // 17 to 19 integer digits fit only with leading zeros.
    EXPECT_EQ(parsed("0" + microsText(1712195495519689047ull)), 1712195495519689047);
    EXPECT_EQ(parsed("000" + microsText(1712195495519689047ull)), 1712195495519689047);
    EXPECT_EQ(status("17121954955196890"), NumberStatus::OutOfRange);
    EXPECT_EQ(status("171219549551968904"), NumberStatus::OutOfRange);
    EXPECT_EQ(status("1712195495519689047"), NumberStatus::OutOfRange);
}

// The form profilers write ([-]digits[.digits]) and the same text with an
// exponent of 0 read alike, on either side of every limit of the reader's
// short path for it (Scanner::plainMicros: 16 digits before the point, 3
// after, int64's end), which jsonscanner_test holds to parseMicros.
TEST(NumberParser, PlainFormsReadAsTheirExponentForms)
{
    std::mt19937_64 rng(11);
    std::vector<std::string> texts = {"0",
                                      "-0",
                                      "9223372036854775.807",
                                      "9223372036854775.808",
                                      "-9223372036854775.807",
                                      "-9223372036854775.808",
                                      "9999999999999999.999",
                                      "10000000000000000",
                                      "0.000",
                                      "-0.001",
                                      "000000000000001.5",
                                      "0000000000000001.5",
                                      "999999999999999.999",
                                      "1000000000000000",
                                      "999999999999999.9995",
                                      "1.",
                                      ".5",
                                      "+1.5",
                                      "1.5000",
                                      "12.34567",
                                      "-999999999999999.999"};
    for (int round = 0; round < 20000; ++round) {
        const int digits = 1 + static_cast<int>(rng() % 17);
        std::string t = rng() % 4 == 0 ? "-" : "";
        for (int d = 0; d < digits; ++d)
            t += static_cast<char>('0' + rng() % 10);
        const int frac = static_cast<int>(rng() % 6) - 1; // -1: no point
        if (frac >= 0)
            t += '.';
        for (int d = 0; d < frac; ++d)
            t += static_cast<char>('0' + rng() % 10);
        texts.push_back(t);
    }
    for (const std::string &t : texts) {
        int64_t plain = 1, withExponent = 2;
        const NumberStatus a = json::parseMicros(t, plain), b = json::parseMicros(t + "e0", withExponent);
        EXPECT_EQ(a, b) << t;
        if (a == NumberStatus::Ok && b == NumberStatus::Ok)
            EXPECT_EQ(plain, withExponent) << t;
    }
    EXPECT_EQ(parsed("999999999999999.999"), 999999999999999999);
    EXPECT_EQ(parsed("-0.001"), -1);
    EXPECT_EQ(parsed("000000000000001.5"), 1500);
}

TEST(NumberParser, RealKinetoTimesAreExact)
{
    // At 1.7e18 ns a double holds only multiples of 256 ns; these must not move.
    EXPECT_EQ(parsed("1712195495519689.047"), 1712195495519689047);
    EXPECT_EQ(parsed("1712195495519689.048"), 1712195495519689048);
    EXPECT_EQ(parsed("1623142623460111"), 1623142623460111000);
}

TEST(NumberParser, ExponentsAndLimits)
{
    EXPECT_EQ(parsed("1e3"), 1'000'000);
    EXPECT_EQ(parsed("1.5E-3"), 2); // 1.5 ns: half to even
    EXPECT_EQ(parsed("2.5e-3"), 2); // 2.5 ns: half to even
    EXPECT_EQ(parsed("2.5000001e-3"), 3);
    EXPECT_EQ(parsed("0.0004"), 0);
    EXPECT_EQ(parsed("0.0005"), 0);
    EXPECT_EQ(parsed("0.0015"), 2);
    EXPECT_EQ(parsed("1712195495519689047e-3"), 1712195495519689047);
    EXPECT_EQ(parsed("0e999999999999"), 0);
    EXPECT_EQ(parsed("1e-999999999999"), 0);
    EXPECT_EQ(parsed("+7"), 7000);
    // The int64 edge: 9223372036854775.807 us is the largest time.
    EXPECT_EQ(parsed("9223372036854775.807"), kMax);
    EXPECT_EQ(parsed("-9223372036854775.807"), -kMax);
    EXPECT_EQ(status("9223372036854775.808"), NumberStatus::OutOfRange);
    EXPECT_EQ(status("9223372036854775.8075"), NumberStatus::OutOfRange);
    EXPECT_EQ(status("-9223372036854775.808"), NumberStatus::OutOfRange); // INT64_MIN marks "absent"
    EXPECT_EQ(status("1e300"), NumberStatus::OutOfRange);
    EXPECT_EQ(status("1e16"), NumberStatus::OutOfRange);
    for (const char *bad : {"", "-", ".", "e5", "1e", "1e+", "1.2.3", "12a", "0x10", " 1", "1 ", "--1", "nan"})
        EXPECT_EQ(status(bad), NumberStatus::NotNumber) << bad;
}

TEST(FormatMicros, ExactDecimals)
{
    EXPECT_EQ(formatMicros(1712195495519689047), "1712195495519689.047");
    EXPECT_EQ(formatMicros(0), "0.000");
    EXPECT_EQ(formatMicros(5), "0.005");
    EXPECT_EQ(formatMicros(-1500), "-1.500");
    EXPECT_EQ(formatMicros(kMax), "9223372036854775.807");
    EXPECT_EQ(formatMicros(-kMax), "-9223372036854775.807");
}

TEST(ExactTimes, OverflowingEndsAndOutOfRangeTimesAreCountedWarnings)
{
    const std::string text = R"({"traceEvents": [
        {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 9223372036854775.000, "dur": 1},
        {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1e300, "dur": 1},
        {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 9223372036854775.808, "dur": 1},
        {"ph": "B", "name": "d", "pid": 1, "tid": 1, "ts": -9223372036854775.000},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 9223372036854775.000},
        {"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": 9223372036854774.000, "dur": 1}]})";
    auto m = loadTraceFromMemory(text, "overflow.json");
    EXPECT_EQ(m->counts().durationEvents, 1u);
    EXPECT_EQ(m->counts().skipped, 4u);
    EXPECT_EQ(m->warnings().count, 4u);
    ASSERT_GE(m->warnings().first.size(), 3u);
    EXPECT_NE(m->warnings().first[0].find("ts + dur overflows"), std::string::npos) << m->warnings().first[0];
    EXPECT_NE(m->warnings().first[1].find("\"ts\" out of range"), std::string::npos) << m->warnings().first[1];
    EXPECT_NE(m->warnings().first[2].find("\"ts\" out of range"), std::string::npos);
    EXPECT_EQ(m->maxTime(), 9223372036854775000);
}

// kineto_exact_times.json: 16-digit epoch microseconds with 3 decimals. K1 and
// K2 touch exactly; K3 starts exactly 30.000 us after K2 (not under the 30 us
// kernel-wait threshold: "other"); K4's launch starts exactly when K3 ends (not
// after it: kernel wait); K5 touches K4.
TEST(ExactTimes, KinetoEpochMicroseconds)
{
    auto m = loadTrace(test::dataPath("kineto_exact_times.json"));
    EXPECT_EQ(m->warnings().count, 0u);
    const SyncAnalysis a = analyzeSyncs(*m);
    ASSERT_EQ(a.devices.size(), 1u);
    const DeviceActivity &d = a.devices[0];
    const TimeNs base = 1712195495519689047;
    EXPECT_EQ(d.first, base + 10001);
    EXPECT_EQ(d.busy, 55000);
    EXPECT_EQ(d.span(), 95000);
    ASSERT_EQ(d.idleIntervals.size(), 2u); // no sub-us gaps between touching kernels
    EXPECT_EQ(d.idleIntervals[0].start, base + 40001);
    EXPECT_EQ(d.idleIntervals[0].length(), 30000);
    EXPECT_EQ(d.idleIntervals[1].length(), 10000);
    ASSERT_EQ(a.idleBreakdown.size(), 1u);
    EXPECT_EQ(a.idleBreakdown[0].hostWait, 0);
    EXPECT_EQ(a.idleBreakdown[0].kernelWait, 10000);
    EXPECT_EQ(a.idleBreakdown[0].other, 30000);
    ASSERT_EQ(a.syncGaps.size(), 1u);
    EXPECT_EQ(a.syncGaps[0].interval.length(), 30000);
    EXPECT_EQ(a.syncGaps[0].blocked, 20500);
    // 5 fractional digits: 200.00050 us past the base rounds half-to-even to the ns.
    size_t t = 0, i = 0;
    ASSERT_TRUE(test::findEvent(*m, "aten::rounding", t, i));
    EXPECT_EQ(m->tracks()[t].start[i], base + 200001); // ...889.04750 us: 47.5 ns -> 48 (even)
    EXPECT_EQ(m->tracks()[t].dur[i], 1000);            // 1.0005 us = 1000.5 ns -> 1000 (even)

    const std::string doc = analysisToJson(analyzeJob({m}), 10);
    EXPECT_NE(doc.find("\"start_us\": 1712195495519729.048"), std::string::npos);
    EXPECT_NE(doc.find("\"other_us\": 30.000"), std::string::npos);
}

// sync_replay.json, one host thread, one stream (us):
//   K1 [5,45] launched at 2; S1 cudaStreamSynchronize [10,46] in aten::item, in a
//   torch frame, in train.py(20): step; K2 [70,90] launched at 66; S2
//   cudaStreamSynchronize [95,96]; C cudaMemcpyAsync [100,112] with its pageable
//   DtoH copy M [102,110], in train.py(30): fetch; S3 cudaStreamSynchronize
//   [113,114]; K3 [120,150] launched at 115. Steps [0,100) and [100,200).
// Replays worked out by hand (docs/analysis.md "What a sync costs"):
//   without S1: S=36; K2 -> [45,65]; S2: new_end max(95-36+1, 65+1)=66, S=30;
//     M -> [72,80]; C: old 110, wait 10, ret 2, new_end max(72, 82)=82, S=30;
//     S3: new_end max(84, 81)=84, S=30; K3 -> [90,120]: saves 30.
//   without S2: S=1; M -> [101,109]; C: new_end max(101, 111)=111, S=1; S3 keeps 1;
//     K3 -> [119,149]: saves 1.   Without S3: K3 -> [119,149]: 1.
//   without C: S=12 after C; S3: new_end max(102, 111)=111, S=3; K3 -> [117,147]: 3.
//   without all: K2 [45,65], M [65,73], K3 [73,103]: 47.
//   the sync source (S1, S2, S3): K2 [45,65], M [65,73], C: S=37, S3: S=38, K3 [82,112]: 38.
//   step 1 (S1, S2): ... K3 [83,113]: 37.   step 2 (C, S3): K3 [110,140]: 10.
// backward_handoff.json: the main thread (tid 1) launches k1 [10,60], waits in
// a stream synchronize S [6,62] (56 us), launches k2 [70,80] in ones_like and
// goes silent at 70; the engine thread (tid 2) wakes at 100, launches k3
// [115,165] in MulBackward0 and is done at 150; the main thread resumes at 200,
// launches k4 [205,215] and synchronizes the device. A copy thread (tid 3)
// launches a copy [66,90] while the main thread is busy: independent.
// Without S: the main thread's head start is 56; k2 follows k1 [60,70]; the
// handoff gives the engine thread 56, so k3 starts when k2 ends [70,120]; the
// main thread takes 56 back, k4 at 205 - 56 = 149 [149,159]: 56 us earlier.
// Without the handoff the engine thread would start from 0 (k3 stays
// [115,165], k4 [165,175]): 40 us.
TEST(SyncVerdicts, HandWorkedHandoff)
{
    auto m = loadTrace(test::dataPath("backward_handoff.json"));
    const SyncAnalysis a = analyzeSyncs(*m);
    const TimeNs us = 1000;
    ASSERT_EQ(a.replay.threadMode, ThreadMode::Inferred);
    ASSERT_EQ(a.replay.handoffs.size(), 1u);
    const ReplayHandoff &h = a.replay.handoffs[0];
    EXPECT_EQ(m->str(m->tracks()[h.from].tid.text), "1");
    EXPECT_EQ(m->str(m->tracks()[h.to].tid.text), "2");
    EXPECT_EQ(h.at, 100 * us);
    EXPECT_EQ(h.back, 200 * us);
    ASSERT_EQ(a.syncCalls.size(), 2u);
    EXPECT_EQ(a.replay.calls[0].kind, BlockKind::Stream);
    EXPECT_EQ(a.replay.calls[1].kind, BlockKind::Device);
    EXPECT_EQ(a.syncCalls[0].avoidable, 56 * us);
    EXPECT_EQ(a.devices[0].avoidable, 56 * us);
    // The whole head start carried to the end; removing the last call alone
    // moves nothing, as the work that ends the device came before it.
    EXPECT_EQ(a.devices[0].limit.kind, ReplayLimit::Kind::TraceEnd);
    EXPECT_FALSE(a.devices[0].limit.noLaterWork);
    ASSERT_EQ(a.sources.size(), 2u);
    EXPECT_EQ(a.sources[1].limit.kind, ReplayLimit::Kind::TraceEnd);
    EXPECT_TRUE(a.sources[1].limit.noLaterWork);
    ReplayInput without = a.replay;
    without.handoffs.clear();
    SyncReplay r(without);
    EXPECT_EQ(r.run({0})[0], 40 * us);
}

TEST(SyncVerdicts, HandWorkedReplay)
{
    auto m = loadTrace(test::dataPath("sync_replay.json"));
    const SyncAnalysis a = analyzeSyncs(*m);
    const TimeNs us = 1000;
    ASSERT_EQ(a.devices.size(), 1u);
    EXPECT_EQ(a.devices[0].avoidable, 47 * us);
    EXPECT_EQ(a.devices[0].syncGap, 47 * us);
    ASSERT_EQ(a.syncCalls.size(), 4u);
    const TimeNs perCall[] = {30 * us, 1 * us, 3 * us, 1 * us};
    const TimeNs starts[] = {10 * us, 95 * us, 100 * us, 113 * us};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(a.syncCalls[i].start, starts[i]);
        EXPECT_EQ(a.syncCalls[i].avoidable, perCall[i]) << "call " << i;
    }
    EXPECT_TRUE(a.syncCalls[2].pageableCopy);
    auto name = [&](const EventRef &r) {
        return r.valid() ? std::string(m->str(m->tracks()[r.track].name[r.index])) : "null";
    };
    EXPECT_EQ(name(a.syncCalls[0].pyFrame), "/usr/lib/python3.10/site-packages/torch/_tensor.py(5): item");
    EXPECT_EQ(name(a.syncCalls[0].userFrame), "train.py(20): step");
    EXPECT_EQ(name(a.syncCalls[2].userFrame), "train.py(30): fetch");
    EXPECT_EQ(name(a.syncCalls[3].pyFrame), "train.py(20): step"); // fetch ended before it

    // Gaps: [45,70] by S1; [90,102] by S2 (started after the gap opened, the only
    // one); [110,120] by C, which held the host when the GPU ran dry, not S3 that
    // returned later.
    ASSERT_EQ(a.syncGaps.size(), 3u);
    EXPECT_EQ(a.syncGaps[0].syncCall, 0u);
    EXPECT_EQ(a.syncGaps[1].syncCall, 1u);
    EXPECT_EQ(a.syncGaps[2].syncCall, 2u);
    EXPECT_EQ(a.syncGaps[0].blocked, 36 * us);
    EXPECT_EQ(a.syncGaps[0].avoidable, 30 * us);
    EXPECT_EQ(a.syncGaps[2].blocked, 12 * us);
    EXPECT_EQ(a.syncGaps[2].avoidable, 3 * us);

    ASSERT_EQ(a.sources.size(), 2u);
    EXPECT_EQ(m->str(a.sources[0].sync), "cudaStreamSynchronize");
    EXPECT_EQ(m->str(a.sources[0].op), "aten::item");
    EXPECT_EQ(m->str(a.sources[0].userFrame), "train.py(20): step");
    EXPECT_EQ(a.sources[0].count, 3u);
    EXPECT_EQ(a.sources[0].gaps, 2u);
    EXPECT_EQ(a.sources[0].gapTime, 37 * us);
    EXPECT_EQ(a.sources[0].avoidable, 38 * us);
    EXPECT_EQ(a.sources[1].avoidable, 3 * us);

    ASSERT_EQ(a.steps.size(), 2u);
    ASSERT_EQ(a.stepStats.size(), 2u);
    EXPECT_EQ(a.stepStats[0].gpuBusy, 60 * us);
    EXPECT_EQ(a.stepStats[0].syncGaps, 2u);
    EXPECT_EQ(a.stepStats[0].syncGapTime, 37 * us);
    EXPECT_EQ(a.stepStats[0].avoidable, 37 * us);
    EXPECT_EQ(a.stepStats[1].gpuBusy, 38 * us);
    EXPECT_EQ(a.stepStats[1].syncGaps, 1u);
    EXPECT_EQ(a.stepStats[1].avoidable, 10 * us);
    EXPECT_EQ(a.syncGaps[2].step, 1);
}

TEST(SyncVerdicts, LibraryPrefixesAndStepRegex)
{
    auto m = loadTrace(test::dataPath("sync_replay.json"));
    AnalysisOptions o;
    o.libPrefixes = {"train.py(20)"};
    o.stepRegex = "^aten::to$";
    const SyncAnalysis a = analyzeSyncs(*m, o);
    auto name = [&](const EventRef &r) {
        return r.valid() ? std::string(m->str(m->tracks()[r.track].name[r.index])) : "null";
    };
    EXPECT_EQ(name(a.syncCalls[0].userFrame), "train.py(10): main");
    EXPECT_EQ(a.steps.size(), 3u);
    EXPECT_THROW(analyzeSyncs(*m, AnalysisOptions{10'000, 30'000, {}, "(unclosed"}), Error);
}

TEST(SyncVerdicts, LibraryFrames)
{
    EXPECT_TRUE(isLibraryFrame("torch/nn/modules/module.py(1501): _call_impl"));
    EXPECT_TRUE(isLibraryFrame("/opt/conda/lib/python3.10/site-packages/x.py(1): f"));
    EXPECT_TRUE(isLibraryFrame("/usr/lib/python3/dist-packages/x.py(1): f"));
    EXPECT_TRUE(isLibraryFrame("/usr/lib/python3.11/threading.py(975): run"));
    EXPECT_TRUE(isLibraryFrame("<built-in method item of Tensor object at 0x7f>"));
    EXPECT_TRUE(isLibraryFrame("threading.py(1002): _bootstrap"));
    EXPECT_TRUE(isLibraryFrame("multiprocessing/queues.py(3): get"));
    EXPECT_FALSE(isLibraryFrame("train.py(42): step"));
    EXPECT_FALSE(isLibraryFrame("mytorch/loader.py(4): next"));          // not the directory torch/
    EXPECT_FALSE(isLibraryFrame("/home/me/python3.11x/train.py(4): f")); // not pythonX.Y/
    EXPECT_FALSE(isLibraryFrame("nn/torch.py(1): f"));                   // a file, not a directory
    EXPECT_TRUE(isLibraryFrame("mylib/x.py(1): f", {"mylib/"}));
}

// 1000 steps of 100 us on one thread and stream: a launch [t, t+2], its kernel
// [t+5, t+kernelEnd], then a sync [t+10, t+kernelEnd+1] that waits for it.
SyncReplay steadySteps(TimeNs kernelEnd)
{
    static std::vector<std::unique_ptr<ReplayInput>> inputs; // the replays keep a reference
    inputs.push_back(std::make_unique<ReplayInput>());
    ReplayInput &in = *inputs.back();
    in.deviceIds = {0};
    in.streamIds = {{0, 0}};
    in.threads = 1;
    for (int k = 0; k < 1000; ++k) {
        const TimeNs t = TimeNs(k) * 100'000;
        in.launches.push_back({0, t, t + 2'000, k});
        in.activities.push_back({0, 0, t + 5'000, t + kernelEnd, k});
        in.calls.push_back({0, t + 10'000, t + kernelEnd + 1'000});
    }
    return SyncReplay(in);
}

// A host that waits 50 us per step for a GPU that idles 45 us per step: removing
// one sync lets the host run 45 us ahead for good (the next syncs wait for GPU
// work that now also ends earlier); removing all lets the kernels run back to back.
TEST(SyncReplay, HostBoundStepsKeepTheirHeadStart)
{
    // 1000 steps of 100 us: launch at t, kernel [t+5, t+60], sync [t+10, t+61].
    SyncReplay r = steadySteps(60'000);
    EXPECT_EQ(r.run({3})[0], 45'000);
    // Everything after the next step moves by the same 45 us: no need to walk it.
    EXPECT_LT(r.lastWalked(), 600u);
    EXPECT_EQ(r.lastTailShift(), 45'000);
    std::vector<size_t> all(1000); // every sync of steadySteps
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    // Host steps of 49 us; kernels of 55 us queue back to back from 5 us.
    EXPECT_EQ(r.run(all)[0], (999 * 100'000 + 60'000) - (5'000 + 1000 * 55'000));
}

// A GPU-bound trace: the kernels run back to back and each step's sync waits for
// its kernel. Removing a sync saves nothing, and the replay stops within a few
// items, because the next sync re-synchronizes the host.
TEST(SyncReplay, StopsOnceConverged)
{
    // Kernels [t+5, t+105] back to back, syncs [t+10, t+106].
    SyncReplay r = steadySteps(105'000);
    EXPECT_EQ(r.run({3})[0], 0);
    EXPECT_LT(r.lastWalked(), 10u);
    std::vector<size_t> all(1000); // every sync of steadySteps
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    EXPECT_EQ(r.run(all)[0], 0);
}

// Every distinct kind of warning is listed with its count, not only the first few.
TEST(LoadWarningsKinds, EveryKindWithItsCount)
{
    std::string text = R"({"traceEvents": [)";
    for (int i = 0; i < 30; ++i)
        text += R"({"ph": "X", "name": "neg)" + std::to_string(i) +
                R"(", "pid": 1, "tid": 1, "ts": 5, "dur": -1},)";
    for (int i = 0; i < 7; ++i)
        text += R"({"ph": "X", "name": "big", "pid": 1, "tid": 1, "ts": 1e300, "dur": 1},)";
    text += R"({"ph": "Q", "name": "odd", "pid": 1, "tid": 1, "ts": 5}]})";
    auto m = loadTraceFromMemory(text, "kinds.json");
    const LoadWarnings &w = m->warnings();
    EXPECT_EQ(w.count, 38u);
    ASSERT_EQ(w.kinds.size(), 3u);
    EXPECT_EQ(w.kinds[0].count, 30u);
    EXPECT_NE(w.kinds[0].example.find("negative"), std::string::npos);
    EXPECT_EQ(w.kinds[1].count, 7u);
    EXPECT_NE(w.kinds[1].pattern.find("out of range"), std::string::npos);
    EXPECT_EQ(w.kinds[2].count, 1u);
    const std::string doc = analysisToJson(analyzeJob({m}), 1);
    EXPECT_NE(doc.find("\"count\": 30"), std::string::npos);
}

// Kernels whose pid is a non-numeric string and that carry no args.device are
// placed by the process-name metadata ("GPU 2"), else counted as unplaced.
TEST(SyncVerdicts, KernelsPlacedByProcessName)
{
    const std::string text = R"J({"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": "gpu-a", "args": {"name": "GPU 2 (NVIDIA H200)"}},
        {"ph": "X", "cat": "kernel", "name": "k1", "pid": "gpu-a", "tid": "stream 7", "ts": 10, "dur": 5},
        {"ph": "X", "cat": "kernel", "name": "k2", "pid": "gpu-a", "tid": "stream 7", "ts": 20, "dur": 5},
        {"ph": "X", "cat": "kernel", "name": "k3", "pid": "mystery", "tid": 1, "ts": 30, "dur": 5}]})J";
    auto m = loadTraceFromMemory(text, "placed.json");
    const SyncAnalysis a = analyzeSyncs(*m);
    ASSERT_EQ(a.devices.size(), 1u);
    EXPECT_EQ(a.devices[0].device, 2);
    EXPECT_EQ(a.devices[0].kernels, 2u);
    EXPECT_EQ(a.devices[0].busy, 10'000);
    EXPECT_EQ(a.unplacedActivities, 1u);
    const std::string doc = analysisToJson(analyzeJob({m}), 1);
    EXPECT_NE(doc.find("\"unplaced_gpu_events\": 1"), std::string::npos);
}

// The legacy profiler writes ProfilerStep#N without a category: still a step.
TEST(SyncVerdicts, LegacyStepsWithoutCategory)
{
    const std::string text = R"({"traceEvents": [
        {"ph": "X", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
        {"ph": "X", "cat": "python_function", "name": "ProfilerStep#9", "pid": 1, "tid": 1, "ts": 30, "dur": 1}]})";
    const SyncAnalysis a = analyzeSyncs(*loadTraceFromMemory(text, "legacy.json"));
    ASSERT_EQ(a.steps.size(), 2u);
    EXPECT_EQ(a.steps[1].start, 10'000);
}

// The early stops must not stop while something that still matters has moved.
// Each case is worked out by hand against the rules in syncreplay.h.
namespace {
ReplayInput twoStreams()
{
    ReplayInput in;
    in.deviceIds = {0};
    in.streamIds = {{0, 1}, {0, 2}};
    in.threads = 2;
    return in;
}
} // namespace

// limited_by on hand-made inputs. Thread 0 removes R [0,10] and launches A on
// s1 ([10,11], A [11,100]) and B ([12,13], B [100,150], bound by A).
//  - Alone: A moves to [1,90], B to [90,140]: the whole 10 carried to the end.
//  - With C, launched by thread 1 on s2 ([50,51], C [51,200]): C ends the
//    device and nothing delays thread 1: 0, independent_thread.
//  - With A launched before R ([0,1], A [2,100]) and B after it ([20,21], B
//    [100,150], bound by A): B cannot start before A ends, and A does not
//    move: 0, the queue on s1 was full from 100 on (gpu_busy).
TEST(SyncReplay, LimitedBySaysWhereTheHeadStartStopped)
{
    using Kind = ReplayLimit::Kind;
    ReplayInput in = twoStreams();
    in.activities = {{0, 0, 11, 100, 1}, {0, 0, 100, 150, 2}};
    in.launches = {{0, 10, 11, 1}, {0, 12, 13, 2}};
    in.calls = {{0, 0, 10}};
    {
        SyncReplay r(in);
        EXPECT_EQ(r.run({0})[0], 10);
        EXPECT_EQ(r.limitedBy({0}, 0).kind, Kind::TraceEnd);
    }
    {
        ReplayInput two = in;
        two.activities.push_back({0, 1, 51, 200, 3});
        two.launches.push_back({1, 50, 51, 3});
        SyncReplay r(two);
        EXPECT_EQ(r.run({0})[0], 0);
        const ReplayLimit l = r.limitedBy({0}, 0);
        EXPECT_EQ(l.kind, Kind::IndependentThread);
        EXPECT_EQ(l.thread, 1);
    }
    {
        ReplayInput busy = twoStreams();
        busy.activities = {{0, 0, 2, 100, 1}, {0, 0, 100, 150, 2}};
        busy.launches = {{0, 0, 1, 1}, {0, 20, 21, 2}};
        busy.calls = {{0, 5, 15}};
        SyncReplay r(busy);
        EXPECT_EQ(r.run({0})[0], 0);
        const ReplayLimit l = r.limitedBy({0}, 0);
        EXPECT_EQ(l.kind, Kind::GpuBusy);
        EXPECT_EQ(l.stream, 0);
        EXPECT_EQ(l.at, 100);
    }
    {
        SyncReplay r(in);
        EXPECT_EQ(r.limitedBy({}, 0).kind, Kind::None);
    }
}


// T (thread 0): removed R [0,10] (head start 10), launches X on s1 ([10,11], X
// [11,100]: it moves to [1,90]), kept K1 [20,30] (head start back to 0). U
// (thread 1) launches Z on s1 ([95,101], Z [101,110], unmoved). T's kept K2
// [97,112] synchronizes an event recorded on s1 at 50, after X: what it waits
// for (X) now ends 90, not 100, so it returns at 109 with a head start of 3; W
// on s2 ([113,114], W [114,120]) moves to [111,117]. Stopping at Z, where every
// head start is 0 and s1 ends as measured, would report 0.
TEST(SyncReplay, DoesNotStopWhileWhatAKeptCallWaitsForStillEndsEarly)
{
    ReplayInput in = twoStreams();
    in.activities = {{0, 0, 11, 100, 1}, {0, 0, 101, 110, 2}, {0, 1, 114, 120, 3}};
    in.launches = {{0, 10, 11, 1}, {1, 95, 101, 2}, {0, 113, 114, 3}};
    in.calls = {{0, 0, 10}, {0, 20, 30}, {0, 97, 112, BlockKind::Event, 0, -1, 50}};
    SyncReplay r(in);
    EXPECT_EQ(r.run({0})[0], 3);
}

// U launches B on s2 before the removed call R [2,102] of T; B runs [1,5000]. T
// then launches 300 kernels on s1 that all move 100 earlier, and A on s1, which
// waited for B (a stream dependency) and runs [5000,5010]. A cannot move: B did
// not. A walk that took the 300 kernels' uniform shift for the rest would say 100.
TEST(SyncReplay, UniformShiftStopsNotBeforeAnUnmovedDependency)
{
    ReplayInput in = twoStreams();
    in.waitMode = WaitMode::Exact;
    in.activities.push_back({0, 1, 1, 5000, 1000});
    in.launches.push_back({1, 0, 1, 1000});
    in.calls.push_back({0, 2, 102});
    for (int k = 0; k < 300; ++k) {
        const TimeNs t = 200 + 10 * k;
        in.activities.push_back({0, 0, t + 1, t + 6, k + 1});
        in.launches.push_back({0, t, t + 1, k + 1});
    }
    in.activities.push_back({0, 0, 5000, 5010, 2000});
    in.launches.push_back({0, 3200, 3201, 2000});
    in.deps.push_back({uint32_t(in.activities.size() - 1), 0});
    SyncReplay r(in);
    EXPECT_EQ(r.run({0})[0], 0);
}

// U launches Q on s1 ([0,1], Q [1,50]); T's removed R [2,12] gives it a head
// start of 10; T launches P ([12,13], P [50,60], bound by Q: it does not move but
// carries the head start); T's kept K [55,62] waits for P and resets the head
// start to 0. The orphan O on s1 [70,75] takes P's head start: [60,65], 10
// earlier. Stopping after K would report 0.
TEST(SyncReplay, DoesNotStopBeforeAnOrphanThatTakesAHeadStart)
{
    ReplayInput in = twoStreams();
    in.activities = {{0, 0, 1, 50, 1}, {0, 0, 50, 60, 2}, {0, 0, 70, 75, kNoValue}};
    in.launches = {{1, 0, 1, 1}, {0, 12, 13, 2}};
    in.calls = {{0, 2, 12}, {0, 55, 62}};
    SyncReplay r(in);
    EXPECT_EQ(r.run({0})[0], 10);
}

// The same 1,000 ns later, after 30 launches on s2 that nothing moves: with
// few orphans the walk keeps head starts only for their stream predecessors
// (P here), which must still carry P's head start to O.
TEST(SyncReplay, AnOrphanTakesItsPredecessorsHeadStartWhereFewActivitiesAreOrphans)
{
    ReplayInput in = twoStreams();
    in.activities = {{0, 0, 1001, 1050, 1}, {0, 0, 1050, 1060, 2}, {0, 0, 1070, 1075, kNoValue}};
    in.launches = {{1, 1000, 1001, 1}, {0, 1012, 1013, 2}};
    in.calls = {{0, 1002, 1012}, {0, 1055, 1062}};
    for (int k = 0; k < 30; ++k) {
        const TimeNs t = 30 * k;
        in.activities.push_back({0, 1, t + 1, t + 20, 100 + k});
        in.launches.push_back({1, t, t + 1, 100 + k});
    }
    SyncReplay r(in);
    EXPECT_EQ(r.run({0})[0], 10);
    // Run again: the second walk must not read the first one's head starts.
    EXPECT_EQ(r.run({1})[0], 0);
    EXPECT_EQ(r.run({0})[0], 10);
}

// What a kept call waits for, W(c), from the host order: a stream synchronize
// the last activity launched on its stream before it (by any thread), a device
// synchronize the last on each stream, a call that names neither the stream
// of its thread's last launch (nothing, for a thread that launched nothing).
// Checked against a count from the host order on 12 launching threads.
TEST(SyncReplay, WhatAKeptCallWaitsForComesFromTheHostOrder)
{
    ReplayInput in;
    in.deviceIds = {0};
    in.streamIds = {{0, 1}, {0, 2}};
    in.threads = 13;
    std::mt19937_64 rnd(7);
    for (int k = 0; k < 3000; ++k) {
        const TimeNs t = 10 * k;
        const uint32_t thread = uint32_t(rnd() % 12);
        in.activities.push_back({0, uint32_t(k % 2), t + 5, t + 5 + TimeNs(rnd() % 5000), k});
        in.launches.push_back({thread, t, t + 2, k});
        if (k % 7 == 0) {
            ReplayBlocking c{k % 3 == 0 ? 12u : thread, t + 1, t + 3};
            c.kind = k % 2 ? BlockKind::Stream : BlockKind::Device;
            c.stream = k % 5 == 0 ? -1 : int32_t(k / 7 % 2);
            in.calls.push_back(c);
        }
    }
    const SyncReplay::Index ix(in);
    std::vector<int64_t> lastOnStream(2, -1), lastOfThread(13, -1);
    size_t checked = 0;
    for (size_t i = 0; i < ix.items.size(); ++i) {
        const auto &it = ix.items[i];
        if (it.kind == SyncReplay::Index::LaunchedActivity) {
            lastOnStream[in.activities[it.ref].stream] = it.ref;
            lastOfThread[it.thread] = it.ref;
            continue;
        }
        const ReplayBlocking &c = in.calls[it.ref];
        std::vector<uint32_t> want;
        if (c.kind == BlockKind::Device) {
            for (int64_t a : lastOnStream) // one device: every stream
                if (a >= 0)
                    want.push_back(uint32_t(a));
        } else {
            int64_t q = c.stream;
            if (q < 0 && lastOfThread[c.thread] >= 0)
                q = in.activities[size_t(lastOfThread[c.thread])].stream;
            if (q >= 0 && lastOnStream[size_t(q)] >= 0)
                want.push_back(uint32_t(lastOnStream[size_t(q)]));
        }
        const auto [from, to] = ix.waitRange(it.ref);
        std::vector<uint32_t> got(ix.waitOn.begin() + from, ix.waitOn.begin() + to);
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        EXPECT_EQ(got, want) << "call " << it.ref;
        ++checked;
    }
    EXPECT_EQ(checked, in.calls.size());
}

// An activity's launch ready time, min(s, launch end), is kept as its lag
// behind s in 32 bits, and elsewhere where the lag does not fit (a kernel that
// waited 5 s in its stream's queue). Both read back exactly, and so does an
// orphan's (its own start).
TEST(SyncReplay, LaunchReadyTimesOfAnyLagReadBackExactly)
{
    ReplayInput in = twoStreams();
    const TimeNs s = 5'000'000'000;
    in.activities = {{0, 0, 100, 200, 1},         // lag 10
                     {0, 0, s + 300, s + 400, 2}, // lag 5 s
                     {0, 0, s + 500, s + 600, 3}, // launch ends after s: lag 0
                     {0, 1, s + 700, s + 800, kNoValue}};
    in.launches = {{0, 80, 90, 1}, {0, 95, 299, 2}, {0, s + 400, s + 550, 3}};
    const SyncReplay::Index ix(in);
    EXPECT_EQ(ix.launchReady(0), 90);
    EXPECT_EQ(ix.launchReady(1), 299);
    EXPECT_EQ(ix.launchReady(2), s + 500);
    EXPECT_EQ(ix.launchReady(3), s + 700);
    EXPECT_EQ(ix.launchReadyTimes.farCount(), 1u);
}

// A walk keeps each new end as its lead on the measured end in 32 bits, and
// elsewhere where it does not fit. T's removed call R [0, 5e9 + 10] gives a
// head start of 5e9 + 10 ns; X (launch ends 5e9 + 21, X [5e9 + 21, 5e9 + 100])
// moves to [11, 90], a lead of more than 2^32 ns; Y, launched at 5e9 + 31 and
// run after X ([5e9 + 100, 5e9 + 150]), starts when X's new end says: 90, and
// ends 140, so the device ends 5e9 + 10 earlier.
TEST(SyncReplay, ANewEndMoreThanFourSecondsEarlierIsReadBackExactly)
{
    ReplayInput in = twoStreams();
    const TimeNs s = 5'000'000'000;
    in.activities = {{0, 0, s + 21, s + 100, 1}, {0, 0, s + 100, s + 150, 2}};
    in.launches = {{0, s + 20, s + 21, 1}, {0, s + 30, s + 31, 2}};
    in.calls = {{0, 0, s + 10}};
    SyncReplay r(in);
    EXPECT_EQ(r.run({0})[0], s + 10);
    EXPECT_EQ(r.newEnd(0), 90);
    EXPECT_EQ(r.newEnd(1), 140);
    // Another walk starts with every new end unwalked again.
    EXPECT_EQ(r.run({})[0], 0);
    EXPECT_EQ(r.run({0})[0], s + 10);
}
