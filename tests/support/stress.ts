/**
 * `deno task test:stress`: the whole suite on a machine whose every core is busy. One busy loop
 * per core competes with the tests, the three processes and Chromium, as a shared CI runner or a
 * loaded laptop would; a test that waits on a sleep instead of an observable state fails here.
 * The loops stop when the suite ends, however it ends.
 *
 * @module
 */

const cores = navigator.hardwareConcurrency || 2;
const hogs = Array.from({ length: cores }, () =>
  new Deno.Command(Deno.execPath(), {
    args: ["eval", "for (;;) {}"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn());

function stopHogs(): void {
  for (const hog of hogs) {
    try {
      hog.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  Deno.addSignalListener(signal, () => {
    stopHogs();
    Deno.exit(130);
  });
}

console.log(`test:stress: ${cores} busy loop(s) running beside the suite`);
let code = 1;
try {
  const suite = new Deno.Command(Deno.execPath(), {
    args: ["task", "test", ...Deno.args],
    // One test file per core: the busy loops take the rest (decision 0510).
    env: { DENO_JOBS: Deno.env.get("DENO_JOBS") ?? String(cores) },
    stdin: "null",
  }).spawn();
  code = (await suite.status).code;
} finally {
  stopHogs();
  await Promise.all(hogs.map((hog) => hog.status));
}
Deno.exit(code);
