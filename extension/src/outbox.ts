/**
 * The worker's fair queue to the native port (decision 0570). Chrome takes every posted message at
 * once and delivers them in the order posted, so a tab that sends much would put every other tab's
 * answers behind its own backlog. Here each tab has a lane, and only
 * {@linkcode OUTBOX_WINDOW} frames at a time are in Chrome's hands beyond what the browser
 * connector says it has passed on to the service: the rest wait here, where the next frame is
 * chosen fairly.
 *
 * - The frames of no tab (hello, acknowledgements, the person's requests, a tab's opening) go
 *   first.
 * - Then the lanes take turns, one frame each; a lane whose next frame is an answer (a result, a
 *   sequence's lead) goes before lanes whose next frame is an event. Inside a lane the order is
 *   kept: a tab's events tell what its command did, and the service reads them in that order.
 *   Only the tab's pause notices go ahead of its lane, behind its earlier notices (decision
 *   0580): they tell how the tab is listened to, not what a command did, and a notice that its
 *   console or network is no longer listened to would otherwise wait behind the flood it ends.
 *   And an answer goes ahead of the events directly before it of a kind its tab is no longer
 *   listened to (decision 0630): a flood's events, which the service can take many seconds to
 *   read, and which the tab's reads already say were not all recorded; it stays behind every
 *   other event, and the events keep their order among themselves.
 * - A lane holds at most {@linkcode LANE_EVENTS} events. Beyond it a new event is dropped and
 *   counted on the last event waiting in the lane (`dropped`), which the service adds to what the
 *   tab's reads say was not recorded. Answers, a dialog's events, where a tab stands and
 *   the tab's pause notices are never dropped; they are bounded where they start (the service's
 *   commands in flight, the page's dialogs one at a time, one location per command).
 *
 * No Chrome API here: it is tested on its own.
 *
 * @module
 */

import {
  CONSOLE_PAUSED_EVENT,
  type FromExtension,
  NETWORK_PAUSED_EVENT,
  NEVER_DROPPED_EVENTS,
} from "../../shared/browser_protocol.ts";

/** Frames posted to the port that the connector has not yet said it passed on. */
export const OUTBOX_WINDOW = 16;
/** Events waiting in one tab's lane; beyond it a new one is dropped and counted. */
export const LANE_EVENTS = 256;

/**
 * The person's requests (the popup's and the panel's) waiting among the frames of no tab; beyond
 * it a new one is dropped and counted: its asker ends at its own timeout, saying the service did
 * not answer. The other frames of no tab (hello, acknowledgements, tab openings) are never dropped
 * and are bounded where they start.
 */
export const CONTROL_REQUESTS = 64;

/** Whose lane a frame waits in: a tab's id, or `null` for the frames of no tab. */
export type LaneKey = number | null;

interface Lane {
  frames: FromExtension[];
  /** Of `frames`, the events that may be dropped. */
  events: number;
  /** Of `frames`, the answers (and the tab's closing): the frames that are not events. */
  answers: number;
}

/**
 * Whether the kind of a tab's event `method` (its console, its network) is no longer listened to
 * now: the worker's meters say (decisions 0291, 0340).
 */
export type Unheard = (tabId: number, method: string) => boolean;

/** Whether a frame is an event of its tab (else an answer, or a tab's opening or closing). */
function isEvent(frame: FromExtension): boolean {
  return frame.type === "cdp_event" || frame.type === "tab_location";
}

/** Whether a frame tells that its tab's console or network is (no longer) listened to. */
function isPauseNotice(frame: FromExtension): boolean {
  return frame.type === "cdp_event" &&
    (frame.method === CONSOLE_PAUSED_EVENT || frame.method === NETWORK_PAUSED_EVENT);
}

/** Whether an event may be dropped when its lane is full. */
function droppable(frame: FromExtension): boolean {
  return frame.type === "cdp_event" && !NEVER_DROPPED_EVENTS.includes(frame.method) &&
    !isPauseNotice(frame);
}

/**
 * Counts one event dropped from a full lane on the last event waiting there that may be dropped
 * (a full lane has {@linkcode LANE_EVENTS} of them), so the count leaves with the lane's events.
 */
function countDrop(frames: FromExtension[]): void {
  for (let at = frames.length - 1; at >= 0; at--) {
    const frame = frames[at];
    if (frame.type === "cdp_event" && droppable(frame)) {
      frames[at] = { ...frame, dropped: (frame.dropped ?? 0) + 1 };
      return;
    }
  }
}

/**
 * The lane a frame goes to when its sender does not say: the tab it names, if any. A tab's opening
 * goes with the frames of no tab, ahead of every lane: the service must know the tab before its
 * events, and before the answer of the command that opened it, whose lane is not the new tab's.
 */
export function laneOf(frame: FromExtension): LaneKey {
  if (frame.type === "tab_created") return null;
  return "tab_id" in frame && typeof frame.tab_id === "number" ? frame.tab_id : null;
}

/** Per-tab lanes drained in turns into `post`, at most a window ahead of the connector. */
export class Outbox {
  #post: (frame: FromExtension) => void;
  #control: FromExtension[] = [];
  /** Of `#control`, the person's requests. */
  #requests = 0;
  /** Waiting lanes in turn order: the next to serve first. */
  #lanes = new Map<number, Lane>();
  #posted = 0;
  #passed = 0;
  /** Whether the connector counts what it passes on; until it says so, nothing waits. */
  #windowed = false;
  /** Events dropped by full lanes since this outbox began, for the tests and the bench. */
  dropped = 0;

  #unheard: Unheard;

  constructor(post: (frame: FromExtension) => void, unheard: Unheard = () => false) {
    this.#post = post;
    this.#unheard = unheard;
  }

  /** Queues `frame` in `lane` (by default the tab it names) and posts what the window allows. */
  put(frame: FromExtension, lane: LaneKey = laneOf(frame)): void {
    if (lane === null) {
      if (frame.type === "person" && this.#requests >= CONTROL_REQUESTS) {
        this.dropped++;
        return;
      }
      if (frame.type === "person") this.#requests++;
      this.#control.push(frame);
    } else {
      let waiting = this.#lanes.get(lane);
      if (!waiting) {
        waiting = { frames: [], events: 0, answers: 0 };
        this.#lanes.set(lane, waiting);
      }
      if (droppable(frame)) {
        if (waiting.events >= LANE_EVENTS) {
          countDrop(waiting.frames);
          this.dropped++;
          this.#drain();
          return;
        }
        waiting.events++;
      }
      if (!isEvent(frame)) waiting.answers++;
      if (isPauseNotice(frame)) {
        const behind = waiting.frames.findIndex((waits) => !isPauseNotice(waits));
        waiting.frames.splice(behind === -1 ? waiting.frames.length : behind, 0, frame);
      } else {
        waiting.frames.push(frame);
      }
    }
    this.#drain();
  }

  /** The connector has passed on `frames` of this port's frames in all. */
  passed(frames: number): void {
    this.#windowed = true;
    this.#passed = Math.max(this.#passed, frames);
    this.#drain();
  }

  /** Frames waiting here (not yet posted). */
  get waiting(): number {
    let count = this.#control.length;
    for (const lane of this.#lanes.values()) count += lane.frames.length;
    return count;
  }

  /**
   * Forgets every waiting frame: the service link they were for ended. Its commands' results
   * are acknowledged after the next hello instead (the `ended` frames).
   */
  clear(): void {
    this.#control = [];
    this.#requests = 0;
    this.#lanes.clear();
  }

  /** A new port: a new connector, which counts from zero and may not count at all. */
  reset(): void {
    this.clear();
    this.#posted = 0;
    this.#passed = 0;
    this.#windowed = false;
  }

  #drain(): void {
    while (!this.#windowed || this.#posted - this.#passed < OUTBOX_WINDOW) {
      const frame = this.#next();
      if (frame === undefined) return;
      this.#posted++;
      this.#post(frame);
    }
  }

  /**
   * Moves the lane's first answer ahead of the events directly before it of a kind its tab is no
   * longer listened to; the events before those, and their order, stay as they were.
   */
  #hurry(tabId: number, lane: Lane): void {
    const answer = lane.frames.findIndex((frame) => !isEvent(frame));
    let to = answer;
    while (to > 0) {
      const before = lane.frames[to - 1];
      if (before.type !== "cdp_event" || !droppable(before)) break;
      if (!this.#unheard(tabId, before.method)) break;
      to--;
    }
    if (to < answer) lane.frames.splice(to, 0, ...lane.frames.splice(answer, 1));
  }

  /** The next frame to post, taken from its queue; undefined when nothing waits. */
  #next(): FromExtension | undefined {
    const control = this.#control.shift();
    if (control !== undefined) {
      if (control.type === "person") this.#requests--;
      return control;
    }
    let chosen: number | undefined;
    for (const [key, lane] of this.#lanes) {
      if (lane.answers > 0) this.#hurry(key, lane);
      chosen ??= key;
      if (!isEvent(lane.frames[0])) {
        chosen = key;
        break;
      }
    }
    if (chosen === undefined) return undefined;
    const lane = this.#lanes.get(chosen)!;
    const frame = lane.frames.shift()!;
    if (droppable(frame)) lane.events--;
    if (!isEvent(frame)) lane.answers--;
    // Its turn is over: to the back, or gone when empty.
    this.#lanes.delete(chosen);
    if (lane.frames.length > 0) this.#lanes.set(chosen, lane);
    return frame;
  }
}
