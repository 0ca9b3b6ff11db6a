#include "compare/comparedata.h"

#include "common/error.h"
#include "trace/traceloader.h"

#include <QFile>

namespace syncscope::ui {

std::shared_ptr<const CompareData> CompareData::build(const QString &beforePath, const QString &afterPath,
                                                      const ProgressFn &progress, const CancelToken *cancel)
{
    auto data = std::make_shared<CompareData>();
    data->beforePath = beforePath;
    data->afterPath = afterPath;
    const QString paths[2] = {beforePath, afterPath};
    std::shared_ptr<const TimelineData> sides[2];
    for (int s = 0; s < 2; ++s) {
        ProgressFn part = [&, s](double f, const char *msg) {
            if (progress)
                progress(0.45 * s + 0.45 * f, msg);
        };
        TraceModelPtr model;
        try {
            model = loadTrace(
                QFile::encodeName(paths[s]).toStdString(), [&](double f, const char *m) { part(0.6 * f, m); },
                cancel);
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            throw Error(std::string(s ? "the after trace did not load: " : "the before trace did not load: ") +
                        e.what());
        }
        sides[s] = TimelineData::build(
            {model}, [&](double f, const char *m) { part(0.6 + 0.4 * f, m); }, cancel);
    }
    data->before = sides[0];
    data->after = sides[1];
    AnalysedTrace t[2];
    for (int s = 0; s < 2; ++s) {
        const TimelineFile &f = sides[s]->files().front();
        t[s].model = f.model;
        t[s].sync = f.sync;
        t[s].ops = namedOps(*f.model, cancel);
    }
    if (progress)
        progress(0.95, "comparing");
    data->diff = diffTraces(t[0], t[1]);
    if (progress)
        progress(1.0, "done");
    return data;
}

} // namespace syncscope::ui
