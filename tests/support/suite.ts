/**
 * The suite's own run: `deno test --parallel` with one test file more at a time than the machine
 * has cores (decision 0510). A test file spends much of its time waiting on its processes and on
 * Chromium rather than computing, so one file per core leaves cores idle; `DENO_JOBS`, when set,
 * is used as it is (`test:stress` sets it to the number of cores, its busy loops taking the rest).
 *
 * The longest files start first, the rest in Deno's own order after them (decision 0550): files
 * are taken in the order given, so a minute-long file started last would leave the other cores
 * idle while it alone ran on. Arguments, when given, choose the files and their order instead.
 *
 * The files are not type-checked here: `deno task check` checks them and the rest of the tree (CI
 * runs it first), and this run's own check, of another set of roots, found nothing in its cache and
 * took a minute of the suite's time doing it again.
 *
 * @module
 */

/**
 * The files that take longest on a two-core machine, longest first. A file missing here only
 * runs in its turn; one that no longer exists is left out.
 */
const LONGEST_FIRST = [
  "tests/governance_ask_test.ts",
  "tests/browser_fault_test.ts",
  "tests/governance_pixels_test.ts",
  "tests/request_filter_test.ts",
  "tests/role_keys_test.ts",
  "tests/governance_frames_test.ts",
  "tests/playwright_keys_test.ts",
];

const cores = navigator.hardwareConcurrency || 2;
const jobs = Deno.env.get("DENO_JOBS") ?? String(cores + 1);
const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The whole suite, the longest files first: Deno runs a file named twice once, where first named. */
function wholeSuite(): string[] {
  const present = LONGEST_FIRST.filter((file) => {
    try {
      return Deno.statSync(`${root}/${file}`).isFile;
    } catch {
      return false;
    }
  });
  return [...present.map((file) => `${root}/${file}`), root];
}

const suite = new Deno.Command(Deno.execPath(), {
  args: [
    "test",
    "-A",
    "--parallel",
    "--no-check",
    ...(Deno.args.length > 0 ? Deno.args : wholeSuite()),
  ],
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
