// Loading the lab library at run time; see labloader.h.
#include "lab/api/labloader.h"

#include "common/error.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

#ifndef SYNCSCOPE_LAB_FILE_NAME
#define SYNCSCOPE_LAB_FILE_NAME "libsyncscope_lab.so"
#endif
#ifndef SYNCSCOPE_LAB_INSTALL_RELDIR
#define SYNCSCOPE_LAB_INSTALL_RELDIR "../lib/syncscope"
#endif

namespace syncscope::lab {

namespace {

struct LoadState {
    std::once_flag once;
    std::atomic<LabInterface *> lab{nullptr};
    std::atomic<bool> finished{false};
    std::string error; // written once inside call_once, read after `finished`
};

LoadState &state()
{
    static LoadState s;
    return s;
}

std::string executableDir()
{
    std::vector<char> buf(4096);
    const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0)
        return {};
    std::string path(buf.data(), static_cast<size_t>(n));
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool exists(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> candidates(bool *fromEnv)
{
    *fromEnv = false;
    if (const char *env = std::getenv("SYNCSCOPE_LAB"); env && *env) {
        *fromEnv = true;
        return {env};
    }
    const std::string dir = executableDir();
    if (dir.empty())
        return {SYNCSCOPE_LAB_FILE_NAME};
    return {dir + "/" SYNCSCOPE_LAB_FILE_NAME, dir + "/" SYNCSCOPE_LAB_INSTALL_RELDIR "/" SYNCSCOPE_LAB_FILE_NAME};
}

std::string dlerrorText()
{
    const char *e = ::dlerror();
    return e ? std::string(e) : std::string("unknown reason");
}

void doLoad(LoadState &s)
{
    bool fromEnv = false;
    const std::vector<std::string> paths = candidates(&fromEnv);
    std::string path = paths.front();
    for (const std::string &p : paths)
        if (exists(p)) {
            path = p;
            break;
        }
    const std::string where = "the lab library '" + path + "'" + (fromEnv ? " (from SYNCSCOPE_LAB)" : "");
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::string reason = dlerrorText();
#ifndef SYNCSCOPE_LAB_BUILT
        if (!fromEnv && !exists(path))
            reason = "this build has no lab (configured with SYNCSCOPE_WITH_LAB=OFF)";
#endif
        s.error = "cannot load " + where + ": " + reason;
        return;
    }
    auto version = reinterpret_cast<SyncscopeLabVersionFn>(::dlsym(handle, SYNCSCOPE_LAB_VERSION_SYMBOL));
    auto create = reinterpret_cast<SyncscopeLabCreateFn>(::dlsym(handle, SYNCSCOPE_LAB_CREATE_SYMBOL));
    if (!version || !create) {
        s.error = "cannot load " + where + ": it is not a syncscope lab (no " SYNCSCOPE_LAB_CREATE_SYMBOL ")";
        ::dlclose(handle);
        return;
    }
    const int theirs = version();
    if (theirs != kLabInterfaceVersion) {
        s.error = "cannot load " + where + ": it has lab interface version " + std::to_string(theirs) +
                  ", this program needs version " + std::to_string(kLabInterfaceVersion) +
                  " (install the lab of the same syncscope build)";
        ::dlclose(handle);
        return;
    }
    LabInterface *lab = nullptr;
    try {
        lab = create(kLabInterfaceVersion);
    } catch (const std::exception &e) {
        s.error = "cannot load " + where + ": it failed to start: " + e.what();
        return; // its static state may be half built: keep it mapped
    }
    if (!lab) {
        s.error = "cannot load " + where + ": it refused interface version " +
                  std::to_string(kLabInterfaceVersion);
        return;
    }
    // Never unloaded: LibTorch does not support dlclose.
    s.lab.store(lab, std::memory_order_release);
}

} // namespace

LabInterface *loadLab(std::string *error)
{
    LoadState &s = state();
    std::call_once(s.once, [&s] {
        doLoad(s);
        s.finished.store(true, std::memory_order_release);
    });
    LabInterface *lab = s.lab.load(std::memory_order_acquire);
    if (!lab && error)
        *error = s.error;
    return lab;
}

LabInterface &requireLab()
{
    std::string error;
    LabInterface *l = loadLab(&error);
    if (!l)
        throw Error(error);
    return *l;
}

LabInterface *loadedLab() { return state().lab.load(std::memory_order_acquire); }

bool labLoadFinished() { return state().finished.load(std::memory_order_acquire); }

std::string labLoadError()
{
    LoadState &s = state();
    return s.finished.load(std::memory_order_acquire) ? s.error : std::string();
}

} // namespace syncscope::lab
