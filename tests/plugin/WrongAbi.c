/*===- tests/plugin/WrongAbi.c - A plugin of another C ABI version --------===*\
|*                                                                          *|
|* Says it was built for ABI version 999: weft refuses it in SetPluginInfo, *|
|* and the plugin gives up as a plugin should.                               *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
#include "weft-c/Plugin.h"

WEFT_EXPORT weft_status weft_plugin_init(const weft_api *Api, weft_plugin *Plugin) {
  weft_string Name = {"wrong-abi", 9}, Version = {"0", 1};
  return Api->SetPluginInfo(Plugin, 999, Name, Version);
}
