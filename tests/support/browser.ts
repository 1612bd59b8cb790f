/**
 * Starts `ghostlight browser launch --headless` for a test instance and stops it again.
 *
 * @module
 */

import { executable, ROOT, type TestEnv } from "./env.ts";
import { signalOrTimeout } from "./wait.ts";

/** A running `browser launch`. */
export interface LaunchedBrowser {
  ready: {
    slot: number;
    extension_id: string;
    user_data_dir: string;
    pid: number;
    /** The DevTools endpoint, when launched with `--remote-debugging`. */
    devtools?: string;
  };
  /** Sends SIGTERM and waits for launch to clean up; returns its exit code. */
  stop(): Promise<number>;
  /** The `browser launch` process's own id (not Chromium's: that is `ready.pid`). */
  launcher: number;
  /** Sends `signal` to the `browser launch` process alone and waits for it to end. */
  kill(signal: Deno.Signal): Promise<void>;
  stderr(): string;
}

/**
 * Runs `browser launch --headless` and waits for its ready line. With `viaTask` it goes through
 * `deno task ghostlight`, exactly as the README tells a person to.
 */
export async function launchBrowser(
  testEnv: TestEnv,
  options: { extra?: string[]; viaTask?: boolean } = {},
): Promise<LaunchedBrowser> {
  const cli = [
    "--instance",
    testEnv.instance,
    "browser",
    "launch",
    "--headless",
    ...(options.extra ?? []),
  ];
  const { command, args } = options.viaTask
    ? {
      command: Deno.execPath(),
      args: ["task", "-q", "--config", `${ROOT}/deno.json`, "ghostlight", ...cli],
    }
    : executable(testEnv, "service", cli, { browserLaunch: true });
  const child = new Deno.Command(command, {
    args,
    env: testEnv.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let errText = "";
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      errText = (errText + decoder.decode(chunk)).slice(-20000);
    }
  })();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const signal = (name: Deno.Signal) => {
    try {
      child.kill(name);
    } catch {
      // Already gone.
    }
  };
  const exited = new AbortController();
  child.status.then(() => exited.abort());
  // Not ready in time: SIGTERM first so launch stops its Chromium and removes its profile;
  // SIGKILL only if it does not go within a few seconds (its watcher then ends Chromium).
  const readied = new AbortController();
  signalOrTimeout(readied.signal, 60_000).then(async (ready) => {
    if (ready) return;
    signal("SIGTERM");
    if (!(await signalOrTimeout(exited.signal, 5_000))) signal("SIGKILL");
  });
  try {
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) {
        const status = await child.status;
        throw new Error(`browser launch exited (${status.code}) before ready:\n${errText}`);
      }
      buffered += value;
    }
  } finally {
    readied.abort();
  }
  const ready = JSON.parse(buffered.split("\n")[0]);
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return {
    ready,
    stderr: () => errText,
    async stop() {
      signal("SIGTERM");
      return (await child.status).code;
    },
    launcher: child.pid,
    async kill(name) {
      signal(name);
      await child.status;
    },
  };
}
