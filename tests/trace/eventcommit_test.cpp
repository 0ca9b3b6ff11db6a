// What each phase means for the model (trace/eventcommit.h), on RawEvents made by
// hand: no JSON framing, only the commit, the builder and the finished model.
#include "common/error.h"
#include "testutil.h"
#include "trace/eventcommit.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace syncscope;

namespace {

RawEvent event(char ph, std::string_view name, TimeNs ts, std::string_view pid = "1", std::string_view tid = "1")
{
    RawEvent e;
    e.ph = ph;
    e.hasPh = true;
    e.ts = ts;
    e.hasTs = true;
    e.name = name;
    e.pid = pid;
    e.hasPid = true;
    e.tid = tid;
    e.hasTid = true;
    return e;
}

RawEvent complete(std::string_view name, TimeNs ts, TimeNs dur, std::string_view pid = "1",
                  std::string_view tid = "1")
{
    RawEvent e = event('X', name, ts, pid, tid);
    e.dur = dur;
    e.hasDur = true;
    return e;
}

struct Commit {
    TraceBuilder builder;
    EventCommitter committer{builder};
    uint64_t offset = 0;
    void operator()(const RawEvent &e) { committer.commit(e, offset++); }
    TraceModelPtr finish() { return builder.finish(); }
};

std::string firstWarning(const TraceModel &m) { return m.warnings().first.empty() ? "" : m.warnings().first[0]; }

} // namespace

TEST(TraceEventCommit, CompleteEventsKeepTheirKeysArgsAndNormalizedCategory)
{
    Commit c;
    RawEvent e = complete("mm", 100, 50);
    e.cat = "Kernel";
    e.args = "{ \"stream\" : 7 }";
    e.keys.stream = 7;
    e.keys.correlation = 9;
    e.syncKind = "event";
    c(e);
    auto m = c.finish();
    ASSERT_EQ(m->tracks().size(), 1u);
    const Track t = m->tracks()[0];
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t.start[0], 100);
    EXPECT_EQ(t.dur[0], 50);
    EXPECT_EQ(m->str(t.name[0]), "mm");
    EXPECT_EQ(m->str(t.cat[0]), "kernel");
    EXPECT_EQ(m->args(t.args[0]), "{\"stream\":7}");
    EXPECT_EQ(t.stream[0], 7);
    EXPECT_EQ(t.correlation[0], 9);
    EXPECT_EQ(t.externalId[0], kNoValue);
    EXPECT_EQ(m->str(t.syncKind[0]), "event");
    EXPECT_EQ(m->counts().durationEvents, 1u);
    EXPECT_EQ(m->warnings().count, 0u);
}

TEST(TraceEventCommit, CompleteEventsWithoutAGoodDuration)
{
    Commit c;
    RawEvent noDur = event('X', "nodur", 5);
    c.offset = 10;
    c(noDur);
    c(complete("neg", 5, -1));
    c(complete("over", INT64_MAX - 5, 6));
    c(complete("edge", INT64_MAX - 6, 6));
    auto m = c.finish();
    EXPECT_EQ(m->counts().durationEvents, 2u);
    EXPECT_EQ(m->counts().skipped, 2u);
    ASSERT_EQ(m->warnings().first.size(), 3u);
    EXPECT_EQ(m->warnings().first[0], "the event at byte 10 ('nodur') is a complete event without \"dur\"; "
                                      "it was kept with dur 0");
    EXPECT_EQ(m->warnings().first[1], "the event at byte 11 ('neg') has a negative \"dur\"; it was skipped");
    EXPECT_EQ(m->warnings().first[2], "the event at byte 12 ('over') ends past the largest time (ts + dur "
                                      "overflows); it was skipped");
    size_t t, i;
    ASSERT_TRUE(test::findEvent(*m, "nodur", t, i));
    EXPECT_EQ(m->tracks()[t].dur[i], 0);
}

TEST(TraceEventCommit, EventsThatCannotBeReadAreSkippedWithAWarning)
{
    Commit c;
    const std::string buf = "xx";
    RawEvent wrong = complete("w", 1, 1);
    wrong.wrongType = buf.data();
    c(wrong);
    RawEvent range = complete("r", 1, 1);
    range.outOfRange = "dur";
    c(range);
    RawEvent noPh = complete("p", 1, 1);
    noPh.hasPh = false;
    c(noPh);
    RawEvent noTs = complete("", 1, 1);
    noTs.hasTs = false;
    c(noTs);
    const std::string hundred(100, 'n');
    c(complete(hundred, 1, -1));
    auto m = c.finish();
    EXPECT_EQ(m->counts().skipped, 5u);
    EXPECT_EQ(m->counts().durationEvents, 0u);
    const auto &w = m->warnings().first;
    ASSERT_EQ(w.size(), 5u);
    EXPECT_EQ(w[0], "the event at byte 0 ('w') has a field of the wrong type; it was skipped");
    EXPECT_EQ(w[1], "the event at byte 1 ('r') has a \"dur\" out of range (beyond +-9.2e18 ns); it was skipped");
    EXPECT_EQ(w[2], "the event at byte 2 ('p') has no \"ph\"; it was skipped");
    EXPECT_EQ(w[3], "the event at byte 3 has no \"ts\"; it was skipped"); // no name, none quoted
    EXPECT_EQ(w[4], "the event at byte 4 ('" + std::string(60, 'n') + "') has a negative \"dur\"; it was skipped");
}

TEST(TraceEventCommit, LegacyOpsWithoutACategoryAreCpuOps)
{
    Commit c;
    c(complete("aten::add", 1, 1, "CPU Functions"));
    RawEvent elsewhere = complete("plain", 2, 1, "2");
    c(elsewhere);
    RawEvent begin = event('B', "legacy begin", 3, "CPU Functions"); // only X events are mapped
    c(begin);
    c(event('E', "", 4, "CPU Functions"));
    auto m = c.finish();
    size_t t, i;
    ASSERT_TRUE(test::findEvent(*m, "aten::add", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "cpu_op");
    ASSERT_TRUE(test::findEvent(*m, "plain", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "");
    ASSERT_TRUE(test::findEvent(*m, "legacy begin", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "");
}

TEST(TraceEventCommit, BeginAndEndPairWhenTheModelIsFinished)
{
    Commit c;
    RawEvent b = event('B', "outer", 10);
    b.cat = "user_annotation";
    b.keys.externalId = 3;
    b.args = "{\"a\": 1}";
    c(b);
    c(event('B', "inner", 12));
    c(event('E', "", 15));
    c(event('E', "", 20));
    c(event('E', "", 25)); // no B left
    auto m = c.finish();
    ASSERT_EQ(m->tracks().size(), 1u);
    const Track t = m->tracks()[0];
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(m->str(t.name[0]), "outer");
    EXPECT_EQ(t.dur[0], 10);
    EXPECT_EQ(t.externalId[0], 3);
    EXPECT_EQ(m->args(t.args[0]), "{\"a\":1}");
    EXPECT_EQ(m->str(t.cat[0]), "user_annotation");
    EXPECT_EQ(m->str(t.name[1]), "inner");
    EXPECT_EQ(t.dur[1], 3);
    EXPECT_EQ(t.depth[1], 1);
    EXPECT_EQ(m->counts().skipped, 1u);
    EXPECT_EQ(firstWarning(*m), "an E event at ts 0 us on pid 1 tid 1 has no matching B; it was skipped");
}

TEST(TraceEventCommit, InstantsKeepTheirScope)
{
    Commit c;
    RawEvent g = event('i', "global", 5);
    g.scope = "g";
    c(g);
    c(event('I', "thread", 3));
    auto m = c.finish();
    EXPECT_EQ(m->counts().instants, 2u);
    const Track t = m->tracks()[0];
    ASSERT_EQ(t.instants.size(), 2u);
    EXPECT_EQ(m->str(t.instants.name[0]), "thread");
    EXPECT_EQ(t.instants.scope[0], 't'); // the default
    EXPECT_EQ(t.instants.scope[1], 'g');
    EXPECT_EQ(t.instants.ts[1], 5);
}

TEST(TraceEventCommit, CountersAddOneSeriesPerNumericKey)
{
    Commit c;
    const std::string args = "{\"used\": 1.5, \"free\": \"2\", \"label\": \"x\", \"list\": [1], \"neg\": -3}";
    RawEvent e = event('C', "memory", 7, "4");
    e.args = args;
    c(e);
    const std::string later = "{\"used\": 2}";
    RawEvent f = event('C', "memory", 9, "4");
    f.args = later;
    c(f);
    RawEvent none = event('C', "memory", 11, "4"); // no args: counted, adds nothing
    c(none);
    auto m = c.finish();
    EXPECT_EQ(m->counts().counters, 3u);
    ASSERT_EQ(m->counters().size(), 3u);
    const CounterSeries &used = m->counters()[0];
    EXPECT_EQ(m->str(used.pid.text), "4");
    EXPECT_EQ(used.pid.num, 4);
    EXPECT_EQ(m->str(used.name), "memory");
    EXPECT_EQ(m->str(used.key), "used");
    EXPECT_EQ(used.ts, (std::vector<TimeNs>{7, 9}));
    EXPECT_EQ(used.value, (std::vector<double>{1.5, 2}));
    EXPECT_EQ(m->str(m->counters()[1].key), "free");
    EXPECT_EQ(m->counters()[1].value, std::vector<double>{2});
    EXPECT_EQ(m->str(m->counters()[2].key), "neg");
    EXPECT_EQ(m->counters()[2].value, std::vector<double>{-3});
    EXPECT_EQ(m->warnings().count, 2u);
    EXPECT_EQ(firstWarning(*m),
              "the event at byte 0 ('memory') has a counter value that is not a number; it was skipped");
    ASSERT_NE(m->process(4), nullptr); // the pid of a counter is a process
    EXPECT_EQ(m->tracks().size(), 0u);
}

TEST(TraceEventCommit, MetadataNamesAndOrdersProcessesAndThreads)
{
    Commit c;
    const std::string pname = "{\"name\": \"trainer\"}", labels = "{\"labels\": \"GPU 0\"}",
                      tname = "{\"name\": \"worker\", \"other\": [1]}", psort = "{\"sort_index\": -2}",
                      tsort = "{\"sort_index\": 5}", renamed = "{\"name\": \"main\"}";
    const std::pair<const char *, const std::string *> rows[] = {
        {"process_name", &pname},       {"process_labels", &labels},   {"thread_name", &tname},
        {"process_sort_index", &psort}, {"thread_sort_index", &tsort}, {"thread_name", &renamed},
        {"unknown_meta", &pname}};
    for (const auto &[what, args] : rows) {
        RawEvent e = event('M', what, 0, "3", "8");
        e.hasTs = false; // metadata needs no ts
        e.args = *args;
        c(e);
    }
    auto m = c.finish();
    EXPECT_EQ(m->counts().metadata, 7u);
    EXPECT_EQ(m->counts().skipped, 0u);
    const Process *p = m->process(3);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(m->str(p->name), "trainer");
    EXPECT_EQ(m->str(p->labels), "GPU 0");
    EXPECT_EQ(p->sortIndex, -2);
    ASSERT_EQ(m->tracks().size(), 1u);
    EXPECT_EQ(m->str(m->tracks()[0].threadName), "main"); // the last one set
    EXPECT_EQ(m->tracks()[0].threadSortIndex, 5);
}

TEST(TraceEventCommit, FlowsTakeNumericOrTextIds)
{
    Commit c;
    RawEvent s = event('s', "flow", 1);
    s.cat = "ac2g";
    s.id = "42";
    s.hasId = true;
    s.idIsNumber = true;
    c(s);
    RawEvent t = event('t', "flow", 2);
    t.id = "0x2a";
    t.hasId = true;
    c(t);
    RawEvent f = event('f', "flow", 3, "1", "2");
    f.id = "42";
    f.hasId = true;
    f.idIsNumber = true;
    f.bp = "e";
    c(f);
    c(event('s', "no id", 4));
    auto m = c.finish();
    EXPECT_EQ(m->counts().flows, 3u);
    ASSERT_EQ(m->flows().size(), 3u);
    EXPECT_EQ(m->flows()[0].phase, FlowPhase::Start);
    EXPECT_EQ(m->flows()[0].id, 42);
    EXPECT_EQ(m->str(m->flows()[0].cat), "ac2g");
    EXPECT_FALSE(m->flows()[0].bindEnclosing);
    EXPECT_EQ(m->flows()[1].phase, FlowPhase::Step);
    EXPECT_EQ(m->flows()[1].id, kNoValue);
    EXPECT_EQ(m->str(m->flows()[1].idText), "0x2a");
    EXPECT_EQ(m->flows()[2].phase, FlowPhase::End);
    EXPECT_TRUE(m->flows()[2].bindEnclosing);
    EXPECT_NE(m->flows()[2].track, m->flows()[0].track);
    EXPECT_EQ(m->counts().skipped, 1u);
    EXPECT_EQ(firstWarning(*m), "the event at byte 3 ('no id') is a flow event without \"id\"; it was skipped");
}

TEST(TraceEventCommit, UnknownPhasesAreCountedAndWarnedOncePerLetter)
{
    Commit c;
    c(event('q', "a", 1));
    c(event('q', "b", 2));
    c(event('P', "c", 3));
    auto m = c.finish();
    EXPECT_EQ(m->counts().unknownPhase, 3u);
    EXPECT_EQ(m->counts().skipped, 0u);
    ASSERT_EQ(m->warnings().count, 2u);
    EXPECT_EQ(firstWarning(*m), "the event at byte 0 ('a') has phase 'q', which is not supported; such "
                                "events are counted and skipped");
}

TEST(TraceEventCommit, EventsOnTheSameThreadShareATrack)
{
    Commit c;
    c(complete("a", 1, 1, "1", "1"));
    c(complete("b", 2, 1, "1", "2"));
    c(complete("c", 3, 1, "1", "1"));
    c(complete("d", 4, 1, "2", "1"));
    c(complete("e", 5, 1, "1", "1"));
    auto m = c.finish();
    ASSERT_EQ(m->tracks().size(), 3u);
    EXPECT_EQ(m->tracks()[0].size(), 3u);
    EXPECT_EQ(m->tracks()[1].size(), 1u);
    EXPECT_EQ(m->str(m->tracks()[2].pid.text), "2");
    EXPECT_EQ(m->processes().size(), 2u);
}

// Counter and metadata args are read again from the event's text, which must be
// whole: args cut short are an internal error, never a retry that adds twice.
TEST(TraceEventCommit, ArgsCutShortAreAnInternalErrorNotARetry)
{
    Commit c;
    const std::string cutCounter = "{\"used\": 1";
    RawEvent e = event('C', "memory", 7);
    e.args = cutCounter;
    try {
        c(e);
        FAIL() << "no error";
    } catch (const Error &err) {
        EXPECT_STREQ(err.what(), "internal error: reading the args of a counter event ran past their end; "
                                 "please report this trace.");
    }
    const std::string cutMeta = "{\"name\": \"ab";
    RawEvent m = event('M', "process_name", 0);
    m.args = cutMeta;
    try {
        c(m);
        FAIL() << "no error";
    } catch (const Error &err) {
        EXPECT_STREQ(err.what(), "internal error: reading the args of a metadata event ran past their "
                                 "end; please report this trace.");
    }
}
