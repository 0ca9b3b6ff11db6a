// TraceBuilder alone: ids, tracks, args storage, and what finish() does (sorting,
// nesting, B/E pairing, time range), without any JSON.
#include "trace/tracebuilder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace syncscope;

TEST(TraceBuilder, NumericTextIdsAreNumbers)
{
    TraceBuilder b;
    struct Case {
        const char *text;
        int64_t num;
    };
    const Case cases[] = {{"25738", 25738},
                          {"-5", -5},
                          {"0", 0},
                          {"stream 7", kNoValue},
                          {"", kNoValue},
                          {"-", kNoValue},
                          {"1x", kNoValue},
                          {"1234567890123456789", kNoValue}, // 19 digits and more stay text
                          {"123456789012345678", 123456789012345678}};
    for (const Case &c : cases)
        EXPECT_EQ(b.id(c.text).num, c.num) << c.text;
    const IdValue n = b.id(int64_t(42));
    EXPECT_EQ(n.num, 42);
    EXPECT_EQ(n.text, b.id("42").text);
}

TEST(TraceBuilder, ATrackPerPidAndTid)
{
    TraceBuilder b;
    std::vector<uint32_t> first;
    for (int pid = 0; pid < 30; ++pid)
        for (int tid = 0; tid < 30; ++tid)
            first.push_back(b.track(b.id(int64_t(pid)), b.id(int64_t(tid))));
    EXPECT_EQ(b.trackCount(), 900u);
    size_t k = 0;
    for (int pid = 0; pid < 30; ++pid)
        for (int tid = 0; tid < 30; ++tid)
            EXPECT_EQ(b.track(b.id(int64_t(pid)), b.id(int64_t(tid))), first[k++]);
    // The text names the thread: "7" and 7 are the same thread.
    EXPECT_EQ(b.track(b.id("3"), b.id("4")), b.track(b.id(int64_t(3)), b.id(int64_t(4))));
    EXPECT_EQ(b.trackCount(), 900u);
    auto m = b.finish();
    EXPECT_EQ(m->tracks().size(), 900u);
    EXPECT_EQ(m->processes().size(), 30u);
}

TEST(TraceBuilder, ArgsLoseTheirLayoutButNotTheirStrings)
{
    TraceBuilder b;
    const ArgsRef r = b.storeArgs("{ \"a b\" : \"x  y \\\" z\" ,\n\t\"c\": [1, 2] }");
    EXPECT_TRUE(b.storeArgs("").empty());
    b.addComplete(b.track(b.id("1"), b.id("1")), 0, 1, b.intern("e"), b.intern(""), r);
    auto m = b.finish();
    EXPECT_EQ(m->args(m->tracks()[0].args[0]), "{\"a b\":\"x  y \\\" z\",\"c\":[1,2]}");
    EXPECT_EQ(m->argsBytes(), m->args(m->tracks()[0].args[0]).size());
}

TEST(TraceBuilder, FinishSortsAndNestsEveryTrack)
{
    TraceBuilder b;
    const uint32_t t = b.track(b.id("1"), b.id("1"));
    const StrId cat = b.internCategory("Operator");
    auto add = [&](const char *name, TimeNs start, TimeNs dur) {
        b.addComplete(t, start, dur, b.intern(name), cat);
    };
    add("child", 20, 10);
    add("zero at end", 100, 0);
    add("parent", 0, 100);
    add("tie long", 20, 30); // same start as child, longer: the parent of it
    add("later", 150, 5);
    add("sibling", 40, 10);
    auto m = b.finish();
    const Track tr = m->tracks()[0];
    std::vector<std::string> names;
    for (size_t i = 0; i < tr.size(); ++i)
        names.push_back(std::string(m->str(tr.name[i])));
    EXPECT_EQ(names, (std::vector<std::string>{"parent", "tie long", "child", "sibling", "zero at end", "later"}));
    EXPECT_EQ(tr.depth[0], 0);
    EXPECT_EQ(tr.parent[0], -1);
    EXPECT_EQ(tr.parent[1], 0);
    EXPECT_EQ(tr.parent[2], 1);
    EXPECT_EQ(tr.depth[2], 2);
    EXPECT_EQ(tr.parent[3], 1);
    EXPECT_EQ(tr.parent[4], 0); // a zero-length event at its parent's end still belongs to it
    EXPECT_EQ(tr.parent[5], -1);
    EXPECT_EQ(tr.maxDepth, 2);
    EXPECT_EQ(tr.maxDur, 100);
    EXPECT_EQ(m->str(tr.cat[0]), "cpu_op");
    EXPECT_EQ(m->minTime(), 0);
    EXPECT_EQ(m->maxTime(), 155);
    const auto range = tr.candidates(45, 46);
    EXPECT_LE(range.first, 3u);
    EXPECT_GE(range.second, 4u);
}

TEST(TraceBuilder, FinishSortsATrackWhateverOrderItsEventsCameIn)
{
    // Parents before children (start, then longer first, then file order)
    // for events in order, nearly in order (parents written after their
    // children, as a profiler does), reversed and shuffled; with ties of start
    // and of start and length. One track of 70,000 events is also sorted in
    // two halves on two cores.
    std::mt19937_64 rng(7);
    struct Ev {
        TimeNs start, dur;
        size_t file;
    };
    for (const char *shape : {"in order", "parents late", "reversed", "shuffled", "few late"}) {
        for (size_t n : {size_t(2), size_t(9), size_t(1000), size_t(70000)}) {
            std::vector<Ev> evs;
            TimeNs t = 0;
            while (evs.size() < n) {
                // A parent of up to 6 children, one of which may tie its start.
                const size_t kids = std::min<size_t>(rng() % 7, n - evs.size() - 1);
                const TimeNs p0 = t;
                std::vector<Ev> group;
                for (size_t k = 0; k < kids; ++k) {
                    const TimeNs s = (k == 0 && rng() % 2) ? p0 : t + TimeNs(rng() % 3);
                    const TimeNs d = TimeNs(rng() % 4);
                    group.push_back({s, d, 0});
                    t = s + d + 1;
                }
                const Ev parent{p0, t - p0 + TimeNs(rng() % 2), 0};
                if (std::string(shape) == "parents late" || (std::string(shape) == "few late" && rng() % 50 == 0))
                    group.push_back(parent);
                else
                    group.insert(group.begin(), parent);
                for (const Ev &e : group)
                    evs.push_back(e);
                t += 1 + TimeNs(rng() % 3);
            }
            if (std::string(shape) == "reversed")
                std::reverse(evs.begin(), evs.end());
            if (std::string(shape) == "shuffled")
                std::shuffle(evs.begin(), evs.end(), rng);
            for (size_t i = 0; i < evs.size(); ++i)
                evs[i].file = i;
            TraceBuilder b;
            const uint32_t tr = b.track(b.id("1"), b.id("1"));
            const uint32_t other = b.track(b.id("1"), b.id("2")); // a second, small track
            const StrId cat = b.internCategory("Operator");
            std::vector<StrId> names;
            for (const Ev &e : evs) {
                names.push_back(b.intern("e" + std::to_string(e.file)));
                b.addComplete(tr, e.start, e.dur, names.back(), cat);
                if (e.file % 97 == 0)
                    b.addComplete(other, e.start, 1, names.back(), cat);
            }
            std::vector<Ev> want = evs;
            std::stable_sort(want.begin(), want.end(), [](const Ev &x, const Ev &y) {
                return x.start != y.start ? x.start < y.start : x.dur > y.dur;
            });
            auto m = b.finish();
            const Track got = m->tracks()[0];
            ASSERT_EQ(got.size(), want.size());
            size_t wrong = 0;
            for (size_t i = 0; i < want.size(); ++i)
                wrong += got.name[i] != names[want[i].file];
            EXPECT_EQ(wrong, 0u) << shape << ", " << n << " events";
        }
    }
}

TEST(TraceBuilder, EveryCategoryKeepsItsNormalizedNameHoweverManyThereAre)
{
    // More categories than the builder remembers, each met again and again,
    // the legacy spellings among them; and after finish() a fresh model.
    TraceBuilder b;
    for (int round = 0; round < 2; ++round) {
        if (round == 1)
            b.intern("a name first: the ids of the second model differ from the first's");
        const uint32_t t = b.track(b.id("1"), b.id("1"));
        std::vector<std::string> cats = {"Operator", "Kernel", "cpu_op", "Runtime"};
        for (int i = 0; i < 30; ++i)
            cats.push_back("cat" + std::to_string(i));
        for (int pass = 0; pass < 3; ++pass)
            for (size_t i = 0; i < cats.size(); ++i)
                b.addComplete(t, TimeNs(pass * 1000 + i * 10), 1, b.intern("e"), b.internCategory(cats[i]));
        auto m = b.finish();
        const Track tr = m->tracks()[0];
        ASSERT_EQ(tr.size(), 3 * cats.size());
        for (size_t row = 0; row < tr.size(); ++row) {
            const std::string &want = cats[row % cats.size()];
            const std::string got(m->str(tr.cat[row]));
            EXPECT_EQ(got, want == "Operator"  ? "cpu_op"
                           : want == "Kernel"  ? "kernel"
                           : want == "Runtime" ? "cuda_runtime"
                                               : want)
                << round << " " << row;
        }
    }
}

TEST(TraceBuilder, BeginAndEndPairInTimeOrderPerTrack)
{
    TraceBuilder b;
    const uint32_t t = b.track(b.id("1"), b.id("1"));
    const uint32_t u = b.track(b.id("1"), b.id("2"));
    EventKeys keys;
    keys.correlation = 5;
    // Written out of order: pairing follows the times, file order breaking ties.
    b.addEnd(t, 30);
    b.addBegin(t, 10, b.intern("outer"), b.intern(""), {}, keys);
    b.addBegin(t, 15, b.intern("inner"), b.intern(""));
    b.addEnd(t, 20);
    b.addBegin(u, 1, b.intern("open"), b.intern(""));
    b.addEnd(u, 0);
    b.addBegin(t, INT64_MIN + 1, b.intern("too long"), b.intern(""));
    b.addEnd(t, INT64_MAX);
    auto m = b.finish();
    const Track tr = m->tracks()[0];
    ASSERT_EQ(tr.size(), 2u);
    EXPECT_EQ(m->str(tr.name[0]), "outer");
    EXPECT_EQ(tr.dur[0], 20);
    EXPECT_EQ(tr.correlation[0], 5);
    EXPECT_EQ(m->str(tr.name[1]), "inner");
    EXPECT_EQ(tr.dur[1], 5);
    EXPECT_EQ(m->tracks()[1].size(), 0u);
    EXPECT_EQ(m->counts().durationEvents, 2u);
    EXPECT_EQ(m->counts().skipped, 3u);
    ASSERT_EQ(m->warnings().count, 3u);
    EXPECT_EQ(m->warnings().first[0], "a B/E pair 'too long' on pid 1 tid 1 lasts longer than the largest "
                                      "time (end - start overflows); it was skipped");
    EXPECT_EQ(m->warnings().first[1], "an E event at ts 0 us on pid 1 tid 2 has no matching B; it was skipped");
    EXPECT_EQ(m->warnings().first[2], "a B event 'open' at ts 0 us on pid 1 tid 2 never ends; it was skipped");
}

TEST(TraceBuilder, InstantsCountersAndFlowsAreSortedByTime)
{
    TraceBuilder b;
    const uint32_t t = b.track(b.id("1"), b.id("1"));
    b.addInstant(t, 9, b.intern("late"), b.intern(""));
    b.addInstant(t, 2, b.intern("early"), b.intern(""), 'p');
    const IdValue pid = b.id("1");
    b.addCounterValue(pid, b.intern("mem"), b.intern("used"), 8, 1.0);
    b.addCounterValue(pid, b.intern("mem"), b.intern("used"), 3, 2.0);
    b.addCounterValue(pid, b.intern("mem"), b.intern("used"), 3, 3.0); // equal times keep their order
    b.countCounterEvent();
    FlowEvent f;
    f.track = t;
    f.ts = 7;
    f.id = 1;
    b.addFlow(f);
    f.ts = 4;
    f.id = 2;
    b.addFlow(f);
    auto m = b.finish();
    const Track tr = m->tracks()[0];
    ASSERT_EQ(tr.instants.size(), 2u);
    EXPECT_EQ(m->str(tr.instants.name[0]), "early");
    EXPECT_EQ(tr.instants.scope[0], 'p');
    ASSERT_EQ(m->counters().size(), 1u);
    EXPECT_EQ(m->counters()[0].ts, (std::vector<TimeNs>{3, 3, 8}));
    EXPECT_EQ(m->counters()[0].value, (std::vector<double>{2.0, 3.0, 1.0}));
    ASSERT_EQ(m->flows().size(), 2u);
    EXPECT_EQ(m->flows()[0].id, 2);
    EXPECT_EQ(m->counts().instants, 2u);
    EXPECT_EQ(m->counts().counters, 1u);
    EXPECT_EQ(m->counts().flows, 2u);
    EXPECT_EQ(m->minTime(), 2);
    EXPECT_EQ(m->maxTime(), 9);
}

TEST(TraceBuilder, AnEmptyBuilderGivesAnEmptyModelAndIsEmptyAfterFinish)
{
    TraceBuilder b;
    b.addComplete(b.track(b.id("1"), b.id("1")), 5, 1, b.intern("x"), b.intern(""));
    auto first = b.finish();
    EXPECT_EQ(first->counts().durationEvents, 1u);
    EXPECT_EQ(b.eventCount(), 0u);
    EXPECT_EQ(b.trackCount(), 0u);
    auto empty = b.finish();
    EXPECT_EQ(empty->tracks().size(), 0u);
    EXPECT_EQ(empty->minTime(), 0);
    EXPECT_EQ(empty->maxTime(), 0);
}

TEST(TraceModel, ShiftTimesMovesEveryTimeAndRecordsTheShift)
{
    TraceBuilder b;
    const uint32_t t = b.track(b.id("1"), b.id("1"));
    b.addComplete(t, 10, 5, b.intern("op"), b.intern("cpu_op"));
    b.addComplete(t, 11, 2, b.intern("inner"), b.intern("cpu_op"));
    b.addInstant(t, 20, b.intern("mark"), b.intern(""));
    b.addCounterValue(b.id("1"), b.intern("mem"), b.intern("used"), 30, 1.0);
    FlowEvent f;
    f.track = t;
    f.ts = 12;
    f.id = 1;
    b.addFlow(f);
    auto m = b.finish();
    ASSERT_TRUE(shiftSoleModel(m, -1'000'000'000));
    ASSERT_TRUE(shiftSoleModel(m, 250));
    {
        const TraceModelPtr reader = m; // someone else reads it: it stays
        EXPECT_FALSE(shiftSoleModel(m, 7));
    }
    const TimeNs d = -1'000'000'000 + 250;
    EXPECT_EQ(m->info().clockShift, d);
    const Track tr = m->tracks()[0];
    EXPECT_EQ(tr.start[0], 10 + d);
    EXPECT_EQ(tr.start[1], 11 + d);
    EXPECT_EQ(tr.dur[0], 5); // durations stay
    EXPECT_EQ(tr.parent[1], 0);
    EXPECT_EQ(tr.instants.ts[0], 20 + d);
    EXPECT_EQ(m->counters()[0].ts[0], 30 + d);
    EXPECT_EQ(m->flows()[0].ts, 12 + d);
    EXPECT_EQ(m->minTime(), 10 + d);
    EXPECT_EQ(m->maxTime(), 30 + d);
    // the track index still finds the events at their new times
    const auto c = tr.candidates(11 + d, 12 + d);
    EXPECT_LE(c.first, 1u);
    EXPECT_GE(c.second, 2u);
}

// A sparse column finds a row's value by counting the present rows before it
// (popcount64, inline bit arithmetic where the CPU may lack the instruction):
// on rows of every density, each row gives its own value or none, as a map
// of the same rows does.
TEST(SparseColumn, EveryRowGivesItsOwnValueOrNone)
{
    uint64_t x = 1;
    for (int i = 0; i < 1000; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned naive = 0;
        for (uint64_t b = x; b; b >>= 1)
            naive += b & 1;
        ASSERT_EQ(popcount64(x), naive) << x;
    }
    EXPECT_EQ(popcount64(0), 0u);
    EXPECT_EQ(popcount64(~uint64_t(0)), 64u);
    for (const unsigned every : {1u, 2u, 3u, 63u, 64u, 65u, 1000u}) {
        SparseColumn<int64_t> column;
        std::map<uint64_t, int64_t> rows;
        uint64_t r = 7;
        for (uint64_t row = 0; row < 20000; ++row) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            if ((r >> 33) % every == 0) {
                column.push(row, static_cast<int64_t>(row) * 3 - 1);
                rows[row] = static_cast<int64_t>(row) * 3 - 1;
            }
        }
        column.seal();
        EXPECT_EQ(column.present(), rows.size());
        for (uint64_t row = 0; row < 20100; ++row) {
            const auto it = rows.find(row);
            ASSERT_EQ(column.get(row, kNoValue), it == rows.end() ? kNoValue : it->second) << every << " " << row;
        }
    }
}
