//===- KernelCache.cpp - the on-disk cache of compiled kernels ---*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/KernelCache.h"

#include "Runtime/Sha256.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace fgemm;
namespace fs = std::filesystem;

namespace {

constexpr const char *kManifestHeader = "fgemm-kernel-cache 1";
constexpr const char *kFiles[] = {"kernel.cubin", "kernel.meta"};

std::string systemError(const std::string &what) {
  return what + ": " + std::strerror(errno);
}

/// Keys name directories: lowercase hex only, so no path can be smuggled in.
Status checkKey(const std::string &key) {
  bool hex = key.size() >= 16 && key.size() <= 128;
  for (char c : key)
    hex &= (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  if (!hex)
    return Status::error("cache key '" + key +
                         "' is not 16 to 128 lowercase hex digits");
  return Status::success();
}

Expected<std::string> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot read '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes and fsyncs a file, so a published entry survives a crash.
Status writeFileDurably(const fs::path &path, const std::string &data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error(systemError("cannot create '" + path.string() + "'"));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      Status status =
          Status::error(systemError("cannot write '" + path.string() + "'"));
      ::close(fd);
      return status;
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    return Status::error(systemError("cannot sync '" + path.string() + "'"));
  return Status::success();
}

std::string manifestOf(const std::string &key, const KernelFiles &files) {
  std::string text = std::string(kManifestHeader) + "\nkey=" + key + "\n";
  const std::string *contents[] = {&files.cubin, &files.meta};
  for (size_t i = 0; i < 2; ++i)
    text += std::string(kFiles[i]) + "=" + sha256Hex(*contents[i]) + " " +
            std::to_string(contents[i]->size()) + "\n";
  return text;
}

/// Checks KEY/ against its manifest: "" if valid, else what is wrong.
std::string checkEntry(const fs::path &entry, const std::string &key) {
  Expected<std::string> manifest = readFile(entry / "manifest");
  if (!manifest.ok())
    return "no manifest";
  KernelFiles files;
  std::string *contents[] = {&files.cubin, &files.meta};
  for (size_t i = 0; i < 2; ++i) {
    Expected<std::string> data = readFile(entry / kFiles[i]);
    if (!data.ok())
      return std::string("no ") + kFiles[i];
    *contents[i] = std::move(*data);
  }
  if (*manifest != manifestOf(key, files))
    return "a file does not match its manifest (truncated or modified)";
  return "";
}

/// A name no other thread or process uses.
std::string uniqueSuffix() {
  static std::atomic<unsigned> counter{0};
  std::ostringstream s;
  s << ::getpid() << "-"
    << std::hash<std::thread::id>()(std::this_thread::get_id()) << "-"
    << counter++;
  return s.str();
}

/// An exclusive flock held for the object's lifetime.
class FileLock {
public:
  static Expected<FileLock> acquire(const fs::path &path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      return Status::error(
          systemError("cannot open lock '" + path.string() + "'"));
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR)
        continue;
      Status status =
          Status::error(systemError("cannot lock '" + path.string() + "'"));
      ::close(fd);
      return status;
    }
    return FileLock(fd);
  }
  FileLock(FileLock &&other) noexcept : fd(other.fd) { other.fd = -1; }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;
  FileLock &operator=(FileLock &&) = delete;
  ~FileLock() {
    if (fd >= 0)
      ::close(fd); // releases the lock
  }

private:
  explicit FileLock(int fd) : fd(fd) {}
  int fd;
};

} // namespace

std::string KernelCache::defaultDirectory() {
  if (const char *dir = std::getenv("FGEMM_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "fgemm").string();
  if (const char *home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "fgemm").string();
  return (fs::temp_directory_path() / "fgemm-cache").string();
}

Expected<std::optional<CachedKernel>>
KernelCache::lookup(const std::string &key) const {
  FGEMM_RETURN_IF_ERROR(checkKey(key));
  fs::path entry = fs::path(directory) / key;
  std::error_code error;
  if (!fs::exists(entry, error))
    return std::optional<CachedKernel>();
  if (std::string problem = checkEntry(entry, key); !problem.empty())
    return Status::error("cache entry '" + entry.string() +
                         "' is corrupt: " + problem);
  CachedKernel kernel;
  kernel.base = (entry / "kernel").string();
  return std::optional<CachedKernel>(kernel);
}

Expected<CachedKernel> KernelCache::getOrBuild(
    const std::string &key,
    const std::function<Expected<KernelFiles>()> &build) const {
  FGEMM_RETURN_IF_ERROR(checkKey(key));
  // Fast path: a valid entry needs no lock.
  if (Expected<std::optional<CachedKernel>> found = lookup(key);
      found.ok() && *found)
    return **found;

  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    return Status::error("cannot create the kernel cache '" + directory +
                         "': " + error.message());
  Expected<FileLock> lock =
      FileLock::acquire(fs::path(directory) / (key + ".lock"));
  if (!lock.ok())
    return lock.takeStatus();

  // Whoever held the lock before may have published it.
  fs::path entry = fs::path(directory) / key;
  Expected<std::optional<CachedKernel>> found = lookup(key);
  if (found.ok() && *found)
    return **found;
  if (!found.ok() || fs::exists(entry, error)) {
    // Corrupt: move it aside (a rename is atomic for readers), then delete.
    fs::path aside =
        fs::path(directory) / (".corrupt-" + key + "-" + uniqueSuffix());
    fs::rename(entry, aside, error);
    if (error)
      return Status::error("cannot move the corrupt cache entry '" +
                           entry.string() + "' aside: " + error.message());
    fs::remove_all(aside, error);
  }

  Expected<KernelFiles> files = build();
  if (!files.ok())
    return files.takeStatus();
  fs::path staging =
      fs::path(directory) / (".tmp-" + key + "-" + uniqueSuffix());
  fs::create_directory(staging, error);
  if (error)
    return Status::error("cannot create '" + staging.string() +
                         "': " + error.message());
  auto abandon = [&](Status status) {
    fs::remove_all(staging, error);
    return status;
  };
  const std::string *contents[] = {&files->cubin, &files->meta};
  for (size_t i = 0; i < 2; ++i) {
    Status written = writeFileDurably(staging / kFiles[i], *contents[i]);
    if (!written.ok())
      return abandon(std::move(written));
  }
  // The manifest last: an entry without one is never valid.
  Status written =
      writeFileDurably(staging / "manifest", manifestOf(key, *files));
  if (!written.ok())
    return abandon(std::move(written));
  fs::rename(staging, entry, error);
  if (error)
    return abandon(Status::error("cannot publish cache entry '" +
                                 entry.string() + "': " + error.message()));
  CachedKernel kernel;
  kernel.base = (entry / "kernel").string();
  kernel.built = true;
  return kernel;
}
