#pragma once
// Colours of event categories: the well-known PyTorch categories get fixed,
// distinguishable colours; any other category is hashed onto the rest.
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
    struct Known { std::string_view cat; int color; };
    static constexpr Known known[] = {
        {"cpu_op", 0},          {"user_annotation", 1}, {"python_function", 2},
        {"cuda_runtime", 3},    {"cuda_driver", 4},     {"kernel", 5},
        {"gpu_memcpy", 6},      {"gpu_memset", 7},      {"gpu_user_annotation", 8},
        {"cuda_sync", 9},       {"cpu_instant_event", 10},
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

} // namespace syncscope::ui::palette
