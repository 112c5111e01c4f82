package org.nlspark.core.memory;

import java.util.OptionalLong;

/** A {@link MemoryProbe} with fixed answers; a null means "cannot be measured". */
record FakeMemory(Long systemAvailable, long heapHeadroom, Long deviceFree) implements MemoryProbe {
  @Override
  public OptionalLong availableSystemBytes() {
    return systemAvailable == null ? OptionalLong.empty() : OptionalLong.of(systemAvailable);
  }

  @Override
  public long heapHeadroomBytes() {
    return heapHeadroom;
  }

  @Override
  public OptionalLong freeDeviceBytes() {
    return deviceFree == null ? OptionalLong.empty() : OptionalLong.of(deviceFree);
  }
}
