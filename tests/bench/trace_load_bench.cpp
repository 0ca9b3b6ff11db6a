// Loads one trace with our loader and prints what it took, for trace_load_bench.py
// (which measures wall time and peak RSS of this whole process from outside).
#include "common/error.h"
#include "trace/traceloader.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace {

// The alternative we measured against: nlohmann/json's SAX parser with handlers
// that do nothing, on the file read whole into memory (no model is built).
struct NullSax : nlohmann::json_sax<nlohmann::json> {
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t &) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override
    {
        return false;
    }
};

int nlohmannSax(const char *path)
{
    const auto t0 = std::chrono::steady_clock::now();
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    NullSax sax;
    const bool ok = nlohmann::json::sax_parse(text, &sax);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("{\"seconds\": %.6f, \"json_bytes\": %zu, \"ok\": %s}\n", s, text.size(), ok ? "true" : "false");
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--nlohmann-sax") == 0)
        return nlohmannSax(argv[2]);
    // --read: read the file in chunks instead of scanning it through a map.
    syncscope::LoadOptions options;
    if (argc == 3 && std::strcmp(argv[1], "--read") == 0) {
        options.mapFile = false;
        --argc;
        ++argv;
    }
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s [--nlohmann-sax | --read] TRACE\n", argv[0]);
        return 2;
    }
    try {
        const auto t0 = std::chrono::steady_clock::now();
        auto model = syncscope::loadTrace(argv[1], {}, nullptr, options);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("{\"seconds\": %.6f, \"json_bytes\": %llu, \"events\": %llu, \"warnings\": %llu, "
                    "\"args_bytes\": %llu, \"model_bytes\": %llu, \"tracks\": %zu}\n",
                    s, static_cast<unsigned long long>(model->info().jsonBytes),
                    static_cast<unsigned long long>(model->counts().durationEvents),
                    static_cast<unsigned long long>(model->warnings().count),
                    static_cast<unsigned long long>(model->argsBytes()),
                    static_cast<unsigned long long>(model->memoryBytes()), model->tracks().size());
    } catch (const syncscope::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
