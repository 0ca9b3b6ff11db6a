#!/usr/bin/env python3
"""`syncscope-cli report --html --md` on traces whose op names, frames and file
name carry markup (<script>, <img onerror=...>, </table>, Markdown pipes and
backticks): the HTML, loaded in headless Chromium, ran no script, its DOM has
the headline and the sources' advice titles, and every table row has as many
cells as its header; the Markdown tables keep their columns and carry no raw
markup. Also: a job's headline and a --compare section.
Usage: cli_report_test.py CLI DATA_DIR"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []
HOSTILE_OP = "aten::op<script>document.title='PWNED'</script>"
HOSTILE_FRAME = "evil.py(1): <img src=x onerror=\"document.title='PWNED2'\"></table>"
PIPE_OP = "my::pipe|op`tick`*star*"
FILE_NAME = "ev<i>il|`x`.json"


def check(cond, what):
    if not cond:
        failures.append(what)


def trace():
    ev = []

    def x(cat, name, ts, dur, pid=1, tid=1, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        ev.append(e)

    x("python_function", HOSTILE_FRAME, 0, 1000)
    x("user_annotation", "ProfilerStep#1", 0, 1000)
    x("cuda_runtime", "cudaLaunchKernel", 2, 3, args={"correlation": 1})
    x("kernel", "k1", 8, 22, pid=0, tid=7, args={"device": 0, "stream": 7, "correlation": 1})
    x("cpu_op", HOSTILE_OP, 10, 100)
    x("cuda_runtime", "cudaStreamSynchronize", 20, 80, args={"correlation": 2})
    x("cuda_runtime", "cudaLaunchKernel", 112, 3, args={"correlation": 3})
    x("kernel", "k2", 200, 30, pid=0, tid=7, args={"device": 0, "stream": 7, "correlation": 3})
    x("cpu_op", "aten::item", 300, 100)
    x("cpu_op", "aten::_local_scalar_dense", 302, 96)
    x("cuda_runtime", "cudaStreamSynchronize", 310, 80, args={"correlation": 4})
    x("cuda_runtime", "cudaLaunchKernel", 402, 3, args={"correlation": 5})
    x("kernel", "k3", 500, 30, pid=0, tid=7, args={"device": 0, "stream": 7, "correlation": 5})
    x("cpu_op", PIPE_OP, 600, 100)
    x("cuda_runtime", "cudaDeviceSynchronize", 610, 80, args={"correlation": 6})
    x("cuda_runtime", "cudaLaunchKernel", 702, 3, args={"correlation": 7})
    x("kernel", "k4", 800, 30, pid=0, tid=7, args={"device": 0, "stream": 7, "correlation": 7})
    return {"schemaVersion": 1, "traceEvents": ev}


class Tables(html.parser.HTMLParser):
    """Per table: the header's cell count and each body row's."""

    def __init__(self):
        super().__init__()
        self.tables, self.elements, self.title, self._in_title = [], [], "", False
        self._row = None

    def handle_starttag(self, tag, attrs):
        self.elements.append(tag)
        if tag == "table":
            self.tables.append({"head": 0, "rows": []})
        elif tag == "tr" and self.tables:
            self._row = 0
        elif tag in ("th", "td") and self._row is not None:
            self._row += 1
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag):
        if tag == "tr" and self._row is not None and self.tables:
            t = self.tables[-1]
            if t["head"] == 0:
                t["head"] = self._row
            else:
                t["rows"].append(self._row)
            self._row = None
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def check_html(text, tag, want_texts):
    p = Tables()
    p.feed(text)
    check("script" not in p.elements, f"{tag}: a <script> element")
    check("img" not in p.elements, f"{tag}: an <img> element")
    check("PWNED" not in p.title, f"{tag}: the title was changed to {p.title!r}")
    check(len(p.tables) >= 3, f"{tag}: only {len(p.tables)} tables")
    for i, t in enumerate(p.tables):
        check(all(r == t["head"] for r in t["rows"]), f"{tag}: table {i} rows {t['rows']} vs header {t['head']}")
    for w in want_texts:
        check(w in text, f"{tag}: {w!r} missing")


def check_markdown(text, tag):
    check("<script" not in text and "<img" not in text and "</table>" not in text, f"{tag}: raw markup")
    block = []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            counts = []
            for row in block:
                n, i = 0, 0
                while i < len(row):
                    if row[i] == "\\":
                        i += 2
                        continue
                    n += row[i] == "|"
                    i += 1
                counts.append(n)
            check(len(set(counts)) == 1, f"{tag}: a table's rows have {counts} cells")
            for row in block:
                bare = [i for i, c in enumerate(row) if c == "`" and (i == 0 or row[i - 1] != "\\")]
                check(not bare, f"{tag}: an unescaped backtick in {row!r}")
            block = []


def run(cli, args):
    p = subprocess.run([cli, "report", *args], capture_output=True, text=True)
    check(p.returncode == 0, f"report {args}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    return p


def main(cli, data):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium and os.environ.get("CI"):
        check(False, "chromium is missing under CI (scripts/setup-deps installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, FILE_NAME)
        with open(path, "w") as f:
            json.dump(trace(), f)
        out_html, out_md = os.path.join(tmp, "r.html"), os.path.join(tmp, "r.md")
        run(cli, [path, "--html", out_html, "--md", out_md])
        page = open(out_html, encoding="utf-8").read()
        md = open(out_md, encoding="utf-8").read()
        item_title = "A scalar read back to the host"
        check_html(page, "html file", ["would finish up to", item_title, "no known rewrite",
                                       "&lt;script&gt;", "evil.py(1): &lt;img"])
        check("Content-Security-Policy" in page and "default-src 'none'" in page, "no CSP that forbids scripts")
        check_markdown(md, "markdown")
        check(item_title in md and "\\|op\\`tick\\`" in md, "markdown: the advice or the escaped op is missing")
        if chromium:
            p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                                "file://" + out_html], capture_output=True, text=True, timeout=120)
            check(p.returncode == 0, f"chromium exit {p.returncode}: {p.stderr[-300:]}")
            check_html(p.stdout, "chromium DOM", ["would finish up to", item_title])
            check("<h2>Sync sources and what to change</h2>" in p.stdout, "chromium DOM: no sources section")
        # A job, and a comparison.
        job = [os.path.join(data, "job_straggler_rank%d.json" % r) for r in range(3)]
        run(cli, [*job, "--html", out_html, "--md", out_md])
        page = open(out_html, encoding="utf-8").read()
        check("The job would finish up to <b>0.080 ms</b> earlier" in page, "the job's headline is missing")
        check("rank 2" in page, "no rank column")
        run(cli, ["--compare", os.path.join(data, "diff_before.json"), os.path.join(data, "diff_after.json"),
                  "--html", out_html])
        page = open(out_html, encoding="utf-8").read()
        check('<section id="compare">' in page and 'id="compare-devices"' in page, "no compare section")
        check_html(page, "compare", ["Before and after"])
        # Bad use: one sentence each.
        for args, words in ((["x.json"], "give --html FILE"), ([path, "--html", "-"], "not '-'"),
                            (["--html", out_html], "give the traces")):
            p = subprocess.run([cli, "report", *args], capture_output=True, text=True)
            lines = [l for l in p.stderr.splitlines() if l.strip() and not l.startswith("[")]
            check(p.returncode != 0 and len(lines) == 1 and words in lines[0],
                  f"report {args}: exit {p.returncode}, stderr {p.stderr.strip()[-200:]!r}")
    if failures:
        print("\n".join("FAIL: " + f for f in failures[:40]))
        print(f"{len(failures)} failure(s)")
        return 1
    print("report: escaped, no script, tables intact" + (" (checked in Chromium)" if chromium else " (no Chromium here)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
