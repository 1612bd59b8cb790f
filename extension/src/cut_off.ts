/**
 * Commands in flight that an event can end before Chrome answers them (a crash, a frame's session
 * detaching), kept per key so the event ends exactly its own.
 *
 * @module
 */

/** The commands waiting under each key, and how to end each. */
export class CutOffs<K> {
  #waiting = new Map<K, Set<() => void>>();

  /** Ends every command still waiting under `key`, each with its own error. */
  cut(key: K): void {
    for (const end of [...this.#waiting.get(key) ?? []]) end();
  }

  /** Runs `send`, rejecting with `error()` instead if {@linkcode cut} reaches `key` first. */
  race<T>(key: K, send: () => Promise<T>, error: () => Error): Promise<T> {
    let waiting = this.#waiting.get(key);
    if (!waiting) this.#waiting.set(key, waiting = new Set());
    const watched = waiting;
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        watched.delete(ended);
        if (watched.size === 0 && this.#waiting.get(key) === watched) this.#waiting.delete(key);
      };
      const ended = () => (done(), reject(error()));
      watched.add(ended);
      send().then((value) => (done(), resolve(value)), (failure) => (done(), reject(failure)));
    });
  }
}
