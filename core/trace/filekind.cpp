#include "trace/filekind.h"

#include "trace/inputstream.h"

#include <cstring>
#include <exception>
#include <functional>
#include <memory>

namespace syncscope {

namespace {

// A streaming walk over the top level of a JSON document: reads bytes through
// next() and skips every value but the top-level keys.
class TopLevelKeys {
public:
    explicit TopLevelKeys(std::function<int()> next) : m_next(std::move(next)) {}

    JsonFileKind run()
    {
        int c = skipSpace();
        if (c == '[')
            return JsonFileKind::Trace;
        if (c != '{')
            return JsonFileKind::Other;
        bool results = false;
        c = skipSpace();
        if (c == '}')
            return JsonFileKind::Other;
        for (;;) {
            if (c != '"')
                return JsonFileKind::Other;
            std::string key;
            if (!readString(&key))
                return JsonFileKind::Other;
            if (key == "traceEvents")
                return JsonFileKind::Trace;
            results = results || key == "results";
            if (skipSpace() != ':' || !skipValue(skipSpace()))
                return JsonFileKind::Other;
            c = skipSpace();
            if (c == '}')
                return results ? JsonFileKind::BenchResult : JsonFileKind::Other;
            if (c != ',')
                return JsonFileKind::Other;
            c = skipSpace();
        }
    }

private:
    int skipSpace()
    {
        int c;
        do
            c = get();
        while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
        return c;
    }

    // After the opening quote; key text kept when asked (capped: keys are short).
    bool readString(std::string *out)
    {
        for (;;) {
            const int c = get();
            if (c < 0)
                return false;
            if (c == '"')
                return true;
            if (c == '\\') {
                if (get() < 0)
                    return false;
                if (out)
                    out->push_back('?'); // an escaped key is none we look for
                continue;
            }
            if (out && out->size() < 64)
                out->push_back(static_cast<char>(c));
        }
    }

    // c is the first byte of the value; consumes the value (not what follows).
    bool skipValue(int c)
    {
        if (c == '"')
            return readString(nullptr);
        if (c != '{' && c != '[') {
            // A scalar: up to the next delimiter, which is handed back.
            if (c < 0)
                return false;
            for (;;) {
                const int d = get();
                if (d < 0)
                    return false;
                if (d == ',' || d == '}' || d == ']' || d == ' ' || d == '\n' || d == '\r' || d == '\t') {
                    m_pushback = d;
                    return true;
                }
            }
        }
        int depth = 1;
        while (depth > 0) {
            const int d = get();
            if (d < 0)
                return false;
            if (d == '"') {
                if (!readString(nullptr))
                    return false;
            } else if (d == '{' || d == '[') {
                ++depth;
            } else if (d == '}' || d == ']') {
                --depth;
            }
        }
        return true;
    }

    int get()
    {
        if (m_pushback >= 0) {
            const int c = m_pushback;
            m_pushback = -1;
            return c;
        }
        return m_next();
    }

    std::function<int()> m_next;
    int m_pushback = -1;
};

JsonFileKind classify(std::function<int()> source) { return TopLevelKeys(std::move(source)).run(); }

} // namespace

JsonFileKind jsonKind(const std::string &bytes)
{
    size_t pos = 0;
    return classify([&]() -> int { return pos < bytes.size() ? static_cast<unsigned char>(bytes[pos++]) : -1; });
}

JsonFileKind jsonFileKind(const std::string &path)
{
    try {
        std::unique_ptr<InputStream> in = InputStream::openFile(path);
        char buf[1 << 16];
        size_t len = 0, pos = 0;
        return classify([&]() -> int {
            if (pos == len) {
                len = in->read(buf, sizeof buf);
                pos = 0;
                if (len == 0)
                    return -1;
            }
            return static_cast<unsigned char>(buf[pos++]);
        });
    } catch (const std::exception &) {
        return JsonFileKind::Other;
    }
}

} // namespace syncscope
