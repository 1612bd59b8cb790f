/**
 * The Deno each release carries, per platform: the npm registry's platform package of the pinned
 * Deno (the packages the `deno` npm package itself installs from), its tarball's integrity
 * recorded here, and where the binary lies in it. Tarballs are fetched with npm's own client
 * (`npm pack`) once into a cache folder and checked against the recorded integrity every time they
 * are used; a tarball that does not match is refused and removed (decision 0350).
 *
 * @module
 */

/** The Deno version every release carries: the one the project is developed and tested with. */
export const DENO_VERSION = "2.9.6";

/** One platform a release is built for, named as Node names it (`process.platform-arch`). */
export interface DenoPlatform {
  /** The npm package holding that platform's Deno, at {@linkcode DENO_VERSION}. */
  package: string;
  /** The package tarball's integrity as the registry publishes it (`npm view … dist.integrity`). */
  integrity: string;
  /** The binary's file name inside the package's folder. */
  binary: string;
  /** The operating system, as MCPB manifests name it. */
  os: "linux" | "darwin" | "win32";
  /** The first bytes of the binary: ELF, Mach-O (64-bit) or PE. */
  magic: number[];
}

const ELF = [0x7f, 0x45, 0x4c, 0x46];
const MACH_O_64 = [0xcf, 0xfa, 0xed, 0xfe];
const PE = [0x4d, 0x5a];

/** The platforms a release is built for. */
export const PLATFORMS = {
  "linux-x64": {
    package: "@deno/linux-x64-glibc",
    integrity:
      "sha512-3md4TKLCuzsLDmfOoC5KN7NAZaxSVkMgm64vg6foD00JBADCpYS2/5QqXfzgnP5ZQz3iLP9vBQJtEgc116OAoQ==",
    binary: "deno",
    os: "linux",
    magic: ELF,
  },
  "darwin-arm64": {
    package: "@deno/darwin-arm64",
    integrity:
      "sha512-V8uO1Aolrl/yvdMb5lOtgtigs8YuZBjrOrgviVMiYkQ0swymFfzkae1wZak4Xi24t7vf7d/eiMb/7ryjjVm+tg==",
    binary: "deno",
    os: "darwin",
    magic: MACH_O_64,
  },
  "darwin-x64": {
    package: "@deno/darwin-x64",
    integrity:
      "sha512-tPi3CWPRdjW1MaWlvWjORE7Ass5SADdWdj1BF1Q1PEdzi+5u/mC5YhmZzniMiPr81PpaFeqjXaLAsfb8lFsZ0Q==",
    binary: "deno",
    os: "darwin",
    magic: MACH_O_64,
  },
  "win32-x64": {
    package: "@deno/win32-x64",
    integrity:
      "sha512-qRGnmVz/Ea6UWPht/S3xFRK17UZ/ls38DSVfgGB17fpASLxPkksqzWUI/BzL9YYoOknYzfc94mySGyInZu/JXw==",
    binary: "deno.exe",
    os: "win32",
    magic: PE,
  },
} as const satisfies Record<string, DenoPlatform>;
export type Platform = keyof typeof PLATFORMS;

/** The platform this process runs on, or null when no release is built for it. */
export function hostPlatform(): Platform | null {
  const os = { linux: "linux", darwin: "darwin", windows: "win32" }[Deno.build.os as string];
  const arch = { x86_64: "x64", aarch64: "arm64" }[Deno.build.arch];
  const name = `${os}-${arch}`;
  return name in PLATFORMS ? name as Platform : null;
}

/** The platforms `--platform NAME|all` names (all when absent). */
export function choosePlatforms(requested: string | undefined): Platform[] {
  if (requested === undefined || requested === "all") return Object.keys(PLATFORMS) as Platform[];
  if (!(requested in PLATFORMS)) {
    throw new Error(`--platform takes all or one of ${Object.keys(PLATFORMS).join(", ")}`);
  }
  return [requested as Platform];
}

/** The npm-style integrity (`sha512-<base64>`) of `bytes`. */
async function integrityOf(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", bytes));
  let binary = "";
  for (const byte of digest) binary += String.fromCharCode(byte);
  return `sha512-${btoa(binary)}`;
}

/** The hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The cached tarball's file name for `platform`. */
function tarballName(platform: Platform): string {
  return `${PLATFORMS[platform].package.replace("@", "").replace("/", "-")}-${DENO_VERSION}.tgz`;
}

/**
 * The path of `platform`'s Deno package tarball in `cacheDir`, fetched with `npm pack` when it is
 * not there yet, and in every case checked against the recorded integrity.
 */
export async function denoTarball(platform: Platform, cacheDir: string): Promise<string> {
  const row = PLATFORMS[platform];
  const cached = `${cacheDir}/${tarballName(platform)}`;
  await Deno.mkdir(cacheDir, { recursive: true });
  if (!(await Deno.stat(cached).catch(() => null))) {
    const work = await Deno.makeTempDir({ dir: cacheDir, prefix: ".fetch-" });
    try {
      const output = await new Deno.Command("npm", {
        args: ["pack", "--silent", `${row.package}@${DENO_VERSION}`, "--pack-destination", work],
        stdin: "null",
      }).output();
      if (!output.success) {
        throw new Error(
          `npm pack ${row.package}@${DENO_VERSION} failed: ` +
            new TextDecoder().decode(output.stderr).trim(),
        );
      }
      // Renamed whole into place: a concurrent build sees the tarball complete or not at all.
      await Deno.rename(`${work}/${tarballName(platform)}`, cached);
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  }
  const found = await integrityOf(await Deno.readFile(cached));
  if (found !== row.integrity) {
    await Deno.remove(cached).catch(() => {});
    throw new Error(
      `${row.package}@${DENO_VERSION} does not match its recorded integrity (${found}); ` +
        "the cached copy was removed",
    );
  }
  return cached;
}

/**
 * Writes `platform`'s Deno binary to `target` (executable), from its checked tarball in
 * `cacheDir`; returns the binary's SHA-256.
 */
export async function writeDeno(
  platform: Platform,
  cacheDir: string,
  target: string,
): Promise<string> {
  const row = PLATFORMS[platform];
  const tarball = await denoTarball(platform, cacheDir);
  const work = await Deno.makeTempDir({ prefix: "ghostlight-deno-" });
  try {
    const output = await new Deno.Command("tar", {
      args: ["-xzf", tarball, "-C", work, `package/${row.binary}`],
      stdin: "null",
    }).output();
    if (!output.success) {
      throw new Error(`unpacking ${tarball}: ${new TextDecoder().decode(output.stderr).trim()}`);
    }
    await Deno.mkdir(target.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.copyFile(`${work}/package/${row.binary}`, target);
    await Deno.chmod(target, 0o755);
    return await sha256Hex(await Deno.readFile(target));
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}
