/**
 * Makes sure Chromium is installed before the tests or the demo run: uses the installed one,
 * installs Debian's `chromium` when running as root with apt, or says exactly what to install.
 *
 * @module
 */

async function onPath(name: string): Promise<string | null> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const info = await Deno.stat(`${dir}/${name}`);
      if (info.isFile) return `${dir}/${name}`;
    } catch {
      // Not here.
    }
  }
  return null;
}

async function run(command: string, args: string[]): Promise<void> {
  const status = await new Deno.Command(command, {
    args,
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) throw new Error(`${command} ${args.join(" ")} failed (${status.code})`);
}

const found = await onPath("chromium");
if (found) Deno.exit(0);

if (Deno.uid() === 0 && await onPath("apt-get")) {
  console.error("Chromium is missing; installing Debian's chromium package…");
  await run("apt-get", ["update", "-qq"]);
  await run("apt-get", ["install", "-y", "-qq", "chromium"]);
  if (await onPath("chromium")) Deno.exit(0);
}
console.error(
  "Ghostlight's tests and demo need Chromium as 'chromium' on PATH.\n" +
    "  Debian/Ubuntu: sudo apt-get install chromium\n" +
    "  Fedora:        sudo dnf install chromium\n" +
    "  Arch:          sudo pacman -S chromium\n" +
    "Then run the command again.",
);
Deno.exit(1);
