/**
 * The registry half of a Windows install, as `reg.exe` command lines: each browser's native-host
 * key and the autostart Run value. Kept as data so the plan is tested on any machine; only a
 * process allowed to run `reg.exe` (the installer body, `install.ts`) carries it out.
 *
 * @module
 */

import type { RegistryValue } from "./browsers.ts";

/** The `reg.exe` arguments that set `value` under HKCU. */
export function regAddArgs(value: RegistryValue): string[] {
  return [
    "add",
    `HKCU\\${value.key}`,
    ...(value.name === "" ? ["/ve"] : ["/v", value.name]),
    "/t",
    "REG_SZ",
    "/d",
    value.data,
    "/f",
  ];
}

/**
 * The `reg.exe` arguments that undo {@linkcode regAddArgs}: a key's default value means the key
 * is ours (a native-host key) and goes whole; a named value (in the shared Run key) goes alone.
 */
export function regDeleteArgs(value: RegistryValue): string[] {
  return value.name === ""
    ? ["delete", `HKCU\\${value.key}`, "/f"]
    : ["delete", `HKCU\\${value.key}`, "/v", value.name, "/f"];
}
