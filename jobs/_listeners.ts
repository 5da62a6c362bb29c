/**
 * Listeners of one store object, per queue: a job added or handed back
 * through this object wakes this process's idle workers at once (other
 * processes find it at their next poll).
 *
 * @module
 */

/** Per-queue listeners with `notify` and `subscribe`. */
export function localListeners(): {
  notify(queue: string): void;
  subscribe(queue: string, listener: () => void): () => void;
} {
  const byQueue = new Map<string, Set<() => void>>();
  return {
    notify(queue) {
      const set = byQueue.get(queue);
      if (set === undefined) return;
      for (const listener of set) listener();
    },
    subscribe(queue, listener) {
      let set = byQueue.get(queue);
      if (set === undefined) byQueue.set(queue, set = new Set());
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) byQueue.delete(queue);
      };
    },
  };
}
