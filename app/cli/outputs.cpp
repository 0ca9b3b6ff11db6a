#include "outputs.h"

#include "common/error.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

namespace syncscope::cli {

namespace {

// What a path will name once written: device and inode when it exists,
// otherwise the real path of its folder plus its name.
struct Identity {
    bool exists = false, regular = false;
    dev_t dev = 0;
    ino_t ino = 0;
    std::string real;
};

std::string realPath(const std::string &path)
{
    char buf[PATH_MAX];
    return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

Identity identify(const std::string &path)
{
    Identity id;
    const std::string target = followSymlinks(path);
    struct stat st;
    if (::stat(target.c_str(), &st) == 0) {
        id.exists = true;
        id.regular = S_ISREG(st.st_mode);
        id.dev = st.st_dev;
        id.ino = st.st_ino;
        id.real = realPath(target);
        return id;
    }
    const size_t slash = target.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
    const std::string realDir = realPath(dir);
    id.real = realDir.empty() ? target : realDir + "/" + name;
    return id;
}

bool same(const Identity &a, const Identity &b)
{
    if (a.exists && b.exists)
        return a.dev == b.dev && a.ino == b.ino;
    return !a.real.empty() && a.real == b.real;
}

bool skipped(const std::string &path) { return path.empty() || path == "-"; }

} // namespace

void checkOutputs(const std::vector<std::string> &inputs, const std::vector<NamedOutput> &outputs)
{
    std::vector<Identity> ins;
    for (const std::string &in : inputs)
        ins.push_back(identify(in));
    std::vector<Identity> outs;
    for (size_t o = 0; o < outputs.size(); ++o) {
        const auto &[flag, path] = outputs[o];
        outs.push_back(skipped(path) ? Identity{} : identify(path));
        if (skipped(path))
            continue;
        const Identity &id = outs.back();
        // /dev/null and other devices may be given for any number of outputs.
        if (id.exists && !id.regular)
            continue;
        for (size_t i = 0; i < inputs.size(); ++i)
            if (same(id, ins[i]))
                throw Error("the " + flag + " output '" + path + "' is the input file '" + inputs[i] +
                            "'; writing it would destroy the input, so give another output file.");
        for (size_t p = 0; p < o; ++p)
            if (!skipped(outputs[p].second) && same(id, outs[p]))
                throw Error(outputs[p].first + " and " + flag + " both name the file '" + path +
                            "'; give each output its own file.");
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
        const auto &[flag, path] = outputs[o];
        if (skipped(path) || (outs[o].exists && !outs[o].regular))
            continue;
        try {
            AtomicFile probe(path); // removed again when it goes out of scope
        } catch (const Error &e) {
            throw Error(flag + ": " + e.what());
        }
    }
}

int finishStdout(int exitCode)
{
    if (exitCode != 0) { // the command already said what went wrong
        std::cout.flush();
        std::fclose(stdout);
        return exitCode;
    }
    errno = 0;
    std::cout.flush();
    bool lost = !std::cout.good();
    int err = errno;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        lost = true;
        err = err ? err : errno;
    }
    if (std::fclose(stdout) != 0 && !lost) {
        lost = true;
        err = errno;
    }
    if (!lost)
        return exitCode;
    std::fprintf(stderr, "syncscope-cli: cannot write to standard output: %s.\n",
                 err ? std::strerror(err) : "the output was not fully written");
    return 1;
}

OutputFile::OutputFile(const std::string &path) : m_path(path)
{
    if (path != "-")
        m_file = std::make_unique<AtomicFile>(path);
}

void OutputFile::write(std::string_view data)
{
    if (m_file) {
        m_file->write(data);
        return;
    }
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), stdout) != data.size())
        throw Error(std::string("cannot write to standard output: ") + std::strerror(errno) + ".");
}

void OutputFile::commit()
{
    if (m_file) {
        m_file->commit();
        return;
    }
    if (std::fflush(stdout) != 0)
        throw Error(std::string("cannot write to standard output: ") + std::strerror(errno) + ".");
}

} // namespace syncscope::cli
