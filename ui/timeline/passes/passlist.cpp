// The timeline's render passes in paint order: the rows first (their
// backgrounds come before the grid, their labels after every row pass's
// boxes), then what lies over them; the frame passes (the marks) last, over
// everything. A new pass is one line here. Instants come before summaries: a
// collapsed thread's busy band covers its instants, as a box would.
#include "timeline/passes/blockingcallspass.h"
#include "timeline/passes/counterpass.h"
#include "timeline/passes/findpass.h"
#include "timeline/passes/gapbandspass.h"
#include "timeline/passes/headerspass.h"
#include "timeline/passes/instantspass.h"
#include "timeline/passes/markspass.h"
#include "timeline/passes/slicespass.h"
#include "timeline/passes/summarypass.h"

namespace syncscope::ui {

const std::vector<const TimelinePass *> &timelinePasses()
{
    static const HeadersPass headers;
    static const SlicesPass slices;
    static const SummaryPass summary;
    static const CounterPass counters;
    static const InstantsPass instants;
    static const GapBandsPass gapBands;
    static const BlockingCallsPass calls;
    static const GlobalInstantsPass globalInstants;
    static const FindPass find;
    static const GapMarksPass gapMarks;
    static const RangePass range;
    static const SelectionPass selection;
    static const std::vector<const TimelinePass *> passes{&headers,  &slices,   &instants, &summary,
                                                          &counters, &gapBands, &calls,    &globalInstants,
                                                          &find,     &gapMarks, &range,    &selection};
    return passes;
}

} // namespace syncscope::ui
