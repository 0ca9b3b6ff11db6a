#pragma once
// Helpers every test folder shares (std only): read a whole file.
#include <fstream>
#include <sstream>
#include <string>

namespace syncscope::test {

// The bytes of the file at `path`; empty when it cannot be read.
inline std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

} // namespace syncscope::test
