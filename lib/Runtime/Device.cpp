//===- Device.cpp - Devices, contexts, buffers, streams, events -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Device.h"

#include <utility>

using namespace fgemm;

std::string fgemm::smName(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

Status fgemm::checkHopper(const DeviceInfo &device) {
  if (device.major == 9 && device.minor == 0)
    return Status::success();
  return Status::error("fgemm kernels need sm_90a (Hopper); device " +
                       std::to_string(device.ordinal) + " (" + device.name +
                       ") is " + smName(device.major, device.minor));
}

Status fgemm::checkSmLimit(int sms, const DeviceInfo &device) {
  if (sms < 0 || sms > device.smCount)
    return Status::error("num_sms = " + std::to_string(sms) +
                         " is not in [0, " + std::to_string(device.smCount) +
                         "] (0 = all SMs of " + device.name + ")");
  return Status::success();
}

Expected<DeviceInfo> fgemm::currentHopperDevice() {
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.takeStatus();
  return currentHopperDevice(**driver);
}

Expected<DeviceInfo> fgemm::currentHopperDevice(const Driver &driver) {
  Expected<DeviceInfo> device = currentDevice(driver);
  if (!device.ok())
    return device.takeStatus();
  FGEMM_RETURN_IF_ERROR(checkHopper(*device));
  return device;
}

/// Fills `info` for `device`.
static Status describe(const Driver &driver, CUdevice device, int ordinal,
                       DeviceInfo &info) {
  char name[256] = {};
  FGEMM_CU_CHECK(driver.cuDeviceGetName(name, sizeof(name) - 1, device));
  info.ordinal = ordinal;
  info.name = name;
  FGEMM_CU_CHECK(driver.cuDeviceGetAttribute(
      &info.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  FGEMM_CU_CHECK(driver.cuDeviceGetAttribute(
      &info.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  FGEMM_CU_CHECK(driver.cuDeviceGetAttribute(
      &info.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  FGEMM_CU_CHECK(driver.cuDeviceGetAttribute(
      &info.maxSharedMemoryOptin,
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device));
  FGEMM_CU_CHECK(driver.cuDeviceGetAttribute(
      &info.l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device));
  return Status::success();
}

Expected<DeviceInfo> fgemm::queryDevice(const Driver &driver, int ordinal) {
  CUdevice device;
  FGEMM_CU_CHECK(driver.cuDeviceGet(&device, ordinal));
  DeviceInfo info;
  FGEMM_RETURN_IF_ERROR(describe(driver, device, ordinal, info));
  return info;
}

Expected<std::vector<DeviceInfo>> fgemm::listDevices(const Driver &driver) {
  int count = 0;
  FGEMM_CU_CHECK(driver.cuDeviceGetCount(&count));
  std::vector<DeviceInfo> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    Expected<DeviceInfo> info = queryDevice(driver, ordinal);
    if (!info.ok())
      return info.takeStatus();
    devices.push_back(std::move(*info));
  }
  return devices;
}

Expected<DeviceInfo> fgemm::currentDevice(const Driver &driver) {
  CUcontext context = nullptr;
  FGEMM_CU_CHECK(driver.cuCtxGetCurrent(&context));
  if (!context)
    return Status::error("no current CUDA context on this thread (retain a "
                         "device's primary context and make it current first)");
  CUdevice device;
  FGEMM_CU_CHECK(driver.cuCtxGetDevice(&device));
  // CUdevice values are ordinals in every driver so far; the name and
  // attributes come from the handle itself either way.
  DeviceInfo info;
  FGEMM_RETURN_IF_ERROR(
      describe(driver, device, static_cast<int>(device), info));
  return info;
}

//===----------------------------------------------------------------------===//
// PrimaryContext
//===----------------------------------------------------------------------===//

Expected<PrimaryContext> PrimaryContext::retain(const Driver &driver,
                                                int ordinal) {
  int count = 0;
  FGEMM_CU_CHECK(driver.cuDeviceGetCount(&count));
  if (ordinal < 0 || ordinal >= count)
    return Status::error("no CUDA device " + std::to_string(ordinal) + " (" +
                         std::to_string(count) + " present)");
  CUdevice device;
  FGEMM_CU_CHECK(driver.cuDeviceGet(&device, ordinal));
  CUcontext context = nullptr;
  FGEMM_CU_CHECK(driver.cuDevicePrimaryCtxRetain(&context, device));
  PrimaryContext owner(driver, device, context);
  FGEMM_CU_CHECK(driver.cuCtxSetCurrent(context));
  return owner;
}

PrimaryContext::PrimaryContext(PrimaryContext &&other) noexcept
    : driver(other.driver), device(other.device), context(other.context) {
  other.context = nullptr;
}

PrimaryContext::~PrimaryContext() {
  // Release only: the thread's current context may be the same primary
  // context used by others (PyTorch, DeepGEMM), and is not ours to unset.
  if (context)
    (void)driver->cuDevicePrimaryCtxRelease(device);
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

Expected<DeviceBuffer> DeviceBuffer::allocate(const Driver &driver,
                                              size_t bytes) {
  CUdeviceptr pointer = 0;
  if (bytes)
    FGEMM_CU_CHECK(driver.cuMemAlloc(&pointer, bytes));
  return DeviceBuffer(driver, pointer, bytes);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : driver(other.driver), pointer(other.pointer), bytes(other.bytes) {
  other.pointer = 0;
  other.bytes = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    driver = other.driver;
    pointer = std::exchange(other.pointer, 0);
    bytes = std::exchange(other.bytes, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (pointer)
    (void)driver->cuMemFree(pointer);
  pointer = 0;
  bytes = 0;
}

/// Checks that [offset, offset + count) lies inside a buffer of `size` bytes.
static Status checkRange(size_t offset, size_t count, size_t size) {
  if (offset > size || count > size - offset)
    return Status::error("copy of " + std::to_string(count) +
                         " bytes at offset " + std::to_string(offset) +
                         " overruns a device buffer of " +
                         std::to_string(size) + " bytes");
  return Status::success();
}

Status DeviceBuffer::copyFromHost(const void *source, size_t count,
                                  size_t offset) {
  FGEMM_RETURN_IF_ERROR(checkRange(offset, count, bytes));
  if (count)
    FGEMM_CU_CHECK(driver->cuMemcpyHtoD(pointer + offset, source, count));
  return Status::success();
}

Status DeviceBuffer::copyToHost(void *destination, size_t count,
                                size_t offset) const {
  FGEMM_RETURN_IF_ERROR(checkRange(offset, count, bytes));
  if (count)
    FGEMM_CU_CHECK(driver->cuMemcpyDtoH(destination, pointer + offset, count));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Stream and Event
//===----------------------------------------------------------------------===//

Expected<Stream> Stream::create(const Driver &driver) {
  CUstream stream = nullptr;
  FGEMM_CU_CHECK(driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return Stream(driver, stream);
}

Stream::Stream(Stream &&other) noexcept
    : driver(other.driver), stream(other.stream) {
  other.stream = nullptr;
}

Stream::~Stream() {
  if (stream)
    (void)driver->cuStreamDestroy(stream);
}

Status Stream::synchronize() const {
  FGEMM_CU_CHECK(driver->cuStreamSynchronize(stream));
  return Status::success();
}

Expected<Event> Event::create(const Driver &driver) {
  CUevent event = nullptr;
  FGEMM_CU_CHECK(driver.cuEventCreate(&event, CU_EVENT_DEFAULT));
  return Event(driver, event);
}

Event::Event(Event &&other) noexcept
    : driver(other.driver), event(other.event) {
  other.event = nullptr;
}

Event::~Event() {
  if (event)
    (void)driver->cuEventDestroy(event);
}

Status Event::record(CUstream stream) const {
  FGEMM_CU_CHECK(driver->cuEventRecord(event, stream));
  return Status::success();
}

Expected<float> Event::elapsedSince(const Event &start) const {
  FGEMM_CU_CHECK(driver->cuEventSynchronize(event));
  float milliseconds = 0;
  FGEMM_CU_CHECK(driver->cuEventElapsedTime(&milliseconds, start.event, event));
  return milliseconds;
}
