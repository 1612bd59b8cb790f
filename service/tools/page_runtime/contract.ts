/**
 * The contract between the page runtime and the service (decision 0320): every method the
 * service calls as `__ghostlight.<method>(...)`, with its arguments and what it answers, the
 * shapes of those answers, and the role tables both sides read. The runtime's dispatch table
 * (`api.ts`) is declared as {@linkcode PageMethods} and the service's call helper
 * (`page/frames.ts`) takes its method names, argument lists and result types from it, so a
 * field renamed here, or on either side alone, fails the type check.
 *
 * Both sides load this module: it is bundled into the page and type-checked with the service,
 * so it names no DOM type and imports nothing but other DOM-free modules (the architecture test
 * holds it to that).
 *
 * @module
 */

import type { FindSpec } from "../page/rank.ts";
import type { SecretDigest } from "../page/secret_digest.ts";

// ---- Roles -------------------------------------------------------------------------------------

/** Roles the user acts on. */
export const INTERACTIVE: ReadonlySet<string> = new Set([
  "link",
  "button",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "combobox",
  "listbox",
  "option",
  "slider",
  "spinbutton",
  "switch",
  "tab",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "treeitem",
  "gridcell",
]);

/** The role the runtime gives script-made controls (a pointer cursor, an `onclick`). */
export const SCRIPT_CONTROL = "generic-clickable";

/** The role as shown to the model: script-made controls are simply `clickable`. */
export function shownRole(role: string): string {
  return role === SCRIPT_CONTROL ? "clickable" : role;
}

/** The roles of what the user acts on as the outline shows them (script-made controls too). */
export const INTERACTIVE_SHOWN: ReadonlySet<string> = new Set([
  ...INTERACTIVE,
  shownRole(SCRIPT_CONTROL),
]);

/** Table cells: a row's children in the outline that make it a table row. */
export const CELL_ROLES: ReadonlySet<string> = new Set([
  "cell",
  "gridcell",
  "columnheader",
  "rowheader",
]);

/** Roles named by the text inside them. */
export const NAME_FROM_CONTENT: ReadonlySet<string> = new Set([
  "button",
  "link",
  "heading",
  "option",
  "cell",
  "listitem",
  "gridcell",
  "columnheader",
  "rowheader",
  "tab",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "treeitem",
  "checkbox",
  "radio",
  "switch",
  "tooltip",
  "summary",
  "legend",
  "caption",
  "label",
]);

/** Roles that may hold controls; holding one, they are not named by their content. */
export const CONTAINER_ROLES: ReadonlySet<string> = new Set([
  ...CELL_ROLES,
  "listitem",
  SCRIPT_CONTROL,
]);

/** Roles a value can be put into. */
export const FILLABLE: ReadonlySet<string> = new Set([
  "textbox",
  "searchbox",
  "combobox",
  "spinbutton",
  "listbox",
  "checkbox",
  "radio",
  "switch",
  "slider",
  "radiogroup",
]);

/** The kinds of field a fill turns on or off rather than putting text in (`FieldFill.kind`). */
export const TOGGLED_KINDS: ReadonlySet<string> = new Set(["checkbox", "radio", "switch"]);

/**
 * Roles a message to the model may name as they are; a page can write any word into `role`, so
 * others are not echoed.
 */
export const NAMEABLE_ROLES: ReadonlySet<string> = new Set([
  "button",
  "link",
  "heading",
  "img",
  "checkbox",
  "radio",
  "switch",
  "option",
  "textbox",
  "searchbox",
  "combobox",
  "listbox",
  "slider",
  "spinbutton",
  "tab",
  "menuitem",
  "cell",
  "row",
  "list",
  "listitem",
  "table",
  "dialog",
  "iframe",
  SCRIPT_CONTROL,
]);

// ---- What the runtime answers ------------------------------------------------------------------

/** An element's border box in viewport CSS pixels, and whether the user can see it. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
  visible: boolean;
  inViewport: boolean;
}

/** A point in viewport CSS pixels. */
export interface Point {
  x: number;
  y: number;
}

/** A ref's element as the service sees it. */
export interface Described {
  role: string;
  name: string;
  value?: string;
  states?: string[];
  enabled: boolean;
  box: Box | null;
}

/** An element as a receipt names it. */
export interface ReceiptElement {
  role: string;
  name: string;
  tag: string;
  disabled?: boolean;
  value?: string;
}

/** A frame Ghostlight's world cannot enter, under a point: its element, and the point inside it. */
export interface FrameUnder {
  /** The iframe element's id in this world's registry. */
  id: number;
  /** The point in the frame's own viewport CSS pixels. */
  x: number;
  y: number;
}

/** A frame this world cannot enter, and where it shows in this world's viewport. */
export interface FrameShown {
  /** The frame's element's id in this world's registry. */
  id: number;
  /** Its border box in this world's viewport CSS pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Where its content's (0, 0) is in this world's viewport, and its CSS pixels' size there. */
  originX: number;
  originY: number;
  scale: number;
}

/** The page before an action. */
export interface Before {
  url: string;
  title: string;
  n: number;
  el?: ReceiptElement;
  hidden: boolean;
  focus?: ReceiptElement;
}

/** The page once an action's effects settled, or the wait for that ran out. */
export interface After {
  url: string;
  title: string;
  n: number | null;
  rendered: boolean;
  settled: boolean;
  ready: string;
  focus?: ReceiptElement;
  changed: ReceiptElement[];
  hidden: boolean;
  /** The destination of a navigation to another document the action started. */
  navigating?: string;
  /** The wait ran out while the page was still mutating (or rendered no frame). */
  busy?: true;
  /**
   * The action pressed a button on this document's own content and no press reached the page
   * within the wait: the browser dropped it (it answers a dropped press as if delivered).
   */
  pressLost?: true;
  /**
   * The action's press reached the page but the release of its button did not, within the wait:
   * the browser answers input before the page has heard it, and may have dropped the release.
   */
  releaseLost?: true;
  /**
   * The control for which the browser refused to submit a form during the action, with its
   * validation message (redacted like a fill's).
   */
  refused?: ReceiptElement & { message: string };
  /**
   * Whether the frame still shows this world's document when the report is made (`current()`):
   * the settle read after an action's input needs no look at the frame tree (decision 0243).
   */
  current: boolean;
}

/** A ref's element made ready for a pointer action, and the page before it. */
/**
 * Where a pointer action on an element lands: a point of its own boxes, in the viewport of the
 * outermost window the world can reach, that lies inside every viewport on the way and where a
 * hit test finds the element or something inside it (decision 0410).
 */
export interface Aim {
  /** Null when no part of the element can be brought into view. */
  point: Point | null;
  /** What a hit test finds at the point instead of the element (its tag and label), or null. */
  hit: string | null;
  /**
   * Whether what was hit holds the element (the element takes no pointer input, or lets it
   * through) rather than lying on top of it.
   */
  around: boolean;
  /**
   * The element is in a frame shown in perspective (a 3D transform that is not flat): where its
   * points appear on screen is not computed, so there is no point (decision 0490).
   */
  tilted?: boolean;
  /**
   * Asked `still` (the page not to be scrolled): scrolling could help a pointer reach the
   * element, so the aim answered is where it lands now, not the best there is (decision 0780).
   */
  scrollHelps?: boolean;
}

/** Everything a pointer action on an element needs, from one visit (decision 0239). */
export interface Prepared {
  described: Described | null;
  /** Where a pointer action lands, as {@linkcode Aim} says; null when it cannot be aimed at. */
  point: Point | null;
  /** Whether there is a point to act at (a condition of a page program reads it). */
  aimed: boolean;
  /** No point because the element is in a frame shown in perspective ({@linkcode Aim}). */
  tilted?: boolean;
  /** Whether what is at the point holds the element rather than lying on top of it. */
  around: boolean;
  /**
   * Whether the point lands in a frame this world cannot enter: then the service decides that
   * frame before any input goes there, so the action does not go in the one message.
   */
  framed: boolean;
  cover: string | null;
  before: Before;
}

/** Why a field could not take a value. */
export type Refusal =
  | {
    error:
      | "gone"
      | "disabled"
      | "fieldset_disabled"
      | "hidden"
      | "readonly"
      | "radio_off"
      | "held";
  }
  | {
    error: "no_option";
    options: { value: string; label: string }[];
    /** The field is a select that takes several options (a JSON list of them). */
    multiple?: boolean;
  }
  | { error: "not_settable"; type: string }
  | { error: "not_a_field"; role: string }
  | { error: "not_boolean"; role: string };

/** What filling one field did, read back after the page's own handlers ran. */
export interface FieldFill {
  kind: string;
  /** The field now; null when the page took it out of the document in its handlers. */
  after: Described | null;
  /** Whether the field holds the value asked for. */
  kept: boolean;
  /** The field is secret: its value is not shown, not even the one given. */
  secret?: boolean;
  /** The page marks the field invalid now, with its message ("" when it gives none). */
  invalid?: string;
  /** The number of the radio chosen when a group was given a radio's label. */
  chose?: number;
  /** The page's URL, when the field was filled alone in the tab's top frame. */
  url?: string;
  /** The field (and any label of it) could not be seen when it was set. */
  unseen?: boolean;
  /**
   * Where the top document began to navigate while the field was set (its handlers set
   * `location`), when it was filled alone in the top frame: the field is being left.
   */
  leaving?: string;
}

/** What filling one field did, or why it could not take the value. */
export type FillResult = Refusal | FieldFill;

/** Where one label went, by element number. */
export type LabelMatch =
  | { id: number }
  | { unmatched: "none" }
  | { unmatched: "ambiguous"; candidates: { id: number; role: string; name: string }[] };

/**
 * What `fillByLabels` did: nothing when this world is not the one the service knows (`stale`) or
 * the page has frames of its own to read (`framed`), else each label's match and the matched
 * fields' fills in the labels' order.
 */
export type ByLabels =
  | { stale: true }
  | { framed: true }
  | { url: string; matches: LabelMatch[]; results: FillResult[] };

/** A file as the service sends it. */
export interface FilePayload {
  name: string;
  type: string;
  /** The bytes, base64. */
  data: string;
}

/** A file as the page holds it afterwards. */
export interface HeldFile {
  name: string;
  size: number;
  type: string;
}

/** What putting the files did, or why it could not. */
export type PutResult =
  | {
    kind: "input";
    target: ReceiptElement | null;
    files: HeldFile[];
    accept: string;
  }
  | { kind: "drop"; target: ReceiptElement | null; accepted: boolean; files: HeldFile[] }
  | { error: "gone" | "disabled" | "nothing_there" }
  | { error: "not_multiple"; target: ReceiptElement | null };

/** The readable text of a page, cut to the characters asked for. */
export interface Readable {
  url: string;
  title: string;
  text: string;
  /** Characters of the text before the cut. */
  length: number;
  scope: string;
  /** Characters of the whole page's text. */
  whole: number;
}

/** What to wait for. */
export interface WaitSpec {
  selector?: string;
  text?: string;
  state: "visible" | "present" | "gone";
}

/** How the page stands against a wait. */
export type WaitCheck =
  | { met: boolean; present: number; visible: number; first?: ReceiptElement }
  | { error: "bad_selector" };

/** What to walk and how much of it. */
export interface SnapshotOptions {
  /** `interactive` keeps only controls. */
  filter?: string;
  depth?: number;
  limit?: number;
  /** Adds the words find matches on (title, name and id attributes, descriptions). */
  hints?: boolean;
  /** The number of the element to start at, instead of the body. */
  root?: number;
  /**
   * Send only the nodes of the outline's first display lines, as many as `maxChars` can show
   * (`flat`: as the interactive filter shows them), and count the rest (decision 0441).
   */
  cut?: { maxChars: number; flat: boolean };
  /**
   * Leave the title out (""): find's walks, whose callers show no title, so the page's secret
   * fields are not walked for its redaction (decision 0540).
   */
  untitled?: boolean;
}

/**
 * What a cut walk left out: its display lines, nodes and elements (nodes that get a ref), and
 * the biggest sections of the outline walked, for the advice on narrowing the read. `walkedToEnd`
 * false says the walk stopped once the cut was certain (decision 0680): the counts are then of
 * the part walked, so the page has at least that many more.
 */
export interface OutlineRest {
  lines: number;
  nodes: number;
  elements: number;
  sections: SnapshotNode[];
  walkedToEnd: boolean;
}

/** One line of the outline; `id` 0 for text runs with no element to point at. */
export interface SnapshotNode {
  id: number;
  depth: number;
  role: string;
  name: string;
  value?: string;
  states?: string[];
  placeholder?: string;
  href?: string;
  hints?: string;
  /** A cross-origin frame, to be read in its own world. */
  frame?: boolean;
  /** Where the element is, measured as the walk answered (find's exact matches, 0440). */
  box?: Box | null;
}

/** A node's fields beyond the four every node has. */
export type NodeMore = Omit<SnapshotNode, "id" | "depth" | "role" | "name">;

/**
 * A node as a walk's answer carries it to the service (decision 0620): its four common fields by
 * place, the role as its place in the answer's `roles`, then the others when it has any.
 */
export type PackedNode =
  | [id: number, depth: number, role: number, name: string]
  | [id: number, depth: number, role: number, name: string, more: NodeMore];

/** A walk's answer as it crosses to the service: {@linkcode Snapshot} with its nodes packed. */
export type PackedSnapshot =
  | (Omit<Extract<Snapshot, { token: string }>, "nodes" | "rest"> & {
    /** Each role the packed nodes name, once. */
    roles: string[];
    nodes: PackedNode[];
    rest?: Omit<OutlineRest, "sections"> & { sections: PackedNode[] };
  })
  | { gone: true };

/** The outline of a document, or `gone` when the root element is no longer there. */
export type Snapshot =
  | {
    token: string;
    url: string;
    title: string;
    nodes: SnapshotNode[];
    /** Numbers of the cross-origin frames met. */
    frames: number[];
    /** Nodes left out beyond the limit. */
    omitted: number;
    /** Nodes left out beyond the depth. */
    cutByDepth: number;
    /** Set when `cut` left nodes out. */
    rest?: OutlineRest;
  }
  | { gone: true };

/** The document's own facts: its URL, title, HTTP status and whether this world still shows it. */
export interface PageInfo {
  url: string;
  title: string;
  status: number;
  current: boolean;
}

/** Where the caption sits. */
export type CaptionPosition = "top" | "bottom";

/** `value`, with whether the frame still shows the world's document (decision 0246). */
export interface Vouched<T> {
  current: boolean;
  value: T;
}

/** Where the page and the inner scroller under a point stand (`scrollProbe`, main world). */
export interface ScrollProbe {
  page: [number, number];
  hidden: boolean;
  centre: [number, number];
  inner: { name: string; at: [number, number] } | null;
}

// ---- The methods -------------------------------------------------------------------------------

/**
 * What `__ghostlight` holds in a world: each method with its arguments and its answer. Written
 * as function-typed properties, not methods, so each argument is checked strictly both ways.
 */
export interface PageMethods {
  token: string;
  box: (id: number) => Box | null;
  boxes: (list: number[]) => (Box | null)[];
  contentOrigin: (id: number) => Point | null;
  aim: (id: number, still?: boolean) => Aim | null;
  coveredBy: (id: number) => string | null;
  describe: (id: number, where?: boolean) => Described | null;
  /** The element itself: read by reference (`returnByValue: false`), never by value. */
  element: (id: number) => unknown;
  fill: (id: number, value: unknown, alone?: boolean) => Promise<FillResult>;
  fillByLabels: (
    expected: string,
    labels: string[],
    values: unknown[],
    limit: number,
    budgetMs: number,
  ) => Promise<ByLabels>;
  fillMany: (fields: [id: number, value: unknown][], budgetMs: number) => Promise<FillResult[]>;
  findNodes: (spec: FindSpec & { limit: number }) => Snapshot;
  focusedFrame: () => FrameUnder | null;
  frameAt: (x: number, y: number) => FrameUnder | null;
  framesShown: () => FrameShown[] | null;
  observeBefore: (key: string, options: { point: Point | null; keep: number }) => Before;
  /** A walk's answer as JSON text of its {@linkcode PackedSnapshot}. */
  packWalk: (walk: Snapshot) => string;
  pageInfo: (maxTitle: number) => PageInfo;
  prepareAction: (key: string, id: number, options: { keep: number }) => Prepared;
  quietCheck: (quietMs: number, sliceMs: number) => Promise<{ quiet: boolean; mutations: number }>;
  readable: (whole: boolean, limit: number) => Readable;
  redactResult: (text: string) => { text: string; url: string };
  scrollTo: (id: number) => Box | null;
  secretDigests: (base: number, moduli: readonly [number, number]) => SecretDigest[];
  settle: (
    key: string,
    options: { quietMs: number; maxMs: number; presses?: number },
  ) => Promise<After>;
  showCaption: (
    text: string,
    options: { position: "auto" | CaptionPosition; durationMs: number },
  ) => { position: CaptionPosition };
  snapshot: (options: SnapshotOptions) => Snapshot;
  putFiles: (
    id: number | null,
    point: Point | null,
    files: FilePayload[],
    mode: "auto" | "drop",
  ) => PutResult;
  submitControl: (id: number) => number | null;
  vouch: <T>(value: T) => Vouched<T>;
  waitCheck: (spec: WaitSpec, sliceMs: number) => Promise<WaitCheck>;
}

/** The names of the runtime's methods (every member but its token). */
export type PageMethod = Exclude<keyof PageMethods, "token">;

/**
 * The self-contained functions that run in the page's main world (`main_world.ts`), with their
 * arguments and answers; those read by reference (an object to call into) answer `unknown`.
 * `main_world.ts` is checked against it, and the service's `mainWorldCall` takes names, argument
 * lists and answers from it.
 */
export interface MainWorldFunctions {
  serialize: (this: unknown) => unknown;
  scrollProbe: (point: Point | null) => ScrollProbe;
  scrollSettled: () => Promise<[number, number]>;
  pageHidden: () => boolean;
  readyState: () => "loading" | "interactive" | "complete";
  windowSize: () => [number, number, number, number];
  windowSizeOnceMoved: (
    from: [number, number],
    maxMs: number,
  ) => Promise<[number, number, number, number]>;
  textTarget: () => unknown;
  pageWindow: () => unknown;
}

/** What replaces a secret, in the page and in the service alike. */
export const REDACTED = "[redacted]";
