/**
 * The suite's own run: `deno test --parallel` with one test file more at a time than the machine
 * has cores (decision 0510). A test file spends much of its time waiting on its processes and on
 * Chromium rather than computing, so one file per core leaves cores idle; `DENO_JOBS`, when set,
 * is used as it is (`test:stress` sets it to the number of cores, its busy loops taking the rest).
 *
 * @module
 */

const cores = navigator.hardwareConcurrency || 2;
const jobs = Deno.env.get("DENO_JOBS") ?? String(cores + 1);

const suite = new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--parallel", ...Deno.args],
  env: { DENO_JOBS: jobs },
  stdin: "null",
}).spawn();
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  Deno.addSignalListener(signal, () => {
    try {
      suite.kill(signal);
    } catch {
      // Already gone.
    }
  });
}
Deno.exit((await suite.status).code);
