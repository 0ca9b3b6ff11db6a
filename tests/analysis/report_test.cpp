// The report's escaping and its content on a hand-made trace (the DOM and
// script checks in Chromium are in cli_report_test.py).
#include "analysis/jobanalysis.h"
#include "analysis/report.h"
#include "analysis/whatif.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>

using namespace syncscope;

TEST(Report, HtmlEscapesEveryMarkupCharacter)
{
    EXPECT_EQ(htmlEscape("<a href=\"x\" onclick='y'>&</a>"),
              "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    EXPECT_EQ(htmlEscape("plain text"), "plain text");
}

TEST(Report, MarkdownEscapesWhatMarkdownOrHtmlWouldRead)
{
    EXPECT_EQ(markdownEscape("a|b`c`*d*_e_[f](g)#!~\\"), "a\\|b\\`c\\`\\*d\\*\\_e\\_\\[f\\](g)\\#\\!\\~\\\\");
    EXPECT_EQ(markdownEscape("<script>&\nx"), "&lt;script&gt;&amp; x");
}

TEST(Report, SectionsAndAdviceOnAHandMadeTrace)
{
    JobAnalysis job = analyzeJob({loadTrace(test::dataPath("advice_chains.json"))});
    ReportInput in;
    in.job = &job;
    in.generator = "test";
    const std::string page = reportHtml(in), md = reportMarkdown(in);
    for (const char *id : {"headline", "steps", "sources", "gaps"})
        EXPECT_NE(page.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
    EXPECT_EQ(page.find("<section id=\"compare\">"), std::string::npos);
    EXPECT_EQ(page.find("<script"), std::string::npos);
    EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
    // Each rule of the listed sources, once, with its code. The linalg call
    // shares its source (sync, innermost op, frame) with the item call before
    // it: one call each, so the tie goes to the earlier rule.
    EXPECT_NE(page.find("id=\"advice-host-scalar-shape\""), std::string::npos);
    EXPECT_NE(page.find("(1 of 2 calls)"), std::string::npos);
    EXPECT_NE(page.find("id=\"advice-to-device-pageable\""), std::string::npos);
    EXPECT_NE(page.find("id=\"advice-explicit-sync\""), std::string::npos);
    EXPECT_EQ(page.find("id=\"advice-linalg-check-errors\""), std::string::npos);
    EXPECT_NE(md.find("### A size read from a tensor"), std::string::npos);
    EXPECT_NE(md.find("```python\nn = int(lengths.max())"), std::string::npos);
    EXPECT_NE(page.find("torch.zeros(batch, max_len, dim, device=&#39;cuda&#39;)"), std::string::npos);
    EXPECT_NE(page.find("<svg"), std::string::npos);
    // Where the device's head start stopped, under the headline and in the devices table.
    EXPECT_NE(
        page.find(
            "<b>Limited by:</b> the head start carried to the end of the trace: nothing re-synchronized it."),
        std::string::npos);
    EXPECT_NE(page.find("<th>Limited by</th>"), std::string::npos);
    EXPECT_NE(md.find("**Limited by:** the head start carried to the end of the trace"), std::string::npos);
}

TEST(Report, ATruncatedFileSaysWhereItEndsAndWhatItCovers)
{
    const auto model = loadTrace(test::dataPath("truncated.json"));
    const FileReport r = makeFileReport(*model, analyzeSyncs(*model));
    EXPECT_TRUE(r.truncated);
    EXPECT_EQ(r.truncatedAtByte, 227u); // the file's size: the data ends there
    EXPECT_EQ(truncationSentence(r),
              "the file ends early at byte 227: the analysis covers its first 0.003 ms (2 events)");
    // A gzip cut short: the byte is of the decompressed JSON.
    const std::string whole =
        R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 5},
        {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 10, "dur": 5}]})";
    const std::string gz = test::gzipBytes(whole);
    const auto cut = loadTraceFromMemory(gz.substr(0, gz.size() - 12), "cut.json.gz");
    EXPECT_TRUE(cut->info().truncated);
    const FileReport c = makeFileReport(*cut, analyzeSyncs(*cut));
    EXPECT_NE(truncationSentence(c).find(" of its decompressed JSON: the analysis covers its first"),
              std::string::npos)
        << truncationSentence(c);
    // A whole file is not truncated.
    const auto full = loadTrace(test::dataPath("gpu_sync_gaps.json"));
    EXPECT_FALSE(makeFileReport(*full, analyzeSyncs(*full)).truncated);
}

TEST(Report, AFileCutInsideItsKindsOfEventsIsIncomplete)
{
    // Host ops run to 0.990 ms, runtime calls stop at 0.086 ms and kernels at
    // 0.058 ms: the file lists them kind by kind and ends inside the kernels.
    const auto model = loadTrace(test::dataPath("truncated_by_kind.json"));
    const std::string want =
        "events stop early by kind (runtime calls at 0.086 ms, GPU activity at 0.058 ms, of the "
        "0.990 ms read): the file lists events kind by kind and was cut inside them, so the "
        "later ones are missing and this analysis is incomplete";
    EXPECT_EQ(unevenCutSentence(*model), want);
    JobAnalysis job = analyzeJob({model});
    EXPECT_EQ(job.files[0].unevenCut, want);
    ReportInput in;
    in.job = &job;
    in.generator = "test";
    const std::string page = reportHtml(in);
    EXPECT_NE(page.find("<b>Incomplete:</b> <code>truncated_by_kind.json</code>: events stop early by kind"),
              std::string::npos);
    EXPECT_EQ(page.find("would finish up to"), std::string::npos);
    EXPECT_NE(page.find("<td class=\"num\">incomplete</td>"), std::string::npos);
    // A file cut where every kind reaches its end, and a whole file, are not.
    EXPECT_EQ(unevenCutSentence(*loadTrace(test::dataPath("truncated.json"))), "");
    EXPECT_EQ(unevenCutSentence(*loadTrace(test::dataPath("advice_chains.json"))), "");
}

TEST(WhatIf, SaysWhereEachDevicesHeadStartStopped)
{
    const auto model = loadTrace(test::dataPath("advice_chains.json"));
    const SyncAnalysis a = analyzeSyncs(*model);
    const std::vector<RankInput> in = {makeRankInput(*model, a)};
    // The copy of the scalar read alone: the stream synchronize in the same op,
    // kept, waits for the same work.
    WhatIf w = analyzeWhatIf(in, {parseWhatIfSpec("sync=cudaMemcpyAsync,op=aten::_local_scalar_dense")});
    ASSERT_EQ(w.devices.size(), 1u);
    EXPECT_EQ(w.selectedCalls, 1u);
    EXPECT_EQ(w.devices[0].limitKind, "resynchronized");
    EXPECT_EQ(
        w.devices[0].limitText,
        "a kept blocking call waited for the same work: cudaStreamSynchronize in aten::_local_scalar_dense at "
        "0.020 ms re-synchronized thread 1, so its head start ended there");
    // Both of the op's calls: nothing re-synchronizes the thread after them.
    w = analyzeWhatIf(in, {parseWhatIfSpec("op=aten::_local_scalar_dense")});
    EXPECT_EQ(w.devices[0].limitKind, "trace_end");
    // A spec that selects nothing removes nothing.
    w = analyzeWhatIf(in, {parseWhatIfSpec("op=no-such-op")});
    EXPECT_EQ(w.selectedCalls, 0u);
    EXPECT_EQ(w.devices[0].limitKind, "none");
    EXPECT_EQ(w.devices[0].avoidable, 0);
}

TEST(LongHostCalls, ListedBesideTheSyncsNeverReplayed)
{
    // A 2 ms launch (a full queue), a 0.5 ms one and a 3 ms stream synchronize.
    const auto model = loadTrace(test::dataPath("long_host_calls.json"));
    SyncAnalysis a = analyzeSyncs(*model);
    ASSERT_EQ(a.syncCalls.size(), 1u); // the synchronize is a sync, not a long host call
    ASSERT_EQ(a.longCalls.size(), 1u);
    EXPECT_EQ(a.longCalls[0].dur, 2'000'000);
    EXPECT_EQ(model->str(model->tracks()[a.longCalls[0].op.track].name[a.longCalls[0].op.index]), "aten::mm");
    const FileReport r = makeFileReport(*model, a);
    ASSERT_EQ(r.longCalls.size(), 1u);
    EXPECT_EQ(r.longCalls[0].name, "cudaLaunchKernel");
    EXPECT_EQ(r.longCalls[0].op, std::optional<std::string>("aten::mm"));
    // A lower threshold takes the 0.5 ms launch too; the replay is the same.
    AnalysisOptions o;
    o.longCallThreshold = 400'000;
    const SyncAnalysis b = analyzeSyncs(*model, o);
    ASSERT_EQ(b.longCalls.size(), 2u);
    EXPECT_EQ(b.longCalls[1].dur, 500'000);
    EXPECT_EQ(b.devices[0].avoidable, a.devices[0].avoidable);
}
