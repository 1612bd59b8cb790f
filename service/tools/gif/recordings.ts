/**
 * Tab recordings for `gif_creator`: one per tab of a workspace, frames kept in memory only, every
 * recording bounded in frames, bytes per frame, bytes per recording, bytes across all recordings,
 * idle time (the page showed nothing new) and total time. Whichever bound is reached stops the
 * recording and is kept as its reason. `Recordings` is service-wide state: the daemon builds one.
 *
 * A recording samples the tab at an interval; a frame the same as the one before is not kept
 * (its time goes to the frame before), so a still page costs nothing.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";

const KIB = 1024;
const MIB = 1024 * KIB;

/** The service-wide bounds (not settable per recording). */
export const GIF_LIMITS = {
  /** Bytes one frame (a JPEG) may take. */
  frameBytes: 512 * KIB,
  /** Bytes one recording's frames may take. */
  recordingBytes: 32 * MIB,
  /** Bytes all recordings' frames may take together. */
  totalBytes: 96 * MIB,
  /** Recordings kept at once, across workspaces (stopped ones count until cleared). */
  recordings: 16,
} as const;

/** The bounds one recording may set (options), with their defaults and allowed ranges. */
export const RECORDING_OPTIONS = {
  maxFrames: { default: 100, min: 1, max: 300 },
  intervalMs: { default: 500, min: 100, max: 5_000 },
  idleMs: { default: 120_000, min: 1_000, max: 600_000 },
  maxDurationMs: { default: 300_000, min: 1_000, max: 600_000 },
  maxSide: { default: 800, min: 200, max: 1_280 },
} as const;

/** One recording's settings: the bounds above, and whether exports mark clicks. */
export type RecordingOptions = { [K in keyof typeof RECORDING_OPTIONS]: number } & {
  showClickIndicators: boolean;
};

/** Why a recording stopped. */
export type StopReason =
  | "stopped"
  | "frame_limit"
  | "frame_bytes"
  | "recording_bytes"
  | "total_bytes"
  | "idle"
  | "max_duration"
  | "tab_gone"
  | "capture_failed";

/** What each reason means, for the model. */
export const STOP_REASONS: Record<StopReason, string> = {
  stopped: "you stopped it",
  frame_limit: "it reached its frame limit (options.maxFrames)",
  frame_bytes: `a frame was over ${
    GIF_LIMITS.frameBytes / KIB
  } KiB (use a smaller options.maxSide)`,
  recording_bytes: `its frames reached ${GIF_LIMITS.recordingBytes / MIB} MiB`,
  total_bytes: `all recordings together reached ${GIF_LIMITS.totalBytes / MIB} MiB (clear some)`,
  idle: "the page showed nothing new for options.idleMs",
  max_duration: "it ran for options.maxDurationMs",
  tab_gone: "the tab closed or is no longer yours",
  capture_failed: "the tab could not be captured several times in a row",
};

/** A point in a frame's pixels. */
export interface Point {
  x: number;
  y: number;
}

/**
 * One frame: a JPEG, when it was taken (ms after the recording started), and where pointer
 * presses landed since the frame before.
 */
export interface Frame {
  jpeg: Uint8Array;
  width: number;
  height: number;
  at: number;
  clicks?: Point[];
  /** Why regions of this frame were painted over (decision 0300), each reason once. */
  withheld?: string[];
}

/** What a capture returns: a frame, or null when the tab cannot be shown now. */
export type Capture = () => Promise<Omit<Frame, "at"> | null>;

/** A tab closed or the capture failed in a way that will not pass. */
export class TabGone extends Error {}

/** Captures failing in a row before a recording gives up. */
const MAX_FAILURES = 5;

/** One tab's recording. */
export class Recording {
  state: "recording" | "stopped" = "recording";
  reason?: StopReason;
  readonly frames: Frame[] = [];
  bytes = 0;
  readonly startedAt: number;
  stoppedAt?: number;
  #lastChangeAt: number;
  #failures = 0;
  #wake = new AbortController();

  constructor(
    readonly options: RecordingOptions,
    private readonly capture: Capture,
    private readonly room: () => number,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.#lastChangeAt = this.startedAt;
  }

  /** Milliseconds recorded so far (up to the stop). */
  get durationMs(): number {
    return (this.stoppedAt ?? this.now()) - this.startedAt;
  }

  /** Stops the recording, keeping its frames; the first reason stays. */
  stop(reason: StopReason): void {
    if (this.state === "stopped") return;
    this.state = "stopped";
    this.reason = reason;
    this.stoppedAt = this.now();
    this.#wake.abort();
  }

  /** Takes one sample: checks the time bounds, captures, keeps the frame if it is new. */
  async tick(): Promise<void> {
    const now = this.now();
    if (now - this.startedAt >= this.options.maxDurationMs) return this.stop("max_duration");
    if (now - this.#lastChangeAt >= this.options.idleMs) return this.stop("idle");
    let shot: Awaited<ReturnType<Capture>>;
    try {
      shot = await this.capture();
      this.#failures = 0;
    } catch (error) {
      if (error instanceof TabGone) return this.stop("tab_gone");
      if (++this.#failures >= MAX_FAILURES) this.stop("capture_failed");
      return;
    }
    if (!shot || this.state !== "recording") return;
    this.#keep({ ...shot, at: this.now() - this.startedAt });
  }

  #keep(frame: Frame): void {
    const last = this.frames.at(-1);
    // A click is worth a frame of its own even when the page did not change.
    if (last && !frame.clicks?.length && sameBytes(last.jpeg, frame.jpeg)) return;
    if (frame.jpeg.length > GIF_LIMITS.frameBytes) return this.stop("frame_bytes");
    if (this.bytes + frame.jpeg.length > GIF_LIMITS.recordingBytes) {
      return this.stop("recording_bytes");
    }
    if (frame.jpeg.length > this.room()) return this.stop("total_bytes");
    this.frames.push(frame);
    this.bytes += frame.jpeg.length;
    this.#lastChangeAt = this.startedAt + frame.at;
    if (this.frames.length >= this.options.maxFrames) this.stop("frame_limit");
  }

  /** Samples every `intervalMs` until stopped. */
  async run(): Promise<void> {
    while (this.state === "recording") {
      const began = this.now();
      await this.tick();
      if (this.state !== "recording") return;
      await pause(Math.max(0, this.options.intervalMs - (this.now() - began)), this.#wake.signal);
    }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A recording refused at its start: the message says which bound. */
export class RecordingRefused extends Error {}

/** Every recording of the service, by workspace and tab. */
export class Recordings {
  #byWorkspace = new Map<Workspace, Map<number, Recording>>();

  /** `released` tells a workspace that is gone: its recordings are dropped. */
  constructor(private readonly released: (workspace: Workspace) => boolean) {}

  /** Bytes held by every recording. */
  get totalBytes(): number {
    let total = 0;
    for (const tabs of this.#byWorkspace.values()) {
      for (const recording of tabs.values()) total += recording.bytes;
    }
    return total;
  }

  /** How many recordings are kept. */
  get size(): number {
    this.#sweep();
    let count = 0;
    for (const tabs of this.#byWorkspace.values()) count += tabs.size;
    return count;
  }

  /** The tab's recording, if any. */
  get(workspace: Workspace, tabId: number): Recording | undefined {
    this.#sweep();
    return this.#byWorkspace.get(workspace)?.get(tabId);
  }

  /**
   * Starts recording a tab, replacing a stopped recording of it. Refused while the tab is
   * recording, or when the service keeps its most recordings or bytes.
   */
  start(
    workspace: Workspace,
    tabId: number,
    options: RecordingOptions,
    capture: Capture,
    now: () => number = Date.now,
  ): Recording {
    const previous = this.get(workspace, tabId);
    if (previous?.state === "recording") {
      throw new RecordingRefused("this tab is already being recorded");
    }
    if (previous) this.clear(workspace, tabId);
    if (this.size >= GIF_LIMITS.recordings) {
      throw new RecordingRefused(
        `the service keeps at most ${GIF_LIMITS.recordings} recordings; clear one first`,
      );
    }
    if (this.totalBytes >= GIF_LIMITS.totalBytes) {
      throw new RecordingRefused(
        `recordings already hold ${GIF_LIMITS.totalBytes / MIB} MiB, the limit; clear one first`,
      );
    }
    const room = () => GIF_LIMITS.totalBytes - this.totalBytes;
    const recording = new Recording(options, capture, room, now);
    let tabs = this.#byWorkspace.get(workspace);
    if (!tabs) this.#byWorkspace.set(workspace, tabs = new Map());
    tabs.set(tabId, recording);
    return recording;
  }

  /** Stops and forgets the tab's recording; true if there was one. */
  clear(workspace: Workspace, tabId: number): boolean {
    const tabs = this.#byWorkspace.get(workspace);
    const recording = tabs?.get(tabId);
    if (!tabs || !recording) return false;
    recording.stop("stopped");
    tabs.delete(tabId);
    if (tabs.size === 0) this.#byWorkspace.delete(workspace);
    return true;
  }

  /** Stops and forgets every recording of released workspaces. */
  #sweep(): void {
    for (const [workspace, tabs] of this.#byWorkspace) {
      if (!this.released(workspace)) continue;
      for (const recording of tabs.values()) recording.stop("tab_gone");
      this.#byWorkspace.delete(workspace);
    }
  }
}
