#include "storage/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace strata::storage {

Result<std::shared_ptr<File>, StorageError> File::open(const std::string& path, bool create) {
  const int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return fail(io_error("open " + path));
  return std::shared_ptr<File>(new File(fd));
}

File::~File() { ::close(fd_); }

Result<uint64_t, StorageError> File::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return fail(io_error("fstat"));
  return uint64_t(st.st_size);
}

Result<void, StorageError> File::pwrite_all(Bytes data, uint64_t offset) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done, off_t(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(io_error("pwrite"));
    }
    done += size_t(n);
  }
  return {};
}

Result<size_t, StorageError> File::pread_some(MutableBytes out, uint64_t offset) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, off_t(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(io_error("pread"));
    }
    if (n == 0) break;
    done += size_t(n);
  }
  return done;
}

Result<void, StorageError> File::truncate(uint64_t size) {
  if (::ftruncate(fd_, off_t(size)) != 0) return fail(io_error("ftruncate"));
  return {};
}

Result<void, StorageError> File::datasync() {
  if (::fdatasync(fd_) != 0) return fail(io_error("fdatasync"));
  return {};
}

Result<void, StorageError> sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return fail(io_error("open directory " + dir));
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) return fail(io_error("fsync directory " + dir));
  return {};
}

Result<void, StorageError> rename_file(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return fail(io_error("rename " + from + " -> " + to));
  return {};
}

Result<std::vector<std::string>, StorageError> list_directory(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return fail(io_error("opendir " + dir));
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

}  // namespace strata::storage
