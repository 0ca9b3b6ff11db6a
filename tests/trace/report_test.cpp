// The report's escaping and its content on a hand-made trace (the DOM and
// script checks in Chromium are in cli_report_test.py).
#include "analysis/jobanalysis.h"
#include "analysis/report.h"
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
}
