#pragma once
// Colours of event categories: the well-known PyTorch categories get fixed,
// distinguishable colours; any other category is hashed onto the rest.
#include "trace/categories.h"

#include <QColor>

#include <string_view>

namespace syncscope::ui::palette {

constexpr int kCategoryColors = 16;
// Indices [0, kCategoryColors) are event boxes, the same + kCategoryColors their
// folded runs (darker), then the instant marks.
constexpr int kFoldedOffset = kCategoryColors;
constexpr int kInstantColor = 2 * kCategoryColors;
constexpr int kBusyColor = kInstantColor + 1; // a collapsed thread's busy time
constexpr int kColorCount = kBusyColor + 1;

inline int categoryColor(std::string_view cat)
{
    struct Known {
        std::string_view cat;
        int color;
    };
    static constexpr Known known[] = {
        {category::kCpuOp, 0},    {category::kUserAnnotation, 1}, {category::kPythonFunction, 2},
        {category::kRuntime, 3},  {category::kDriver, 4},         {category::kKernel, 5},
        {category::kMemcpy, 6},   {category::kMemset, 7},         {category::kGpuAnnotation, 8},
        {category::kCudaSync, 9}, {category::kCpuInstant, 10},
    };
    for (const Known &k : known)
        if (k.cat == cat)
            return k.color;
    // FNV-1a onto the colours not taken by known categories.
    uint32_t h = 2166136261u;
    for (char c : cat)
        h = (h ^ uint8_t(c)) * 16777619u;
    return 11 + int(h % uint32_t(kCategoryColors - 11));
}

inline QColor color(int index)
{
    static const QColor base[kCategoryColors] = {
        QColor(0x4e, 0x79, 0xa7), // cpu_op: blue
        QColor(0x9c, 0x75, 0x5f), // user_annotation: brown
        QColor(0xa0, 0x9a, 0xb8), // python_function: grey violet
        QColor(0xf2, 0x8e, 0x2b), // cuda_runtime: orange
        QColor(0xd9, 0xa4, 0x41), // cuda_driver: ochre
        QColor(0x59, 0xa1, 0x4f), // kernel: green
        QColor(0xed, 0xc9, 0x48), // gpu_memcpy: yellow
        QColor(0xb0, 0x7a, 0xa1), // gpu_memset: purple
        QColor(0x76, 0xb7, 0xb2), // gpu_user_annotation: teal
        QColor(0xe1, 0x57, 0x59), // cuda_sync: red
        QColor(0x79, 0x70, 0x6e), // cpu_instant_event: dark grey
        QColor(0x86, 0xbc, 0xb6), QColor(0xff, 0x9d, 0xa7), QColor(0x8c, 0xd1, 0x7d),
        QColor(0xbc, 0xbd, 0x22), QColor(0x9d, 0x7e, 0xc2),
    };
    if (index >= 0 && index < kCategoryColors)
        return base[index];
    if (index >= kFoldedOffset && index < kFoldedOffset + kCategoryColors)
        return base[index - kFoldedOffset].darker(135);
    if (index == kBusyColor)
        return QColor(0x6b, 0x7f, 0x99);
    return QColor(0x30, 0x30, 0x30);
}

// Names on a box stay readable on light and dark colours.
inline bool wantsDarkText(int index)
{
    const QColor c = color(index);
    return 0.299 * c.redF() + 0.587 * c.greenF() + 0.114 * c.blueF() > 0.55;
}

// The view's own colours (backgrounds, text, marks), each named by its use:
// the one place to change how the Timeline looks.
namespace chrome {
const QColor kBackground(0xfb, 0xfb, 0xfb);
const QColor kHeaderBackground(0xec, 0xee, 0xf1);
const QColor kRankBackground(0xd9, 0xde, 0xe6);
const QColor kCounterBackground(0xf3, 0xf6, 0xf9);
const QColor kGrid(0, 0, 0, 18);
const QColor kGapFill(230, 40, 40, 45);
const QColor kGapHatch(200, 20, 20, 90);
const QColor kGapEdge(200, 20, 20, 200);
const QColor kGapCallEdge(200, 0, 0); // a blocking call that caused a gap
const QColor kGapCallFill(230, 30, 30, 110);
const QColor kOtherCallEdge(230, 120, 0); // a blocking call that caused none
const QColor kMarkedGapEdge(120, 0, 160); // the gaps of the selected sync source
const QColor kMarkedGapFill(120, 0, 160, 30);
const QColor kCurrentGapEdge(180, 0, 0); // the gap stepped to
const QColor kRangeFill(40, 110, 220, 40);
const QColor kRangeEdge(40, 110, 220, 220);
const QColor kRangeBand(40, 110, 220, 200); // the range's span on the ruler
const QColor kDropLine(40, 110, 220);       // where a dragged track lands
const QColor kCounterFill(0x4e, 0x79, 0xa7, 170);
const QColor kLabelDark(20, 20, 20);         // event names on light boxes
const QColor kLabelLight(250, 250, 250);     // and on dark ones
const QColor kInstantLine(90, 40, 150, 200); // a global instant across the tracks
const QColor kFlowLine(20, 20, 20);
const QColor kSelectionHalo(255, 255, 255);
const QColor kSelectionEdge(0, 0, 0);
const QColor kFindOutline(255, 170, 0);
const QColor kPinnedSeparator(0xb8, 0xc0, 0xcc);
const QColor kPinnedScrollBar(0x70, 0x78, 0x88, 180);
const QColor kRulerBackground(0xf0, 0xf0, 0xf0);
const QColor kRulerText(0x40, 0x40, 0x40);
const QColor kRule(0xb0, 0xb0, 0xb0); // the lines under the ruler, bands and panels
const QColor kCornerBackground(0xe6, 0xe6, 0xe6);
const QColor kCornerText(0x30, 0x30, 0x30);
const QColor kStepBandBackground(0xf7, 0xf5, 0xee);
const QColor kStepShadeA(0xc9, 0xb7, 0x8a); // steps alternate two shades
const QColor kStepShadeB(0xe0, 0xd2, 0xa8);
const QColor kStepEdge(0x8a, 0x76, 0x44);
const QColor kStepText(0x30, 0x28, 0x10);
const QColor kNamePanelBackground(0xf4, 0xf4, 0xf4);
const QColor kHeaderText(0x20, 0x20, 0x20);
const QColor kTrackText(0x25, 0x3c, 0x5a);
const QColor kGpuTrackText(0x2d, 0x6a, 0x2a);
const QColor kDimText(0x70, 0x70, 0x70);
const QColor kTrackSeparator(0xd0, 0xd0, 0xd0);
const QColor kIndicatorWarn(0xfc, 0xf0, 0xc8); // "Python frames hidden"
const QColor kIndicatorText(0x40, 0x30, 0x10);
} // namespace chrome

} // namespace syncscope::ui::palette
