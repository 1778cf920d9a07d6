#include "process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>


namespace tvis::cli {

bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_executable(const std::string& p) { return is_file(p) && access(p.c_str(), X_OK) == 0; }

bool is_elf(const std::string& p) {
  const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  const bool elf = read(fd, magic, 4) == 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
  close(fd);
  return elf;
}

void exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> a;
  for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  execv(a[0], a.data());
}

}  // namespace tvis::cli
