/**
 * Instance names and every path and name derived from them. One instance is one isolated
 * Ghostlight: its own sockets, state, config, native host and MCP server name.
 *
 * @module
 */

import { z } from "zod";

/** A valid instance name: `[a-z][a-z0-9-]{0,31}`, with `default` reserved for the unnamed one. */
export const InstanceName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, "instance names are [a-z][a-z0-9-]{0,31}")
  .refine((name) => name !== "default", "'default' is reserved; omit --instance instead");

/** Reads an environment variable; injected so path resolution is a pure function. */
export type EnvReader = (key: string) => string | undefined;

/** Every location and name one instance uses. */
export interface InstancePaths {
  /** The instance name, or null for the default instance. */
  instance: string | null;
  runtimeDir: string;
  stateDir: string;
  configDir: string;
  /** Throwaway files: the isolated browser profiles of `browser launch`. */
  cacheDir: string;
  bridgeSocket: string;
  browserSocket: string;
  controlSocket: string;
  /** Serialises service start-up so two demand starts cannot both bind. */
  startLock: string;
  /** Each role's key file (decision 0250): only that role's permission set may read it. */
  keys: KeyFiles;
  /**
   * The one secret every role shared before roles had keys of their own: the service removes it
   * when it finds it, and nothing reads it.
   */
  legacySecretFile: string;
  logFile: string;
  /** The audit: JSON Lines, rotated beside it as `audit.jsonl.N`. */
  auditFile: string;
  /** The person's policy (JSONC); none means all open. */
  policyFile: string;
  /** Chrome native-messaging host name. */
  nativeHostName: string;
  /** Name under which MCP clients know this server. */
  mcpServerName: string;
}

/** The key files of an instance, all in its state folder, each 0600. */
export interface KeyFiles {
  /** The service's own secret (only the service's set reads it): its signing key, the audit's. */
  service: string;
  /** The public half of the service's signing key, which every connector reads. */
  servicePublic: string;
  /** The MCP connector's key, proved on the bridge socket. */
  mcp: string;
  /** The browser connector's key, proved on the browser socket. */
  browser: string;
}

/** Sockets longer than this (sun_path is 104 bytes on macOS, 108 on Linux) move to a hashed dir. */
const MAX_SOCKET_PATH = 100;

/**
 * Parses an instance name from `--instance` or `GHOSTLIGHT_INSTANCE`. Returns null for the
 * default instance and throws a readable error for an invalid name.
 */
export function parseInstance(raw: string | undefined): string | null {
  if (raw === undefined || raw === "") return null;
  const parsed = InstanceName.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `invalid instance name ${JSON.stringify(raw)}: ${parsed.error.issues[0].message}`,
    );
  }
  return parsed.data;
}

/**
 * The instance's own name for Ghostlight: `ghostlight` for the default instance, else
 * `ghostlight-NAME`, as its launcher, its install folder and its autostart unit are called.
 */
export function instanceCommand(instance: string | null): string {
  return instance === null ? "ghostlight" : `ghostlight-${instance}`;
}

/**
 * Derives every path and name for an instance from the user's environment. `loginRuntimeDir` is
 * the user's login runtime folder (`/run/user/<uid>`) when it exists: MCP clients start the
 * connector with a filtered environment that often lacks `XDG_RUNTIME_DIR`, and the connector
 * must still find the service a terminal started where that variable was set.
 */
export function resolveInstancePaths(
  instance: string | null,
  env: EnvReader,
  options: { loginRuntimeDir?: string | null } = {},
): InstancePaths {
  const home = env("HOME");
  if (!home) throw new Error("HOME is not set; Ghostlight keeps its state under the home folder");
  const suffix = instance === null ? "" : `-${instance}`;
  const base = `ghostlight${suffix}`;
  const stateDir = `${env("XDG_STATE_HOME") || `${home}/.local/state`}/${base}`;
  const configDir = `${env("XDG_CONFIG_HOME") || `${home}/.config`}/${base}`;
  const cacheHome = env("XDG_CACHE_HOME") || `${home}/.cache`;
  const runtimeParent = env("XDG_RUNTIME_DIR") || options.loginRuntimeDir || cacheHome;
  let runtimeDir = `${runtimeParent}/${base}`;
  if (`${runtimeDir}/control.sock`.length > MAX_SOCKET_PATH) {
    runtimeDir = `${env("TMPDIR") || "/tmp"}/gl-${shortHash(runtimeDir)}`;
  }
  const hostSuffix = instance === null ? "" : `_${instance.replaceAll("-", "_")}`;
  return {
    instance,
    runtimeDir,
    stateDir,
    configDir,
    cacheDir: `${cacheHome}/${base}`,
    bridgeSocket: `${runtimeDir}/bridge.sock`,
    browserSocket: `${runtimeDir}/browser.sock`,
    controlSocket: `${runtimeDir}/control.sock`,
    startLock: `${runtimeDir}/start.lock`,
    keys: {
      service: `${stateDir}/service.key`,
      servicePublic: `${stateDir}/service.pub`,
      mcp: `${stateDir}/mcp.key`,
      browser: `${stateDir}/browser.key`,
    },
    legacySecretFile: `${stateDir}/secret`,
    logFile: `${stateDir}/service.log`,
    auditFile: `${stateDir}/audit.jsonl`,
    policyFile: `${configDir}/policy.jsonc`,
    nativeHostName: `com.ghostlight.browser${hostSuffix}`,
    mcpServerName: base,
  };
}

/**
 * Resolves, in this process's environment, the paths of the instance `name` names: `--instance`
 * when given, else the `GHOSTLIGHT_INSTANCE` setting. Throws for an invalid name.
 */
export function instancePathsFromEnv(name: string | undefined): InstancePaths {
  const env: EnvReader = (key) => Deno.env.get(key);
  return resolveInstancePaths(parseInstance(name), env, {
    loginRuntimeDir: env("XDG_RUNTIME_DIR") ? null : loginRuntimeDir(),
  });
}

/**
 * `/run/user/<uid>` when it is a folder of this user's, as systemd-logind makes it; null when it
 * is not, or this process may not look (a least-privilege executable is given XDG_RUNTIME_DIR by
 * whatever started it instead).
 */
export function loginRuntimeDir(): string | null {
  try {
    const dir = `/run/user/${Deno.uid()}`;
    const info = Deno.statSync(dir);
    return info.isDirectory && info.uid === Deno.uid() ? dir : null;
  } catch {
    return null;
  }
}

/** A 16-hex-digit FNV-1a hash: short, stable, and needs no async crypto. */
function shortHash(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
