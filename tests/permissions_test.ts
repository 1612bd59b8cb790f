/**
 * Each executable's permissions, as declared in deno.json and as enforced on a process started
 * the way the executable is (its set plus its instance's flags, decision 0100): its own folders,
 * key and socket yes, another role's key no (decision 0250); another instance, the rest of the
 * filesystem, other programs, the network and FFI no. And the installer's (decision 0084): install and uninstall write the home
 * folder and reach no socket and no program; doctor writes nothing, reaches its instance's
 * sockets and may run the service entry; neither reaches the network, another program or FFI.
 */

import { MACHINE_POLICY_FILE } from "../service/governance/mod.ts";
import { permissionFlags, type Start, type StartOptions } from "../service/privilege/mod.ts";
import { type InstancePaths, type KeyFiles, resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals } from "./support/assert.ts";
import { makeTestEnv, ROOT, type TestEnv } from "./support/env.ts";
import type { ProbeTargets } from "./support/permission_probe.ts";

const SETS = ["mcp-connector", "service", "browser-connector"] as const;

const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));

/** The variables every executable may read: where its instance lives, and its settings. */
const PATH_ENV = [
  "HOME",
  "XDG_RUNTIME_DIR",
  "XDG_STATE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "TMPDIR",
  "GHOSTLIGHT_*",
];

Deno.test("each static set grants no path, no network, no program and no FFI", () => {
  for (const name of SETS) {
    const set = config.permissions[name];
    assert(set, `${name} is declared`);
    assertEquals(
      Object.keys(set).sort(),
      ["env", "sys"],
      `${name}: read, write, net and run come only from its instance's flags`,
    );
    assertEquals(set.sys, ["uid"], `${name} may ask only for its user id`);
  }
  assertEquals(config.permissions["mcp-connector"].env, PATH_ENV);
  assertEquals(config.permissions["browser-connector"].env, PATH_ENV);
  // `browser launch` writes the native host's entry, which pins DENO_DIR for a source install.
  assertEquals(config.permissions["service"].env, [...PATH_ENV, "DENO_DIR"]);
});

Deno.test("the installer's set grants no path, network or program either", () => {
  const set = config.permissions["installer"];
  assertEquals(Object.keys(set).sort(), ["env", "sys"], "its paths come from its flags too");
  assertEquals(set.sys, ["uid"]);
  // Also where installs go, Codex's folder, the Deno cache it pins, and PATH for its advice.
  assertEquals(set.env, [...PATH_ENV, "XDG_DATA_HOME", "CODEX_HOME", "DENO_DIR", "PATH"]);
});

/** Listens on `path` so that connecting to it can succeed. */
function listenOn(path: string): Deno.UnixListener {
  const listener = Deno.listen({ transport: "unix", path });
  (async () => {
    for await (const conn of listener) conn.close();
  })();
  return listener;
}

/** Lays out two instances of one user: the probed one and another, each with its keys. */
async function twoInstances(
  testEnv: TestEnv,
): Promise<{ own: InstancePaths; other: InstancePaths }> {
  const own = testEnv.plan.paths;
  const other = resolveInstancePaths(`${testEnv.instance}-other`, (key) => testEnv.env[key]);
  for (const paths of [own, other]) {
    for (const dir of [paths.runtimeDir, paths.stateDir]) {
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    }
    for (const file of Object.values(paths.keys)) {
      await Deno.writeFile(file, new Uint8Array(32), { mode: 0o600 });
    }
  }
  return { own, other };
}

/** One probe: a start as it is made, and what differs for it from the refusals all share. */
interface ProbeRow {
  label: string;
  start: Start;
  options?: StartOptions;
  socket: "bridge" | "browser";
  /** The key its role proves itself with. */
  key: keyof KeyFiles;
  /** Which of its instance's keys it may read (decision 0250). */
  keys: Record<keyof KeyFiles, "allowed" | "refused">;
  expected: Record<string, string>;
}

const ALL_KEYS = {
  service: "allowed",
  servicePublic: "allowed",
  mcp: "allowed",
  browser: "allowed",
} as const;

const PROBES: ProbeRow[] = [
  {
    label: "service",
    start: "service",
    socket: "bridge",
    key: "service",
    keys: ALL_KEYS,
    expected: { writeOwnState: "allowed", runServiceEntry: "refused" },
  },
  {
    label: "mcp-connector",
    start: "mcp-connector",
    socket: "bridge",
    key: "mcp",
    // Its own key and the service's public one: never the browser's, nor the service's secret.
    keys: { service: "refused", servicePublic: "allowed", mcp: "allowed", browser: "refused" },
    expected: { writeOwnState: "refused", runServiceEntry: "allowed" },
  },
  {
    label: "browser-connector",
    start: "browser-connector",
    socket: "browser",
    key: "browser",
    keys: { service: "refused", servicePublic: "allowed", mcp: "refused", browser: "allowed" },
    expected: { writeOwnState: "refused", runServiceEntry: "refused" },
  },
  {
    // install and uninstall: the person's home folder, read and write; no socket, no program.
    label: "installer",
    start: "installer",
    socket: "bridge",
    key: "service",
    keys: ALL_KEYS,
    expected: {
      readOtherKey: "allowed",
      writeOwnState: "allowed",
      writeHome: "allowed",
      runServiceEntry: "refused",
      unixOwn: "refused",
    },
  },
  {
    // doctor: reads the home folder, writes nothing, reaches its sockets and the service entry.
    label: "installer (doctor)",
    start: "installer",
    options: { doctor: true },
    socket: "bridge",
    key: "service",
    // Doctor proves itself on the bridge (the MCP key) and on the control socket (the service's).
    keys: ALL_KEYS,
    expected: {
      readOtherKey: "allowed",
      writeOwnState: "refused",
      runServiceEntry: "allowed",
    },
  },
];

Deno.test("under each set and its flags, a process reaches only its own instance", async () => {
  const testEnv = await makeTestEnv("perm");
  const { own, other } = await twoInstances(testEnv);
  const listeners = [own.bridgeSocket, own.browserSocket, other.bridgeSocket].map(listenOn);
  try {
    for (const row of PROBES) {
      const targets: ProbeTargets = {
        ownSocket: row.socket === "bridge" ? own.bridgeSocket : own.browserSocket,
        otherSocket: other.bridgeSocket,
        ownKey: own.keys[row.key],
        otherKey: other.keys[row.key],
        keys: { ...own.keys },
        ownStateFile: `${own.stateDir}/probe`,
        homeFile: `${testEnv.home}/.bashrc`,
        tmpFile: `/tmp/ghostlight-probe-${crypto.randomUUID()}`,
        serviceEntry: testEnv.plan.serviceEntry!,
      };
      // Exactly how the executable is started, with the probe in place of its entry point.
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-q",
          `-P=${row.start}`,
          "--config",
          `${ROOT}/deno.json`,
          ...permissionFlags(row.start, testEnv.plan, row.options),
          `${ROOT}/tests/support/permission_probe.ts`,
          JSON.stringify(targets),
        ],
        env: testEnv.env,
        clearEnv: true,
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert(output.success, `${row.label} probe ran: ${stderr}`);
      const results = JSON.parse(new TextDecoder().decode(output.stdout));
      const { entryAnswer, ...attempts } = results;
      assertEquals(attempts, {
        readShadow: "refused",
        readOwnKey: "allowed",
        readOtherKey: "refused",
        readKeys: row.keys,
        writeHome: "refused",
        writeTmp: "refused",
        envOther: "refused",
        envAll: "refused",
        sysHostname: "refused",
        runDenoByName: "refused",
        runDenoByPath: "refused",
        runShell: "refused",
        ffi: "refused",
        tcpLoopback: "refused",
        tcpLocalhost: "refused",
        tcpHostname: "refused",
        tcpLoopbackV6: "refused",
        tcpGlobalV6: "refused",
        tcpListen: "refused",
        tcpListenAllV6: "refused",
        fetchHttp: "refused",
        dns: "refused",
        unixOwn: "allowed",
        unixOther: "refused",
        ...row.expected,
      }, row.label);
      if (row.expected.runServiceEntry === "allowed") {
        // The one program it may run takes no Deno flag: "--allow-all" reached the service's
        // own command line, which refused it as a command.
        assert(
          /^2: ghostlight: unknown command "--allow-all"/.test(entryAnswer),
          `the service entry widened nothing: ${entryAnswer}`,
        );
      }
    }
  } finally {
    for (const listener of listeners) listener.close();
    await testEnv.dispose();
  }
});

Deno.test("every path flag names only the instance's own folders, files and sockets", async () => {
  assertEquals(MACHINE_POLICY_FILE, "/etc/ghostlight/policy.jsonc");
  const testEnv = await makeTestEnv("perm");
  try {
    const p = testEnv.plan.paths;
    const own = [p.runtimeDir, p.stateDir, p.configDir, p.cacheDir];
    const sockets = (list: string[]) => list.map((socket) => `unix:${socket}`).join(",");
    assertEquals(permissionFlags("service", testEnv.plan), [
      // Besides its own: the extension it serves, and the machine-wide policy (read only).
      `--allow-read=${[...own, `${ROOT}/extension`, "/etc/ghostlight"].join(",")}`,
      `--allow-write=${own.join(",")}`,
      `--allow-net=${sockets([p.bridgeSocket, p.browserSocket, p.controlSocket])}`,
    ]);
    assertEquals(
      permissionFlags("service", testEnv.plan, { browserLaunch: true }).at(-1),
      // Chromium's watcher (decision 0640), by absolute path; it starts Chromium.
      "--allow-run=/bin/sh",
    );
    assertEquals(permissionFlags("mcp-connector", testEnv.plan), [
      `--allow-read=${p.keys.mcp},${p.keys.servicePublic},${p.bridgeSocket}`,
      `--allow-write=${p.bridgeSocket}`,
      `--allow-net=${sockets([p.bridgeSocket])}`,
      `--allow-run=${testEnv.plan.serviceEntry}`,
    ]);
    assertEquals(permissionFlags("browser-connector", testEnv.plan), [
      `--allow-read=${p.keys.browser},${p.keys.servicePublic},${p.browserSocket}`,
      `--allow-write=${p.browserSocket}`,
      `--allow-net=${sockets([p.browserSocket])}`,
    ]);
    // The installer: the home folder (every XDG folder of a test lies inside it), the
    // machine-wide policy, and the program it installs; doctor only reaches the sockets and the
    // service entry.
    const program = `--allow-read=${testEnv.home},/etc/ghostlight,${ROOT},${Deno.execPath()}`;
    assertEquals(permissionFlags("installer", testEnv.plan), [
      program,
      `--allow-write=${testEnv.home}`,
    ]);
    assertEquals(permissionFlags("installer", testEnv.plan, { doctor: true }), [
      program,
      `--allow-write=${p.bridgeSocket},${p.controlSocket}`,
      `--allow-net=${sockets([p.bridgeSocket, p.controlSocket])}`,
      `--allow-run=${testEnv.plan.serviceEntry}`,
    ]);
  } finally {
    await testEnv.dispose();
  }
});
