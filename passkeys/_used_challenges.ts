// The default record of used challenges: this process's memory, each
// challenge kept until it expires, so a second answer to it is refused
// even when the first one's handler threw and session() saved nothing.
import { HttpError } from "../http_error/mod.ts";
import type { UsedChallengeStore } from "./mod.ts";

/** The most challenges remembered at once (about 10 MiB). */
export const MAX_USED_CHALLENGES = 100_000;

export function createMemoryUsedChallenges(): UsedChallengeStore {
  // Insertion order is expiry order for one createPasskeys() (one ttl).
  const used = new Map<string, number>();
  return {
    use(challenge, expiresAt) {
      const now = Date.now();
      for (const [key, expires] of used) {
        if (expires > now) break;
        used.delete(key);
      }
      if (used.has(challenge)) return false;
      if (used.size >= MAX_USED_CHALLENGES) {
        // Refused rather than forgetting one that could then be replayed.
        throw new HttpError(
          503,
          `Passkeys: ${MAX_USED_CHALLENGES} challenges answered within their lifetime; try again shortly`,
        );
      }
      used.set(challenge, expiresAt);
      return true;
    },
  };
}
