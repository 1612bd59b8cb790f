import { assertEquals, assertRejects } from "../tests/support/assert.ts";
import { parseInstance, resolveInstancePaths } from "./instance.ts";

const env = (values: Record<string, string>) => (key: string) => values[key];

Deno.test("instance names follow [a-z][a-z0-9-]{0,31} and 'default' is reserved", async () => {
  assertEquals(parseInstance("demo-1"), "demo-1");
  assertEquals(parseInstance(undefined), null);
  for (const bad of ["Demo", "1abc", "a_b", "a".repeat(33), "default", "../x"]) {
    await assertRejects(
      () => Promise.resolve().then(() => parseInstance(bad)),
      /invalid instance name/,
    );
  }
});

Deno.test("every path and name derives from the instance", () => {
  const paths = resolveInstancePaths(
    "try-it",
    env({ HOME: "/home/u", XDG_RUNTIME_DIR: "/run/user/1000" }),
  );
  assertEquals(paths.runtimeDir, "/run/user/1000/ghostlight-try-it");
  assertEquals(paths.bridgeSocket, "/run/user/1000/ghostlight-try-it/bridge.sock");
  assertEquals(paths.stateDir, "/home/u/.local/state/ghostlight-try-it");
  assertEquals(paths.configDir, "/home/u/.config/ghostlight-try-it");
  assertEquals(paths.nativeHostName, "com.ghostlight.browser_try_it");
  assertEquals(paths.mcpServerName, "ghostlight-try-it");
  const plain = resolveInstancePaths(null, env({ HOME: "/home/u" }));
  assertEquals(plain.runtimeDir, "/home/u/.cache/ghostlight");
  assertEquals(plain.nativeHostName, "com.ghostlight.browser");
});

Deno.test("a socket path too long for sun_path moves to a short hashed folder", () => {
  const deep = `/home/u/${"very-long-folder-name/".repeat(6)}`;
  const paths = resolveInstancePaths(
    "x",
    env({ HOME: "/home/u", XDG_RUNTIME_DIR: deep, TMPDIR: "/tmp" }),
  );
  if (!/^\/tmp\/gl-[0-9a-f]{16}$/.test(paths.runtimeDir)) throw new Error(paths.runtimeDir);
  if (paths.controlSocket.length > 100) throw new Error("still too long");
  const again = resolveInstancePaths(
    "x",
    env({ HOME: "/home/u", XDG_RUNTIME_DIR: deep, TMPDIR: "/tmp" }),
  );
  assertEquals(again.runtimeDir, paths.runtimeDir);
});

Deno.test("without XDG_RUNTIME_DIR the login runtime folder is used, as a terminal would", () => {
  const fromClient = resolveInstancePaths("x", env({ HOME: "/home/u" }), {
    loginRuntimeDir: "/run/user/1000",
  });
  const fromTerminal = resolveInstancePaths(
    "x",
    env({ HOME: "/home/u", XDG_RUNTIME_DIR: "/run/user/1000" }),
  );
  assertEquals(fromClient.bridgeSocket, fromTerminal.bridgeSocket);
  assertEquals(
    resolveInstancePaths("x", env({ HOME: "/home/u" }), { loginRuntimeDir: null }).runtimeDir,
    "/home/u/.cache/ghostlight-x",
  );
});
