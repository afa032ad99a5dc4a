//===- Device.h - Devices, contexts, buffers, streams, events ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Thin RAII owners for the driver objects fgemm's tools need. Each factory
// returns Expected<Owner>; destructors release quietly (a destructor cannot
// report), so code that needs to see release errors synchronizes first.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_DEVICE_H
#define FGEMM_RUNTIME_DEVICE_H

#include "Runtime/Driver.h"
#include "Runtime/Status.h"

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace fgemm {

/// What the runtime needs to know about a device.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int major = 0;
  int minor = 0;
  int smCount = 0;
  /// Largest dynamic shared memory a block may opt in to, in bytes.
  int maxSharedMemoryOptin = 0;
  /// L2 cache size in bytes (the tile order's choice, chooseRasterGroup).
  int l2Bytes = 0;
};

/// "sm_90" for 9.0.
std::string smName(int major, int minor);

/// Ok for compute capability 9.0 (the fgemm cubins are sm_90a); otherwise an
/// error naming the device and its architecture.
Status checkHopper(const DeviceInfo &device);

/// Checks a cap on the SMs launches plan for (DeepGEMM's set_num_sms): 0
/// (all) up to the device's count.
Status checkSmLimit(int sms, const DeviceInfo &device);

/// The device of the calling thread's current context, which must be sm_90
/// (currentDevice, then checkHopper): where the GEMMs load their kernels.
Expected<DeviceInfo> currentHopperDevice(const Driver &driver);
/// The same through the process's driver (Driver::get).
Expected<DeviceInfo> currentHopperDevice();

/// Describes device `ordinal`.
Expected<DeviceInfo> queryDevice(const Driver &driver, int ordinal);

/// Describes every device the driver sees.
Expected<std::vector<DeviceInfo>> listDevices(const Driver &driver);

/// The device of the calling thread's current context (error if none).
Expected<DeviceInfo> currentDevice(const Driver &driver);

/// Retains a device's primary context and makes it current; releases it
/// when destroyed (leaving the thread's current context alone: others, such
/// as PyTorch, may use the same primary context).
class PrimaryContext {
public:
  static Expected<PrimaryContext> retain(const Driver &driver, int ordinal);
  PrimaryContext(PrimaryContext &&other) noexcept;
  PrimaryContext &operator=(PrimaryContext &&) = delete;
  PrimaryContext(const PrimaryContext &) = delete;
  ~PrimaryContext();

  CUcontext get() const { return context; }

private:
  PrimaryContext(const Driver &driver, CUdevice device, CUcontext context)
      : driver(&driver), device(device), context(context) {}
  const Driver *driver;
  CUdevice device;
  CUcontext context;
};

/// Device memory from cuMemAlloc.
class DeviceBuffer {
public:
  /// `bytes` may be 0 (no allocation, null pointer).
  static Expected<DeviceBuffer> allocate(const Driver &driver, size_t bytes);
  /// An empty buffer (null pointer, 0 bytes).
  DeviceBuffer() : driver(nullptr), pointer(0), bytes(0) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  CUdeviceptr get() const { return pointer; }
  size_t size() const { return bytes; }

  /// Synchronous copies of `count` bytes at byte `offset` of the buffer.
  Status copyFromHost(const void *source, size_t count, size_t offset = 0);
  Status copyToHost(void *destination, size_t count, size_t offset = 0) const;

private:
  DeviceBuffer(const Driver &driver, CUdeviceptr pointer, size_t bytes)
      : driver(&driver), pointer(pointer), bytes(bytes) {}
  void release();
  const Driver *driver;
  CUdeviceptr pointer;
  size_t bytes;
};

/// A non-blocking stream.
class Stream {
public:
  static Expected<Stream> create(const Driver &driver);
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&) = delete;
  Stream(const Stream &) = delete;
  ~Stream();

  CUstream get() const { return stream; }
  Status synchronize() const;

private:
  Stream(const Driver &driver, CUstream stream)
      : driver(&driver), stream(stream) {}
  const Driver *driver;
  CUstream stream;
};

/// A timing event.
class Event {
public:
  static Expected<Event> create(const Driver &driver);
  Event(Event &&other) noexcept;
  Event &operator=(Event &&) = delete;
  Event(const Event &) = delete;
  ~Event();

  CUevent get() const { return event; }
  Status record(CUstream stream) const;
  /// Milliseconds from `start` to this event; waits for this event first.
  Expected<float> elapsedSince(const Event &start) const;

private:
  Event(const Driver &driver, CUevent event) : driver(&driver), event(event) {}
  const Driver *driver;
  CUevent event;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_DEVICE_H
