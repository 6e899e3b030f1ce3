//===- weaving/plugin/Objects.h - What plugins attach to objects -*- C++ -*-===//
//
// The modules, types and methods the runtime profiler shows plugins' runtime hooks (weftObject
// of the C++ API, weft_object of the C ABI: the same objects), each holding what every plugin
// attached to it, keyed by the plugin and released with the object.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_PLUGIN_OBJECTS_H
#define WEFT_WEAVING_PLUGIN_OBJECTS_H

#include <mutex>
#include <vector>

struct weftObject {
  struct Item {
    const void *Plugin;
    void *Data;
    void (*Release)(void *);
  };
  std::mutex Lock;
  std::vector<Item> Items;

  weftObject() = default;
  weftObject(const weftObject &) = delete;
  ~weftObject() {
    for (Item &I : Items)
      if (I.Release)
        I.Release(I.Data);
  }
};

namespace weft::plugin {

/// What \p Plugin attached to \p Object (null if nothing, or no object).
void *objectData(weftObject *Object, const void *Plugin);
/// Attaches \p Data to \p Object for \p Plugin, releasing what it attached before.
void setObjectData(weftObject *Object, const void *Plugin, void *Data, void (*Release)(void *));

} // namespace weft::plugin

#endif
