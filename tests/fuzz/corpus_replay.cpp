// Replays every file of the fuzz corpus through the fuzz target, so that ctest
// checks past crashers and the round-trip property on every build.
#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int files = 0;
    for (int a = 1; a < argc; ++a) {
        std::vector<std::string> names;
        if (DIR *d = ::opendir(argv[a])) {
            while (const dirent *e = ::readdir(d))
                if (e->d_name[0] != '.')
                    names.push_back(std::string(argv[a]) + "/" + e->d_name);
            ::closedir(d);
        } else {
            std::fprintf(stderr, "corpus_replay: cannot open the folder '%s'\n", argv[a]);
            return 1;
        }
        for (const std::string &name : names) {
            std::ifstream in(name, std::ios::binary);
            std::ostringstream os;
            os << in.rdbuf();
            const std::string bytes = os.str();
            std::fprintf(stderr, "corpus_replay: %s\n", name.c_str());
            LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
            ++files;
        }
    }
    std::printf("corpus_replay: %d file(s), no crash, round trip holds\n", files);
    return files > 0 ? 0 : 1;
}
